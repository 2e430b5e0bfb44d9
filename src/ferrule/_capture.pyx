# cython: language_level=3, embedsignature=True
"""Compiled twin of `ferrule._capture_py`: the stderr capture guard (docs/MCP.md §4.2).

Same behaviour, with the descriptor work done in C: on the empty path a capture cycle is a few
syscalls plus flushing `sys.stderr`, and a session window one `lseek` at each edge. The platform
code is C of its own (`_capture_fd.c`, declared in `_capture_fd.pxd`), switched on `_WIN32`.
"""

import os

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.dict cimport PyDict_GetItem
from cpython.ref cimport PyObject
from libc.stdio cimport fflush

from ferrule._capture_fd cimport (
    FERRULE_WINDOWS,
    ferrule_close,
    ferrule_dup2,
    ferrule_dup_private,
    ferrule_forward,
    ferrule_get_std,
    ferrule_point_std,
    ferrule_pread,
    ferrule_reset,
    ferrule_set_std,
    ferrule_size,
)

from ferrule._capture_helpers_c cimport StreamFlusher, as_limit, as_threshold, collect

from ferrule import _capture_shared as shared
from ferrule._capture_shared import (
    ACTIVE,
    DEFAULT_SESSION_THRESHOLD,
    STDOUT_FOLLOWS,
    Captured,
    CaptureBusy,
    occupy_with_devnull,
    open_sink,
    refuse,
)

cdef extern from "Python.h":
    char *PyByteArray_AS_STRING(object bytearray)
    PyObject *PyDict_SetDefault(object mapping, object key, object default) except NULL  # borrowed


__all__ = ["CaptureSession", "StderrCapture", "capture_stderr"]

# The shared state machine's states and transition sets, as C ints for the hot path.
cdef int IDLE = shared.IDLE
cdef int GUARDED = shared.GUARDED
cdef int SAVED = shared.SAVED
cdef int REDIRECTED = shared.REDIRECTED
cdef int WINDOW = shared.WINDOW
cdef int ENTER_FROM = shared.ALLOWED_FROM["enter"]
cdef int EXIT_FROM = shared.ALLOWED_FROM["exit"]
cdef int BEGIN_FROM = shared.ALLOWED_FROM["begin"]
cdef int END_FROM = shared.ALLOWED_FROM["end"]

cdef dict _guard_holder = ACTIVE.holder
cdef str _HOLDER = ACTIVE.KEY
cdef object _captured_new = Captured.__new__
cdef object _stdout_follows_flag = STDOUT_FOLLOWS
cdef StreamFlusher _flush_stderr = StreamFlusher("stderr")
cdef StreamFlusher _flush_stdout = StreamFlusher("stdout")

cdef int _sink = -1
cdef object _sink_file = None
_parents_sinks = []


cdef int _sink_fd() except -1:
    global _sink, _sink_file
    if _sink < 0:
        _sink_file = open_sink()
        _sink = _sink_file.fileno()
    return _sink


def _own_sink_after_fork():
    # A forked child must not truncate the parent's file; kept open for a capture the fork interrupted.
    global _sink, _sink_file
    if _sink_file is not None:
        _parents_sinks.append(_sink_file)
    _sink_file = None
    _sink = -1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_own_sink_after_fork)


def _read_at(int fd, Py_ssize_t size, long long offset):
    """Up to `size` bytes of `fd` from `offset`, fewer only at the end of the file (for `collect`)."""
    cdef bytes data = PyBytes_FromStringAndSize(NULL, size)
    cdef Py_ssize_t got = ferrule_pread(fd, PyBytes_AS_STRING(data), size, offset)
    return data if got == size else data[:got]


cdef inline int _flush_all(bint stdout_too) except -1:
    """Buffered Python and C output must reach the fd before it moves or its size is read."""
    _flush_stderr.run()
    if stdout_too:
        _flush_stdout.run()
    fflush(NULL)  # C stdio buffers
    return 0


cdef object _new_captured():
    """An empty Captured, without running its Python __init__ (the hot path of a window)."""
    return _captured_new(Captured)  # the class holds the empty values


cdef inline bint _take_guard(object capture) except -1:
    """`CaptureGuard.take` without the Python call: one C call neither a signal nor a thread splits."""
    return <object>PyDict_SetDefault(_guard_holder, _HOLDER, capture) is capture


cdef inline int _give_back_guard(object capture) except -1:
    """`CaptureGuard.give_back` without the Python call."""
    cdef PyObject *holder = PyDict_GetItem(_guard_holder, _HOLDER)  # borrowed
    if holder is not NULL and <object>holder is capture:
        del _guard_holder[_HOLDER]
    return 0


cdef inline bint _stdout_follows():
    return PyByteArray_AS_STRING(_stdout_follows_flag)[0] != 0


cdef class _Redirect:
    """fd 2 (and fd 1 when `private_stdout` made it follow fd 2) -> the process's temporary file.

    Walks the state ladder of `ferrule._capture_shared` (IDLE ... REDIRECTED), whose comment gives
    the argument that a KeyboardInterrupt at any point leaves fd 2 and the guard as they were; the
    same steps in the same order as the Python twin's `_Redirect`.
    """

    cdef int _state
    cdef int _saved
    cdef int _sink
    cdef bint _follow_stdout
    cdef bint _handles_saved
    cdef void *_old_stderr_handle
    cdef void *_old_stdout_handle
    cdef str _kind  # "capture" or "session", for `refuse`

    def __cinit__(self, *args, **kwargs):
        self._state = IDLE
        self._saved = -1
        self._sink = -1

    cdef inline int _assert_state(self, str op, int allowed_from) except -1:
        if not (1 << self._state) & allowed_from:
            refuse(self._kind, op, self._state)
        return 0

    cdef int _enter(self) except -1:
        """IDLE -> REDIRECTED, each step recorded before it acts; back to IDLE when one fails."""
        cdef int saved
        try:
            self._state = GUARDED
            if not _take_guard(self):
                raise CaptureBusy()
            self._state = SAVED
            self._saved = -1
            saved = ferrule_dup_private(2, 1)  # -2: fd 2 is invalid
            self._saved = saved if saved >= 0 else -1
            self._follow_stdout = saved >= 0 and _stdout_follows()
            self._handles_saved = False
            self._state = REDIRECTED
            if saved < 0:
                # Occupy fd 2 first, so the temporary file cannot be opened onto it (pytest does the same).
                occupy_with_devnull(2)
            self._sink = _sink_fd()
            if ferrule_size(self._sink):  # a capture cut short left text behind: not ours
                ferrule_reset(self._sink)
            _flush_all(self._follow_stdout)
            if FERRULE_WINDOWS:
                self._old_stderr_handle = ferrule_get_std(2)
                self._old_stdout_handle = ferrule_get_std(1)
                self._handles_saved = True
            ferrule_dup2(self._sink, 2)
            if self._follow_stdout:
                ferrule_dup2(self._sink, 1)
            if FERRULE_WINDOWS:
                ferrule_point_std(2)
                if self._follow_stdout:
                    ferrule_point_std(1)
            return 0
        except BaseException as exc:
            failure = exc
        while self._state != IDLE:  # the error that stopped the climb is the one to report
            self._walk_down()
        raise failure

    def __exit__(self, exc_type, exc, tb):
        first_error = None
        try:
            self._assert_state("exit", EXIT_FROM)
            self._before_leaving()
        except BaseException as error:
            first_error = error
        while self._state != IDLE:
            error = self._walk_down()
            if first_error is None:
                first_error = error
        if first_error is not None:
            raise first_error
        self._after_leaving()
        return None

    cdef int _before_leaving(self) except -1:
        """What a capture does while fd 2 still points at the file."""
        return 0

    cdef int _after_leaving(self) except -1:
        """What a capture does once fd 2 is back."""
        return 0

    cdef object _walk_down(self):
        """Step down to IDLE; the first error, for the caller to raise once the walk is done (see the
        Python twin's; here no Python code runs between the steps, so the walk itself cannot be cut)."""
        first_error = None
        while self._state != IDLE:
            try:
                self._step_down()
            except BaseException as error:
                if first_error is None:
                    first_error = error
        return first_error

    cdef int _step_down(self) except -1:
        """Undo what the current state holds (idempotently) and record the state below it."""
        cdef int state = self._state, saved
        try:
            if state == REDIRECTED:
                if self._saved >= 0:
                    ferrule_dup2(self._saved, 2)
                    if self._follow_stdout:
                        ferrule_dup2(2, 1)
                else:
                    ferrule_close(2)  # it was invalid before: leave it so
                if self._handles_saved:
                    ferrule_set_std(2, self._old_stderr_handle)
                    ferrule_set_std(1, self._old_stdout_handle)
            elif state == SAVED:
                saved = self._saved
                self._saved = -1  # forgotten first: a leaked fd beats closing a reused one
                if saved >= 0:
                    ferrule_close(saved)
            elif state == GUARDED:
                _give_back_guard(self)
        except KeyboardInterrupt:
            raise  # the step is run again
        except BaseException:
            self._state = state - 1  # it would fail again: go on down
            raise
        self._state = state - 1
        return 0


cdef class StderrCapture(_Redirect):
    """Context manager: fd 2 -> the process's temporary file for the block; yields a `Captured`.

    IDLE -> REDIRECTED on entry, back to IDLE on exit.
    """

    cdef readonly object limit
    cdef Py_ssize_t _limit  # -1: no cap
    cdef object _captured
    cdef long long _size

    def __cinit__(self, limit=None):
        self._kind = "capture"
        self._limit = as_limit(limit)
        self.limit = limit

    def __enter__(self):
        self._assert_state("enter", ENTER_FROM)
        self._captured = _new_captured()
        self._size = 0
        self._enter()
        return self._captured

    cdef int _before_leaving(self) except -1:
        _flush_all(self._follow_stdout)
        self._size = ferrule_size(self._sink)
        return 0

    cdef int _after_leaving(self) except -1:
        if self._size:
            try:
                collect(self._captured, _read_at, self._sink, 0, self._size, self._limit)
            finally:
                ferrule_reset(self._sink)  # ready for the next capture, and the disk space back
        return 0


cdef class CaptureSession(_Redirect):
    """A capture redirect that stays in place for a whole run, with one window per tool call.

    `begin()` opens a window, `end(limit)` returns its `Captured`, `forward()` copies what was
    written between windows to the real stderr. The pure-Python twin's docstring
    (`ferrule._capture_py.CaptureSession`) states the behaviour, the states and the trade-off in full.
    """

    cdef readonly long long threshold
    cdef long long _start  # where the open window starts (in WINDOW)
    cdef long long _mark  # every byte before it has been read into a window or forwarded

    def __cinit__(self, threshold=DEFAULT_SESSION_THRESHOLD):
        self._kind = "session"
        self.threshold = as_threshold(threshold)

    @property
    def active(self):
        """Whether the session is open (fd 2 points at the capture file)."""
        return self._state >= REDIRECTED

    def __enter__(self):
        self._assert_state("enter", ENTER_FROM)
        self._mark = 0
        self._enter()  # the file starts empty
        return self

    cdef int _before_leaving(self) except -1:
        cdef long long size
        # An open window's bytes are forwarded with the rest: nothing is lost.
        # `private_stdout` may have run during the session: fd 1 then points at the file too.
        self._follow_stdout = self._saved >= 0 and _stdout_follows()
        _flush_all(self._follow_stdout)
        size = ferrule_size(self._sink)
        if size > self._mark:
            ferrule_forward(self._sink, self._mark, size, self._saved)
        self._mark = 0
        return 0

    def begin(self):
        """Open a window; returns its offset in the capture file."""
        cdef long long size
        self._assert_state("begin", BEGIN_FROM)
        _flush_all(_stdout_follows())  # the server's own pending text belongs before the window
        size = ferrule_size(self._sink)
        if size != self._mark:
            size = self._settle(size)
        self._start = size
        self._state = WINDOW
        return size

    def end(self, limit=None):
        """Close the window: what was written to fd 2 (and fd 1) since `begin()`."""
        cdef long long size, start
        cdef Py_ssize_t checked
        captured = _new_captured()
        self._assert_state("end", END_FROM)
        checked = as_limit(limit)
        _flush_all(_stdout_follows())
        size = ferrule_size(self._sink)
        self._state = REDIRECTED
        start = self._start
        self._mark = size
        if size > start:
            collect(captured, _read_at, self._sink, start, size, checked)
            if size > self.threshold:
                ferrule_reset(self._sink)
                self._mark = 0
        return captured

    def forward(self):
        """Copy what was written since the last window to the real stderr now (no-op in a window)."""
        cdef long long size
        if self._state != REDIRECTED:
            return None
        _flush_all(_stdout_follows())
        size = ferrule_size(self._sink)
        if size != self._mark:
            self._settle(size)
        return None

    cdef long long _settle(self, long long size) except -1:
        """Forward the bytes since the mark; empty the file past the threshold. The new size."""
        if size > self._mark:
            ferrule_forward(self._sink, self._mark, size, self._saved)
        if size > self.threshold:
            ferrule_reset(self._sink)
            size = 0
        self._mark = size
        return size


def capture_stderr(limit=None):
    """Capture everything written to fd 2 (this process and its children) during a `with` block.

    `limit` caps the bytes kept: the tail is kept and `text` starts with a note saying how many
    bytes were cut. Raises `CaptureBusy` when another capture is active. Python-level writes are
    seen when `sys.stderr` writes to fd 2 (as in a server process); a host that swapped in an object
    of its own (pytest's capsys or capfd) keeps what is written to that object.
    """
    return StderrCapture(limit)
