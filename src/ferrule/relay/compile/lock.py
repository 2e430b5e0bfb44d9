"""The project's mirror is shared by every ferrule process on the project (a relay, an MCP server): a
file lock lets one of them sync it and run cargo at a time, and an owner stamp tells a process that
another one wrote the mirror since its own last sync."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

from ferrule.relay.cache import LOCK

POLL_S = 0.02  # another process holds the lock: flock has no awaitable wait, so it is retried


class LockTimeout(Exception):
    pass


@contextlib.asynccontextmanager
async def held(home: Path, token: str, deadline: float) -> AsyncIterator[bool]:
    """Hold the project's mirror lock as `token`; yields whether another holder wrote the mirror since
    this one last held it. LockTimeout when `deadline` (monotonic) passes first."""
    home.mkdir(parents=True, exist_ok=True)
    fd = os.open(home / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeout from None
                await asyncio.sleep(POLL_S)
        stamp = home / "owner"
        try:
            others = stamp.read_text() != token
        except OSError:
            others = True
        if others:
            stamp.write_text(token)
        yield others
    finally:
        os.close(fd)  # releases the lock


__all__ = ["LockTimeout", "held"]
