"""What an agent reads before it calls a Rust tool: names, descriptions and input schemas.

The descriptions are the only manual an agent gets, so each says what the tool answers, when to call
it, and the position and path conventions (1-based line, 0-based UTF-8 character, root-relative path).
"""

from __future__ import annotations

from typing import Any

from ferrule.relay.digest import ERRORS_SHOWN
from ferrule.relay.ops import OPS
from ferrule.relay.params import (
    APPLY_MODES,
    COMPLETE_MAX_DEFAULT,
    NAVIGATION_MAX_DEFAULT,
    SCOPE_MAX_DEFAULT,
    SYMBOL_KINDS,
    fields_of,
)
from ferrule.tools.reports import DOC_SHOWN, EDITS_SHOWN

GATE_MAX_DEFAULT = 30  # rust_check's findings listed; the rest are counted by rule
DOC_MAX_LIMIT = 200_000  # rust_type's `doc_max`: more than any item's documentation (std's longest are tens of KB)

_FILE = {
    "type": "string",
    "description": "The .rs file, relative to the project root with forward slashes, e.g. \"src/lib.rs\".",
}
_LINE = {"type": "integer", "minimum": 1, "description": "Line number, 1-based (the first line is 1)."}
_CHARACTER = {
    "type": "integer",
    "minimum": 0,
    "description": (
        "Column, 0-based, counted in UTF-8 bytes from the start of the line "
        "(on an ASCII line, the number of characters before the position)."
    ),
}
_CONTENT = {
    "type": "string",
    "description": (
        "Optional full text of the file to analyse for this call only, e.g. an edit not yet saved. "
        "Afterwards the analyzer sees the file as before (disk or rust_update overlay)."
    ),
}

_COMPILE = {
    "type": "boolean",
    "default": True,
    "description": (
        "Also run the compiler (`cargo check` in a private copy of the project holding your unsaved text; "
        "build scripts and proc macros run as cargo runs them): catches what the analyzer misses, such "
        "as borrow-checker errors, unsatisfied trait bounds and missing lifetimes, in this file and in "
        "the files the change breaks. Default true; false answers from the analyzer alone, in milliseconds."
    ),
}

_INCLUDE_FACTS = {
    "type": "boolean",
    "default": False,
    "description": (
        "Also answer the policy's facts (one record per item of the file: kind, name, lines, visibility) in "
        "the structured result. Default false: they are counted by kind, not listed (tens of KB on a large file)."
    ),
}

POSITION_NOTE = "Positions: `line` is 1-based; `character` is 0-based, in UTF-8 bytes of that line."
PATH_NOTE = "Paths are relative to the project root, with forward slashes."

_SYMBOL = {
    "type": "string",
    "description": (
        "What to look at, by name instead of a position: a name or a path, e.g. \"Pricing\", "
        "\"Order::total\" or \"orders::pricing::Order::total\"; the standard library's too, primitives "
        "included (\"Vec::push\", \"str::len\", \"u32\"); a macro with its ! (\"vec!\"). When several "
        "items carry the name, the answer lists them with their files and lines: qualify it, or pass file, "
        "line and character."
    ),
}
_PLACE_NOTE = ("Name the place with `symbol`, or with `file`, `line` and `character` (a position on the name). "
               + POSITION_NOTE + " " + PATH_NOTE)
_PLACE = {"symbol": _SYMBOL, "file": _FILE, "line": _LINE, "character": _CHARACTER}


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _required_by(op: str) -> list[str]:
    """A relay tool's required arguments: its op's required params, the position flattened into
    `line` and `character`."""
    names: list[str] = []
    for name, spec in fields_of(OPS[op].params):
        if spec.required:
            names += ["line", "character"] if name == "position" else [name]
    return names


def _annotations(title: str, *, read_only: bool = True) -> dict[str, Any]:
    return {"title": title, "readOnlyHint": read_only, "idempotentHint": True, "openWorldHint": False}


_COUNTS = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}
_COUNT = {"type": "integer", "minimum": 0}
_STRING_OR_NULL = {"anyOf": [{"type": "string"}, {"type": "null"}]}
_DIAGNOSTIC: dict[str, Any] = {
    "type": "object",
    "properties": {
        "code": _STRING_OR_NULL,
        "category": {"type": "string"},
        "message": {"type": "string"},
        "line": {"type": "integer"},
        "character": {"type": "integer"},
        "source": {"type": "string"},
        "unconfirmed": {"type": "boolean"},
        "related": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["code", "category", "message", "line", "character"],
}
_ERROR_RECORD = {"type": "object", "properties": {"kind": {"type": "string"}, "message": {"type": "string"},
                                                  "recipe": _STRING_OR_NULL}, "required": ["kind", "message"]}
_FINDING = {"type": "object", "properties": {"rule": {"type": "string"}, "message": {"type": "string"},
                                             "line": {"type": "integer"}, "baselined": {"type": "boolean"}},
            "required": ["rule", "message"]}

# The structured result of rust_validate: the relay's answer with its lists cut as the report is (errors,
# warnings, notes, other files' errors, findings and advice capped, the rest counted) and the facts only
# when asked for (ferrule.relay.digest). Open to fields added later.
VALIDATE_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "diagnostics": {"type": "array", "items": _DIAGNOSTIC},
        "diagnostics_omitted": _COUNT,
        "diagnostic_counts": _COUNTS,
        "error_kinds": _COUNTS,
        "warning_kinds": _COUNTS,
        "note_kinds": _COUNTS,
        "facts": {"type": "array", "items": {"type": "object"}},
        "fact_counts": _COUNTS,
        "markers": {"type": "array"},
        "conform_findings": {"type": "array", "items": _FINDING},
        "conform_findings_omitted": _COUNT,
        "advice": {"type": "array", "items": {"type": "string"}},
        "advice_omitted": _COUNT,
        "degraded": {"type": "boolean"},
        "indexing": {"type": "boolean"},
        "warnings": {"type": "array", "items": _ERROR_RECORD},
        "compiled": {"type": "boolean"},
        "compile_ms": _COUNT,
        "compile_stopped_at": {"type": "array", "items": {"type": "string"}},
        "elsewhere": {"type": "array", "items": {**_DIAGNOSTIC, "properties": {
            **_DIAGNOSTIC["properties"], "file": {"type": "string"}}, "required": [*_DIAGNOSTIC["required"], "file"]}},
        "elsewhere_omitted": _COUNT,
        "compile_error": _ERROR_RECORD,
        # "failed": asked for and could not run, so the answer is the analyzer's alone and misses what
        # only rustc finds; "off": not asked for, or switched off for the project
        "compile_check": {"enum": ["ran", "off", "failed"]},
    },
    "required": ["diagnostics", "diagnostics_omitted", "diagnostic_counts", "note_kinds", "facts", "fact_counts",
                 "conform_findings", "conform_findings_omitted", "advice", "advice_omitted", "degraded"],
}

RUST_VALIDATE: dict[str, Any] = {
    "name": "rust_validate",
    "title": "Validate a Rust file",
    "description": (
        "Check one Rust file as the compiler front end and the project's policy see it. Answers "
        "rust-analyzer's diagnostics for that file (errors and warnings with line:character and code) and "
        "the policy findings of conform.toml (unwrap/expect in domain code, std::env reads outside the "
        "allowed files, pub seam items without a doctest, files over the line limit), each with advice "
        "on the fix, and by default the compiler's own errors (rustc) for the same text, in this file and "
        "in other files the change breaks. Call it after every edit of a file, before building: the "
        "analyzer answers in milliseconds, the compile check incrementally in about the time of a "
        "`cargo check`. Pass `content` to check text you have not saved yet. The answer is short: the file's "
        f"first {ERRORS_SHOWN} errors listed and the rest counted by code (rustc is the judge: an analyzer error rustc "
        "does not report is marked unconfirmed and listed last, the first few of them), warnings and policy "
        "findings up to a cap with the rest counted, hints and notes counted by kind with the first few "
        "shown. When the compile check could not run, the first line says so: the analyzer alone misses "
        "borrow-checker errors. " + PATH_NOTE
    ),
    "inputSchema": _schema({"file": _FILE, "content": _CONTENT, "compile": _COMPILE,
                            "include_facts": _INCLUDE_FACTS}, _required_by("validate")),
    "outputSchema": VALIDATE_OUTPUT,
    "annotations": _annotations("Validate a Rust file"),
}

RUST_TYPE: dict[str, Any] = {
    "name": "rust_type",
    "title": "Type and docs of a position or a name",
    "description": (
        "The type, signature and documentation of what is at a position in a Rust file, or of the "
        "item a name names (rust-analyzer's hover): the type of a variable or expression, the signature "
        "of a function or method, the definition of a type, e.g. {\"symbol\": \"str::split_once\"}. Use "
        "it instead of guessing a type or reading the standard library's source. Documentation is cut "
        f"after its first paragraphs (within `doc_max` characters, default {DOC_SHOWN:,}); raise `doc_max` "
        "for the rest. Ask with `symbol`, or with `file`, `line` and `character` (and `content`, a "
        "transient text of the file). " + POSITION_NOTE + " " + PATH_NOTE
    ),
    "inputSchema": _schema(
        {**_PLACE, "content": _CONTENT,
         "doc_max": {"type": "integer", "minimum": 0, "maximum": DOC_MAX_LIMIT,
                     "description": f"At most this many characters of documentation (default {DOC_SHOWN:,}; "
                                    "0 for the signature alone)."}},
        _required_by("type"),
    ),
    "annotations": _annotations("Type and docs of a position or a name"),
}

RUST_COMPLETE: dict[str, Any] = {
    "name": "rust_complete",
    "title": "Completions at a position",
    "description": (
        "What may be written at a position in a Rust file: rust-analyzer's completions (methods, "
        "fields, functions, types, keywords) with their kind and type, filtered by `prefix` and capped "
        f"at `max` (default {COMPLETE_MAX_DEFAULT}). Entries that would put a panic into domain code (unwrap/expect on an "
        "Option or Result outside tests) are marked unsafe: prefer the alternatives. The mark is a heuristic "
        "(the method's name and a guess at its receiver), not a type check: it can miss a panicking "
        "method of another name or a receiver it cannot tell. To ask what a "
        "value offers, pass `content` with the line ending in `value.` and the position just after "
        "the dot. " + POSITION_NOTE + " " + PATH_NOTE
    ),
    "inputSchema": _schema(
        {
            "file": _FILE,
            "line": _LINE,
            "character": _CHARACTER,
            "prefix": {
                "type": "string",
                "description": "Keep only entries whose name starts with this text.",
            },
            "max": {
                "type": "integer",
                "minimum": 1,
                "description": f"At most this many entries (default {COMPLETE_MAX_DEFAULT}).",
            },
            "content": _CONTENT,
        },
        _required_by("complete"),
    ),
    "annotations": _annotations("Completions at a position"),
}

RUST_SCOPE: dict[str, Any] = {
    "name": "rust_scope",
    "title": "Scope of a position",
    "description": (
        "What a Rust file can use at a position (default: the file's top level): the names in scope "
        "with their kind and type (the file's own items and locals first, then its imports, then the "
        f"prelude; at most `max`, default {SCOPE_MAX_DEFAULT}, with a count of the rest), the file's module path, its seam file (the enclosing lib.rs or "
        "mod.rs that makes it public), and the branded newtypes the file defines (pub tuple structs "
        "with one private field, such as `pub struct OrderId(u64)`); ask it about the seam file to "
        "learn the newtypes a module offers, and use them in signatures instead of raw integers or "
        "strings. Call it before writing new code in a file. "
        + POSITION_NOTE + " " + PATH_NOTE
    ),
    "inputSchema": _schema(
        {
            "file": _FILE,
            "line": _LINE,
            "character": _CHARACTER,
            "max": {
                "type": "integer",
                "minimum": 1,
                "description": f"At most this many names, the file's own first (default {SCOPE_MAX_DEFAULT}).",
            },
        },
        _required_by("scope"),
    ),
    "annotations": _annotations("Scope of a position"),
}

RUST_UPDATE: dict[str, Any] = {
    "name": "rust_update",
    "title": "Set or clear an unsaved file",
    "description": (
        "Give the analyzer an unsaved version of a file (an overlay), so that every following "
        "rust_validate, rust_type, rust_complete and rust_scope call sees it, in this file and in the "
        "files that use it: for a change across several files before any is written. `content: null` "
        "drops the overlay and the analyzer reads the file on disk again. The file on disk is never "
        "written. Any file of the project may be set, a Cargo.toml too: rust_validate's compile check "
        "then builds with it. " + PATH_NOTE
    ),
    "inputSchema": _schema(
        {
            "file": {**_FILE, "description": ("The file, relative to the project root with forward slashes, "
                                              "e.g. \"src/lib.rs\" or \"Cargo.toml\".")},
            "content": {  # anyOf, not a `type` array: hosts that read schemas as OpenAPI refuse those
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "description": "The file's full new text, or null to drop the overlay.",
            },
        },
        _required_by("update"),
    ),
    "annotations": _annotations("Set or clear an unsaved file", read_only=False),
}

RUST_CHECK: dict[str, Any] = {
    "name": "rust_check",
    "title": "Policy gate",
    "description": (
        "Run the project's policy gate (conform.toml) over the crate, or over the given files and "
        "directories, as CI runs it: findings not in the committed baseline fail the gate and come "
        "back as an error result with advice on each fix; baselined findings are listed but pass. "
        "Reads the files on disk (not unsaved overlays) and needs no rust-analyzer. Call it before "
        f"you declare a change done. It lists up to {GATE_MAX_DEFAULT} findings, the new ones first, and "
        "counts the rest by rule; each rule's fix is said once. " + PATH_NOTE
    ),
    "inputSchema": _schema(
        {
            "paths": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Files or directories to check; default: the whole project.",
            },
            "max": {"type": "integer", "minimum": 1,
                    "description": f"At most this many findings listed (default {GATE_MAX_DEFAULT}); the rest "
                                   "are counted by rule."},
        },
        [],
    ),
    "annotations": _annotations("Policy gate"),
}

# ---- navigation by name ----------------------------------------------------------------------------

_MAX = {"type": "integer", "minimum": 1,
        "description": f"At most this many items (default {NAVIGATION_MAX_DEFAULT}); the rest are counted."}
_APPLY_MEANING = (
    "\"overlay\": apply them as unsaved overlays that every later "
        "call sees (the disk is untouched; rust_update with content null drops one). \"disk\": write the "
        "files (atomically; refused, with nothing written, when a file changed on disk since the "
        "analyzer read it or has an overlay)."
)
_APPLY = {
    "anyOf": [{"type": "string", "enum": list(APPLY_MODES)}, {"type": "null"}],
    "description": "Leave out to only see the edits. " + _APPLY_MEANING,
}

RUST_SYMBOLS: dict[str, Any] = {
    "name": "rust_symbols",
    "title": "Outline a file or find symbols by name",
    "description": (
        "Find code by name. With `query`, search the whole project for items (types, traits, functions, "
        "methods, fields, modules) whose name matches, exact matches first, each with its file, line and "
        "the line's text: e.g. {\"query\": \"Order\"}. With `file`, the file's outline: every item as a "
        "tree with its kind, line range and signature: e.g. {\"file\": \"src/orders/pricing.rs\"}. Use it "
        "to learn where things are before reading files; then rust_definition, rust_references or "
        "rust_rename by name. " + PATH_NOTE
    ),
    "inputSchema": _schema({
        "query": {"type": "string", "description": "A name to search the project for, e.g. \"total\"."},
        "file": {**_FILE, "description": f"{_FILE['description']} Answers the file's outline."},
        "kinds": {"type": "array", "items": {"type": "string", "enum": list(SYMBOL_KINDS)},
                  "description": "Keep only these kinds, e.g. [\"trait\", \"struct\"]."},
        "max": _MAX,
    }, _required_by("symbols")),
    "annotations": _annotations("Outline a file or find symbols by name"),
}

RUST_DEFINITION: dict[str, Any] = {
    "name": "rust_definition",
    "title": "Go to definition",
    "description": (
        "Where something is defined: the file, line and the line's text of the definition of a name or "
        "of what is at a position, e.g. {\"symbol\": \"Order::total\"}. Definitions in the standard library "
        "or a dependency are shown by their library path (e.g. alloc/src/vec/mod.rs) and are read-only. "
        "Use it instead of searching files for a definition. " + _PLACE_NOTE
    ),
    "inputSchema": _schema(dict(_PLACE), _required_by("definition")),
    "annotations": _annotations("Go to definition"),
}

RUST_REFERENCES: dict[str, Any] = {
    "name": "rust_references",
    "title": "Find references",
    "description": (
        "Every use of a function, method, type, field or variable across the project, grouped by file, "
        "each with its line's text, e.g. {\"symbol\": \"Order::total\"}. Call it before changing a "
        "signature to see every caller; the declaration is included unless include_declaration is false. "
        "Doc-comment examples (doctests) are not searched; the answer lists those that mention the name. "
        + _PLACE_NOTE
    ),
    "inputSchema": _schema({
        **_PLACE,
        "include_declaration": {"type": "boolean", "description": "Count the declaration too (default true)."},
        "max": _MAX,
    }, _required_by("references")),
    "annotations": _annotations("Find references"),
}

RUST_IMPLEMENTATIONS: dict[str, Any] = {
    "name": "rust_implementations",
    "title": "Find implementations",
    "description": (
        "The impls of a trait (which types implement it, and where), or the impl blocks of a type "
        "(its inherent impl and the traits it implements), e.g. {\"symbol\": \"Pricing\"}. "
        + _PLACE_NOTE
    ),
    "inputSchema": _schema({**_PLACE, "max": _MAX}, _required_by("implementations")),
    "annotations": _annotations("Find implementations"),
}

RUST_RENAME: dict[str, Any] = {
    "name": "rust_rename",
    "title": "Rename a symbol everywhere",
    "description": (
        "Rename a function, method, type, field, variable or module item everywhere it is used, as the "
        "compiler understands the code (not a text search), e.g. {\"symbol\": \"Order::total\", "
        "\"new_name\": \"sum\", \"apply\": \"overlay\"}. Without `apply` it answers the edits only. An invalid "
        f"name is refused with the reason. The answer lists the first {EDITS_SHOWN} edits and counts the rest; `apply` "
        "applies them all. After applying as overlays, rust_validate the files, then write "
        "them. Doc-comment examples (doctests) are not renamed; the answer lists those that mention the "
        "old name, to edit by hand. " + _PLACE_NOTE
    ),
    "inputSchema": _schema({
        **_PLACE,
        "new_name": {"type": "string", "description": "The new name, e.g. \"sum\"."},
        "apply": _APPLY,
    }, _required_by("rename")),
    "annotations": _annotations("Rename a symbol everywhere", read_only=False),
}

RUST_FIXES: dict[str, Any] = {
    "name": "rust_fixes",
    "title": "Quick fixes at a place",
    "description": (
        "The quick fixes and refactorings rust-analyzer offers at a position or on some lines: fill "
        "missing match arms, add a missing import, add missing trait items, extract a variable, ... "
        "Each comes with an `id` to pass to rust_apply_fix. Pass `code` to keep only the fixes for that "
        "diagnostic, e.g. {\"file\": \"src/status.rs\", \"line\": 12, \"code\": \"E0004\"} after rust_validate "
        "reported E0004 on line 12. The compiler's own suggestions for what it reports on those lines come "
        "first (id `rustc:...`): add a lifetime, derive a trait, clone a moved value, ... " + POSITION_NOTE
        + " " + PATH_NOTE
    ),
    "inputSchema": _schema({
        "file": _FILE,
        "line": {**_LINE, "description": "The (first) line to look at, 1-based."},
        "character": {**_CHARACTER, "description": f"{_CHARACTER['description']} Optional: without it, "
                      "the whole line (and up to end_line)."},
        "end_line": {**_LINE, "description": "The last line of a range, 1-based, inclusive."},
        "code": {"type": "string", "description": "A diagnostic code, e.g. \"E0004\": only its quick fixes."},
        "max": _MAX,
        "compile": {"type": "boolean", "default": True, "description": (
            "Also the compiler's suggested fixes (rustc's, from the same check rust_validate runs: no cargo "
            "runs again for a text it checked). Default true; false: the analyzer's alone, in milliseconds.")},
    }, ["file", "line"]),
    "annotations": _annotations("Quick fixes at a place"),
}

RUST_APPLY_FIX: dict[str, Any] = {
    "name": "rust_apply_fix",
    "title": "Apply a quick fix",
    "description": (
        "See or apply one fix that rust_fixes offered, by its id, e.g. {\"file\": \"src/status.rs\", \"id\": "
        "\"12:4-12:18/0/2bb88f70/4573b9ee\", \"apply\": \"overlay\"}. \"overlay\" keeps the disk untouched (every "
        "later call sees the change; rust_validate it), \"disk\" writes the files; without apply it "
        "only answers the edits. A fix no longer offered there (the code changed) is refused: ask rust_fixes again; "
        "so is an id passed with another file than the one rust_fixes answered it for. "
        + PATH_NOTE
    ),
    "inputSchema": _schema({
        "file": _FILE,
        "id": {"type": "string", "description": "A fix's id as rust_fixes answered it."},
        "apply": _APPLY,
    }, _required_by("apply_fix")),
    "annotations": _annotations("Apply a quick fix", read_only=False),
}

NAVIGATION_DESCRIPTORS = (RUST_SYMBOLS, RUST_DEFINITION, RUST_REFERENCES, RUST_IMPLEMENTATIONS, RUST_RENAME,
                          RUST_FIXES, RUST_APPLY_FIX)

DESCRIPTORS: dict[str, dict[str, Any]] = {
    d["name"]: d for d in (RUST_VALIDATE, RUST_TYPE, RUST_COMPLETE, RUST_SCOPE, RUST_UPDATE, RUST_CHECK,
                           *NAVIGATION_DESCRIPTORS)
}

INSTRUCTIONS = (
    "Rust analysis for one Cargo project, backed by one warm rust-analyzer and the project's policy "
    "(conform.toml). Validate every Rust file you edit with rust_validate; ask rust_type and "
    "rust_complete instead of guessing types or APIs; call rust_scope before writing into a file to "
    "learn its module and the newtypes to use; find code by name with rust_symbols, rust_definition, "
    "rust_references and rust_implementations, and change it with rust_rename and rust_fixes; run "
    "rust_check before you call a change done. "
    + POSITION_NOTE + " " + PATH_NOTE + " The first call starts the analyzer, which takes some seconds "
    "to index the project."
)

__all__ = [
    "DESCRIPTORS",
    "NAVIGATION_DESCRIPTORS",
    "RUST_APPLY_FIX",
    "RUST_DEFINITION",
    "RUST_FIXES",
    "RUST_IMPLEMENTATIONS",
    "RUST_REFERENCES",
    "RUST_RENAME",
    "RUST_SYMBOLS",
    "INSTRUCTIONS",
    "PATH_NOTE",
    "POSITION_NOTE",
    "RUST_CHECK",
    "RUST_COMPLETE",
    "RUST_SCOPE",
    "RUST_TYPE",
    "RUST_UPDATE",
    "RUST_VALIDATE",
    "VALIDATE_OUTPUT",
]
