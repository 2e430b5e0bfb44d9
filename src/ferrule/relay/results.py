"""The result records of the ops, as docs/PROTOCOL.md section 3 documents them.

`indexing: true` may be added to any result of validate, scope, complete and type: the analyzer was
loading or indexing while it answered, so the answer may be partial.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from ferrule.conform import Fact, FindingRecord
from ferrule.project import ErrorRecord


class Indexing(TypedDict, total=False):
    indexing: bool  # present, and true, when the answer was given while the analyzer indexed


class _StdError(TypedDict, total=False):
    std_error: ErrorRecord  # present when the analyzer could not load the standard library


class InitResult(_StdError):
    ra_version: str
    position_encoding: str
    pull_diagnostics: bool
    quiescent: bool


class UpdateResult(TypedDict):
    version: int


Source = Literal["rust-analyzer", "rustc"]


class Diagnostic(TypedDict):
    code: str | None
    category: str  # error | warning | information | hint
    message: str
    line: int  # 1-based
    character: int  # 0-based, UTF-8 bytes
    source: Source


class ElsewhereDiagnostic(Diagnostic):
    file: str  # root-relative: an error the checked text causes in another file


class _ValidateExtras(Indexing, total=False):
    warnings: list[ErrorRecord]  # why the answer is degraded, and the recipe
    # with `compile: true` (ferrule.relay.compile)
    compiled: bool  # rustc's answer is included
    compile_ms: int
    elsewhere: list[ElsewhereDiagnostic]
    elsewhere_omitted: int  # errors in other files beyond the cap
    compile_error: ErrorRecord  # why rustc's answer is missing


class ValidateResult(_ValidateExtras):
    diagnostics: list[Diagnostic]
    facts: list[Fact]  # the records of ferrule.conform.facts
    markers: list[object]  # reserved: always empty
    conform_findings: list[FindingRecord]
    advice: list[str]
    degraded: bool  # the diagnostics came from the push channel, or the analyzer lacks std


class Symbol(TypedDict):
    name: str
    kind: str
    type_text: str


class _BrandedLine(TypedDict, total=False):
    line: int


class Branded(_BrandedLine):
    name: str
    seam: str
    heuristic: bool


class ScopeResult(Indexing):
    symbols: list[Symbol]
    cell: str | None
    seam_file: str | None
    branded: list[Branded]


class Entry(TypedDict):
    name: str
    kind: str
    type_text: str
    unsafe: bool


class CompleteResult(Indexing):
    entries: list[Entry]


class TypeResult(Indexing):
    display: str
    documentation: str


class ShutdownResult(TypedDict):
    pass


OpResult = (InitResult | UpdateResult | ValidateResult | ScopeResult | CompleteResult | TypeResult
            | ShutdownResult)

__all__ = [
    "Branded",
    "CompleteResult",
    "Diagnostic",
    "ElsewhereDiagnostic",
    "Entry",
    "Indexing",
    "InitResult",
    "OpResult",
    "ScopeResult",
    "ShutdownResult",
    "Source",
    "Symbol",
    "TypeResult",
    "UpdateResult",
    "ValidateResult",
]
