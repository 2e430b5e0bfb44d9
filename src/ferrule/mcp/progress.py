"""Progress from inside a running tool: `progress(done, total=None, message=None)`.

When the request carried `params._meta.progressToken` (a string or an integer), each call sends
`notifications/progress` with the token echoed as it came (same JSON type). Values that do not
increase are dropped (the protocol requires increasing progress), and once the call's response is
written the reporter is closed, so nothing for that request follows its response. Without a token
(or outside a tool run) `progress` does nothing. The reporter lives in a context variable, so async
tools running side by side each reach their own; a lock makes calls from a tool's own worker threads
safe. Work that reports from where the call's context does not reach (a thread started inside the
tool, a task or callback made before the call) takes `bound_progress()` when the call begins: the
call's own `progress`, bound to it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

__all__ = ["ProgressReporter", "bound_progress", "progress"]


class ProgressReporter:
    __slots__ = ("_token", "_send", "_with_message", "_last", "_open", "_lock")

    def __init__(self, token: Any, send: Callable[[dict[str, Any]], None], with_message: bool) -> None:
        self._token = token
        self._send = send
        self._with_message = with_message
        self._last: float | None = None
        self._open = True
        self._lock = threading.Lock()

    def report(self, done: float, total: float | None = None, message: str | None = None) -> bool:
        """Send one notification; False when dropped (closed, or not increasing)."""
        if type(done) not in (int, float) or (total is not None and type(total) not in (int, float)):
            raise TypeError("progress(done, total) takes numbers")
        with self._lock:
            if not self._open or (self._last is not None and done <= self._last):
                return False
            self._last = done
            params: dict[str, Any] = {"progressToken": self._token, "progress": done}
            if total is not None:
                params["total"] = total
            if message is not None and self._with_message:
                params["message"] = str(message)
            self._send(params)
            return True

    def close(self) -> None:
        with self._lock:
            self._open = False


_active: ContextVar[ProgressReporter | None] = ContextVar("ferrule_mcp_progress", default=None)


def progress(done: float, total: float | None = None, message: str | None = None) -> bool:
    """Report progress of the running tool call. Returns whether a notification was sent."""
    reporter = _active.get()
    if reporter is None:
        return False
    return reporter.report(done, total, message)


def bound_progress() -> Callable[..., bool]:
    """The running call's `progress`, bound to that call wherever it is called from (a no-op outside one)."""
    reporter = _active.get()
    return reporter.report if reporter is not None else _not_reported


def _not_reported(done: float, total: float | None = None, message: str | None = None) -> bool:
    return False


def activate(reporter: ProgressReporter | None) -> None:
    _active.set(reporter)
