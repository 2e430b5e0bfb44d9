"""A scripted stand-in for Session, for the serve loop's unit tests only (the live tests use the real one).

It answers every op by echoing it (its typed params as the frame would carry them), after a delay
chosen per (op, file) (seconds, or an asyncio.Event the op waits for), and records when each op started and ended, so a test can see the order the
loop ran them in.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ferrule.project import FerruleError
from ferrule.relay.params import OpParams


class StubSession:
    def __init__(self, root, *, analyzer=None, on_progress=None, delays=None, failures=None) -> None:
        self.root = root
        self.analyzer = analyzer
        self.delays: dict[tuple[str, str | None], float | asyncio.Event] = dict(delays or {})
        self.failures: dict[tuple[str, str | None], BaseException] = dict(failures or {})
        self.events: list[tuple[str, str, str | None, Any]] = []  # (start|end, op, file, content)
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.typed: list[OpParams] = []  # what each op got, as it got it

    async def run(self, op: str, typed: OpParams) -> dict[str, Any]:
        params = typed.to_json()
        self.typed.append(typed)
        file = params.get("file")
        self.calls.append((op, dict(params)))
        self.events.append(("start", op, file, params.get("content")))
        delay = self.delays.get((op, file), self.delays.get((op, None), 0))
        if isinstance(delay, asyncio.Event):  # held until the test says; a loop that never says fails, not hangs
            await asyncio.wait_for(delay.wait(), 10)
        else:
            await asyncio.sleep(delay)
        self.events.append(("end", op, file, params.get("content")))
        failure = self.failures.get((op, file))
        if failure is not None:
            raise failure
        if op == "shutdown":
            return {}
        return {"op": op, "params": params}


def factory(**options):
    """A session factory for `serve_async` that keeps the instance it made in `.made`."""

    def make(root, *, analyzer=None, on_progress=None):
        make.made = StubSession(root, analyzer=analyzer, on_progress=on_progress, **options)
        return make.made

    make.made = None
    return make


__all__ = ["FerruleError", "StubSession", "factory"]
