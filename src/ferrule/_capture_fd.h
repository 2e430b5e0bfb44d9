/* The descriptor and std-handle work of the compiled stderr capture (ferrule._capture).
 *
 * POSIX: dup/dup2/fcntl/pread. Windows: the CRT's _dup/_dup2 plus SetStdHandle, because
 * `subprocess` children inherit the std handles, not the C runtime's fds.
 *
 * Every function returning int, long long or Py_ssize_t returns -1 with a Python OSError set on
 * failure (Cython declares them `except -1`); call them with the GIL held.
 */
#ifndef FERRULE_CAPTURE_FD_H
#define FERRULE_CAPTURE_FD_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifdef _WIN32
#  define FERRULE_WINDOWS 1
#else
#  define FERRULE_WINDOWS 0
#endif

/* A duplicate of `fd` >= 3 that children do not inherit (so a closed fd 0/1/2 is never filled by
   it); -2 with no error set when `fd` is invalid and `quiet_ebadf` is non-zero. */
int ferrule_dup_private(int fd, int quiet_ebadf);

int ferrule_dup2(int src, int dst);

/* Never retried: Linux releases the fd even when close reports EINTR. */
int ferrule_close(int fd);

/* The file's size. Moves the offset to the end, where an appending writer goes on anyway. */
long long ferrule_size(int fd);

/* Up to `n` bytes from `offset` into `buf`; fewer only at the end of the file. */
Py_ssize_t ferrule_pread(int fd, char *buf, Py_ssize_t n, long long offset);

/* Copy the bytes [start, end) of `src` to `dest` (-1: nowhere). A failed write drops the rest, as a
   direct write to that stderr would have failed; -1 with an exception only when reading fails or
   a signal handler raises. */
int ferrule_forward(int src, long long start, long long end, int dest);

/* Empty the file and move its offset back to 0. */
int ferrule_reset(int fd);

/* The std handle of fd 0, 1 or 2 (Windows); NULL on POSIX, where there is none to keep in step. */
void *ferrule_get_std(int fd);
int ferrule_set_std(int fd, void *handle);

/* Point the std handle of fd 0, 1 or 2 at what that fd holds now, so children inherit it. */
int ferrule_point_std(int fd);

#endif
