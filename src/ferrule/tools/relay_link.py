"""The server's one relay session: started by the first call that needs it, shared by every tool.

The analyzer takes seconds to index a project, so the server starts it lazily (a host that only lists
tools never pays for it) and keeps it warm for the life of the process. While it indexes, the relay's
progress reaches whichever call is waiting, as MCP progress. A dead analyzer answers `oracle-crashed`;
the relay respawns it on its next op, so the call is retried once, and only a second failure reaches
the agent. A start that fails (no analyzer, a workspace that does not load) keeps nothing: the next
call tries again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ferrule.project import FerruleError, OracleCrashed

PROGRESS_INTERVAL_S = 0.25  # at most four notes a second within one indexing phase

# progress(done, total, message): the MCP layer's reporter for the call in flight (its answer unused).
SendProgress = Callable[[float, "float | None", "str | None"], object]


class RelayCaller(Protocol):
    def call(self, op: str, params: Mapping[str, object]) -> Mapping[str, Any]: ...

    def close(self) -> None: ...


CallerFactory = Callable[..., RelayCaller]


@dataclass
class Outcome:
    """One op's answer: its result, or the relay error, and whether the call was retried."""

    result: Mapping[str, Any] | None = None
    error: FerruleError | None = None
    retried: bool = False
    seconds: float = 0.0


def _sync_session(root: Path, *, analyzer: str | None, on_progress: Callable[..., None]) -> RelayCaller:
    from ferrule.relay.sync import SyncSession

    return SyncSession(root, analyzer=analyzer, on_progress=on_progress, quiet_policy=True)  # not in a tool's report


class SharedRelay:
    """A lazily started relay session with crash retry and progress forwarding."""

    def __init__(
        self,
        root: Path,
        *,
        analyzer: str | None = None,
        session_factory: CallerFactory | None = None,
    ) -> None:
        self.root = Path(root)
        self.analyzer = analyzer
        self._factory = session_factory or _sync_session
        self._session: RelayCaller | None = None
        self._lock = threading.Lock()
        self._reporter: SendProgress | None = None
        self._progress_sent = 0
        self._progress_phase: str | None = None
        self._progress_at = 0.0
        self.started_at: float | None = None
        self.init_result: Mapping[str, Any] | None = None  # {ra_version, position_encoding, ...}
        self.crashes = 0

    @property
    def started(self) -> bool:
        return self._session is not None

    def start(self, *, progress: SendProgress | None = None) -> Outcome:
        """Start the analyzer now instead of on the first call; the result is `init`'s answer."""
        return self._run(self._init_answer, progress)

    def call(self, op: str, params: Mapping[str, object], *, progress: SendProgress | None = None) -> Outcome:
        """Run one op; an `oracle-crashed` answer is retried once (the relay respawns the analyzer)."""
        return self._run(lambda: self._ensure().call(op, params), progress)

    def _run(self, attempt: Callable[[], Mapping[str, Any]], progress: SendProgress | None) -> Outcome:
        begin = time.perf_counter()
        with self._lock:
            self._reporter = progress
            self._progress_sent, self._progress_phase, self._progress_at = 0, None, 0.0
            try:
                outcome = self._retrying(attempt)
            finally:
                self._reporter = None
        outcome.seconds = time.perf_counter() - begin
        return outcome

    def _retrying(self, attempt: Callable[[], Mapping[str, Any]]) -> Outcome:
        try:
            return Outcome(result=attempt())
        except OracleCrashed:
            self.crashes += 1
        except FerruleError as error:
            return Outcome(error=error)
        try:
            return Outcome(result=attempt(), retried=True)
        except FerruleError as error:
            return Outcome(error=error, retried=True)

    def _init_answer(self) -> Mapping[str, Any]:
        self._ensure()
        return dict(self.init_result or {})

    def _ensure(self) -> RelayCaller:
        if self._session is None:
            session = self._factory(self.root, analyzer=self.analyzer, on_progress=self._on_progress)
            try:
                self.init_result = session.call("init", {})
            except BaseException:
                # Nothing is kept of a start that failed: the next call starts afresh (a user may have
                # installed rust-analyzer in between).
                _close_quietly(session)
                raise
            self._session = session
            self.started_at = time.monotonic()
        return self._session

    def _on_progress(self, message: str, percentage: int | None = None) -> None:
        # Called inside the op (on the calling thread) while the analyzer indexes. MCP progress must grow with every
        # notification, and the analyzer's percentages restart with each phase, so the count of
        # notifications is the progress and the analyzer's own figure goes into the message. The
        # analyzer reports some forty steps a second; a host needs a few: each new phase, then one
        # note per interval.
        reporter = self._reporter
        if reporter is None:
            return
        phase = (message or "").split(":", 1)[0]
        now = time.monotonic()
        if phase == self._progress_phase and now - self._progress_at < PROGRESS_INTERVAL_S:
            return
        self._progress_phase, self._progress_at = phase, now
        self._progress_sent += 1
        text = f"rust-analyzer: {message}" if message else "rust-analyzer is indexing"
        if percentage is not None:
            text += f" ({percentage}%)"
        try:
            reporter(self._progress_sent, None, text)
        except Exception:  # a progress note must never fail the op it reports on
            pass

    def close(self) -> None:
        """Shut the analyzer down (LSP shutdown/exit, kill as the backstop); safe to call twice."""
        with self._lock:
            session, self._session = self._session, None
        if session is not None:
            _close_quietly(session)


def _close_quietly(session: RelayCaller) -> None:
    try:
        session.close()
    except Exception:  # a session that fails to shut down cleanly is gone all the same
        pass


__all__ = ["Outcome", "SendProgress", "RelayCaller", "CallerFactory", "SharedRelay"]
