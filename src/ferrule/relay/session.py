"""The relay's Session: one warm rust-analyzer for one project, and the seven oracle ops over it.

`await session.call(op, params)` runs `init update validate scope complete type shutdown` with the
params and results of TCG-PROTOCOL-RUST section 2 and raises only `RelayError` subclasses. Ops on
different files may run concurrently; the caller serialises ops on one file.

Documents: `update` keeps a persistent overlay (didOpen/didChange with a monotonic version, null ->
didClose). `content` on validate/complete/type/scope is transient: the analyzer sees that text for
the one op, then the file's previous state (overlay or disk) is put back.

Crashes: a dead analyzer is reported once as `oracle-crashed`; the next op respawns it and re-applies
every overlay. If it dies again before any op succeeds, the session stops respawning until `init`.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ferrule.fastframe import LineIndex
from ferrule.lsp import LspClient, PositionCodec, RequestTimeout, ResponseError, ServerExited, path_to_uri
from ferrule.lsp.errors import INTERNAL_ERROR
from ferrule.lsp.positions import line_text
from ferrule.relay import mapping
from ferrule.relay.errors import (
    OpTimeout,
    OracleCrashed,
    ProtocolError,
    WorkspaceUnloadable,
)
from ferrule.relay.paths import ProjectFile, ProjectRoot
from ferrule.relay.policy import RelayPolicy
from ferrule.relay.resolve import Analyzer, resolve_analyzer

ProgressCallback = Callable[[str, "int | None"], None]

# Per-op budgets (ms) when the request carries no `timeout_ms`; for init it bounds the quiescence wait.
DEFAULT_BUDGET_MS = {
    "init": 90_000,
    "update": 10_000,
    "validate": 30_000,
    "scope": 20_000,
    "complete": 20_000,
    "type": 20_000,
    "shutdown": 10_000,
}
INITIALIZE_TIMEOUT_S = 60.0
CONTENT_MODIFIED_RETRIES = 5
LSP_INT_MAX = 2**31 - 1  # LSP positions are uinteger: 0 to 2**31 - 1
COMPLETE_MAX_DEFAULT = 50
PUSH_SETTLE_S = 0.5  # degraded push path: how long a version's pushes may keep coming once it is analysed
LOADING_RETRY_S = 0.05  # while the workspace loads, how often a "file not found" request is retried
# rust-analyzer can report quiescence for a moment between two phases of a workspace load (the gap
# seen here is tens of ms): ready means quiescent, no progress running, and nothing new for this long
QUIESCENCE_SETTLE_S = 0.25

# The configuration answered to the analyzer (initializationOptions and workspace/configuration).
# checkOnSave off: cargo-check results describe the disk, never an overlay. No flyimport, postfix or
# snippet entries: completions are what is in scope. No memory layout nor drop glue in hovers:
# documentation is docs.
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

_SCOPE_PROBE = "\nfn __ferrule_scope_probe__() {\n    \n}\n"


class _Document:
    """A file as the analyzer currently sees it through the relay (an open overlay)."""

    __slots__ = ("text", "version", "_index")

    def __init__(self, text: str, version: int) -> None:
        self.text = text
        self.version = version
        self._index: LineIndex | None = None

    @property
    def index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex(self.text)
        return self._index


class _Op:
    """One op's budget: every LSP request inside it gets what is left."""

    __slots__ = ("name", "budget_ms", "deadline", "began_busy")

    def __init__(self, name: str, budget_ms: int) -> None:
        self.name = name
        self.budget_ms = budget_ms
        self.deadline = time.monotonic() + budget_ms / 1000
        self.began_busy = False  # the analyzer was loading or indexing when the op began

    def remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise RequestTimeout(self.name, self.budget_ms / 1000)
        return left


class _Unread:
    """The disk text not read yet (None means: the file could not be read)."""


_UNREAD = _Unread()


def _read_or_none(file: ProjectFile) -> str | None:
    try:
        with open(file.real, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


class _Transient:
    """A transient `content` shown for one op. `prepare()`, called while the analyzer works on the
    op's request, reads what the restore needs, so that `restore()` only encodes and writes.

    The restore is written at once, in one write, before the answer is mapped: rust-analyzer then
    settles it (and the diagnostics it recomputes after every edit) while the relay still works, and
    the next op finds it idle. Held back to join the next op's write, or written after the answer,
    the next op was measured slower by more than the write costs."""

    __slots__ = ("_session", "_client", "_file", "_uri", "_overlaid", "_disk")

    def __init__(self, session: Session, client: LspClient, file: ProjectFile, uri: str, overlaid: bool) -> None:
        self._session = session
        self._client = client
        self._file = file
        self._uri = uri
        self._overlaid = overlaid
        self._disk: str | None | _Unread = _UNREAD

    def prepare(self) -> None:
        if not self._overlaid and self._disk is _UNREAD:
            self._disk = _read_or_none(self._file)

    def _queue_restore(self) -> None:
        client, file, session = self._client, self._file, self._session
        if not client.alive:
            return
        current = session.overlays.get(file.rel)
        if current is None:
            session._close(client, file, self._uri, self._disk)
            return
        if not self._overlaid:
            return  # an overlay set meanwhile owns the document now
        current.version = session._next_version(file.rel)
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": self._uri, "version": current.version},
            "contentChanges": [{"text": current.text}]})

    def restore(self) -> None:
        self._queue_restore()
        self._client.flush()


class Session:
    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        analyzer: str | None = None,
        on_progress: ProgressCallback | None = None,
        quiet_policy: bool = False,
    ) -> None:
        """`quiet_policy` keeps the line saying where the policy came from (printed on stderr at each
        init) to itself: for embedders whose stderr is not a log, such as a tool's captured output."""
        self.root = ProjectRoot(root)
        self.analyzer_arg = analyzer
        self.on_progress = on_progress
        self.quiet_policy = quiet_policy
        self.analyzer: Analyzer | None = None
        self.client: LspClient | None = None
        self.codec = PositionCodec("utf-8")
        self.pull_diagnostics = False
        self.policy: RelayPolicy | None = None
        self.overlays: dict[str, _Document] = {}
        self._versions: dict[str, int] = {}
        self._uris: dict[str, str] = {}
        self._enriched: dict[str, tuple[str, dict[str, list[Any]]]] = {}
        self._lifecycle = asyncio.Lock()
        self._death_reported = False
        self._crashes_in_a_row = 0
        self._ops = {
            "init": self._init,
            "update": self._update,
            "validate": self._validate,
            "scope": self._scope,
            "complete": self._complete,
            "type": self._type,
            "shutdown": self._shutdown,
        }

    # ---- the entry point -----------------------------------------------------------------------

    async def call(self, op: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        handler = self._ops.get(op)
        if handler is None:
            raise ProtocolError.unknown_op(op, self._ops)
        if params is None:
            params = {}
        elif not isinstance(params, dict):
            raise ProtocolError.bad_param(op, f"params must be an object, got {type(params).__name__}")
        budget = _budget(op, params)
        try:
            if op != "init" and op != "shutdown":
                client = self.client
                if client is None or not client.alive:
                    await self._ensure_running()
                    client = self.client
                budget.began_busy = client is not None and client.busy
            result = await handler(params, budget)
        except ServerExited as exited:
            raise self._crashed(exited) from None
        except RequestTimeout:
            raise OpTimeout.for_op(op, budget.budget_ms) from None
        except ResponseError as error:
            raise ProtocolError(f"{op}: the analyzer refused the request: {error}",
                                "check the file and position; the analyzer's message says what it could not do") from None
        self._crashes_in_a_row = 0
        return result

    # ---- lifecycle -----------------------------------------------------------------------------

    async def _ensure_running(self) -> None:
        async with self._lifecycle:
            client = self.client
            if client is not None and client.alive:
                return
            if client is None:  # first op without init: start as init would
                await self._start(DEFAULT_BUDGET_MS["init"] / 1000)
                return
            if not self._death_reported:  # it died between ops: say so once, respawn on the next op
                raise self._crashed(ServerExited(client.returncode, client.stderr_tail()))
            if self._crashes_in_a_row >= 2:
                raise OracleCrashed(
                    "rust-analyzer died twice in a row; the relay does not respawn it again on its own",
                    "send `init` to start it afresh; if it keeps dying, run rust-analyzer in the project "
                    "by hand to see why (memory, a broken toolchain, a proc-macro)",
                )
            await self._start(DEFAULT_BUDGET_MS["init"] / 1000, reapply=True)

    def _crashed(self, exited: ServerExited) -> OracleCrashed:
        if not self._death_reported:
            self._crashes_in_a_row += 1
            self._death_reported = True
        again = self._crashes_in_a_row >= 2
        return OracleCrashed(
            f"rust-analyzer died mid-session ({exited})"
            + ("; it died twice in a row, so it will not be respawned until `init`" if again else ""),
            "send `init` to start it afresh" if again else
            "retry the op: the next op respawns rust-analyzer once and re-applies every overlay",
        )

    async def _start(self, quiescence_s: float, *, reapply: bool = False) -> bool:
        """Spawn, initialize and wait for quiescence; True when quiescent within the deadline."""
        if not (self.root.path / "Cargo.toml").is_file():
            raise WorkspaceUnloadable(f"no Cargo.toml at the project root {self.root.path}",
                                      "run the relay in a Cargo project's root, and check `cargo metadata` there")
        if self.analyzer is None:
            self.analyzer = await asyncio.to_thread(resolve_analyzer, self.analyzer_arg)
        if self.policy is None:
            self.policy = RelayPolicy(self.root.path, announce=not self.quiet_policy)
        old, self.client = self.client, None
        if old is not None:
            await old.shutdown(timeout=2.0)
        client = await LspClient.spawn([self.analyzer.path], cwd=self.root.path)
        client.configuration = _configuration
        client.on_progress = self.on_progress
        self.client = client
        self._death_reported = False
        try:
            await client.initialize(self._initialize_params(), timeout=INITIALIZE_TIMEOUT_S)
        except RequestTimeout:
            await client.shutdown(timeout=1.0)
            raise
        self.codec = PositionCodec(client.position_encoding)
        self.pull_diagnostics = "diagnosticProvider" in client.capabilities and not _push_forced()
        if reapply:
            for rel, document in self.overlays.items():
                version = self._next_version(rel)
                document.version = version
                client.notify("textDocument/didOpen", {"textDocument": {
                    "uri": self._uri(rel), "languageId": "rust", "version": version, "text": document.text}})
        quiescent = await client.wait_quiescent(quiescence_s, settle=QUIESCENCE_SETTLE_S)
        if client.status.get("health") == "error":
            message = client.status.get("message") or "rust-analyzer could not load the workspace"
            await client.shutdown(timeout=2.0)
            self.client = None
            raise WorkspaceUnloadable(f"{message.strip()} ({self.root.path})")
        return quiescent

    def _initialize_params(self) -> dict[str, Any]:
        return initialize_params(self.root.path)

    # ---- documents -----------------------------------------------------------------------------

    def _uri(self, rel: str) -> str:
        uri = self._uris.get(rel)
        if uri is None:
            uri = self._uris[rel] = path_to_uri(self.root.path / rel)
        return uri

    def _next_version(self, rel: str) -> int:
        version = self._versions.get(rel, 0) + 1
        self._versions[rel] = version
        return version

    def _file(self, op: str, params: dict[str, Any]) -> ProjectFile:
        if "file" not in params:
            raise ProtocolError.bad_param(op, "missing `file`")
        return self.root.file(params["file"])

    def _disk_text(self, file: ProjectFile) -> str:
        try:
            with open(file.real, encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except FileNotFoundError:
            raise ProtocolError(f"{file.rel} does not exist",
                                "create the file, or send its text with `content` or `update` first") from None
        except OSError as error:
            raise ProtocolError(f"{file.rel} could not be read: {error.strerror}") from None

    def _require_file(self, file: ProjectFile, content: str | None) -> None:
        if content is None and file.rel not in self.overlays and not (
                file.regular or (file.regular is None and os.path.isfile(file.real))):
            self._disk_text(file)  # raises the clear error

    def _open_transient(self, client: LspClient, file: ProjectFile, content: str) -> _Transient:
        """Show `content` to the analyzer; the returned object puts the previous state back."""
        uri = self._uri(file.rel)
        version = self._next_version(file.rel)
        overlaid = file.rel in self.overlays
        if overlaid:
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [{"text": content}]})
        else:
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "rust", "version": version, "text": content}})
        return _Transient(self, client, file, uri, overlaid)

    def _close(self, client: LspClient, file: ProjectFile, uri: str, disk: str | None | _Unread = _UNREAD) -> None:
        """didClose, with the disk text put back first: rust-analyzer re-reads a closed file from disk
        only later, and an op right after must not see the text that was just closed."""
        if disk is _UNREAD:
            disk = _read_or_none(file)
        if disk is not None:
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": self._next_version(file.rel)},
                "contentChanges": [{"text": disk}]})
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def _text_or_none(self, file: ProjectFile, content: str | None) -> str | None:
        """The text the op sees, or None when the file cannot be read (nothing then depends on it)."""
        if content is not None:
            return content
        overlay = self.overlays.get(file.rel)
        return overlay.text if overlay is not None else _read_or_none(file)

    def _effective_text(self, file: ProjectFile, content: str | None) -> str:
        if content is not None:
            return content
        overlay = self.overlays.get(file.rel)
        if overlay is not None:
            return overlay.text
        return self._disk_text(file)

    def _index(self, file: ProjectFile, content: str | None) -> LineIndex:
        overlay = self.overlays.get(file.rel)
        if content is None and overlay is not None:
            return overlay.index
        return LineIndex(self._effective_text(file, content))

    def _position(self, op: str, params: dict[str, Any], file: ProjectFile, content: str | None,
                  index: LineIndex | None = None) -> dict[str, int]:
        position = params.get("position")
        if not isinstance(position, dict):
            raise ProtocolError.bad_param(op, "`position` must be an object {line, character}")
        line, character = position.get("line"), position.get("character")
        if (type(line) is not int or type(character) is not int or not 1 <= line <= LSP_INT_MAX
                or not 0 <= character <= LSP_INT_MAX):
            raise ProtocolError.bad_param(
                op, f"`position` needs an integer line from 1 and character from 0, both at most {LSP_INT_MAX} "
                    f"(what LSP carries), got {position!r}")
        if self.codec.identity:
            return {"line": line - 1, "character": character}
        if index is None:
            index = self._index(file, content)
        return {"line": line - 1, "character": self.codec.to_server(line_text(index, line - 1), character)}

    def _utf8_column(self, index: LineIndex | None, line: int, character: int) -> int:
        if self.codec.identity or index is None:
            return character
        return self.codec.from_server(line_text(index, line), character)

    async def _request(self, op: _Op, method: str, params: dict[str, Any],
                       meanwhile: Callable[[], object] | None = None) -> Any:
        """A request within the op's budget; ContentModified and server-cancelled answers are retried.

        `meanwhile` runs once, right after the request is written: work that needs no answer is done
        while the analyzer computes it instead of after.
        """
        client = self.client
        assert client is not None
        attempt = 0
        while True:
            pending = client.send_request(method, params, timeout=op.remaining())
            if meanwhile is not None:
                try:
                    meanwhile()
                except BaseException:
                    pending.cancel()  # nobody will await it: tell the analyzer to stop
                    raise
                meanwhile = None
            try:
                return await pending
            except ResponseError as error:
                if _not_loaded_yet(client, error):
                    await asyncio.sleep(min(LOADING_RETRY_S, op.remaining()))
                    continue
                attempt += 1
                if not error.retryable or attempt > CONTENT_MODIFIED_RETRIES:
                    raise
                await asyncio.sleep(0.01 * attempt)

    def _mark(self, op: _Op, result: dict[str, Any]) -> dict[str, Any]:
        """`indexing: true` when the analyzer was loading or indexing as the op began or as it ended:
        the answer may be partial."""
        client = self.client
        if op.began_busy or (client is not None and client.busy):
            result["indexing"] = True
        return result

    # ---- ops -----------------------------------------------------------------------------------

    async def _init(self, params: dict[str, Any], op: _Op) -> dict[str, Any]:
        async with self._lifecycle:
            self.overlays.clear()
            self._enriched.clear()
            self.policy = None
            self.analyzer = None
            self._crashes_in_a_row = 0
            quiescent = await self._start(op.budget_ms / 1000)
            client = self.client
            assert client is not None and self.analyzer is not None
            return {
                "ra_version": self.analyzer.version,
                "position_encoding": client.position_encoding,
                "pull_diagnostics": self.pull_diagnostics,
                "quiescent": quiescent,
            }

    async def _update(self, params: dict[str, Any], op: _Op) -> dict[str, Any]:
        file = self._file("update", params)
        if "content" not in params:
            raise ProtocolError.bad_param("update", "missing `content` (a string, or null to clear the overlay)")
        content = params["content"]
        if content is not None and not isinstance(content, str):
            raise ProtocolError.bad_param("update", "`content` must be a string or null")
        client = self.client
        assert client is not None
        uri = self._uri(file.rel)
        version = self._next_version(file.rel)
        overlay = self.overlays.get(file.rel)
        if content is None:
            if overlay is not None:
                del self.overlays[file.rel]
                self._close(client, file, uri)
        elif overlay is None:
            self.overlays[file.rel] = _Document(content, version)
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "rust", "version": version, "text": content}})
        else:
            overlay.text, overlay.version, overlay._index = content, version, None
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [{"text": content}]})
        return {"version": version}

    async def _validate(self, params: dict[str, Any], op: _Op) -> dict[str, Any]:
        file = self._file("validate", params)
        content = _content("validate", params)
        text = self._effective_text(file, content)
        client = self.client
        assert client is not None
        uri = self._uri(file.rel)
        degraded = not self.pull_diagnostics
        transient = None
        if content is not None:
            transient = self._open_transient(client, file, content)
        elif degraded and file.rel not in self.overlays:
            transient = self._open_transient(client, file, text)  # pushes come only for open documents
        assert self.policy is not None
        enriched: dict[str, list[Any]] = {}

        def meanwhile() -> None:  # while the analyzer computes the diagnostics
            if transient is not None:
                transient.prepare()
            enriched.update(self._enrich(file.rel, text))

        try:
            if self.pull_diagnostics:
                report = await self._request(op, "textDocument/diagnostic", {"textDocument": {"uri": uri}}, meanwhile)
                raw = (report or {}).get("items") or []
            else:
                meanwhile()
                raw = await self._pushed_diagnostics(client, uri, self._versions[file.rel], text.count("\n"), op)
        finally:
            if transient is not None:
                transient.restore()
        index = None if self.codec.identity else LineIndex(text)
        diagnostics = []
        for item in raw:
            if not mapping.is_overlay_diagnostic(item):
                continue
            start = item["range"]["start"]
            diagnostics.append({
                "code": mapping.diagnostic_code(item),
                "category": mapping.SEVERITY.get(item.get("severity") or 1, "error"),
                "message": item.get("message", ""),
                "line": start["line"] + 1,
                "character": self._utf8_column(index, start["line"], start["character"]),
            })
        return self._mark(op, {
            "diagnostics": diagnostics,
            "facts": enriched["facts"],
            "markers": [],
            "conform_findings": enriched["conform_findings"],
            "advice": enriched["advice"],
            "degraded": degraded,
        })

    def _enrich(self, rel: str, text: str) -> dict[str, list[Any]]:
        """The policy fields; the last answer per file is kept, as agents re-validate unchanged text."""
        cached = self._enriched.get(rel)
        if cached is not None and cached[0] == text:
            return cached[1]
        assert self.policy is not None
        enriched = self.policy.enrich(rel, text)
        self._enriched[rel] = (text, enriched)
        return enriched

    async def _pushed_diagnostics(self, client: LspClient, uri: str, version: int, lines: int,
                                  op: _Op) -> list[dict[str, Any]]:
        """The last push for `version`. rust-analyzer publishes a version's syntax errors first and its
        semantic diagnostics once it has type-checked the file (seconds when cold); nothing marks a push
        as the last. Inlay hints over the whole file need that same type-checking, so their answer is
        the event after which only a push already on its way is left to wait for."""
        await client.wait_diagnostics(uri, version, op.remaining())
        if client.capabilities.get("inlayHintProvider"):
            await self._request(op, "textDocument/inlayHint", {
                "textDocument": {"uri": uri},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}},
            })
        while True:
            settle = min(PUSH_SETTLE_S, op.deadline - time.monotonic())
            if settle <= 0:
                break
            try:
                await client.wait_diagnostics(uri, version, settle, fresh=True)
            except RequestTimeout:
                break
        return client.diagnostics[uri][1]

    async def _completion(self, op: _Op, file: ProjectFile, position: dict[str, int],
                          transient: _Transient | None, meanwhile: Callable[[], object] | None = None,
                          ) -> list[dict[str, Any]]:
        """The completion items at `position`; `transient` (shown before) is restored after the answer.
        `meanwhile` runs while the analyzer works (default: the transient's preparation)."""
        if meanwhile is None and transient is not None:
            meanwhile = transient.prepare
        try:
            result = await self._request(op, "textDocument/completion", {
                "textDocument": {"uri": self._uri(file.rel)},
                "position": position,
                "context": {"triggerKind": 1},
            }, meanwhile)
        finally:
            if transient is not None:
                transient.restore()
        return mapping.completion_items(result)  # the first answer, even when marked incomplete

    async def _complete(self, params: dict[str, Any], op: _Op) -> dict[str, Any]:
        file = self._file("complete", params)
        content = _content("complete", params)
        prefix = params.get("prefix") or ""
        if not isinstance(prefix, str):
            raise ProtocolError.bad_param("complete", "`prefix` must be a string")
        limit = params.get("max", COMPLETE_MAX_DEFAULT)
        if type(limit) is not int or limit < 0:
            raise ProtocolError.bad_param("complete", "`max` must be a non-negative integer")
        self._require_file(file, content)
        position = self._position("complete", params, file, content)
        client = self.client
        assert client is not None and self.policy is not None
        policy = self.policy
        line, character = params["position"]["line"], params["position"]["character"]
        domain_file = not policy.is_test_path(file.rel)
        test_code: list[bool] = []  # whether the position is in test code, decided at most once

        def in_test_code() -> bool:
            if not test_code:
                text = self._text_or_none(file, content)
                test_code.append(text is not None and policy.in_test_code(text, line, character))
            return test_code[0]

        def meanwhile() -> None:  # while the analyzer computes: decide early where unwrap may be offered
            if transient is not None:
                transient.prepare()
            if domain_file:
                text = self._text_or_none(file, content)
                if text is not None and mapping.after_member_access(line_text(LineIndex(text), line - 1), character):
                    in_test_code()

        transient = self._open_transient(client, file, content) if content is not None else None
        items = await self._completion(op, file, position, transient, meanwhile)
        kinds = mapping.COMPLETION_KIND
        panicking = mapping.PANICKING
        entries = []
        for name, item in mapping.best(items, prefix, limit):  # filtered, ranked and capped before per-entry work
            unsafe = False
            if domain_file and name in panicking and not in_test_code():
                unsafe = await self._panics_on_option_or_result(op, items, item)
            entries.append({"name": name, "kind": kinds.get(item.get("kind") or 1, "text"),
                            "type_text": item.get("detail") or "", "unsafe": unsafe})
        return self._mark(op, {"entries": entries})

    async def _panics_on_option_or_result(self, op: _Op, items: list[dict[str, Any]], item: dict[str, Any]) -> bool:
        """The name+receiver heuristic: an Option/Result-only sibling, else std's docs of the entry."""
        decided = mapping.receiver_is_option_or_result(items, item)
        if decided or "documentation" in item or "data" not in item:
            return decided
        resolved = await self._request(op, "completionItem/resolve", item)
        return mapping.receiver_is_option_or_result([], resolved or {})

    async def _type(self, params: dict[str, Any], op: _Op) -> dict[str, Any]:
        file = self._file("type", params)
        content = _content("type", params)
        self._require_file(file, content)
        position = self._position("type", params, file, content)
        client = self.client
        assert client is not None
        transient = self._open_transient(client, file, content) if content is not None else None
        try:
            hover = await self._request(op, "textDocument/hover", {
                "textDocument": {"uri": self._uri(file.rel)}, "position": position},
                None if transient is None else transient.prepare)
        finally:
            if transient is not None:
                transient.restore()
        return self._mark(op, mapping.hover_to_type(hover))

    async def _scope(self, params: dict[str, Any], op: _Op) -> dict[str, Any]:
        file = self._file("scope", params)
        content = _content("scope", params)
        text = self._effective_text(file, content)
        client = self.client
        assert client is not None
        if params.get("position") is not None:
            position = self._position("scope", params, file, content, LineIndex(text))
            shown = content
        else:  # a neutral top-level position: inside a probe function appended for this op only
            shown = (text if text.endswith("\n") or not text else text + "\n") + _SCOPE_PROBE
            probe = LineIndex(shown)
            position = {"line": probe.line_count - 3, "character": 4}
        transient = self._open_transient(client, file, shown) if shown is not None else None
        items = await self._completion(op, file, position, transient)
        kinds = mapping.COMPLETION_KIND
        symbols = []
        seen = set()
        for item in items:
            kind = item.get("kind")
            name = mapping.symbol_name(item)
            if name is None or kind in (mapping.KEYWORD, mapping.SNIPPET) or name.startswith("__ferrule_scope_probe__"):
                continue  # internal names (`<ra@gennew>7` in a for loop), keywords, snippets, the probe
            key = (name, kind)
            if key in seen:
                continue
            seen.add(key)
            symbols.append({"name": name, "kind": kinds.get(kind or 1, "text"), "type_text": item.get("detail") or ""})
        cell = mapping.module_path(file.rel)
        seam_file = next((rel for rel in mapping.seam_candidates(file.rel)
                          if rel == file.rel or (self.root.path / rel).is_file() or rel in self.overlays), None)
        assert self.policy is not None
        branded = [{"name": entry["name"], "seam": cell or file.rel, "heuristic": True,
                    **({"line": entry["line"]} if "line" in entry else {})}
                   for entry in self.policy.branded(text)]
        return self._mark(op, {"symbols": symbols, "cell": cell, "seam_file": seam_file, "branded": branded})

    async def _shutdown(self, params: dict[str, Any], op: _Op) -> dict[str, Any]:
        async with self._lifecycle:
            client, self.client = self.client, None
            self.overlays.clear()
            if client is not None:
                await client.shutdown(timeout=min(op.budget_ms / 1000, 5.0))
        return {}

    async def aclose(self) -> None:
        await self.call("shutdown", {})


def initialize_params(root: Path) -> dict[str, Any]:
    """The `initialize` params the Session sends for the project at `root` (a canonical path)."""
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
    }
    if not _push_forced():
        text_document["diagnostic"] = {"dynamicRegistration": False, "relatedDocumentSupport": False}
    return {
        "processId": os.getpid(),
        "clientInfo": {"name": "ferrule"},
        "rootUri": uri,
        "rootPath": str(root),
        "workspaceFolders": [{"uri": uri, "name": root.name}],
        "initializationOptions": ANALYZER_CONFIG,
        "capabilities": {
            "general": {"positionEncodings": encodings},
            "window": {"workDoneProgress": True},
            "workspace": {"configuration": True, "workspaceFolders": True},
            "textDocument": text_document,
            "experimental": {"serverStatusNotification": True},
        },
    }


def _configuration(item: dict[str, Any]) -> Any:
    section = item.get("section")
    if section in ("rust-analyzer", None, ""):
        return ANALYZER_CONFIG
    return None


def _not_loaded_yet(client: LspClient, error: ResponseError) -> bool:
    """rust-analyzer answers "file not found" until the workspace's files are loaded, and a handler may
    panic on a crate graph still being built ("no entry found for key"): while it loads, wait, don't fail."""
    if not client.busy:
        return False
    return "file not found" in error.message or (error.code == INTERNAL_ERROR and "panicked" in error.message)


def _push_forced() -> bool:
    """`FERRULE_DIAGNOSTICS=push` leaves pull support out, so the push path runs against a real analyzer."""
    return os.environ.get("FERRULE_DIAGNOSTICS") == "push"


def _budget(op: str, params: dict[str, Any]) -> _Op:
    budget = params.get("timeout_ms")
    if budget is None:
        return _Op(op, DEFAULT_BUDGET_MS[op])
    if type(budget) is not int or budget <= 0:
        raise ProtocolError.bad_param(op, f"`timeout_ms` must be a positive integer, got {budget!r}")
    return _Op(op, budget)


def _content(op: str, params: dict[str, Any]) -> str | None:
    content = params.get("content")
    if content is not None and not isinstance(content, str):
        raise ProtocolError.bad_param(op, "`content` must be a string")
    return content


__all__ = ["ANALYZER_CONFIG", "DEFAULT_BUDGET_MS", "Session", "initialize_params"]
