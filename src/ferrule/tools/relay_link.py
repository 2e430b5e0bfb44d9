"""The server's one relay session: started by the first call that needs it, shared by every tool.

The analyzer takes seconds to index a project, so the server starts it lazily (a host that only lists
tools never pays for it) and keeps it warm for the life of the process. While it indexes, the relay's
progress reaches whichever call is waiting, as MCP progress. A dead analyzer answers `oracle-crashed`;
the relay respawns it on its next op, so the call is retried once, and only a second failure reaches
the agent. An agent cannot send `init`, so an analyzer that died twice in a row is started again by
the first call after a cool-down that grows with each death in a row (relay.analyzer.COOL_DOWN_S);
a call within the cool-down is answered at once and starts nothing. A start that fails (no analyzer,
a workspace that does not load) keeps nothing: the next call tries again. Closing while a call runs
(a host's SIGTERM mid-call) cancels that call instead of waiting for it: its answer would reach no one,
and the first call may be minutes of indexing.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ferrule.project import FerruleError, OracleCrashed, ProjectRoot
from ferrule.relay.analyzer import COOL_DOWN_S, CoolingDown

PROGRESS_INTERVAL_S = 0.25  # at most four notes a second within one indexing phase

# progress(done, total, message): the MCP layer's reporter for the call in flight (its answer unused).
SendProgress = Callable[[float, "float | None", "str | None"], object]


class RelayCaller(Protocol):
    @property
    def analyzer_starts(self) -> int: ...  # analyzers spawned so far, respawns included

    def call(self, op: str, params: Mapping[str, object]) -> Mapping[str, Any]: ...

    def cancel(self) -> None: ...  # from another thread: the call running now ends (CancelledError)

    def close(self) -> None: ...


CallerFactory = Callable[..., RelayCaller]


@dataclass
class Outcome:
    """One op's answer: its result, or the relay error; whether the call was retried, and how many
    fresh analyzers were started for it after a death (the session's first start is not counted)."""

    result: Mapping[str, Any] | None = None
    error: FerruleError | None = None
    retried: bool = False
    restarted: int = 0
    seconds: float = 0.0


def _sync_session(root: Path, *, analyzer: str | None, on_progress: Callable[..., None],
                  cool_down: Sequence[float]) -> RelayCaller:
    from ferrule.relay.sync import SyncSession

    return SyncSession(root, analyzer=analyzer, on_progress=on_progress, quiet_policy=True,  # not in a tool's report
                       cool_down=cool_down)


class SharedRelay:
    """A lazily started relay session with crash retry and progress forwarding."""

    def __init__(
        self,
        root: Path,
        *,
        analyzer: str | None = None,
        session_factory: CallerFactory | None = None,
        cool_down: Sequence[float] = COOL_DOWN_S,
    ) -> None:
        """`cool_down`: the waits, in seconds, before an analyzer that died 2, 3, ... times in a row
        is started again (the last one repeats)."""
        self.root = Path(root)
        self._project = ProjectRoot(root)
        self.analyzer = analyzer
        self._factory = session_factory or functools.partial(_sync_session, cool_down=cool_down)
        self._session: RelayCaller | None = None
        self._in_use: RelayCaller | None = None  # the session a call runs on now, a starting one too
        self._closing = False
        self._shut = False  # closed for good: the server is stopping
        self._starts_seen = 0  # the session's analyzer starts when the last call ended
        self._lock = threading.Lock()
        self._reporter: SendProgress | None = None
        self._progress_sent = 0
        self._progress_phase: str | None = None
        self._progress_at = 0.0
        self.started_at: float | None = None
        self.init_result: Mapping[str, Any] | None = None  # {ra_version, position_encoding, ...}
        self.crashes = 0

    def project_name(self, file: str) -> str:
        """`file` as the relay names it (`ProjectRoot.name_of`): an absolute path inside the project
        made root-relative; BadRequest for one outside it."""
        return self._project.name_of(file)

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
                self._in_use = None
        outcome.seconds = time.perf_counter() - begin
        return outcome

    def _retrying(self, attempt: Callable[[], Mapping[str, Any]]) -> Outcome:
        outcome = self._attempts(attempt)
        session = self._session
        if session is not None:
            starts = session.analyzer_starts
            outcome.restarted, self._starts_seen = starts - self._starts_seen, starts
        return outcome

    def _attempts(self, attempt: Callable[[], Mapping[str, Any]]) -> Outcome:
        try:
            return Outcome(result=attempt())
        except CoolingDown as error:  # nothing was tried, and a retry now would be refused the same way
            return Outcome(error=error)
        except OracleCrashed as error:
            if self._closing:  # the analyzer was stopped under the call: no crash, nothing to retry for
                return Outcome(error=error)
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
        if self._closing or self._shut:
            raise OracleCrashed("the server is shutting down", "start the server again")
        if self._session is None:
            session = self._in_use = self._factory(self.root, analyzer=self.analyzer, on_progress=self._on_progress)
            try:
                self.init_result = session.call("init", {})
            except BaseException:
                # Nothing is kept of a start that failed: the next call starts afresh (a user may have
                # installed rust-analyzer in between).
                _close_quietly(session)
                raise
            self._session = session
            self._starts_seen = session.analyzer_starts  # the first start is no restart
            self.started_at = time.monotonic()
        self._in_use = self._session
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

    def close(self, *, final: bool = False) -> None:
        """Shut the analyzer down (LSP shutdown/exit, kill as the backstop); safe to call twice. A call
        running on another thread is cancelled, and its end waited for (a cancelled op kills what it
        started: cargo's compilers, an analyzer still starting). `final`: no later call starts one again
        (the server is stopping)."""
        self._shut = self._shut or final
        self._closing = True  # until closed: a cancelled call neither retries nor starts an analyzer
        try:
            while not self._lock.acquire(timeout=0.05):  # a call runs (or is just starting one): cancel it
                running = self._in_use
                if running is not None:
                    running.cancel()
            try:
                session, self._session, self._in_use = self._session, None, None
            finally:
                self._lock.release()
            if session is not None:
                _close_quietly(session)
        finally:
            self._closing = False  # a later call starts afresh


def _close_quietly(session: RelayCaller) -> None:
    try:
        session.close()
    except Exception:  # a session that fails to shut down cleanly is gone all the same
        pass


__all__ = ["Outcome", "SendProgress", "RelayCaller", "CallerFactory", "SharedRelay"]
