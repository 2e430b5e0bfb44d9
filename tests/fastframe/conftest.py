"""Fixtures for ferrule.fastframe: each behaviour test takes the root conftest's `twin` and runs
against the C and the Python framers (`twin.fastframe`)."""

from __future__ import annotations

import pytest


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
