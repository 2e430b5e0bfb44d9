"""Pure-Python twin of `ferrule._capture`: the stderr capture guard (docs/MCP.md §4.2).

fd 2 is pointed at one unlinked temporary FILE the process keeps and reuses (a pipe would block a
child that writes more than the pipe holds), so children's stderr lands there too. Only what was
written is read back, decoded as UTF-8 with U+FFFD for invalid bytes only.

Two shapes share the redirect: `capture_stderr()` moves fd 2 around one block; `CaptureSession`
moves it once for a whole run and marks windows in the file (see its docstring).
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from typing import IO

from ._capture_helpers import StreamFlusher, as_limit, as_threshold, collect
from ._capture_shared import (
    ACTIVE,
    ALLOWED_FROM,
    DEFAULT_SESSION_THRESHOLD,
    GUARDED,
    IDLE,
    REDIRECTED,
    SAVED,
    STDOUT_FOLLOWS,
    WINDOW,
    CaptureBusy,
    Captured,
    dup_private,
    fd_is_valid,
    occupy_with_devnull,
    open_sink,
    refuse,
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


_FORWARD_CHUNK = 1 << 16


def _empty(sink: int) -> None:
    os.ftruncate(sink, 0)
    os.lseek(sink, 0, os.SEEK_SET)


_flush_stderr = StreamFlusher("stderr")
_flush_stdout = StreamFlusher("stdout")


def _flush_all(stdout_too: object) -> None:
    """Buffered Python and C output must reach the fd before it moves or its size is read."""
    _flush_stderr.run()
    if stdout_too:
        _flush_stdout.run()
    _fflush_all()


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

    Walks the state ladder of `ferrule._capture_shared` (IDLE ... REDIRECTED), whose comment gives
    the argument that a KeyboardInterrupt at any point leaves fd 2 and the guard as they were. The
    walks down run in `_enter` and `__exit__` themselves, inside the function that was interrupted:
    the interpreter runs signal handlers at a call's entry, so a walk behind a call could be cut off
    before it starts.
    """

    __slots__ = ("_state", "_saved", "_sink", "_follow_stdout", "_handles", "_guard_token")
    _KIND = ""  # "capture" or "session", for `refuse`

    def __init__(self) -> None:
        self._state = IDLE
        self._saved = -1
        self._sink = -1
        self._follow_stdout = False
        self._handles: tuple[int | None, int | None] | None = None
        # What the guard holds for this capture: not the capture itself, so that holding the guard
        # does not keep an abandoned capture alive (see `__del__`).
        self._guard_token = object()

    def __del__(self) -> None:
        # An interrupt raised as `__exit__` is entered, before its first line, is the one no Python
        # code can guard: it leaves the capture redirected. Once nothing refers to the capture any
        # more (the interrupt has been handled), put fd 2 and the guard back.
        try:
            state = self._state
        except AttributeError:  # __init__ itself was cut short
            return
        if state != IDLE:
            self._walk_down()

    def _assert_state(self, op: str) -> None:
        if not (1 << self._state) & ALLOWED_FROM[op]:
            refuse(self._KIND, op, self._state)

    def _enter(self) -> None:
        """IDLE -> REDIRECTED, each step recorded before it acts; back to IDLE when one fails."""
        try:
            self._state = GUARDED
            if not ACTIVE.take(self._guard_token):
                raise CaptureBusy()
            self._state = SAVED
            self._saved = -1
            try:
                self._saved = dup_private(2)
            except OSError as exc:
                if exc.errno != errno.EBADF:
                    raise
            self._follow_stdout = bool(STDOUT_FOLLOWS[0]) and self._saved >= 0
            self._state = REDIRECTED
            if self._saved < 0:
                # Occupy fd 2 first, so the temporary file cannot be opened onto it (pytest does the same).
                occupy_with_devnull(2)
            self._sink = sink = _sink_fd()
            if os.lseek(sink, 0, os.SEEK_END):  # an interrupted capture left text behind: not ours
                _empty(sink)
            _flush_all(self._follow_stdout)
            if sys.platform == "win32":
                self._handles = (get_std_handle(STD_ERROR_HANDLE), get_std_handle(STD_OUTPUT_HANDLE))
            os.dup2(sink, 2)
            if self._follow_stdout:
                os.dup2(sink, 1)
            if sys.platform == "win32":
                point_std_handle(STD_ERROR_HANDLE, 2)
                if self._follow_stdout:
                    point_std_handle(STD_OUTPUT_HANDLE, 1)
            return
        except BaseException as exc:
            failure = exc
        while self._state != IDLE:  # the error that stopped the climb is the one to report
            try:
                self._walk_down()
            except BaseException:  # an interrupt in the walk's own loop: walk on
                pass
        raise failure

    def __exit__(self, *exc_info: object) -> None:
        first_error: BaseException | None = None
        try:
            self._assert_state("exit")
            self._before_leaving()
        except BaseException as exc:
            first_error = exc
        while self._state != IDLE:
            try:
                error = self._walk_down()
            except BaseException as exc:  # an interrupt in the walk's own loop: walk on
                error = exc
            if first_error is None:
                first_error = error
        if first_error is not None:
            raise first_error
        self._after_leaving()

    def _before_leaving(self) -> None:
        """What a capture does while fd 2 still points at the file."""

    def _after_leaving(self) -> None:
        """What a capture does once fd 2 is back."""

    def _walk_down(self) -> BaseException | None:
        """Step down to IDLE; the first error, for the caller to raise once the walk is done.

        A step a KeyboardInterrupt cut short runs again; a step that failed otherwise was passed
        (`_step_down`). An interrupt at this loop's back edge leaves it, and the caller walks on: so
        leaving the ladder part-way takes a second interrupt within the same few microseconds, then a
        third (each retry sits inside a try of the level above).
        """
        first_error = None
        while self._state != IDLE:
            try:
                self._step_down()
            except BaseException as exc:
                if first_error is None:
                    first_error = exc
        return first_error

    def _step_down(self) -> None:
        """Undo what the current state holds (idempotently) and record the state below it."""
        state = self._state
        try:
            if state == REDIRECTED:
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
            elif state == SAVED:
                saved, self._saved = self._saved, -1  # forgotten first: a leaked fd beats closing a reused one
                if saved >= 0:
                    os.close(saved)
            elif state == GUARDED:
                ACTIVE.give_back(self._guard_token)
        except KeyboardInterrupt:
            raise  # the step is run again
        except BaseException:
            self._state = state - 1  # it would fail again: go on down
            raise
        self._state = state - 1


_NOT_ENTERED = Captured()  # a capture's result before its first entry (never filled)


class StderrCapture(_Redirect):
    """Context manager: fd 2 -> the process's temporary file for the block; yields a `Captured`.

    IDLE -> REDIRECTED on entry, back to IDLE on exit. The next capture empties the file whatever
    the last one left in it.
    """

    __slots__ = ("limit", "_limit", "_captured", "_size")
    _KIND = "capture"

    def __init__(self, limit: int | None = None) -> None:
        super().__init__()
        self._limit = as_limit(limit)
        self.limit = limit
        self._captured = _NOT_ENTERED
        self._size = 0

    def __enter__(self) -> Captured:
        self._assert_state("enter")
        self._captured = Captured()  # made before anything changes, so an interrupt here leaves nothing
        self._size = 0
        self._enter()
        return self._captured

    def _before_leaving(self) -> None:
        _flush_all(self._follow_stdout)
        self._size = os.lseek(self._sink, 0, os.SEEK_END)  # the file's size, cheaper than fstat here

    def _after_leaving(self) -> None:
        if self._size:
            try:
                collect(self._captured, _read_at, self._sink, 0, self._size, self._limit)
            finally:
                _empty(self._sink)  # ready for the next capture, and the disk space back


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
    (docs/MCP.md §4.2: captures do not nest).

    States: IDLE -> REDIRECTED on entry (open); `begin()` REDIRECTED -> WINDOW, `end()` back;
    exit from either, down to IDLE.

    The trade-off: between windows the process's stderr reaches the host late, at the next
    `begin()`/`forward()` (call `forward()` before waiting for input). A process killed outright
    (SIGKILL, a crash in native code, `os._exit`) takes the text still in the file with it: an open
    window's, as with `capture_stderr`, and whatever was written since the last forward; a fatal-error
    handler writing to fd 2 (`faulthandler`) writes into the file too. Emptying the file past the
    threshold can drop bytes another thread writes in the instant between reading its size and
    emptying it.
    """

    __slots__ = ("threshold", "_start", "_mark")
    _KIND = "session"

    def __init__(self, threshold: int = DEFAULT_SESSION_THRESHOLD) -> None:
        super().__init__()
        self.threshold = as_threshold(threshold)
        self._start = 0  # where the open window starts (in WINDOW)
        self._mark = 0  # every byte before it has been read into a window or forwarded

    @property
    def active(self) -> bool:
        """Whether the session is open (fd 2 points at the capture file)."""
        return self._state >= REDIRECTED

    def __enter__(self) -> CaptureSession:
        self._assert_state("enter")
        self._mark = 0
        self._enter()  # the file starts empty
        return self

    def _before_leaving(self) -> None:
        # An open window's bytes are forwarded with the rest: nothing is lost.
        # `private_stdout` may have run during the session: fd 1 then points at the file too.
        self._follow_stdout = bool(STDOUT_FOLLOWS[0]) and self._saved >= 0
        _flush_all(self._follow_stdout)
        size = os.lseek(self._sink, 0, os.SEEK_END)
        if size > self._mark:
            _forward(self._sink, self._mark, size, self._saved)
        self._mark = 0

    def begin(self) -> int:
        """Open a window; returns its offset in the capture file."""
        self._assert_state("begin")
        _flush_all(STDOUT_FOLLOWS[0])  # the server's own pending text belongs before the window
        size = os.lseek(self._sink, 0, os.SEEK_END)
        if size != self._mark:
            size = self._settle(size)
        self._start = size
        self._state = WINDOW
        return size

    def end(self, limit: int | None = None) -> Captured:
        """Close the window: what was written to fd 2 (and fd 1) since `begin()`."""
        captured = Captured()
        self._assert_state("end")
        checked = as_limit(limit)
        _flush_all(STDOUT_FOLLOWS[0])
        sink = self._sink
        size = os.lseek(sink, 0, os.SEEK_END)
        self._state = REDIRECTED
        start, self._mark = self._start, size
        if size > start:
            collect(captured, _read_at, sink, start, size, checked)
            if size > self.threshold:
                _empty(sink)
                self._mark = 0
        return captured

    def forward(self) -> None:
        """Copy what was written since the last window to the real stderr now (no-op in a window)."""
        if self._state != REDIRECTED:
            return
        _flush_all(STDOUT_FOLLOWS[0])
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
