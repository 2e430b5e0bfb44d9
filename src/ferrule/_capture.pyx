# cython: language_level=3, embedsignature=True
"""Compiled twin of `ferrule._capture_py`: the stderr capture guard (MCP-CORE section 4).

Same behaviour, with the descriptor work done in C: on the empty path a capture cycle is a few
syscalls plus flushing `sys.stderr`, and a session window one `lseek` at each edge. The platform
code is C of its own (`_capture_fd.c`, declared in `_capture_fd.pxd`), switched on `_WIN32`.
"""

import operator
import os
import sys

from cpython.dict cimport PyDict_GetItem
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.ref cimport PyObject
from cpython.unicode cimport PyUnicode_DecodeUTF8
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

from ferrule._capture_shared import (
    ACTIVE,
    DEFAULT_SESSION_THRESHOLD,
    STATE,
    Captured,
    CaptureBusy,
    never_buffers,
    occupy_with_devnull,
    open_sink,
    truncation_note,
)

cdef extern from "Python.h":
    char *PyByteArray_AS_STRING(object bytearray)


__all__ = ["CaptureSession", "StderrCapture", "capture_stderr"]

cdef object _acquire = ACTIVE.acquire
cdef object _captured_new = Captured.__new__
cdef object _release = ACTIVE.release
cdef object _state = STATE

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


cdef dict _sys_dict = sys.__dict__


cdef class _Flusher:
    """Flushes `sys.<name>` (whatever object it is now), skipping a stream that never holds text
    back (`never_buffers`); what it learnt about a stream is kept while it stays the same object."""

    cdef str name
    cdef object stream
    cdef object flush

    def __cinit__(self, str name):
        self.name = name

    cdef void run(self):
        cdef PyObject *found = PyDict_GetItem(_sys_dict, self.name)  # borrowed; sys.stderr may be replaced
        if found is NULL or <object>found is None:
            return
        if <object>found is not self.stream:
            self.stream = <object>found
            self.flush = None if never_buffers(self.stream) else getattr(self.stream, "flush", None)
        if self.flush is None:
            return
        try:
            self.flush()
        except (OSError, ValueError):  # closed or broken: nothing pending can reach the fd anyway
            pass


cdef _Flusher _stderr_flusher = _Flusher("stderr")
cdef _Flusher _stdout_flusher = _Flusher("stdout")


cdef inline void _flush_all(bint stdout_too):
    _stderr_flusher.run()
    if stdout_too:
        _stdout_flusher.run()
    fflush(NULL)  # C stdio buffers


cdef object _new_captured():
    """An empty Captured, without running its Python __init__ (the hot path of a window)."""
    cdef object captured = _captured_new(Captured)
    captured.text = ""
    captured.truncated = False
    captured.size = 0
    return captured


cdef inline bint _stdout_follows():
    return PyByteArray_AS_STRING(_state)[0] != 0


cdef Py_ssize_t _as_limit(object limit) except -2:
    """-1 for no cap."""
    cdef Py_ssize_t checked
    if limit is None:
        return -1
    checked = limit if type(limit) is int else operator.index(limit)
    if checked < 0:
        raise ValueError(f"limit must be None or a byte count >= 0, not {limit}")
    return checked


cdef class _Redirect:
    """fd 2 (and fd 1 when `private_stdout` made it follow fd 2) -> the process's temporary file."""

    cdef int _saved
    cdef int _sink
    cdef bint _follow_stdout
    cdef bint _handles_saved
    cdef void *_old_stderr_handle
    cdef void *_old_stdout_handle

    def __cinit__(self, *args, **kwargs):
        self._saved = -1
        self._sink = -1

    cdef int _redirect(self) except -1:
        cdef int saved = ferrule_dup_private(2, 1)
        if saved == -2:
            # Occupy fd 2 first, so the temporary file cannot be opened onto it (pytest does the same).
            occupy_with_devnull(2)
            saved = -1
        self._saved = saved
        self._follow_stdout = saved >= 0 and _stdout_follows()
        self._handles_saved = False
        try:
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
        except BaseException:
            self._restore()
            raise
        return 0

    cdef int _restore(self) except -1:
        """Put back whatever held fd 2 (and the std handles) before; close the saved fd once."""
        cdef int saved = self._saved
        self._saved = -1
        try:
            if saved >= 0:
                ferrule_dup2(saved, 2)
                if self._follow_stdout:
                    ferrule_dup2(2, 1)
            else:
                ferrule_close(2)
            if self._handles_saved:
                self._handles_saved = False
                ferrule_set_std(2, self._old_stderr_handle)
                ferrule_set_std(1, self._old_stdout_handle)
        finally:
            if saved >= 0:
                ferrule_close(saved)
        return 0


cdef class StderrCapture(_Redirect):
    """Context manager: fd 2 -> the process's temporary file for the block; yields a `Captured`."""

    cdef readonly object limit
    cdef Py_ssize_t _limit  # -1: no cap
    cdef object _captured
    cdef bint _active

    def __cinit__(self, limit=None):
        self._limit = _as_limit(limit)
        self.limit = limit

    def __enter__(self):
        # Made before anything changes: creating it runs Python code, where a KeyboardInterrupt may
        # land, and past this point no Python code runs between redirecting fd 2 and returning.
        captured = Captured()
        if self._active or not _acquire(False):
            raise CaptureBusy()
        try:
            self._redirect()
        except BaseException:
            _release()
            raise
        self._active = True
        self._captured = captured
        return captured

    def __exit__(self, exc_type, exc, tb):
        cdef long long size = 0
        if not self._active:
            raise RuntimeError("this stderr capture is not active")
        self._active = False
        captured = self._captured
        self._captured = None
        try:
            _flush_all(self._follow_stdout)
            size = ferrule_size(self._sink)
        finally:
            try:
                self._restore()
            finally:
                _release()
        if size:
            try:
                _collect(captured, self._sink, 0, size, self._limit)
            finally:
                ferrule_reset(self._sink)  # ready for the next capture, and the disk space back
        return None


cdef class CaptureSession(_Redirect):
    """A capture redirect that stays in place for a whole run, with one window per tool call.

    `begin()` opens a window, `end(limit)` returns its `Captured`, `forward()` copies what was
    written between windows to the real stderr. The pure-Python twin's docstring
    (`ferrule._capture_py.CaptureSession`) states the behaviour and the trade-off in full.
    """

    cdef readonly long long threshold
    cdef bint _active
    cdef long long _start  # where the open window starts; -1 between windows
    cdef long long _mark  # every byte before it has been read into a window or forwarded

    def __cinit__(self, threshold=DEFAULT_SESSION_THRESHOLD):
        checked = operator.index(threshold)
        if checked < 0:
            raise ValueError(f"threshold must be a byte count >= 0, not {threshold}")
        self.threshold = checked
        self._start = -1

    @property
    def active(self):
        """Whether the session is open (fd 2 points at the capture file)."""
        return self._active

    def __enter__(self):
        if self._active or not _acquire(False):
            raise CaptureBusy()
        try:
            self._redirect()  # the file starts empty
        except BaseException:
            _release()
            raise
        self._mark = 0
        self._start = -1
        self._active = True
        return self

    def __exit__(self, exc_type, exc, tb):
        cdef long long size
        if not self._active:
            raise RuntimeError("this capture session is not open")
        self._active = False
        self._start = -1  # an open window's bytes are forwarded with the rest: nothing is lost
        try:
            try:
                # `private_stdout` may have run during the session: fd 1 then points at the file too.
                self._follow_stdout = self._saved >= 0 and _stdout_follows()
                _flush_all(self._follow_stdout)
                size = ferrule_size(self._sink)
                if size > self._mark:
                    ferrule_forward(self._sink, self._mark, size, self._saved)
                self._mark = 0
            finally:
                self._restore()
        finally:
            _release()
        return None

    def begin(self):
        """Open a window; returns its offset in the capture file."""
        cdef long long size
        if self._start >= 0 or not self._active:
            if not self._active:
                raise RuntimeError("the capture session is not open")
            raise CaptureBusy()
        _flush_all(_stdout_follows())  # the server's own pending text belongs before the window
        size = ferrule_size(self._sink)
        if size != self._mark:
            size = self._settle(size)
        self._start = size
        return size

    def end(self, limit=None):
        """Close the window: what was written to fd 2 (and fd 1) since `begin()`."""
        cdef long long size, start = self._start
        cdef Py_ssize_t checked
        captured = _new_captured()
        if start < 0:
            raise RuntimeError("no capture window is open")
        checked = _as_limit(limit)
        _flush_all(_stdout_follows())
        size = ferrule_size(self._sink)
        self._start = -1
        self._mark = size
        if size > start:
            _collect(captured, self._sink, start, size, checked)
            if size > self.threshold:
                ferrule_reset(self._sink)
                self._mark = 0
        return captured

    def forward(self):
        """Copy what was written since the last window to the real stderr now (no-op in a window)."""
        cdef long long size
        if self._start >= 0 or not self._active:
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


cdef int _collect(object captured, int sink, long long start, long long end, Py_ssize_t limit) except -1:
    """Fill `captured` from the bytes [start, end) of the file: the tail under `limit`, decoded."""
    cdef long long first = end - limit if 0 <= limit < end - start else start
    cdef Py_ssize_t wanted = <Py_ssize_t>(end - first)
    cdef Py_ssize_t got, skip = 0
    cdef char *buf = <char *>PyMem_Malloc(wanted if wanted > 0 else 1)
    if buf is NULL:
        raise MemoryError()
    try:
        got = ferrule_pread(sink, buf, wanted, first)
        if first > start:
            # Never start inside a character: skip its continuation bytes (at most 3 in UTF-8).
            while skip < 3 and skip < got and (<unsigned char>buf[skip] & 0xC0) == 0x80:
                skip += 1
        text = PyUnicode_DecodeUTF8(buf + skip, got - skip, "replace")
    finally:
        PyMem_Free(buf)
    captured.size = end - start
    if first > start:
        captured.truncated = True
        captured.text = truncation_note(first - start + skip) + text
    else:
        captured.text = text
    return 0


def capture_stderr(limit=None):
    """Capture everything written to fd 2 (this process and its children) during a `with` block.

    `limit` caps the bytes kept: the tail is kept and `text` starts with a note saying how many
    bytes were cut. Raises `CaptureBusy` when another capture is active. Python-level writes are
    seen when `sys.stderr` writes to fd 2 (as in a server process); a host that swapped in an object
    of its own (pytest's capsys or capfd) keeps what is written to that object.
    """
    return StderrCapture(limit)
