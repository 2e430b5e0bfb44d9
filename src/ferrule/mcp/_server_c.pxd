# C types for _server_py.py compiled as ferrule.mcp._server_c: `Server` an extension type, its state
# in C fields, and the methods on a call's route calling one another in C. Every field is public (a
# Python subclass's `self._pending` must be this field, not an attribute of its own beside it), and
# instances keep a __dict__ (a subclass or an embedder may add attributes) and take weak references,
# as instances of the pure-Python twin do.

import cython

# the wire's hot functions, called in C (the names _server_py.py imports from wire.py)
from ferrule.mcp._wire_c cimport classify, compact, encode, error_line, result_line

cdef class _Plan:
    cdef public object entry
    cdef public bint quick

cdef class Server:
    cdef public object name, version, tools, instructions, max_line, stderr_limit, revision
    cdef public object turns, lane
    cdef public object _info, _stamp, _plans_of, _lists, _discover
    cdef public dict _plans, _concurrent, _handshake, _stateless
    cdef public list _pending, _read_items
    cdef public Py_ssize_t _read_at
    cdef public object _read_cancels
    cdef public object _order, _read_batch, _transport, _write_lock, _stdin_guard, _capture, _window
    cdef public bint _lane_in_read, _last_of_read, _dead, _in_array
    cdef dict __dict__
    cdef object __weakref__

    cpdef object _serve_one(self)

    @cython.locals(items=list, last=Py_ssize_t, index=Py_ssize_t)
    cpdef object _serve_rest(self)
    cpdef object write(self, object lines)
    cpdef object _handle(self, object msg, object line, Py_ssize_t index, object cancels)
    cpdef object _route(self, object msg_id, object method, dict params)

    @cython.locals(plan=_Plan)
    cpdef object _call(self, object msg_id, dict params, bint stateless=*)

    @cython.locals(timed=bint, started=double)
    cpdef object _run_sync(self, object msg_id, _Plan plan, object name, dict args, object revision,
                           bint stateless)
    cpdef object _answer(self, object msg_id, object name, object output, object stderr, object revision,
                         bint stateless)

cpdef tuple _decode(object line, object max_line)
