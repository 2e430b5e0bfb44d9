"""Pure-Python twin of `ferrule._capture`: the stderr capture guard (MCP-CORE section 4).

fd 2 is pointed at one unlinked temporary FILE the process keeps and reuses (a pipe would block a
child that writes more than the pipe holds), so children's stderr lands there too. Only what was
written is read back, decoded as UTF-8 with U+FFFD for invalid bytes only.
"""

from __future__ import annotations

import errno
import operator
import os
import sys
from collections.abc import Callable
from typing import IO

from ._capture_shared import (
    ACTIVE,
    STATE,
    CaptureBusy,
    Captured,
    dup_private,
    fd_is_valid,
    flush_stream,
    occupy_with_devnull,
    open_sink,
    truncation_note,
)

if sys.platform == "win32":
    from ._capture_shared import (
        STD_ERROR_HANDLE,
        STD_OUTPUT_HANDLE,
        get_std_handle,
        point_std_handle,
        set_std_handle,
    )

__all__ = ["StderrCapture", "capture_stderr"]


def _c_stdio_flush() -> Callable[[], object]:
    """fflush(NULL): C-level buffered output must reach the fd before it is swapped."""
    try:
        import ctypes

        libc = ctypes.CDLL("ucrtbase" if sys.platform == "win32" else None)
        fflush = libc.fflush
    except (ImportError, OSError, AttributeError):  # no C runtime reachable: nothing to flush
        return lambda: None
    fflush.argtypes = [ctypes.c_void_p]
    fflush.restype = ctypes.c_int
    return lambda: fflush(None)


_fflush_all = _c_stdio_flush()


_sink: IO[bytes] | None = None
_parents_sinks: list[IO[bytes]] = []


def _sink_fd() -> int:
    global _sink
    if _sink is None:
        _sink = open_sink()
    return _sink.fileno()


def _own_sink_after_fork() -> None:
    # A forked child must not truncate the parent's file; kept open for a capture the fork interrupted.
    global _sink
    if _sink is not None:
        _parents_sinks.append(_sink)
        _sink = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_own_sink_after_fork)


def _read_at(fd: int, size: int, offset: int) -> bytes:
    chunks = []
    while size > 0:
        if sys.platform == "win32":
            os.lseek(fd, offset, os.SEEK_SET)
            chunk = os.read(fd, size)
        else:
            chunk = os.pread(fd, size, offset)
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
        offset += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_HELD, _SAVED, _REDIRECTED = 1, 2, 4  # what an active capture has to undo, in reverse order


def _empty(sink: int) -> None:
    os.ftruncate(sink, 0)
    os.lseek(sink, 0, os.SEEK_SET)


class StderrCapture:
    """Context manager: fd 2 -> the process's temporary file for the block; yields a `Captured`.

    A KeyboardInterrupt may land between any two steps of entering or leaving (the interpreter runs
    signal handlers between bytecodes): every step of the way back is idempotent and retried until
    done, so fd 2, fd 1 and the guard are put back whatever is interrupted, and the next capture
    empties the file whatever the last one left in it.
    """

    __slots__ = ("limit", "_limit", "_captured", "_saved", "_sink", "_follow_stdout", "_handles", "_undo")

    def __init__(self, limit: int | None = None) -> None:
        self._limit = None if limit is None else operator.index(limit)
        if self._limit is not None and self._limit < 0:
            raise ValueError(f"limit must be None or a byte count >= 0, not {limit}")
        self.limit = limit
        self._captured: Captured | None = None  # None while not active
        self._undo = 0  # steps still to undo: _HELD | _SAVED | _REDIRECTED

    def __enter__(self) -> Captured:
        captured = Captured()  # made before anything changes, so a signal here leaves nothing to undo
        if self._captured is not None or not ACTIVE.acquire(False):
            raise CaptureBusy()
        self._undo = _HELD
        try:
            self._start()
        except BaseException:
            self._leave()
            raise
        self._captured = captured
        return captured

    def __exit__(self, *exc_info: object) -> None:
        captured = self._captured
        if captured is None:
            raise RuntimeError("this stderr capture is not active")
        size = 0
        try:
            self._captured = None
            sink = self._sink
            flush_stream(sys.stderr)
            if self._follow_stdout:
                flush_stream(sys.stdout)
            _fflush_all()
            size = os.lseek(sink, 0, os.SEEK_END)  # the file's size, cheaper than fstat here
        finally:
            self._leave()
        if size:
            self._collect(captured, sink, size)

    def _start(self) -> None:
        self._saved = -1
        self._follow_stdout = False
        self._handles = None
        try:
            self._saved = dup_private(2)
        except OSError as exc:
            if exc.errno != errno.EBADF:
                raise
            # Occupy fd 2 first, so the temporary file cannot be opened onto it (pytest does the same).
            occupy_with_devnull(2)
        self._undo |= _SAVED
        self._follow_stdout = STATE[0] and self._saved >= 0
        self._sink = sink = _sink_fd()
        if os.lseek(sink, 0, os.SEEK_END):  # an interrupted capture left text behind: not ours
            _empty(sink)
        flush_stream(sys.stderr)
        if self._follow_stdout:
            flush_stream(sys.stdout)
        _fflush_all()
        if sys.platform == "win32":
            self._handles = (get_std_handle(STD_ERROR_HANDLE), get_std_handle(STD_OUTPUT_HANDLE))
        self._undo |= _REDIRECTED
        os.dup2(sink, 2)
        if self._follow_stdout:
            os.dup2(sink, 1)
        if sys.platform == "win32":
            point_std_handle(STD_ERROR_HANDLE, 2)
            if self._follow_stdout:
                point_std_handle(STD_OUTPUT_HANDLE, 1)

    def _leave(self) -> None:
        """Undo what `_start` did, retrying the undo when a KeyboardInterrupt lands in it."""
        interrupted: BaseException | None = None
        while self._undo:
            try:
                self._step_back()
            except KeyboardInterrupt as exc:
                interrupted = exc
        if interrupted is not None:
            raise interrupted

    def _step_back(self) -> None:
        """One idempotent step back; each step's flag is cleared only once the step is done."""
        undo = self._undo
        if undo & _REDIRECTED:
            saved = self._saved
            if saved >= 0:
                os.dup2(saved, 2)
                if self._follow_stdout:
                    os.dup2(2, 1)
            elif fd_is_valid(2):
                os.close(2)  # it was invalid before: leave it so
            if sys.platform == "win32" and self._handles is not None:
                set_std_handle(STD_ERROR_HANDLE, self._handles[0])
                set_std_handle(STD_OUTPUT_HANDLE, self._handles[1])
            self._undo = undo & ~_REDIRECTED
        elif undo & _SAVED:
            saved, self._saved = self._saved, -1
            self._undo = undo & ~_SAVED  # cleared first: a leaked fd beats closing a reused number
            if saved >= 0:
                os.close(saved)
        else:
            if ACTIVE.locked():
                ACTIVE.release()
            self._undo = 0

    def _collect(self, captured: Captured, sink: int, size: int) -> None:
        limit = self._limit
        start = size - limit if limit is not None and size > limit else 0
        try:
            data = memoryview(_read_at(sink, size - start, start))
        finally:
            _empty(sink)  # ready for the next capture, and the disk space back
        captured.size = size
        if start:
            # Never start inside a character: skip its continuation bytes (at most 3 in UTF-8).
            skip = 0
            while skip < 3 and skip < len(data) and data[skip] & 0xC0 == 0x80:
                skip += 1
            captured.truncated = True
            captured.text = truncation_note(start + skip) + str(data[skip:], "utf-8", "replace")
        else:
            captured.text = str(data, "utf-8", "replace")


def capture_stderr(limit: int | None = None) -> StderrCapture:
    """Capture everything written to fd 2 (this process and its children) during a `with` block.

    `limit` caps the bytes kept: the tail is kept and `text` starts with a note saying how many
    bytes were cut. Raises `CaptureBusy` when another capture is active. Python-level writes are
    seen when `sys.stderr` writes to fd 2 (as in a server process); a host that swapped in an object
    of its own (pytest's capsys or capfd) keeps what is written to that object.
    """
    return StderrCapture(limit)
