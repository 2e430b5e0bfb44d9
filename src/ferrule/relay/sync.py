"""A blocking face for the Session: its event loop runs on a private thread.

For callers without an event loop of their own (the MCP tools, the one-shot CLI, scripts).
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

from ferrule.relay.session import ProgressCallback, Session


class SyncSession:
    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        analyzer: str | None = None,
        on_progress: ProgressCallback | None = None,
        quiet_policy: bool = False,
    ) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="ferrule-relay", daemon=True)
        self._thread.start()
        self._closed = False
        self.session: Session = self._run(_make(root, analyzer, on_progress, quiet_policy))

    def _run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def call(self, op: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run one op and block until it answers; raises what `Session.call` raises."""
        if self._closed:
            raise RuntimeError("SyncSession is closed")
        return self._run(self.session.call(op, params or {}))

    def close(self) -> None:
        """Shut the analyzer down (the LSP dance, kill as backstop) and stop the loop thread."""
        if self._closed:
            return
        self._closed = True
        try:
            self._run(self.session.call("shutdown", {}))
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
            if not self._thread.is_alive():
                self._loop.close()

    def __enter__(self) -> SyncSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


async def _make(root: str | os.PathLike[str], analyzer: str | None, on_progress: ProgressCallback | None,
                quiet_policy: bool) -> Session:
    # made on the loop's thread: the Session binds to this loop
    return Session(root, analyzer=analyzer, on_progress=on_progress, quiet_policy=quiet_policy)
