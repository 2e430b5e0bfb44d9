"""What both capture twins share: the error, the result, the process-wide guard, the raw-fd helpers.

This module and its twins hold the raw-descriptor work of the capture guard and the private stdio
(docs/MCP.md §4): the transport builds its channel on `dup_private`, `private_stdin` and
`stdin_from_devnull`.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, NoReturn


class CaptureGuard:
    """The process-wide capture guard: at most one holder at a time, and who holds it is known.

    Taking it is one `dict.setdefault`, a single C call that neither a signal handler nor another
    thread can split, and only the holder gives it back; so a capture cut short anywhere can give it
    back exactly when it holds it (a bare Lock cannot say who holds it).
    """

    __slots__ = ("holder",)
    KEY = "holder"

    def __init__(self) -> None:
        #: {KEY: the capture holding the guard}, or empty. The compiled twin works on this dict
        #: directly, with the same two operations as `take` and `give_back`.
        self.holder: dict[str, object] = {}

    def take(self, capture: object) -> bool:
        """Whether `capture` (a capture, or a token standing for it) holds the guard now (it may
        have held it before)."""
        return self.holder.setdefault(self.KEY, capture) is capture

    def give_back(self, capture: object) -> None:
        """Free the guard if `capture` holds it; otherwise do nothing (so it can be repeated)."""
        if self.holder.get(self.KEY) is capture:
            del self.holder[self.KEY]

    def locked(self) -> bool:
        return self.KEY in self.holder

    def release(self) -> None:
        """Free the guard whoever holds it: for a test putting things right after a fault."""
        self.holder.clear()


#: Held while a stderr capture is active. One guard for both twins: the redirect is process-global,
#: so a C capture inside a Python one (or the reverse) must be refused too.
ACTIVE = CaptureGuard()

# The one state machine of both twins' captures (StderrCapture, CaptureSession). Entering climbs
# the ladder one step per thing taken; leaving walks back down it to IDLE; WINDOW is a session's
# open window:
#
#   IDLE -guard-> GUARDED -save fd 2-> SAVED -fd 2 to the file-> REDIRECTED <-begin/end-> WINDOW
#
# Why a KeyboardInterrupt (or any error) at any point leaves fd 2 and the guard as they were, in
# both twins, which take the same steps in the same order:
# 1. Each step up records the state it moves to before it acts, so the record never says less is
#    held than is.
# 2. Each step down is idempotent and checks the world where the record may say more than is held:
#    the guard is given back only by its holder (CaptureGuard), fd 2 is put back with dup2 (a no-op
#    when it had not moved yet), the saved fd is forgotten before it is closed (at worst a leaked fd,
#    never a closed number another thread reuses). A step is recorded done only once it is.
# 3. `_enter` and `__exit__` run everything that can raise inside a try, and then walk down to IDLE
#    in their own body, not behind a call (the interpreter runs signal handlers at a call's entry):
#    a step a KeyboardInterrupt cut short runs again, a step that failed otherwise is passed, and
#    the first error is raised once the walk is done.
# In the compiled twin the steps are C that calls no Python code, so nothing can interrupt them
# (KeyboardInterrupt can land only in the flushes and hooks, inside the try); in the Python twin one
# can land at every call's entry and return, and 1-3 carry it. Neither can guard an interrupt the
# interpreter raises before the first line of a Python `__exit__` runs; the Python twin's `__del__`
# puts things back once such an abandoned capture is dropped (the guard holds a token, not the
# capture, so it does not keep it alive). Tests:
# tests/capture/test_interrupt_points.py (an interrupt at each such point, deterministically) and
# tests/capture/sigint_storm.py (real SIGINTs at random, seeded).
IDLE, GUARDED, SAVED, REDIRECTED, WINDOW = range(5)
STATE_NAMES = ("idle", "guarded", "saved", "redirected", "window")

#: The states each public operation may start from, as bit sets (1 << state): the one transition
#: check of both twins is `(1 << state) & ALLOWED_FROM[op]`, and `refuse` says what went wrong.
ALLOWED_FROM = {
    "enter": 1 << IDLE,
    "exit": 1 << REDIRECTED | 1 << WINDOW,
    "begin": 1 << REDIRECTED,
    "end": 1 << WINDOW,
}

_WRONG_STATE = {
    ("capture", "exit"): "this stderr capture is not active",
    ("session", "exit"): "this capture session is not open",
    ("session", "begin"): "the capture session is not open",
    ("session", "end"): "no capture window is open",
}


def refuse(kind: str, op: str, state: int) -> NoReturn:
    """Raise what `op` started in the wrong `state` raises; `kind` is "capture" or "session"."""
    if op == "enter" or (op == "begin" and state == WINDOW):
        raise CaptureBusy()  # captures do not nest (docs/MCP.md §4.2)
    raise RuntimeError(f"{_WRONG_STATE[kind, op]} (state: {STATE_NAMES[state]})")


#: STDOUT_FOLLOWS[0] == 1 once `private_stdout` made fd 1 an alias of fd 2; a capture then follows
#: fd 1 too, so a tool's stray prints and its children's stdout land in its report.
STDOUT_FOLLOWS = bytearray(1)

BUSY_MESSAGE = (
    "stderr is already being captured: the fd-2 redirect is process-global, so captures must not "
    "nest or run concurrently (docs/MCP.md §4.2, the capture guard); finish the active capture first"
)


class CaptureBusy(RuntimeError):
    """A stderr capture was started while another one is active (docs/MCP.md §4.2)."""

    def __init__(self, message: str = BUSY_MESSAGE) -> None:
        super().__init__(message)


class Captured:
    """What a capture saw; filled when the `with` block exits, also when it raises."""

    # Class-level defaults, no __slots__: an empty one is a bare `object.__new__`, with nothing to set
    # (a window with nothing written, every quiet tool call, makes one).
    text: str = ""
    #: True when a limit cut the head off; `text` then starts with a note saying how much.
    truncated: bool = False
    #: Bytes written to stderr during the block, including any that were cut.
    size: int = 0

    def __repr__(self) -> str:
        return f"Captured(size={self.size}, truncated={self.truncated}, text={self.text!r})"


#: A capture session empties its file between windows once it holds more than this many bytes.
DEFAULT_SESSION_THRESHOLD = 1 << 20


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


class StdoutClaim:
    """fd 1 for protocol frames only, for as long as the claim is held.

    `fd` is a private close-on-exec duplicate of fd 1 (>= 3) that carries the frames; fd 1 points at
    fd 2 meanwhile, and captures follow it (a tool's stray prints land in its report). One claim at a
    time in a process: a second is refused with RuntimeError while the first is held (a duplicate
    of fd 1 made then would be a duplicate of stderr). `release()` points fd 1 back at the wire first
    and only then gives up the claim and closes the duplicate, so a release that failed keeps the
    claim (the next one is refused, never handed a diverted fd 1). Idempotent.
    """

    def __init__(self) -> None:
        global _stdout_claim
        with _claims_lock:
            if _stdout_claim is not None:
                raise RuntimeError("fd 1 is already claimed for protocol frames in this process: a stdio "
                                   "transport gives it back when closed, private_stdout() never does")
            flush_stream(sys.stdout)  # what was printed before the claim goes where fd 1 pointed then
            self.fd = dup_private(1)
            try:
                _point_stdout(2)
            except BaseException:
                os.close(self.fd)
                raise
            _stdout_claim = self
            STDOUT_FOLLOWS[0] = 1
        self._held = True

    def release(self) -> None:
        global _stdout_claim
        with _claims_lock:
            if not self._held:
                return
            flush_stream(sys.stdout)  # prints made during the claim belong on stderr, not on the wire
            _point_stdout(self.fd)  # raises on failure: the claim stays registered
            _stdout_claim = None
            STDOUT_FOLLOWS[0] = 0
            self._held = False
            os.close(self.fd)


_stdout_claim: StdoutClaim | None = None  # the claim on fd 1 held now
_claims_lock = threading.Lock()


def _point_stdout(target: int) -> None:
    os.dup2(target, 1)
    if sys.platform == "win32":  # children inherit the handle, not the fd
        point_std_handle(STD_OUTPUT_HANDLE, 1)


_private_claim: StdoutClaim | None = None
_private_lock = threading.Lock()


def private_stdout() -> int:
    """Keep fd 1 for protocol frames only, for the rest of the process: a `StdoutClaim` never
    released; its private duplicate of fd 1.

    The duplicate is >= 3 and close-on-exec; afterwards `print()` and children's stdout go to stderr
    (and into an active capture). Idempotent: later calls return the same descriptor. Refused with
    RuntimeError while a stdio transport holds its own claim.
    """
    global _private_claim
    with _private_lock:
        if _private_claim is None:
            _private_claim = StdoutClaim()
        return _private_claim.fd


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
