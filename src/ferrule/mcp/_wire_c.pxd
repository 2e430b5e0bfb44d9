# C types for wire.py compiled as ferrule.mcp._wire_c: what the compiled server loop calls on every
# line, cimported by _server_c.pxd so those calls are C calls. Python code (and the pure-Python
# loop) imports wire.py itself.

cpdef tuple classify(object msg)
cdef tuple _classify_object(dict msg)
cpdef bytes encode(object obj)
cpdef bytes compact(object line)
cpdef bytes result_line(object msg_id, object result)
cpdef bytes error_line(object msg_id, object error)
