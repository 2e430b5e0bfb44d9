"""Pipes sized for the largest message they carry in one piece."""

from __future__ import annotations

import sys

PIPE_BYTES = 1 << 20  # Linux's default ceiling for an unprivileged process (fs.pipe-max-size)


def widen_pipe(fd: int) -> None:
    """Let the pipe behind `fd` hold a large message whole (a file's text in a request, the
    analyzer's answer to a completion): its reader then takes it in one read and one wake-up of its
    event loop, not one per 64 KiB. Linux only; elsewhere, past the system's ceiling, or on an fd
    that is no pipe, the pipe stays as it is."""
    if sys.platform != "linux":
        return
    import fcntl

    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:
        pass
