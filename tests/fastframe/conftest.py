"""Both twins of ferrule.fastframe: every behaviour test runs against the C and the Python one."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

from ferrule._twins import NO_EXTENSIONS

TWINS = ["ferrule._fastframe", "ferrule._fastframe_py"]


def load_twin(name: str) -> ModuleType:
    if name == "ferrule._fastframe" and NO_EXTENSIONS:
        pytest.skip("FERRULE_NO_EXTENSIONS is set: the compiled twin is switched off")
    # A normal build must have the compiled twin: a failed import fails the test, it does not skip.
    return importlib.import_module(name)


@pytest.fixture(params=TWINS, ids=["c", "python"])
def impl(request: pytest.FixtureRequest) -> ModuleType:
    return load_twin(request.param)


def drive(framer, chunks, drain: bool = True) -> list:
    """Feed chunks; record each error as ("error", type name, header) after the items it carried."""
    events: list = []

    def one(chunk: bytes) -> None:
        try:
            events.extend(framer.feed(chunk))
        except Exception as exc:  # FrameError: keep what it carried, and go on as a caller would
            events.extend(getattr(exc, "lines", []) or getattr(exc, "bodies", []))
            events.append(("error", type(exc).__name__, getattr(exc, "header", None)))
            if drain:
                one(b"")

    for chunk in chunks:
        one(chunk)
    return events


@pytest.fixture
def feed_all():
    """`feed_all(framer, chunks)`: what a caller sees, errors in place (see `drive`)."""
    return drive
