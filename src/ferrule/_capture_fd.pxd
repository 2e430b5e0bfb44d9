# C declarations of _capture_fd.h (the descriptor work of ferrule._capture), compiled from
# _capture_fd.c with warnings as errors; see the header for what each function promises.

cdef extern from "_capture_fd.h":
    const int FERRULE_WINDOWS
    int ferrule_dup_private(int fd, int quiet_ebadf) except -1
    int ferrule_dup2(int src, int dst) except -1
    int ferrule_close(int fd) except -1
    long long ferrule_size(int fd) except -1
    Py_ssize_t ferrule_pread(int fd, char *buf, Py_ssize_t n, long long offset) except -1
    int ferrule_forward(int src, long long start, long long end, int dest) except -1
    int ferrule_reset(int fd) except -1
    void *ferrule_get_std(int fd)
    int ferrule_set_std(int fd, void *handle) except -1
    int ferrule_point_std(int fd) except -1
