"""The session's one rust-analyzer: resolve it, spawn it, initialize it, wait for quiescence, respawn it
after a crash, and answer its configuration requests.

A dead analyzer is reported once as `oracle-crashed`; the next op respawns it (the caller re-applies
the overlays through `reopen`). If it dies again before any op succeeds, it is not respawned until
`init` — or, with a cool-down schedule (a face with no `init` to send, such as `ferrule mcp`), until
the cool-down after the last death has passed: the first op after it starts a fresh analyzer, and
each death in a row waits longer, up to the schedule's last step.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ferrule.lsp import LspClient, PositionCodec, RequestTimeout, ServerExited, path_to_uri
from ferrule.lsp.client import ProgressCallback
from ferrule.project import ErrorRecord, OracleCrashed, ProjectRoot, WorkspaceUnloadable
from ferrule.relay.cache import mark_used, project_home, prune_stale
from ferrule.relay.health import analyzer_warnings, proc_macros_unexpanded, std_unloaded
from ferrule.relay.resolve import Analyzer, resolve_analyzer

INITIALIZE_TIMEOUT_S = 60.0
# rust-analyzer can report quiescence for a moment between two phases of a workspace load (the gap
# seen here is tens of ms): ready means quiescent, no progress running, and nothing new for this long
QUIESCENCE_SETTLE_S = 0.25
# Seconds to wait after the 2nd, 3rd, ... death in a row before an op may start a fresh analyzer.
COOL_DOWN_S = (1.0, 2.0, 4.0, 8.0, 16.0, 30.0)
HAND_RUN = "if it keeps dying, run rust-analyzer by hand in the project to see why (memory, a broken toolchain, a proc-macro)"

# The configuration answered to the analyzer (initializationOptions and workspace/configuration).
# checkOnSave off: cargo-check results describe the disk, never an overlay. No flyimport, postfix or
# snippet entries: completions are what is in scope. No memory layout in hovers: documentation is docs.
ANALYZER_CONFIG: dict[str, Any] = {
    "checkOnSave": False,
    "check": {"workspace": False},
    "files": {"watcher": "server"},
    # type mismatches and unresolved names are "experimental" in rust-analyzer; an agent needs them
    "diagnostics": {"enable": True, "experimental": {"enable": True}},
    "completion": {
        "autoimport": {"enable": False},
        "postfix": {"enable": False},
        "callable": {"snippets": "none"},
        "snippets": {"custom": {}},
    },
    "hover": {"memoryLayout": {"enable": False}, "dropGlue": {"enable": False}, "actions": {"enable": False}},
    "lens": {"enable": False},
    "inlayHints": {"enable": False},
}


class AnalyzerProcess:
    """Starts and restarts the analyzer; `client` is the live connection (None before the first start)."""

    def __init__(self, root: ProjectRoot, *, explicit: str | None = None,
                 on_progress: ProgressCallback | None = None, cool_down: Sequence[float] | None = None) -> None:
        """`cool_down`: after two deaths in a row, respawn on the first op once this schedule's wait
        has passed (None: only `init` starts it again)."""
        self.root = root
        self.explicit = explicit  # the --rust-analyzer path, if any
        self.on_progress = on_progress
        self.cool_down = tuple(cool_down) if cool_down is not None else None
        self.binary: Analyzer | None = None
        self.client: LspClient | None = None
        self.codec = PositionCodec("utf-8")
        self.pull_diagnostics = False
        self.lock = asyncio.Lock()  # held by whatever starts or stops the analyzer
        self.starts = 0  # analyzers spawned, for callers that say what happened on a call
        # the configuration of the last start while nothing has used that analyzer since (no op ran on
        # it, no overlay was set): an `init` arriving then joins that start instead of making another
        self.fresh_config: dict[str, Any] | None = None
        self._death_reported = False
        self._crashes_in_a_row = 0
        self._died_at = 0.0

    async def running(self, quiescence_s: float, *, before_spawn: Callable[[], None], reopen: Callable[[LspClient], None]) -> LspClient:
        """The live client, started first when there is none and respawned once after a crash; a start
        waits up to `quiescence_s` for the analyzer to settle."""
        async with self.lock:
            client = self.client
            if client is not None and client.alive:
                return client
            if client is None:  # first op without init: start as init would
                await self.start(quiescence_s, before_spawn=before_spawn)
            elif not self._death_reported:  # it died between ops: say so once, respawn on the next op
                raise self.crashed(ServerExited(client.returncode, client.stderr_tail()))
            elif self._crashes_in_a_row >= 2 and self.cool_down is None:
                raise OracleCrashed(
                    "rust-analyzer died twice in a row; the relay does not respawn it again on its own",
                    f"send `init` to start it afresh; {HAND_RUN}",
                )
            elif self._crashes_in_a_row >= 2 and (left := self.cooling_for()) > 0:
                raise CoolingDown(
                    f"rust-analyzer died {self._crashes_in_a_row} times in a row; no analyzer was started "
                    f"for this request: the first request after a cool-down of {self.cool_down_s():g} s starts "
                    f"a fresh one ({left:.1f} s left)",
                    f"retry in {left:.1f} s; {HAND_RUN}", left)
            else:
                await self.start(quiescence_s, before_spawn=before_spawn, reopen=reopen)
            assert self.client is not None
            return self.client

    def crashed(self, exited: ServerExited) -> OracleCrashed:
        """The error for a death; the first report of one death counts it."""
        if not self._death_reported:
            self._crashes_in_a_row += 1
            self._death_reported = True
            self._died_at = time.monotonic()
        deaths = self._crashes_in_a_row
        if deaths < 2:
            return OracleCrashed(f"rust-analyzer died mid-session ({exited})",
                                 "retry the op: the next op respawns rust-analyzer once and re-applies every overlay")
        if self.cool_down is None:
            return OracleCrashed(
                f"rust-analyzer died mid-session ({exited}); it died twice in a row, so it will not be "
                "respawned until `init`", "send `init` to start it afresh")
        wait = self.cool_down_s()
        return OracleCrashed(
            f"rust-analyzer died mid-session ({exited}); it died {deaths} times in a row, so the first "
            f"request after a cool-down of {wait:g} s starts a fresh one with every overlay re-applied",
            f"retry in {wait:g} s; {HAND_RUN}")

    def cool_down_s(self) -> float:
        """The wait after the current run of deaths: the schedule's step for it, its last step beyond."""
        assert self.cool_down is not None
        return self.cool_down[min(max(self._crashes_in_a_row - 2, 0), len(self.cool_down) - 1)]

    def cooling_for(self) -> float:
        """Seconds left before an op may start a fresh analyzer (0 when it may now)."""
        return max(0.0, self._died_at + self.cool_down_s() - time.monotonic())

    def std_error(self) -> ErrorRecord | None:
        """The warning to carry while the analyzer has not loaded the standard library, else None."""
        client = self.client
        return None if client is None else std_unloaded(client.status)

    def proc_macro_error(self) -> ErrorRecord | None:
        """The warning to carry while the analyzer cannot expand procedural macros, else None."""
        client = self.client
        return None if client is None else proc_macros_unexpanded(client.status)

    def warnings(self, diagnostics: Iterable[Mapping[str, Any]] = ()) -> list[ErrorRecord]:
        """Why the analyzer's answer about a file (with these of its diagnostics) may not be taken at its
        word (std, proc-macros), with the fixes."""
        client = self.client
        return [] if client is None else analyzer_warnings(client.status, diagnostics)

    def op_succeeded(self) -> None:
        self._crashes_in_a_row = 0

    async def restart(self, quiescence_s: float, *, before_spawn: Callable[[], None]) -> bool:
        """`init`: resolve the analyzer afresh and start it; the caller holds `lock`."""
        self.binary = None
        self._crashes_in_a_row = 0
        return await self.start(quiescence_s, before_spawn=before_spawn)

    async def start(self, quiescence_s: float, *, before_spawn: Callable[[], None],
                    reopen: Callable[[LspClient], None] | None = None) -> bool:
        """Spawn, initialize and wait for quiescence; True when quiescent within the deadline."""
        if not (self.root.path / "Cargo.toml").is_file():
            raise WorkspaceUnloadable(f"no Cargo.toml at the project root {self.root.path}",
                                      "run the relay in a Cargo project's root, and check `cargo metadata` there")
        if self.binary is None:
            self.binary = await asyncio.to_thread(resolve_analyzer, self.explicit)
        before_spawn()
        await self.stop(2.0)
        self.fresh_config = None
        await asyncio.to_thread(_tend_cache, self.root)
        config = analyzer_config(self.root)
        client = await LspClient.spawn([self.binary.path], cwd=self.root.path, env=analyzer_env(config))
        self.starts += 1
        client.configuration = _answering(config)
        client.on_progress = self.on_progress
        self.client = client
        self._death_reported = False
        try:
            await client.initialize(initialize_params(self.root.path, config), timeout=INITIALIZE_TIMEOUT_S)
        except RequestTimeout:
            await client.shutdown(timeout=1.0)
            raise
        except asyncio.CancelledError:  # the op was cancelled (its server is stopping): no dance with a
            client.kill()  # server that has not answered `initialize`, it would only time out
            raise
        self.codec = PositionCodec(client.position_encoding)
        self.pull_diagnostics = "diagnosticProvider" in client.capabilities and not push_forced()
        if reopen is not None:
            reopen(client)
        quiescent = await client.wait_quiescent(quiescence_s, settle=QUIESCENCE_SETTLE_S)
        if client.status.get("health") == "error":
            message = client.status.get("message") or "rust-analyzer could not load the workspace"
            await self.stop(2.0)
            raise WorkspaceUnloadable(f"{message.strip()} ({self.root.path})")
        self.fresh_config = config
        return quiescent

    def joinable(self) -> bool:
        """Whether an `init` now would start what runs already: the last start is untouched, alive, and
        of the configuration a start now would have. Taking it makes it used."""
        client, config = self.client, self.fresh_config
        self.fresh_config = None
        return config is not None and client is not None and client.alive and config == analyzer_config(self.root)

    async def stop(self, timeout: float) -> None:
        """The LSP shutdown/exit dance, kill as the backstop; nothing when no analyzer runs."""
        client, self.client = self.client, None
        if client is not None:
            await client.shutdown(timeout=timeout)


class CoolingDown(OracleCrashed):
    """The analyzer died too often in a row to be started again yet; nothing was tried."""

    def __init__(self, message: str, recipe: str, left_s: float) -> None:
        super().__init__(message, recipe)
        self.left_s = left_s


_pruned = False  # the cache's stale project folders are looked for once a process


def _tend_cache(root: ProjectRoot) -> None:
    """Stamp this project's cache folder as used; once a process, remove the stale ones of others."""
    global _pruned
    mark_used(root)
    if not _pruned:
        _pruned = True
        prune_stale()


def analyzer_config(root: ProjectRoot) -> dict[str, Any]:
    """ANALYZER_CONFIG for one project: the analyzer's build-script and proc-macro builds go to the
    project's folder in the user's cache, never to the project's `target/` (which a cargo build the
    user runs at the same time would otherwise wait for)."""
    config = {**ANALYZER_CONFIG, "cargo": {"targetDir": str(project_home(root) / "analyzer-target")}}
    server = os.environ.get("FERRULE_PROC_MACRO_SERVER")
    if server:  # the toolchain's own server when rust-analyzer's default is of another release
        config["procMacro"] = {"server": server}
    return config


def analyzer_env(config: dict[str, Any]) -> dict[str, str]:
    """The analyzer's environment: ours, with its cargo runs sent to the configured target folder.
    Older releases (1.85) run the start-up build-script check without `cargo.targetDir`, into the
    project's own `target/`; the variable reaches every cargo the analyzer starts, on any release."""
    return {**os.environ, "CARGO_TARGET_DIR": config["cargo"]["targetDir"]}


def initialize_params(root: Path, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `initialize` params sent for the project at `root` (a canonical path) with `config`
    (ANALYZER_CONFIG when not given)."""
    uri = path_to_uri(root)
    forced = os.environ.get("FERRULE_POSITION_ENCODING")
    encodings = [forced] if forced else ["utf-8", "utf-16"]
    text_document: dict[str, Any] = {
        "synchronization": {"dynamicRegistration": False, "didSave": False},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        # documentation resolved lazily: an answer is a tenth of the size, and only the few entries
        # left after the prefix filter and the cap that need their docs are resolved
        "completion": {"completionItem": {"snippetSupport": False, "labelDetailsSupport": False,
                                          "resolveSupport": {"properties": ["documentation"]}},
                       "contextSupport": True},
        "publishDiagnostics": {"versionSupport": True, "relatedInformation": False},
        # navigation by name: outlines as trees, renames checked first, code actions resolved lazily
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "definition": {"linkSupport": False},
        "implementation": {"linkSupport": False},
        "rename": {"prepareSupport": True},
        "codeAction": {
            "codeActionLiteralSupport": {"codeActionKind": {"valueSet": [
                "", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite"]}},
            "resolveSupport": {"properties": ["edit"]},
            "dataSupport": True,
        },
    }
    if not push_forced():
        text_document["diagnostic"] = {"dynamicRegistration": False, "relatedDocumentSupport": False}
    return {
        "processId": os.getpid(),
        "clientInfo": {"name": "ferrule"},
        "rootUri": uri,
        "rootPath": str(root),
        "workspaceFolders": [{"uri": uri, "name": root.name}],
        "initializationOptions": ANALYZER_CONFIG if config is None else config,
        "capabilities": {
            "general": {"positionEncodings": encodings},
            "window": {"workDoneProgress": True},
            "workspace": {"configuration": True, "workspaceFolders": True,
                          "workspaceEdit": {"documentChanges": True}},
            "textDocument": text_document,
            "experimental": {"serverStatusNotification": True},
        },
    }


def _answering(config: dict[str, Any]) -> Callable[[dict[str, Any]], object]:
    """The answer to workspace/configuration: `config` for rust-analyzer's section, nothing for others."""
    def answer(item: dict[str, Any]) -> object:
        return config if item.get("section") in ("rust-analyzer", None, "") else None

    return answer


def push_forced() -> bool:
    """`FERRULE_DIAGNOSTICS=push` leaves pull support out, so the push path runs against a real analyzer."""
    return os.environ.get("FERRULE_DIAGNOSTICS") == "push"


__all__ = ["ANALYZER_CONFIG", "COOL_DOWN_S", "AnalyzerProcess", "CoolingDown", "analyzer_config", "initialize_params",
           "push_forced"]
