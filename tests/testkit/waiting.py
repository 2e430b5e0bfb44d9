"""Waiting on a condition the test can observe (a process gone, a line written), with a deadline that
only turns a hang into a failure."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(predicate: Callable[[], object], seconds: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds}s waiting for {what}")
        time.sleep(0.01)
