"""Pipes that take a large message at once: a widened pipe holds 256 KiB, so a file's text in a
request is handed over whole; a pipe already larger, and anything that is no pipe, is left alone."""

from __future__ import annotations

import os
import sys

import pytest

from ferrule._pipes import PIPE_BYTES, widen_pipe

linux = pytest.mark.skipif(sys.platform != "linux", reason="pipe sizes are set on Linux only")


def capacity(fd: int) -> int:
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ)


@linux
def test_a_widened_pipe_takes_a_large_message_in_one_write():
    read_end, write_end = os.pipe()
    try:
        widen_pipe(read_end)
        assert capacity(write_end) == PIPE_BYTES  # one pipe: either end sees it
        os.set_blocking(write_end, False)
        message = b"x" * 200_000  # a 6k-line file's text; a default pipe takes 64 KiB of it
        assert os.write(write_end, message) == len(message)
        assert os.read(read_end, PIPE_BYTES) == message
    finally:
        os.close(read_end)
        os.close(write_end)


@linux
def test_a_pipe_already_larger_is_not_shrunk():
    import fcntl

    read_end, write_end = os.pipe()
    try:
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4 * PIPE_BYTES)
        widen_pipe(read_end)
        assert capacity(read_end) == 4 * PIPE_BYTES
    finally:
        os.close(read_end)
        os.close(write_end)


def test_what_is_no_pipe_is_left_alone(tmp_path):
    path = tmp_path / "file"
    with open(path, "wb") as file:
        widen_pipe(file.fileno())  # no error: the call is best effort
        file.write(b"still writable")
    assert path.read_bytes() == b"still writable"
