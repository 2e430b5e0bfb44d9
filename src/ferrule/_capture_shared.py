"""What both capture twins share: the error, the result, the process-wide guard, the raw-fd helpers.

This module and its twins are the project's one home of raw-descriptor work (MCP-CORE section 4
p26): the transport calls `private_stdout` and `stdin_from_devnull` instead of touching fds itself.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO

#: Held while a stderr capture is active. One lock for both twins: the redirect is process-global,
#: so a C capture inside a Python one (or the reverse) must be refused too.
ACTIVE = threading.Lock()

#: STATE[0] == 1 once `private_stdout` made fd 1 an alias of fd 2; a capture then follows fd 1 too,
#: so a tool's stray prints and its children's stdout land in its report.
STATE = bytearray(1)

BUSY_MESSAGE = (
    "stderr is already being captured: the fd-2 redirect is process-global, so captures must not "
    "nest or run concurrently (MCP-CORE section 4, the capture guard); finish the active capture first"
)


class CaptureBusy(RuntimeError):
    """A stderr capture was started while another one is active (MCP-CORE section 4)."""

    def __init__(self, message: str = BUSY_MESSAGE) -> None:
        super().__init__(message)


class Captured:
    """What a capture saw; filled when the `with` block exits, also when it raises."""

    __slots__ = ("text", "truncated", "size")

    def __init__(self) -> None:
        self.text: str = ""
        #: True when a limit cut the head off; `text` then starts with a note saying how much.
        self.truncated: bool = False
        #: Bytes written to stderr during the block, including any that were cut.
        self.size: int = 0

    def __repr__(self) -> str:
        return f"Captured(size={self.size}, truncated={self.truncated}, text={self.text!r})"


#: A capture session empties its file between windows once it holds more than this many bytes.
DEFAULT_SESSION_THRESHOLD = 1 << 20


def truncation_note(cut: int) -> str:
    return f"[stderr truncated: the first {cut} bytes were cut]\n"


def open_sink() -> IO[bytes]:
    """The temporary FILE fd 2 points at during a capture: unlinked, unbuffered, not inherited.

    Opened for appending (POSIX), so every writer, a child still running included, writes at the
    end, also right after the file was emptied.
    """
    sink = tempfile.TemporaryFile(buffering=0)
    if sys.platform != "win32":
        import fcntl

        fd = sink.fileno()
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
    return sink


def dup_private(fd: int) -> int:
    """Duplicate `fd` to a descriptor >= 3 that children do not inherit.

    At 3 or above so that a closed fd 0/1/2 is never filled by the duplicate by accident.
    """
    if sys.platform != "win32":
        import fcntl

        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    low = []
    try:
        dup = os.dup(fd)  # not inheritable (PEP 446)
        while dup < 3:
            low.append(dup)
            dup = os.dup(fd)
        return dup
    finally:
        for extra in low:
            os.close(extra)


def occupy_with_devnull(fd: int) -> None:
    """Point an invalid `fd` at the null device, so nothing opened later lands on it by chance."""
    null = os.open(os.devnull, os.O_RDWR)
    if null != fd:
        os.dup2(null, fd)
        os.close(null)


def fd_is_valid(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


if sys.platform == "win32":
    import ctypes
    import msvcrt
    from ctypes import wintypes

    STD_INPUT_HANDLE = 0xFFFFFFF6  # (DWORD)-10
    STD_OUTPUT_HANDLE = 0xFFFFFFF5  # (DWORD)-11
    STD_ERROR_HANDLE = 0xFFFFFFF4  # (DWORD)-12

    _kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    _kernel32.GetStdHandle.argtypes = [wintypes.DWORD]
    _kernel32.GetStdHandle.restype = wintypes.HANDLE
    _kernel32.SetStdHandle.argtypes = [wintypes.DWORD, wintypes.HANDLE]
    _kernel32.SetStdHandle.restype = wintypes.BOOL

    def get_std_handle(which: int) -> int | None:
        return _kernel32.GetStdHandle(which)

    def set_std_handle(which: int, handle: int | None) -> None:
        """`subprocess` children inherit the std handles, not the CRT fds: dup2 alone is not enough."""
        if not _kernel32.SetStdHandle(which, handle):
            raise ctypes.WinError(ctypes.get_last_error())

    def point_std_handle(which: int, fd: int) -> None:
        set_std_handle(which, msvcrt.get_osfhandle(fd))


def flush_stream(stream: IO[str] | None) -> None:
    if stream is not None:
        try:
            stream.flush()
        except (OSError, ValueError):  # closed or broken: nothing pending can reach the fd anyway
            pass


def never_buffers(stream: object) -> bool:
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


class StreamFlusher:
    """Flushes `sys.<name>` (whatever object it is now), skipping a stream that never holds text
    back. What it learnt about a stream is kept while `sys.<name>` stays the same object."""

    __slots__ = ("name", "_stream", "_flush")

    def __init__(self, name: str) -> None:
        self.name = name
        self._stream: object = None
        self._flush: Callable[[], object] | None = None

    def __call__(self) -> None:
        stream = sys.__dict__.get(self.name)
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


_private_stdout: int | None = None
_private_lock = threading.Lock()


def private_stdout() -> int:
    """Keep fd 1 for protocol frames only: return a private duplicate and point fd 1 at fd 2.

    The duplicate is >= 3 and close-on-exec; afterwards `print()` and children's stdout go to stderr
    (and into an active capture). Idempotent: later calls return the same descriptor.
    """
    global _private_stdout
    with _private_lock:
        if _private_stdout is not None:
            return _private_stdout
        flush_stream(sys.stdout)
        protocol = dup_private(1)
        try:
            os.dup2(2, 1)
            if sys.platform == "win32":
                point_std_handle(STD_OUTPUT_HANDLE, 1)
        except BaseException:
            os.close(protocol)
            raise
        _private_stdout = protocol
        STATE[0] = 1
        return protocol


def private_stdin() -> int:
    """A private duplicate of fd 0 to read protocol frames from: >= 3, close-on-exec, the caller's
    to close. Pair it with `stdin_from_devnull()`, so that tools and their children cannot read (and
    swallow) the protocol input. Raises OSError when fd 0 is closed."""
    return dup_private(0)


@contextmanager
def stdin_from_devnull() -> Iterator[None]:
    """Point fd 0 (and `sys.stdin`) at the null device for the block, so nothing can prompt.

    A child reading stdin gets end-of-file at once; `input()` raises EOFError. Restored after.
    """
    saved = dup_private(0) if fd_is_valid(0) else -1
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        if null != 0:
            os.dup2(null, 0)
        if sys.platform == "win32":
            old_handle = get_std_handle(STD_INPUT_HANDLE)
            point_std_handle(STD_INPUT_HANDLE, 0)
    finally:
        if null != 0:
            os.close(null)
    # Python-level readers hold their own buffer, possibly of the real stdin: swap them too.
    old_stdin = sys.stdin
    sys.stdin = null_stdin = open(os.devnull, encoding="utf-8")
    try:
        yield
    finally:
        sys.stdin = old_stdin
        null_stdin.close()
        try:
            if saved >= 0:
                os.dup2(saved, 0)
            else:
                os.close(0)
            if sys.platform == "win32":
                set_std_handle(STD_INPUT_HANDLE, old_handle)
        finally:
            if saved >= 0:
                os.close(saved)
