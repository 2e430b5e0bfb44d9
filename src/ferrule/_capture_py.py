"""Pure-Python twin of `ferrule._capture`: the stderr capture guard (MCP-CORE section 4).

fd 2 is pointed at one unlinked temporary FILE the process keeps and reuses (a pipe would block a
child that writes more than the pipe holds), so children's stderr lands there too. Only what was
written is read back, decoded as UTF-8 with U+FFFD for invalid bytes only.

Two shapes share the redirect: `capture_stderr()` moves fd 2 around one block; `CaptureSession`
moves it once for a whole run and marks windows in the file (see its docstring).
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
    DEFAULT_SESSION_THRESHOLD,
    STATE,
    CaptureBusy,
    Captured,
    StreamFlusher,
    dup_private,
    fd_is_valid,
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

__all__ = ["CaptureSession", "StderrCapture", "capture_stderr"]


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
    if sys.platform == "win32":
        os.lseek(fd, 0, os.SEEK_END)  # the offset is shared with fd 2: writers go on at the end
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_HELD, _SAVED, _REDIRECTED = 1, 2, 4  # what an active redirect has to undo, in reverse order
_FORWARD_CHUNK = 1 << 16


def _empty(sink: int) -> None:
    os.ftruncate(sink, 0)
    os.lseek(sink, 0, os.SEEK_SET)


_flush_stderr = StreamFlusher("stderr")
_flush_stdout = StreamFlusher("stdout")


def _flush_all(stdout_too: object) -> None:
    """Buffered Python and C output must reach the fd before it moves or its size is read."""
    _flush_stderr()
    if stdout_too:
        _flush_stdout()
    _fflush_all()


def _as_limit(limit: int | None) -> int | None:
    if limit is None:
        return None
    checked = operator.index(limit)
    if checked < 0:
        raise ValueError(f"limit must be None or a byte count >= 0, not {limit}")
    return checked


def _collect(captured: Captured, sink: int, start: int, end: int, limit: int | None) -> None:
    """Fill `captured` from the bytes [start, end) of the file: the tail under `limit`, decoded."""
    first = end - limit if limit is not None and end - start > limit else start
    data = memoryview(_read_at(sink, end - first, first))
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


def _forward(sink: int, start: int, end: int, dest: int) -> None:
    """Copy the bytes [start, end) of the file to `dest` (the real stderr; -1: it was closed)."""
    while start < end:
        chunk = _read_at(sink, min(end - start, _FORWARD_CHUNK), start)
        if not chunk:
            return
        start += len(chunk)
        view = memoryview(chunk)
        while view and dest >= 0:
            try:
                view = view[os.write(dest, view):]
            except OSError:  # the real stderr is gone: a direct write would have failed the same way
                return


class _Redirect:
    """fd 2 (and fd 1 when `private_stdout` made it follow fd 2) -> the process's temporary file.

    A KeyboardInterrupt may land between any two steps of going there or back (the interpreter runs
    signal handlers between bytecodes): every step of the way back is idempotent and retried until
    done, so fd 2, fd 1 and the guard are put back whatever is interrupted.
    """

    __slots__ = ("_saved", "_sink", "_follow_stdout", "_handles", "_undo")
    _saved: int
    _sink: int
    _follow_stdout: bool
    _handles: tuple[int | None, int | None] | None
    _undo: int  # steps still to undo: _HELD | _SAVED | _REDIRECTED

    def _redirect(self) -> None:
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
        self._follow_stdout = bool(STATE[0]) and self._saved >= 0
        self._sink = sink = _sink_fd()
        if os.lseek(sink, 0, os.SEEK_END):  # an interrupted capture left text behind: not ours
            _empty(sink)
        _flush_all(self._follow_stdout)
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
        """Undo what `_redirect` did, retrying the undo when a KeyboardInterrupt lands in it."""
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


class StderrCapture(_Redirect):
    """Context manager: fd 2 -> the process's temporary file for the block; yields a `Captured`.

    The next capture empties the file whatever the last one left in it (see `_Redirect` for what an
    interrupt may do).
    """

    __slots__ = ("limit", "_limit", "_captured")

    def __init__(self, limit: int | None = None) -> None:
        self._limit = _as_limit(limit)
        self.limit = limit
        self._captured: Captured | None = None  # None while not active
        self._undo = 0

    def __enter__(self) -> Captured:
        captured = Captured()  # made before anything changes, so a signal here leaves nothing to undo
        if self._captured is not None or not ACTIVE.acquire(False):
            raise CaptureBusy()
        self._undo = _HELD
        try:
            self._redirect()
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
            _flush_all(self._follow_stdout)
            size = os.lseek(sink, 0, os.SEEK_END)  # the file's size, cheaper than fstat here
        finally:
            self._leave()
        if size:
            try:
                _collect(captured, sink, 0, size, self._limit)
            finally:
                _empty(sink)  # ready for the next capture, and the disk space back


class CaptureSession(_Redirect):
    """A capture redirect that stays in place for a whole run, with one window per tool call.

        with CaptureSession() as session:
            for call in calls:
                session.begin()
                try:
                    run(call)
                finally:
                    captured = session.end(limit)   # a Captured, as capture_stderr gives
                session.forward()                   # between calls: the host's log gets its text now

    On entry fd 2 (and fd 1, when `private_stdout` made it an alias of fd 2) points at the process's
    capture file, once; children inherit it, during a window or not. `begin()` marks where a window
    starts and `end(limit)` reads back exactly the bytes that grew the file since (the tail under
    `limit`, with the same truncation note as `capture_stderr`): one `lseek` each when nothing was
    written. Bytes written between windows (the server's own log, background threads, children still
    running) are not a call's: `begin()`, `forward()` and the exit copy them to the real stderr, so
    nothing is lost and the host's log still gets them. Between windows the file is emptied once it
    holds more than `threshold` bytes. On exit (also on an exception or a KeyboardInterrupt) what is
    left is forwarded, fd 2 and fd 1 are put back, and the guard is released; while the session is
    open `capture_stderr()` raises CaptureBusy, and so does a second `begin()` before `end()`
    (MCP-CORE section 4: captures do not nest).

    The trade-off: between windows the process's stderr reaches the host late, at the next
    `begin()`/`forward()` (call `forward()` before waiting for input). A process killed outright
    (SIGKILL, a crash in native code, `os._exit`) takes the text still in the file with it: an open
    window's, as with `capture_stderr`, and whatever was written since the last forward; a fatal-error
    handler writing to fd 2 (`faulthandler`) writes into the file too. Emptying the file past the
    threshold can drop bytes another thread writes in the instant between reading its size and
    emptying it.
    """

    __slots__ = ("threshold", "_active", "_start", "_mark")

    def __init__(self, threshold: int = DEFAULT_SESSION_THRESHOLD) -> None:
        checked = operator.index(threshold)
        if checked < 0:
            raise ValueError(f"threshold must be a byte count >= 0, not {threshold}")
        self.threshold = checked
        self._active = False
        self._start = -1  # where the open window starts; -1 between windows
        self._mark = 0  # every byte before it has been read into a window or forwarded
        self._undo = 0

    @property
    def active(self) -> bool:
        """Whether the session is open (fd 2 points at the capture file)."""
        return self._active

    def __enter__(self) -> CaptureSession:
        if self._active or not ACTIVE.acquire(False):
            raise CaptureBusy()
        self._undo = _HELD
        try:
            self._redirect()  # the file starts empty
        except BaseException:
            self._leave()
            raise
        self._mark = 0
        self._start = -1
        self._active = True
        return self

    def __exit__(self, *exc_info: object) -> None:
        if not self._active:
            raise RuntimeError("this capture session is not open")
        try:
            self._active = False
            self._start = -1  # an open window's bytes are forwarded with the rest: nothing is lost
            # `private_stdout` may have run during the session: fd 1 then points at the file too.
            self._follow_stdout = bool(STATE[0]) and self._saved >= 0
            _flush_all(self._follow_stdout)
            size = os.lseek(self._sink, 0, os.SEEK_END)
            if size > self._mark:
                _forward(self._sink, self._mark, size, self._saved)
            self._mark = 0
        finally:
            self._leave()

    def begin(self) -> int:
        """Open a window; returns its offset in the capture file."""
        if self._start >= 0 or not self._active:
            if not self._active:
                raise RuntimeError("the capture session is not open")
            raise CaptureBusy()
        _flush_all(STATE[0])  # the server's own pending text belongs before the window
        size = os.lseek(self._sink, 0, os.SEEK_END)
        if size != self._mark:
            size = self._settle(size)
        self._start = size
        return size

    def end(self, limit: int | None = None) -> Captured:
        """Close the window: what was written to fd 2 (and fd 1) since `begin()`."""
        captured = Captured()
        start = self._start
        if start < 0:
            raise RuntimeError("no capture window is open")
        checked = _as_limit(limit)
        _flush_all(STATE[0])
        sink = self._sink
        size = os.lseek(sink, 0, os.SEEK_END)
        self._start = -1
        self._mark = size
        if size > start:
            _collect(captured, sink, start, size, checked)
            if size > self.threshold:
                _empty(sink)
                self._mark = 0
        return captured

    def forward(self) -> None:
        """Copy what was written since the last window to the real stderr now (no-op in a window)."""
        if self._start >= 0 or not self._active:
            return
        _flush_all(STATE[0])
        size = os.lseek(self._sink, 0, os.SEEK_END)
        if size != self._mark:
            self._settle(size)

    def _settle(self, size: int) -> int:
        """Forward the bytes since the mark; empty the file past the threshold. The new size."""
        if size > self._mark:
            _forward(self._sink, self._mark, size, self._saved)
        if size > self.threshold:
            _empty(self._sink)
            size = 0
        self._mark = size
        return size


def capture_stderr(limit: int | None = None) -> StderrCapture:
    """Capture everything written to fd 2 (this process and its children) during a `with` block.

    `limit` caps the bytes kept: the tail is kept and `text` starts with a note saying how many
    bytes were cut. Raises `CaptureBusy` when another capture is active. Python-level writes are
    seen when `sys.stderr` writes to fd 2 (as in a server process); a host that swapped in an object
    of its own (pytest's capsys or capfd) keeps what is written to that object.
    """
    return StderrCapture(limit)
