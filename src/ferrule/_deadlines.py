"""Deadlines on the monotonic clock, kept to the letter: a caller's budget never runs out early.

uvloop's clock is cached once per loop turn in whole milliseconds and its timers round to them, so a
timeout set on it may fire up to a millisecond before its deadline; asyncio's need not. Whoever
waits against a deadline checks `time.monotonic()` when woken and waits again for what is left,
never less than `TIMER_FLOOR_S` (`timer_for`: a shorter timer fires at once on uvloop, and would spin).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import Any, TypeVar

F = TypeVar("F", bound="asyncio.Future[Any]")

TIMER_FLOOR_S = 0.001  # the shortest timer set against a deadline that has not passed


def timer_for(seconds: float) -> float:
    """The timeout to set for a wait of `seconds` still to go."""
    return max(seconds, TIMER_FLOOR_S)


async def wait_until(futures: Iterable[F], deadline: float | None) -> set[F]:
    """Wait for `futures` until `deadline` (monotonic; None: for ever). The ones still pending when it
    passes are returned, neither cancelled nor failed: the caller decides what becomes of them."""
    pending = {f for f in futures if not f.done()}
    while pending:
        if deadline is None:
            await asyncio.wait(pending)
            return set()
        now = time.monotonic()
        if now >= deadline:
            break
        _, pending = await asyncio.wait(pending, timeout=timer_for(deadline - now))
    return pending


__all__ = ["TIMER_FLOOR_S", "timer_for", "wait_until"]
