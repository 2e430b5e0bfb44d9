"""A KeyboardInterrupt at every point where the interpreter may raise one inside a capture leaves fd 2
and the guard as they were, on both twins (the argument is in `ferrule._capture_shared`).

CPython 3.11+ runs Python signal handlers at a function's entry and right after a call into C returns
(and at loop back edges). A profile function sees exactly those moments, as "call" and "c_return"
events; raising KeyboardInterrupt from it at the n-th such event of a capture cycle, for n = 1, 2, ...
until the cycle runs through, puts an interrupt at each of them in turn: the storm test
(sigint_storm.py) does the same with real signals at random. CPython switches a profile function off
once it raises, so each cycle is interrupted exactly once.

That includes the entry of the Python twin's `__exit__`, before its first line, which no code in it
can guard: there the abandoned capture's `__del__` puts things back once the interrupt is handled.
Left out: the entry of `__del__` itself, which runs as every capture object goes (a second interrupt
there, right after the first, is the case not covered).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

import pytest

from ferrule import _capture_helpers, _capture_py, _capture_shared
from ferrule._capture_shared import ACTIVE
from testkit.twins import Twin

CAPTURE_SOURCES = {_capture_py.__file__, _capture_shared.__file__, _capture_helpers.__file__}


def identity(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def capture_cycle(twin: Twin) -> Callable[[], object]:
    def cycle() -> object:
        capture = twin.capture.capture_stderr(4096)
        with capture:
            os.write(2, b"inside\n")
        return capture

    return cycle


def session_cycle(twin: Twin) -> Callable[[], object]:
    def cycle() -> object:
        session = twin.capture.CaptureSession()
        with session:
            session.begin()
            try:
                os.write(2, b"inside\n")
            finally:
                session.end(4096)
            session.forward()
        return session

    return cycle


CYCLES = {"capture": capture_cycle, "session": session_cycle}


def run_interrupted_at(cycle: Callable[[], object], point: int) -> str | None:
    """Run `cycle` with a KeyboardInterrupt raised at its `point`-th interruptible moment in capture
    code; where that was ("file:function event"), or None when the cycle has fewer."""
    seen = 0
    where: str | None = None

    def interrupt(frame, event, arg):
        nonlocal seen, where
        code = frame.f_code
        if event not in ("call", "c_return") or code.co_filename not in CAPTURE_SOURCES:
            return
        if code.co_name == "__del__":
            return
        seen += 1
        if seen == point:
            where = f"{os.path.basename(code.co_filename)}:{code.co_name} {event} line {frame.f_lineno}"
            raise KeyboardInterrupt

    sys.setprofile(interrupt)
    try:
        cycle()
    except KeyboardInterrupt:
        pass
    finally:
        sys.setprofile(None)
    return where


@pytest.mark.parametrize("mode", list(CYCLES))
def test_an_interrupt_at_every_point_leaves_fd2_and_the_guard(twin, mode, own_stderr):
    with own_stderr():
        original = identity(2)
        cycle = CYCLES[mode](twin)
        cycle()  # the capture file exists from here on, as in a running server
        interrupted_at = []
        point = 1
        while (where := run_interrupted_at(cycle, point)) is not None:
            assert identity(2) == original, f"fd 2 not restored after an interrupt at {where}"
            assert not ACTIVE.locked(), f"the guard still held after an interrupt at {where}"
            interrupted_at.append(where)
            point += 1
        cycle()  # and the next one runs as usual
    if not twin.compiled:
        assert len(interrupted_at) > 20, interrupted_at  # the interrupts did reach inside the capture
    else:
        # The compiled twin's steps call no Python code, so nothing can interrupt them.
        assert interrupted_at == []
