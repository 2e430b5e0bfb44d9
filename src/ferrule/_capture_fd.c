/* The descriptor and std-handle work of ferrule._capture: see _capture_fd.h. */
#include "_capture_fd.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#ifdef _WIN32
#  include <io.h>
#  include <stdlib.h>
#  include <windows.h>
#else
#  include <fcntl.h>
#  include <sys/stat.h>
#  include <sys/types.h>
#  include <unistd.h>
#endif

#define FERRULE_CHUNK 65536

static int ferrule_raise_errno(void) {
    PyErr_SetFromErrno(PyExc_OSError);
    return -1;
}

#ifdef _WIN32
/* The CRT's fd functions call the invalid-parameter handler on a bad fd, and the default handler
   ends the process; probing a closed fd 2 must return EBADF instead, as CPython's own
   _Py_BEGIN_SUPPRESS_IPH does (not available to extensions since 3.11). */
#ifndef _MSC_VER
_CRTIMP _invalid_parameter_handler __cdecl _set_thread_local_invalid_parameter_handler(
    _invalid_parameter_handler);
#endif
static void __cdecl ferrule_ignore_iph(const wchar_t *expr, const wchar_t *func, const wchar_t *file,
                                       unsigned int line, uintptr_t reserved) {
    (void)expr; (void)func; (void)file; (void)line; (void)reserved;
}
#define FERRULE_BEGIN_SUPPRESS_IPH { _invalid_parameter_handler ferrule_old_iph = \
    _set_thread_local_invalid_parameter_handler(ferrule_ignore_iph);
#define FERRULE_END_SUPPRESS_IPH _set_thread_local_invalid_parameter_handler(ferrule_old_iph); }

static int ferrule_raise_win32(void) {
    PyErr_SetFromWindowsErr(0);
    return -1;
}

int ferrule_dup_private(int fd, int quiet_ebadf) {
    int low[3];
    int n_low = 0, dup, err, i;
    HANDLE handle;
    for (;;) {
        FERRULE_BEGIN_SUPPRESS_IPH
        dup = _dup(fd);
        FERRULE_END_SUPPRESS_IPH
        if (dup < 0 || dup >= 3) break;
        low[n_low++] = dup;
    }
    err = errno;
    for (i = 0; i < n_low; i++) _close(low[i]);
    if (dup < 0) {
        if (quiet_ebadf && err == EBADF) return -2;
        errno = err;
        return ferrule_raise_errno();
    }
    handle = (HANDLE)_get_osfhandle(dup);
    if (handle == INVALID_HANDLE_VALUE || !SetHandleInformation(handle, HANDLE_FLAG_INHERIT, 0)) {
        DWORD last = GetLastError();
        _close(dup);
        SetLastError(last);
        return ferrule_raise_win32();
    }
    return dup;
}

int ferrule_dup2(int src, int dst) {
    int r;
    FERRULE_BEGIN_SUPPRESS_IPH
    r = _dup2(src, dst);
    FERRULE_END_SUPPRESS_IPH
    return r < 0 ? ferrule_raise_errno() : 0;
}

int ferrule_close(int fd) {
    int r;
    FERRULE_BEGIN_SUPPRESS_IPH
    r = _close(fd);
    FERRULE_END_SUPPRESS_IPH
    return r < 0 ? ferrule_raise_errno() : 0;
}

long long ferrule_size(int fd) {
    long long size = _filelengthi64(fd);
    return size < 0 ? ferrule_raise_errno() : size;
}

Py_ssize_t ferrule_pread(int fd, char *buf, Py_ssize_t n, long long offset) {
    Py_ssize_t got = 0;
    if (_lseeki64(fd, offset, SEEK_SET) < 0) return ferrule_raise_errno();
    while (got < n) {
        unsigned int chunk = (n - got) > INT_MAX ? INT_MAX : (unsigned int)(n - got);
        int r = _read(fd, buf + got, chunk);
        if (r < 0) return ferrule_raise_errno();
        if (r == 0) break;
        got += r;
    }
    /* The offset is shared with fd 2: writers must go on at the end. */
    if (_lseeki64(fd, 0, SEEK_END) < 0) return ferrule_raise_errno();
    return got;
}

int ferrule_forward(int src, long long start, long long end, int dest) {
    char *buf = (char *)PyMem_RawMalloc(FERRULE_CHUNK);
    if (buf == NULL) { PyErr_NoMemory(); return -1; }
    while (start < end) {
        Py_ssize_t want = (end - start) < FERRULE_CHUNK ? (Py_ssize_t)(end - start) : FERRULE_CHUNK;
        Py_ssize_t got = ferrule_pread(src, buf, want, start), done = 0;
        if (got < 0) { PyMem_RawFree(buf); return -1; }
        if (got == 0) break;
        start += got;
        while (dest >= 0 && done < got) {
            unsigned int chunk = (unsigned int)(got - done);
            int w;
            FERRULE_BEGIN_SUPPRESS_IPH
            w = _write(dest, buf + done, chunk);
            FERRULE_END_SUPPRESS_IPH
            if (w < 0) dest = -1;
            else done += w;
        }
    }
    PyMem_RawFree(buf);
    return 0;
}

int ferrule_reset(int fd) {
    errno_t err = _chsize_s(fd, 0);
    if (err != 0) {
        errno = err;
        return ferrule_raise_errno();
    }
    return _lseeki64(fd, 0, SEEK_SET) < 0 ? ferrule_raise_errno() : 0;
}

static DWORD ferrule_std_id(int fd) {
    return fd == 0 ? STD_INPUT_HANDLE : fd == 1 ? STD_OUTPUT_HANDLE : STD_ERROR_HANDLE;
}

void *ferrule_get_std(int fd) {
    return (void *)GetStdHandle(ferrule_std_id(fd));
}

int ferrule_set_std(int fd, void *handle) {
    return SetStdHandle(ferrule_std_id(fd), (HANDLE)handle) ? 0 : ferrule_raise_win32();
}

int ferrule_point_std(int fd) {
    intptr_t handle = _get_osfhandle(fd);
    if (handle == -1) return ferrule_raise_errno();
    return ferrule_set_std(fd, (void *)handle);
}
#else
int ferrule_dup_private(int fd, int quiet_ebadf) {
    int dup = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (dup < 0) {
        if (quiet_ebadf && errno == EBADF) return -2;
        return ferrule_raise_errno();
    }
    return dup;
}

int ferrule_dup2(int src, int dst) {
    int rc;
    do rc = dup2(src, dst); while (rc < 0 && errno == EINTR);
    return rc < 0 ? ferrule_raise_errno() : 0;
}

int ferrule_close(int fd) {
    /* Linux releases the fd even when close reports EINTR: never retry. */
    return close(fd) < 0 && errno != EINTR ? ferrule_raise_errno() : 0;
}

/* The file's size: every capture starts at offset 0, so this is what the block wrote. Cheaper
   than fstat; the offset it moves is reset before the next capture writes. */
long long ferrule_size(int fd) {
    off_t end = lseek(fd, 0, SEEK_END);
    return end < 0 ? ferrule_raise_errno() : (long long)end;
}

Py_ssize_t ferrule_pread(int fd, char *buf, Py_ssize_t n, long long offset) {
    Py_ssize_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, (size_t)(n - got), (off_t)(offset + got));
        if (r < 0) {
            if (errno == EINTR) continue;
            return ferrule_raise_errno();
        }
        if (r == 0) break;
        got += r;
    }
    return got;
}

/* The GIL is released around each syscall; a signal interrupting one runs its handler here. */
int ferrule_forward(int src, long long start, long long end, int dest) {
    char *buf = (char *)PyMem_RawMalloc(FERRULE_CHUNK);
    ssize_t got, w;
    int err;
    if (buf == NULL) { PyErr_NoMemory(); return -1; }
    while (start < end) {
        size_t want = (end - start) < FERRULE_CHUNK ? (size_t)(end - start) : FERRULE_CHUNK;
        ssize_t done = 0;
        Py_BEGIN_ALLOW_THREADS
        got = pread(src, buf, want, (off_t)start);
        err = errno;
        Py_END_ALLOW_THREADS
        if (got < 0) {
            if (err == EINTR && PyErr_CheckSignals() == 0) continue;
            if (err != EINTR) { errno = err; ferrule_raise_errno(); }
            PyMem_RawFree(buf);
            return -1;
        }
        if (got == 0) break;
        start += got;
        while (dest >= 0 && done < got) {
            Py_BEGIN_ALLOW_THREADS
            w = write(dest, buf + done, (size_t)(got - done));
            err = errno;
            Py_END_ALLOW_THREADS
            if (w >= 0) done += w;
            else if (err != EINTR) dest = -1;
            else if (PyErr_CheckSignals() < 0) { PyMem_RawFree(buf); return -1; }
        }
    }
    PyMem_RawFree(buf);
    return 0;
}

int ferrule_reset(int fd) {
    if (ftruncate(fd, 0) < 0) return ferrule_raise_errno();
    return lseek(fd, 0, SEEK_SET) < 0 ? ferrule_raise_errno() : 0;
}

/* POSIX children inherit the fds themselves: no std handles to keep in step. */
void *ferrule_get_std(int fd) { (void)fd; return NULL; }
int ferrule_set_std(int fd, void *handle) { (void)fd; (void)handle; return 0; }
int ferrule_point_std(int fd) { (void)fd; return 0; }
#endif
