"""Waits against a deadline on the monotonic clock: never over before it, whatever the loop's timers
round to (uvloop counts whole milliseconds and caches its clock once a turn), and never a spin."""

from __future__ import annotations

import asyncio
import time

import pytest

import ferrule._deadlines as deadlines
from ferrule._deadlines import wait_until

# deadlines a timer's resolution apart and within it: the ones a millisecond clock rounds early
SPREAD_S = [0.0001 * k for k in range(1, 40, 3)]


def run_on(loop: str, coro):
    if loop == "uvloop":
        import uvloop

        return uvloop.run(coro)
    return asyncio.run(coro)


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_wait_is_never_over_before_its_deadline(loop):
    async def body():
        never = asyncio.get_running_loop().create_future()
        for _ in range(5):
            for wait_s in SPREAD_S:
                deadline = time.monotonic() + wait_s
                assert await wait_until((never,), deadline) == {never}
                late = time.monotonic() - deadline
                assert late >= 0, f"a {wait_s * 1000:.1f} ms wait was over {-late * 1e6:.0f} µs early"
        assert not never.done(), "what is still pending is left for the caller, not cancelled"

    run_on(loop, body())


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_wait_ends_when_its_futures_are_done(loop):
    async def body():
        running = asyncio.get_running_loop()
        soon, done = running.create_future(), running.create_future()
        done.set_result(1)
        running.call_later(0.01, soon.set_result, 2)
        # an hour's deadline: the wait ends when `soon` is done (the outer bound only turns a hang into a failure)
        assert await asyncio.wait_for(wait_until((soon, done), time.monotonic() + 3600), 10) == set()
        assert soon.result() == 2
        assert await wait_until((done,), None) == set()
        never = running.create_future()
        assert await wait_until((never,), time.monotonic() - 1) == {never}  # passed already

    run_on(loop, body())


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_deadline_within_a_timer_tick_costs_a_few_wakes_not_a_spin(loop, monkeypatch):
    waits = []

    class CountedWaits:  # `_deadlines`' own view of asyncio, its waits counted
        def __getattr__(self, name):
            return getattr(asyncio, name)

        async def wait(self, *args, **kwargs):
            waits.append(kwargs.get("timeout"))
            return await asyncio.wait(*args, **kwargs)

    monkeypatch.setattr(deadlines, "asyncio", CountedWaits())

    async def body():
        never = asyncio.get_running_loop().create_future()
        for wait_s in (0.0001, 0.0003, 0.0006):
            waits.clear()
            await wait_until((never,), time.monotonic() + wait_s)
            assert len(waits) <= 3, f"{len(waits)} wakes for a {wait_s * 1000} ms wait: {waits}"

    run_on(loop, body())
