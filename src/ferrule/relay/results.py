"""The result records of the ops, as docs/PROTOCOL.md section 3 documents them.

`indexing: true` may be added to any result of validate, scope, complete and type: the analyzer was
loading or indexing while it answered, so the answer may be partial.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from ferrule.conform import Fact, FindingRecord
from ferrule.project import ErrorRecord
from ferrule.relay.doc_examples import DocMention


class Indexing(TypedDict, total=False):
    indexing: bool  # present, and true, when the answer was given while the analyzer indexed


class _StdError(TypedDict, total=False):
    std_error: ErrorRecord  # present when the analyzer could not load the standard library
    proc_macro_error: ErrorRecord  # present when the analyzer cannot expand procedural macros


class InitResult(_StdError):
    ra_version: str
    position_encoding: str
    pull_diagnostics: bool
    quiescent: bool


class _Dropped(TypedDict, total=False):
    dropped: bool  # with `content: null`: whether there was an overlay to drop


class UpdateResult(_Dropped):
    version: int


Source = Literal["rust-analyzer", "rustc"]


class _Judged(TypedDict, total=False):
    # with a compile check: an analyzer error on a line where rustc reports no error (rustc is the judge)
    unconfirmed: bool
    # rustc's: the other places it labels, its notes and help, one line each (compile/spans.py)
    related: list[str]


class Diagnostic(_Judged):
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
    compile_stopped_at: list[str]  # failed build scripts or libraries cargo stopped at before this file's target
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


class Caveats(Indexing, total=False):
    degraded: bool  # present, and true, with `warnings`: the analyzer could not see all it was asked
    warnings: list[ErrorRecord]  # why (std, proc-macros, code `#[cfg]` switches off, an unlinked file), the fix


class ScopeResult(Caveats):
    symbols: list[Symbol]  # the file's own names and locals, then its imports, then the rest (the prelude)
    more: int  # symbols in scope left out by `max`
    cell: str | None
    seam_file: str | None
    branded: list[Branded]


class Entry(TypedDict):
    name: str
    kind: str
    type_text: str
    unsafe: bool


class CompleteResult(Caveats):
    entries: list[Entry]


class TypeResult(Caveats):
    display: str
    documentation: str


class ShutdownResult(TypedDict):
    pass


# ---- navigation by name ----------------------------------------------------------------------------


class _LocationOptional(TypedDict, total=False):
    derive: str  # (implementations) the trait a `#[derive(...)]` on this line implements at this place
    macro: str  # (implementations) the macro whose call holds this place and makes the impl (`bitflags!`)


class Location(_LocationOptional):
    file: str  # root-relative; in a library, its path under the library root (`std/src/vec/mod.rs`)
    line: int  # 1-based
    character: int  # 0-based, UTF-8 bytes
    end_line: int
    end_character: int
    text: str  # the line's text ("" when the file is neither the project's nor a library's)
    read_only: bool  # a library file (or one outside every root): never edited


class _OutlineOptional(TypedDict, total=False):
    container: str
    children: list[OutlineSymbol]


class OutlineSymbol(_OutlineOptional):
    name: str
    kind: str
    line: int
    end_line: int
    detail: str


class FoundSymbol(Location):
    name: str
    kind: str
    container: str | None


class SymbolsResult(Indexing):
    symbols: list[OutlineSymbol] | list[FoundSymbol]
    more: int  # the matches (or outline entries) left out by `max`


class LocationsResult(Indexing):
    locations: list[Location]
    more: int


class FileReferences(TypedDict):
    file: str
    references: list[Location]


class DocExamples(TypedDict, total=False):
    # present when the project's doc-comment examples mention the name, which the analyzer never
    # searches: the first few, and how many in all
    doc_examples: list[DocMention]
    doc_examples_count: int


class ReferencesResult(Indexing, DocExamples):
    files: list[FileReferences]
    count: int  # every reference found, shown or not
    more: int


class TextEdit(TypedDict):
    line: int
    character: int
    end_line: int
    end_character: int
    new_text: str


class FileEdit(TypedDict):
    file: str
    edits: list[TextEdit]


class EditResult(Indexing):
    changes: list[FileEdit]
    applied: str | None  # "overlay", "disk", or None when only answered


class RenameResult(EditResult, DocExamples, total=False):
    # present when the new name is already an item's beside the renamed one (the code would not compile)
    warnings: list[ErrorRecord]


class _FixSource(TypedDict, total=False):
    source: Source  # "rustc" for a fix rustc suggests; absent for the analyzer's


class Fix(_FixSource):
    id: str
    title: str
    kind: str  # the LSP code action kind: quickfix, refactor.rewrite, ...


class _FixesCompile(Indexing, total=False):
    compile_error: ErrorRecord  # with `compile`: why rustc's fixes are missing


class FixesResult(_FixesCompile):
    fixes: list[Fix]
    more: int


class ApplyFixResult(EditResult):
    title: str


OpResult = (InitResult | UpdateResult | ValidateResult | ScopeResult | CompleteResult | TypeResult
            | ShutdownResult | SymbolsResult | LocationsResult | ReferencesResult | EditResult | RenameResult | FixesResult
            | ApplyFixResult)

__all__ = [
    "ApplyFixResult",
    "EditResult",
    "RenameResult",
    "FileEdit",
    "FileReferences",
    "Fix",
    "FixesResult",
    "FoundSymbol",
    "Location",
    "LocationsResult",
    "OutlineSymbol",
    "ReferencesResult",
    "SymbolsResult",
    "TextEdit",
    "Branded",
    "Caveats",
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
