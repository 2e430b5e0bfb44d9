# cython: annotation_typing=False
"""The helpers both capture twins share and call on their hot paths, written once.

The pure-Python twin imports this module as it is; setup.py also compiles this same source as
`ferrule._capture_helpers_c`, typed by `_capture_helpers_c.pxd`, and the compiled twin cimports it
from there, so it calls these at C speed (aiohttp compiles its websocket reader the same way). Keep
it to what Cython compiles from plain Python: no state of the process (that is `_capture_shared`'s),
and no `__slots__` on `StreamFlusher` (the .pxd declares its fields).
"""

from __future__ import annotations

import io
import operator
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._capture_shared import Captured


def never_buffers(stream: Any) -> bool:
    """Whether a text stream passes every write straight to its fd, so that flushing it has nothing
    to do: a write-through text layer over an unbuffered file (sys.stderr and sys.stdout under
    `python -u` or PYTHONUNBUFFERED)."""
    try:
        return (
            type(stream) is io.TextIOWrapper
            and bool(stream.write_through)
            and type(stream.buffer) is io.FileIO
        )
    except Exception:  # a stream object of someone else's making: flush it
        return False


# Read on every flush: the module's own dict, not an attribute lookup on `sys` each time.
_sys_attributes = sys.__dict__


class StreamFlusher:
    """Flushes `sys.<name>` (whatever object it is now), skipping a stream that never holds text
    back. What it learnt about a stream is kept while `sys.<name>` stays the same object."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._stream: object = None
        self._flush: Callable[[], object] | None = None

    def run(self) -> None:
        stream = _sys_attributes.get(self.name)
        if stream is None:
            return
        if stream is not self._stream:
            self._stream = stream
            self._flush = None if never_buffers(stream) else getattr(stream, "flush", None)
        if self._flush is not None:
            try:
                self._flush()
            except (OSError, ValueError):  # closed or broken: nothing pending can reach the fd anyway
                pass


def as_limit(limit: int | None) -> int:
    """A capture's byte cap, checked; -1 for none."""
    if limit is None:
        return -1
    if type(limit) is int and limit >= 0:  # the common case, without the index protocol's call
        return limit
    checked = operator.index(limit)
    if checked < 0:
        raise ValueError(f"limit must be None or a byte count >= 0, not {limit}")
    return checked


def as_threshold(threshold: int) -> int:
    checked = operator.index(threshold)
    if checked < 0:
        raise ValueError(f"threshold must be a byte count >= 0, not {threshold}")
    return checked


def truncation_note(cut: int) -> str:
    return f"[stderr truncated: the first {cut} bytes were cut]\n"


def collect(
    captured: Captured, read_at: Callable[[int, int, int], bytes], sink: int, start: int, end: int, limit: int
) -> None:
    """Fill `captured` from the bytes [start, end) of the capture file: the tail under `limit` (-1: no
    cap), decoded. `read_at(fd, size, offset)` is the twin's reader."""
    first = end - limit if 0 <= limit < end - start else start
    data = memoryview(read_at(sink, end - first, first))
    captured.size = end - start
    if first > start:
        # Never start inside a character: skip its continuation bytes (at most 3 in UTF-8).
        skip = 0
        while skip < 3 and skip < len(data) and data[skip] & 0xC0 == 0x80:
            skip += 1
        captured.truncated = True
        captured.text = truncation_note(first - start + skip) + str(data[skip:], "utf-8", "replace")
    else:
        captured.text = str(data, "utf-8", "replace")
