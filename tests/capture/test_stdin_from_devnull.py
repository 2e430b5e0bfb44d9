"""stdin_from_devnull: nothing inside the block can wait on stdin; fd 0 comes back after. private_stdin:
the protocol input kept where only the server reads it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from ferrule.capture import private_stdin, stdin_from_devnull

READER = "import sys; data = sys.stdin.read(); print(repr(data))"


def identity(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


@contextmanager
def stdin_from_open_pipe() -> Iterator[int]:
    """fd 0 -> a pipe whose writer stays open: a reader of stdin would wait forever."""
    read_end, write_end = os.pipe()
    saved = os.dup(0)
    try:
        os.dup2(read_end, 0)
        yield write_end
    finally:
        os.dup2(saved, 0)
        for fd in (saved, read_end, write_end):
            os.close(fd)


def test_a_child_reading_stdin_gets_end_of_file_at_once():
    with stdin_from_open_pipe() as writer:
        pipe = identity(0)
        with stdin_from_devnull():
            done = subprocess.run([sys.executable, "-c", READER], capture_output=True, text=True,
                                  timeout=60)
            assert identity(0) != pipe
        assert identity(0) == pipe
        # fd 0 is the pipe again: a child now reads what is written there.
        os.write(writer, b"hello")
        after = subprocess.run([sys.executable, "-c", "import sys; print(sys.stdin.buffer.read(5))"],
                               capture_output=True, text=True, timeout=60)
    assert done.stdout == "''\n"
    assert after.stdout == "b'hello'\n"


def test_input_inside_the_block_sees_end_of_file():
    with stdin_from_open_pipe():
        old_stdin = sys.stdin
        with stdin_from_devnull():
            assert sys.stdin.read() == ""
            with pytest.raises(EOFError):
                input()
        assert sys.stdin is old_stdin


def test_restored_when_the_block_raises():
    with stdin_from_open_pipe():
        pipe = identity(0)
        with pytest.raises(RuntimeError):
            with stdin_from_devnull():
                raise RuntimeError("tool failed")
        assert identity(0) == pipe


def test_private_stdin_reads_the_protocol_input_while_tools_see_devnull():
    with stdin_from_open_pipe() as writer:
        private = private_stdin()
        try:
            assert private >= 3 and not os.get_inheritable(private)
            assert identity(private) == identity(0)
            with stdin_from_devnull():
                os.write(writer, b"frame\n")
                child = subprocess.run([sys.executable, "-c", READER], capture_output=True, text=True, timeout=60)
                assert child.stdout.strip() == "''"  # the child saw /dev/null, not the frame
                assert os.read(private, 100) == b"frame\n"
        finally:
            os.close(private)


def test_private_stdin_refuses_a_closed_fd0():
    saved = os.dup(0)
    try:
        os.close(0)
        with pytest.raises(OSError):
            private_stdin()
    finally:
        os.dup2(saved, 0)
        os.close(saved)
