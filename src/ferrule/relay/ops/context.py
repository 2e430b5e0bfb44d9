"""What a handler works with: the op's time budget, the analyzer, the documents and the policy.

`OpContext.request` sends one LSP request within what is left of the budget, retrying the answers
that mean "not now" (ContentModified, a workspace still loading); `mark` flags answers given while
the analyzer indexed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

from ferrule.fastframe import LineIndex
from ferrule.lsp import LspClient, RequestTimeout, ResponseError
from ferrule.lsp.client import Decoder
from ferrule.lsp.errors import INTERNAL_ERROR
from ferrule.lsp.positions import line_text
from ferrule.project import BadRequest, ErrorRecord, ProjectFile, ProjectRoot
from ferrule.relay.analyzer import AnalyzerProcess
from ferrule.relay.compile import CompileChecker
from ferrule.relay.documents import Documents
from ferrule.relay.enrichment import PolicySlot
from ferrule.relay.packages import Packages
from ferrule.relay.params import FileParams, Position
from ferrule.relay.results import Caveats, Indexing

CONTENT_MODIFIED_RETRIES = 5
LOADING_RETRY_S = 0.05  # while the workspace loads, how often a "file not found" request is retried
POSITION_RECIPE = ("`line` is 1-based and `character` 0-based, in UTF-8 bytes of the line; "
                   "ask within the text the op sees (`content`, else the overlay, else the disk)")

R = TypeVar("R", bound=Indexing)
C = TypeVar("C", bound=Caveats)


class Budget:
    """One op's time budget: every LSP request inside it gets what is left."""

    __slots__ = ("op", "budget_ms", "deadline", "began_busy")

    def __init__(self, op: str, budget_ms: int) -> None:
        self.op = op
        self.budget_ms = budget_ms
        self.deadline = time.monotonic() + budget_ms / 1000
        self.began_busy = False  # the analyzer was loading or indexing when the op began

    def remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise RequestTimeout(self.op, self.budget_ms / 1000)
        return left


class OpContext:
    __slots__ = ("budget", "root", "analyzer", "documents", "policy", "compiler", "packages")

    def __init__(self, budget: Budget, root: ProjectRoot, analyzer: AnalyzerProcess, documents: Documents,
                 policy: PolicySlot, compiler: CompileChecker, packages: Packages) -> None:
        self.budget = budget
        self.root = root
        self.analyzer = analyzer
        self.documents = documents
        self.policy = policy
        self.compiler = compiler
        self.packages = packages  # the project's packages and targets, for a file's module path

    @property
    def client(self) -> LspClient:
        client = self.analyzer.client
        assert client is not None, "ops other than init and shutdown run on a started analyzer"
        return client

    def file(self, params: FileParams) -> ProjectFile:
        """The request's file as checked against the sandbox when the op was accepted, or checked now
        when that check is not at hand (the op waited behind others, or came unchecked)."""
        return params.checked if params.checked is not None else self.root.file(params.file)

    async def request(self, method: str, params: dict[str, Any],
                      meanwhile: Callable[[], object] | None = None, decode: Decoder | None = None) -> Any:
        """A request within the op's budget; ContentModified and server-cancelled answers are retried.

        `meanwhile` runs once, right after the request is written: work that needs no answer is done
        while the analyzer computes it instead of after. `decode`: the answer's own decoder.
        """
        client, budget = self.client, self.budget
        attempt = 0
        while True:
            pending = client.send_request(method, params, timeout=budget.remaining(), decode=decode)
            if meanwhile is not None:
                client.flush()  # behind another op's unanswered request it would wait for this turn's end
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
                    await asyncio.sleep(min(LOADING_RETRY_S, budget.remaining()))
                    continue
                attempt += 1
                if not error.retryable or attempt > CONTENT_MODIFIED_RETRIES:
                    raise
                await asyncio.sleep(0.01 * attempt)

    def caveated(self, result: C, warnings: list[ErrorRecord]) -> C:
        """The answer with `degraded: true` and the `warnings` when it cannot be taken at its word
        (a standard library the analyzer did not load, code it does not see), then marked."""
        if warnings:
            result["degraded"] = True
            result["warnings"] = warnings
        return self.mark(result)

    def mark(self, result: R) -> R:
        """`indexing: true` when the analyzer was loading or indexing as the op began or as it ended:
        the answer may be partial."""
        client = self.analyzer.client
        if self.budget.began_busy or (client is not None and client.busy):
            result["indexing"] = True
        return result

    def lsp_position(self, file: ProjectFile, position: Position, content: str | None,
                     index: LineIndex | None = None) -> dict[str, int]:
        """The protocol's position as the analyzer counts it (0-based line, its column encoding).

        A position outside the text is refused here, in the protocol's terms: the analyzer's own
        message counts lines from 0 and is worded differently by each release."""
        if index is None:
            index = self.documents.index(file, content)
        line = position.line - 1
        if line >= index.line_count:
            text = index.text
            lines = index.line_count - (1 if text.endswith("\n") else 0)
            raise BadRequest(f"line {position.line} is past the end of {file.rel} ({plural(lines, 'line')})",
                             POSITION_RECIPE)
        text = index.line(line)
        length = len(text) if text.isascii() else len(text.encode("utf-8"))
        if position.character > length:
            raise BadRequest(f"character {position.character} is past the end of line {position.line} of "
                             f"{file.rel} ({plural(length, 'byte')})", POSITION_RECIPE)
        codec = self.analyzer.codec
        if codec.identity:
            return {"line": line, "character": position.character}
        return {"line": line, "character": codec.to_server(text, position.character)}

    def utf8_column(self, index: LineIndex | None, line: int, character: int) -> int:
        """The analyzer's column on 0-based `line` as the protocol's UTF-8 byte offset."""
        codec = self.analyzer.codec
        if codec.identity or index is None:
            return character
        return codec.from_server(line_text(index, line), character)


def plural(count: int, word: str) -> str:
    """`1 line`, `1,087 lines`, `3 fixes`: counts in messages and reports."""
    if count == 1:
        return f"{count} {word}"
    return f"{count:,} {word}es" if word.endswith(("s", "x", "ch", "sh")) else f"{count:,} {word}s"


def _not_loaded_yet(client: LspClient, error: ResponseError) -> bool:
    """rust-analyzer answers "file not found" until the workspace's files are loaded, and a handler may
    panic on a crate graph still being built ("no entry found for key"): while it loads, wait, don't fail."""
    if not client.busy:
        return False
    return "file not found" in error.message or (error.code == INTERNAL_ERROR and "panicked" in error.message)


__all__ = ["Budget", "OpContext", "plural"]
