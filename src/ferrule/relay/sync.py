"""A blocking face for the Session: a private event loop, run by the calling thread for each call.

For callers without an event loop of their own (the MCP tools, scripts). The loop runs only while a
call is in flight: a loop on a thread of its own cost every call two thread wake-ups, some 50-100 µs
on a virtual CPU. Between calls the analyzer's output waits in its pipe; each call first reads it
(status, progress, diagnostics, a death), so the op sees the analyzer as it is now. The Session is
not thread-safe: callers on several threads must take turns.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, TypeVar

from ferrule.lsp.client import ProgressCallback
from ferrule.relay.results import OpResult
from ferrule.relay.session import Session

T = TypeVar("T")


class SyncSession:
    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        analyzer: str | None = None,
        on_progress: ProgressCallback | None = None,
        quiet_policy: bool = False,
        cool_down: Sequence[float] | None = None,
    ) -> None:
        # asyncio's own loop, not uvloop: a signal handler that raises (the MCP server's SIGTERM) must
        # unwind out of a call, and uvloop keeps such an exception inside its C loop
        self._loop = asyncio.new_event_loop()
        self._closed = False
        self._task: asyncio.Task[Any] | None = None  # what runs on the loop now
        self._cancelled: asyncio.Task[Any] | None = None
        self.session: Session = self._run(_make(root, analyzer, on_progress, quiet_policy, cool_down))

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        task = self._task = self._loop.create_task(coro)
        try:
            return self._loop.run_until_complete(task)
        except BaseException:
            # A signal's exception raised on this thread while the op waits: the op ends as by cancel()
            # and its clean-up runs (a starting analyzer is killed); a shutdown is never cut short but
            # runs on to its end (its kill is the backstop).
            if not task.done():
                if not self._closed:
                    task.cancel()
                try:
                    self._loop.run_until_complete(task)
                except BaseException:  # noqa: S110 - the interrupt is what the caller must see
                    pass
            raise
        finally:
            self._task = None

    def cancel(self) -> None:
        """Cancel what runs on the session now, from another thread: the blocked `call` (or the start)
        raises CancelledError, the analyzer's pending requests cancelled, a cargo it ran killed."""
        task = self._task
        if task is None or self._closed or task is self._cancelled:
            return  # idle, shutting down (never cut short), or cancelled already (its clean-up runs)
        self._cancelled = task
        try:
            self._loop.call_soon_threadsafe(task.cancel)
        except RuntimeError:  # the loop closed meanwhile: nothing runs any more
            pass

    def call(self, op: str, params: Mapping[str, object] | None = None) -> OpResult:
        """Run one op and block until it answers; raises what `Session.call` raises."""
        if self._closed:
            raise RuntimeError("SyncSession is closed")
        return self._run(self._caught_up_call(op, params or {}))

    async def _caught_up_call(self, op: str, params: Mapping[str, object]) -> OpResult:
        client = self.session.client
        if client is not None:
            await client.catch_up()
        return await self.session.call(op, params)

    @property
    def analyzer_starts(self) -> int:
        """How many analyzers this session has spawned (a respawn after a crash counts)."""
        return self.session.analyzer.starts

    def close(self) -> None:
        """Shut the analyzer down (the LSP dance, kill as backstop) and close the loop."""
        if self._closed:
            return
        self._closed = True
        try:
            self._run(self.session.call("shutdown", {}))
        finally:
            self._loop.close()

    def __enter__(self) -> SyncSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


async def _make(root: str | os.PathLike[str], analyzer: str | None, on_progress: ProgressCallback | None,
                quiet_policy: bool, cool_down: Sequence[float] | None) -> Session:
    # made inside the loop: the Session binds to it
    return Session(root, analyzer=analyzer, on_progress=on_progress, quiet_policy=quiet_policy, cool_down=cool_down)
