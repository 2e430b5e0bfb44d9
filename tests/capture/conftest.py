"""Fixtures for the capture guard: the guard of each twin (the root conftest's `twin`), and fds 0/2
the tests own."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from testkit.twins import Twin


@pytest.fixture
def capture_stderr(twin: Twin):
    return twin.capture.capture_stderr


@contextmanager
def _stderr_to_file(path: Path) -> Iterator[Path]:
    saved = os.dup(2)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        os.dup2(fd, 2)
        os.close(fd)
        yield path
    finally:
        os.dup2(saved, 2)
        os.close(saved)


@pytest.fixture
def own_stderr(tmp_path: Path):
    """`with own_stderr() as path:` points fd 2 at a file of the test's own for the block.

    Used inside the test body: pytest re-points fd 2 at its own file when the call phase starts.
    """
    return lambda: _stderr_to_file(tmp_path / "original-stderr")


@pytest.fixture
def megabyte_writer(tmp_path: Path) -> tuple[list[str], bytes]:
    """(argv of a child that writes about 1 MiB of multi-byte UTF-8 to its stderr, those bytes)."""
    payload = "".join(f"line {i:06d} é € 😀\n" for i in range(45000)).encode()[: 1 << 20]
    payload = payload[: len(payload.decode("utf-8", "ignore").encode())]  # whole characters only
    source = tmp_path / "payload"
    source.write_bytes(payload)
    child = "import sys; sys.stderr.buffer.write(open(sys.argv[1], 'rb').read()); sys.stderr.flush()"
    return [sys.executable, "-c", child, str(source)], payload
