"""Pipes sized for the large messages they carry."""

from __future__ import annotations

import sys

# What an event loop reads from a pipe at once (asyncio's read size): a frame with a large file's
# text (200 KB for a 6k-line Rust file) fits. Each pipe's pages count against the user's pipe quota
# (fs.pipe-user-pages-soft, 64 MiB by default), so no more than that.
PIPE_BYTES = 256 * 1024


def widen_pipe(fd: int) -> None:
    """Let the pipe behind `fd` take a large message from its writer at once: the writer is not held
    up after every 64 KiB (the default) until the reader has made room, and the reader finds the
    message whole. Linux only; a pipe already as large is left alone, and elsewhere, past the
    system's limits or on an fd that is no pipe, nothing changes."""
    if sys.platform != "linux":
        return
    import fcntl

    try:
        if fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ) < PIPE_BYTES:
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:
        pass
