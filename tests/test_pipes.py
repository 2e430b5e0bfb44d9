"""Pipes that carry a large message in one piece: a widened pipe holds 1 MiB, so a file's text in a
request or an analyzer's completion list is read at once; anything else is left as it is."""

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
        message = b"x" * (PIPE_BYTES // 2)
        assert os.write(write_end, message) == len(message)  # a default pipe would take 64 KiB of it
        assert len(os.read(read_end, PIPE_BYTES)) == len(message)
    finally:
        os.close(read_end)
        os.close(write_end)


def test_what_is_no_pipe_is_left_alone(tmp_path):
    with open(tmp_path / "file", "wb") as file:
        widen_pipe(file.fileno())  # no error: the call is best effort
        file.write(b"still writable")
