# C types for _capture_helpers.py compiled as ferrule._capture_helpers_c: the compiled capture twin
# cimports these and calls them without going through Python calls.

cdef dict _sys_attributes

cdef class StreamFlusher:
    cdef readonly str name
    cdef object _stream
    cdef object _flush
    cpdef run(self)

cpdef bint never_buffers(object stream)
cpdef Py_ssize_t as_limit(object limit) except -2
cpdef long long as_threshold(object threshold) except -1
cpdef str truncation_note(long long cut)
cpdef collect(object captured, object read_at, int sink, long long start, long long end, Py_ssize_t limit)
