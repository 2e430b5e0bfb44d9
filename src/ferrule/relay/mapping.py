"""Pure translations between LSP shapes and the oracle protocol's: no I/O, no analyzer."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from ferrule.lsp.markup import hover_markdown, split_hover
from ferrule.relay.results import TypeResult

SEVERITY = {1: "error", 2: "warning", 3: "information", 4: "hint"}

COMPLETION_KIND = {
    1: "text", 2: "method", 3: "function", 4: "constructor", 5: "field", 6: "variable", 7: "class",
    8: "interface", 9: "module", 10: "property", 11: "unit", 12: "value", 13: "enum", 14: "keyword",
    15: "snippet", 16: "color", 17: "file", 18: "reference", 19: "folder", 20: "enum_member",
    21: "constant", 22: "struct", 23: "event", 24: "operator", 25: "type_parameter",
}
KEYWORD, SNIPPET = 14, 15

# Methods only Option or only Result offer: a sibling among the answers names the receiver.
_OPTION_ONLY = frozenset({"is_some", "is_none", "is_some_and", "is_none_or", "ok_or", "ok_or_else",
                          "get_or_insert_with"})
_RESULT_ONLY = frozenset({"is_ok", "is_err", "is_ok_and", "is_err_and", "map_err", "unwrap_err",
                          "expect_err", "inspect_err"})
PANICKING = frozenset({"unwrap", "expect"})  # the methods whose completion may be flagged `unsafe`
# std's own docs of Option::unwrap/expect and Result::unwrap/expect start so.
_STD_DOC_MARKS = ("contained [`Some`]", "contained [`Ok`]")

# Diagnostics that describe the disk (cargo check), never an overlay's text.
_DISK_SOURCES = frozenset({"rustc", "clippy", "cargo"})


def completion_items(result: Any) -> list[dict[str, Any]]:
    """The items of a completion answer (a list, a CompletionList, or null)."""
    if not result:
        return []
    if isinstance(result, list):
        return result
    return result.get("items") or []


def item_name(item: dict[str, Any]) -> str:
    name = item.get("filterText") or item.get("label") or ""
    return name


def best(items: list[dict[str, Any]], prefix: str, limit: int) -> list[tuple[str, dict[str, Any]]]:
    """(name, item) of the first `limit` items whose name starts with `prefix`, in the analyzer's order
    of preference: by `sortText` (the label when absent, as LSP says), then by label; rust-analyzer
    does not send its list in that order. Names the analyzer made for itself (`<ra@gennew>16`, the
    iterator of a desugared `for` loop) are left out. Only the items the filter keeps are ranked."""
    keyed: list[tuple[str, str, int, str, dict[str, Any]]] = []
    append = keyed.append
    for item in items:
        get = item.get
        name = get("filterText") or get("label") or ""
        if name[:1] != "<" and (not prefix or name.startswith(prefix)):
            label = get("label") or ""
            append((get("sortText") or label, label, len(keyed), name, item))  # the index settles ties
    keyed.sort()
    return [(key[3], key[4]) for key in keyed[:limit]]


# A Rust identifier (raw ones too), a macro (`name!`) or a lifetime; rust-analyzer also offers names it
# made up for itself, such as `<ra@gennew>16`, which no one can write.
_RUST_NAME = re.compile(r"(?:r#)?[^\W\d]\w*!?|'[^\W\d]\w*")


def is_rust_name(name: str) -> bool:
    return _RUST_NAME.fullmatch(name) is not None


def symbol_name(item: dict[str, Any]) -> str | None:
    """The name a completion item stands for, or None for the analyzer's internal names.

    `filterText` first (`Ord` where the label is `Ord(alias <, >, <=, >=)`), then the label (`Some`
    where the filter text is `Some()`)."""
    for name in (item.get("filterText"), item.get("label")):
        if name and _RUST_NAME.fullmatch(name) is not None:
            return name
    return None


# The end of a line's text before a completion point that asks for a member or a path segment.
_MEMBER_ACCESS = re.compile(r"(?:\.|::)\s*\w*$")


def after_member_access(line_text: str, utf8_column: int) -> bool:
    """Whether completing at `utf8_column` of the line completes `receiver.name` or `Path::name`: the
    only places where `unwrap`/`expect` are offered."""
    before = line_text.encode("utf-8")[:utf8_column].decode("utf-8", "ignore")
    return _MEMBER_ACCESS.search(before) is not None


def is_overlay_diagnostic(diagnostic: dict[str, Any]) -> bool:
    return diagnostic.get("source") not in _DISK_SOURCES


def diagnostic_code(diagnostic: dict[str, Any]) -> str | None:
    code = diagnostic.get("code")
    return None if code is None else str(code)


def receiver_is_option_or_result(items: list[dict[str, Any]], item: dict[str, Any]) -> bool:
    """The heuristic for `unsafe`: std's docs on the item, or an Option/Result-only sibling."""
    documentation = item.get("documentation")
    if isinstance(documentation, dict):
        documentation = documentation.get("value")
    if isinstance(documentation, str) and any(mark in documentation[:200] for mark in _STD_DOC_MARKS):
        return True
    for other in items:
        name = item_name(other)
        if name in _OPTION_ONLY or name in _RESULT_ONLY:
            return other.get("kind") == 2  # a method, not a free function of that name
    return False


def hover_to_type(result: Any) -> TypeResult:
    if not result:
        return {"display": "", "documentation": ""}
    display, documentation = split_hover(hover_markdown(result.get("contents")))
    return {"display": display, "documentation": documentation}


def module_path(rel: str) -> str | None:
    """`crate::a::b` for `src/a/b.rs` or `src/a/b/mod.rs`; `crate` for a crate root; None outside src/."""
    parts = PurePosixPath(rel).parts
    if len(parts) < 2 or parts[0] != "src" or not rel.endswith(".rs"):
        return None
    inner = list(parts[1:])
    if inner[0] == "bin":  # src/bin/x.rs and src/bin/x/main.rs are crate roots of binaries
        if len(inner) == 2 or (len(inner) == 3 and inner[2] == "main.rs"):
            return "crate"
        inner = inner[2:] if inner[1].endswith(".rs") is False else inner[2:]
    stem = inner[-1][:-3]
    if len(inner) == 1 and stem in ("lib", "main"):
        return "crate"
    segments = inner[:-1] + ([] if stem == "mod" else [stem])
    return "::".join(["crate", *segments])


def seam_candidates(rel: str) -> list[str]:
    """Where the enclosing seam (`mod.rs`, `lib.rs`, `main.rs`) may be, nearest first."""
    parts = PurePosixPath(rel).parts
    if not parts or parts[0] != "src":
        return ["src/lib.rs", "src/main.rs"]
    folder = PurePosixPath(*parts[:-1])
    name = parts[-1]
    found: list[str] = []
    if name in ("mod.rs", "lib.rs", "main.rs"):
        found.append(rel)  # a seam encloses itself
    while str(folder) not in ("src", "."):
        found.append(f"{folder}/mod.rs")
        found.append(f"{folder}.rs")  # the 2018 layout: src/a.rs owns src/a/
        folder = folder.parent
    found.extend(["src/lib.rs", "src/main.rs"])
    return found
