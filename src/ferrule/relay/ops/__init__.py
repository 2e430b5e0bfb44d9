"""The one table of operations. Each op is declared once, here: its name, its typed params (with their
bounds, in ferrule.relay.params), its result record, its default budget, whether it only reads the
analyzer's view of its file (for serve's per-file scheduler), and its handler.

The envelope, `serve`, the one-shot CLI, the MCP tools that mirror ops and docs/PROTOCOL.md's op table
all read this table; a new op is one more entry.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ferrule.relay.ops import completion, edits, hover, lifecycle, navigation, overlay, validate
from ferrule.relay.ops.context import OpContext
from ferrule.relay.params import (
    ApplyFixParams,
    CompleteParams,
    DefinitionParams,
    FileParams,
    FixesParams,
    ImplementationsParams,
    InitParams,
    OpParams,
    ReferencesParams,
    RenameParams,
    ScopeParams,
    ShutdownParams,
    SymbolsParams,
    TypeParams,
    UpdateParams,
    ValidateParams,
)
from ferrule.relay.results import (
    ApplyFixResult,
    CompleteResult,
    FixesResult,
    InitResult,
    LocationsResult,
    ReferencesResult,
    RenameResult,
    ScopeResult,
    ShutdownResult,
    SymbolsResult,
    TypeResult,
    UpdateResult,
    ValidateResult,
)

P = TypeVar("P", bound=OpParams)
R = TypeVar("R")


def _never(params: Any) -> bool:
    return False


def _always(params: Any) -> bool:
    return True


def _answers_only(params: Any) -> bool:
    return params.apply is None


def _without_content(params: Any) -> bool:
    return params.content is None


def _at_a_position(params: ScopeParams) -> bool:
    return params.position is not None  # without one it shows a probe appended to the file


def _applies(params: Any) -> bool:
    return params.apply is not None


@dataclass(frozen=True)
class Op(Generic[P, R]):
    name: str
    summary: str  # one line, for --help and the docs
    params: type[P]
    result: type[R]
    budget_ms: int  # when the request carries no `timeout_ms`; for init it bounds the quiescence wait
    handler: Callable[[OpContext, P], Awaitable[R]]
    only_reads: Callable[[P], bool] = _never  # changes nothing the analyzer sees, even for a moment
    reads_when: str = "never"  # the same rule in words, for the docs
    # changes files other than its own (an edit applied across the project): ordered as a barrier
    spans_files: Callable[[P], bool] = _never

    @property
    def on_a_file(self) -> bool:
        """Ops on a file are ordered per file; the others (init, shutdown) are barriers."""
        return issubclass(self.params, FileParams)


OPS: dict[str, Op[Any, Any]] = {op.name: op for op in (
    Op("init", "start (or restart) the analyzer for the project and wait until it is ready",
       InitParams, InitResult, 90_000, lifecycle.init),
    Op("update", "set, replace or drop a file's overlay (unsaved text)",
       UpdateParams, UpdateResult, 10_000, overlay.update),
    Op("validate", "diagnostics (and policy findings) for one file",
       ValidateParams, ValidateResult, 30_000, validate.validate),
    Op("scope", "symbols in scope, module path, seam file, newtypes",
       ScopeParams, ScopeResult, 20_000, completion.scope, _at_a_position, "with a `position`"),
    Op("complete", "completions at a position",
       CompleteParams, CompleteResult, 20_000, completion.complete, _without_content, "without `content`"),
    Op("type", "the type under a position, or of the item a name names (hover)",
       TypeParams, TypeResult, 20_000, hover.type_at, _without_content, "without `content`"),
    # navigation by name
    Op("symbols", "a file's outline, or a workspace search by name",
       SymbolsParams, SymbolsResult, 20_000, navigation.symbols, _always, "always"),
    Op("definition", "where the symbol at a position, or of a name, is defined",
       DefinitionParams, LocationsResult, 20_000, navigation.definition, _always, "always"),
    Op("references", "every use of a symbol, grouped by file",
       ReferencesParams, ReferencesResult, 30_000, navigation.references, _always, "always"),
    Op("implementations", "the impls of a trait, or the impls for a type",
       ImplementationsParams, LocationsResult, 20_000, navigation.implementations, _always, "always"),
    Op("rename", "rename a symbol everywhere: the edits, applied as overlays or to disk on request",
       RenameParams, RenameResult, 30_000, edits.rename, _answers_only, "without `apply`", _applies),
    Op("fixes", "rustc's suggested fixes, the analyzer's quick fixes and assists at a position or lines",
       FixesParams, FixesResult, 30_000, edits.fixes, _always, "always"),  # validate's budget: its compile check
    Op("apply_fix", "one of the fixes `fixes` answered: its edits, applied as overlays or to disk on request",
       ApplyFixParams, ApplyFixResult, 30_000, edits.apply_fix, _answers_only, "without `apply`", _applies),
    Op("shutdown", "stop the analyzer (LSP shutdown/exit) and end the relay",
       ShutdownParams, ShutdownResult, 10_000, lifecycle.shutdown),
)}

OP_NAMES = tuple(OPS)

__all__ = ["OPS", "OP_NAMES", "Op", "OpContext"]
