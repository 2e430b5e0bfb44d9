"""Pure translations between LSP shapes and the oracle protocol's: no I/O, no analyzer."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from ferrule.lsp.markup import hover_container, hover_items, hover_markdown, hover_signature, split_hover
from ferrule.relay.results import TypeResult

SEVERITY = {1: "error", 2: "warning", 3: "information", 4: "hint"}

COMPLETION_KIND = {
    1: "text", 2: "method", 3: "function", 4: "constructor", 5: "field", 6: "variable", 7: "class",
    8: "interface", 9: "module", 10: "property", 11: "unit", 12: "value", 13: "enum", 14: "keyword",
    15: "snippet", 16: "color", 17: "file", 18: "reference", 19: "folder", 20: "enum_member",
    21: "constant", 22: "struct", 23: "event", 24: "operator", 25: "type_parameter",
}
FUNCTION, VARIABLE, KEYWORD, SNIPPET = 3, 6, 14, 15
MACRO_KIND = "macro"  # the analyzer gives a macro a function's kind: its name or its text tells (relay/symbols.py)


def completion_kind(item: dict[str, Any], name: str) -> str:
    """An entry's kind: LSP's name for it, but a macro's (`vec!`), which the analyzer gives a
    function's kind, is `macro`."""
    kind = item.get("kind") or 1
    return MACRO_KIND if kind == FUNCTION and name.endswith("!") else COMPLETION_KIND.get(kind, "text")


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


# LSP's SymbolKind as the protocol names it (rust-analyzer: impl -> Object, trait -> Interface,
# type alias -> TypeParameter)
SYMBOL_KIND = {
    1: "module", 2: "module", 3: "module", 4: "module", 5: "struct", 6: "method", 7: "field", 8: "field",
    9: "function", 10: "enum", 11: "trait", 12: "function", 13: "variable", 14: "constant", 15: "constant",
    16: "constant", 17: "constant", 18: "constant", 19: "impl", 20: "field", 22: "variant", 23: "struct",
    24: "function", 25: "function", 26: "type_alias",
}


def symbol_kind(kind: int | None, container: str | None) -> str:
    """The protocol's kind of a document or workspace symbol."""
    name = SYMBOL_KIND.get(kind or 0, "symbol")
    if name == "function" and container and container[:1].isupper():
        return "method"  # a function inside an impl or a trait, whose container is the type's name
    return name



def completion_items(result: Any) -> list[dict[str, Any]]:
    """The items of a completion answer (a list, a CompletionList, or null)."""
    if not result:
        return []
    if isinstance(result, list):
        return result
    return result.get("items") or []


# A Rust identifier (raw ones too), a macro (`name!`) or a lifetime; rust-analyzer also offers names it
# made up for itself, such as `<ra@gennew>16`, which no one can write.
_RUST_NAME = re.compile(r"(?:r#)?[^\W\d]\w*!?|'[^\W\d]\w*")


def type_text(item: dict[str, Any]) -> str:
    """A completion item's type or signature. rust-analyzer writes a generic item's parameters it was
    not given as `{unknown}` (`Vec<{unknown}, {unknown}>` for `Vec` in scope): Rust's `_` says the same
    in the language an agent reads (`Vec<_, _>`)."""
    return (item.get("detail") or "").replace("{unknown}", "_")


def item_name(item: dict[str, Any]) -> str:
    """The name a completion item stands for, as code writes it; it may be one the analyzer made for
    itself (`<ra@gennew>16`: `symbol_name` drops those).

    The label without the note it may end in (`and_then` of `and_then(alias flatmap)`, `max` of
    `max(as Ord)`, `len` of `len()`); the filter text only when the label holds no name: rust-analyzer
    runs a name's aliases into its filter text (`and_thenflatmap`) for an editor's fuzzy match."""
    get = item.get
    label = get("label") or ""
    filter_text = get("filterText")
    if filter_text == label or not filter_text:  # most items: nothing to choose
        return label
    cut = label.find("(") if label.endswith(")") else -1
    name = label[:cut] if cut > 0 else label
    if _RUST_NAME.fullmatch(name) is None and _RUST_NAME.fullmatch(filter_text) is not None:
        return filter_text
    return name


def best(items: list[dict[str, Any]], prefix: str, limit: int) -> list[tuple[str, dict[str, Any]]]:
    """(name, item) of the first `limit` items whose name starts with `prefix`, in the analyzer's order
    of preference: by `sortText` (the label when absent, as LSP says), then by label; rust-analyzer
    does not send its list in that order. Names the analyzer made for itself (`<ra@gennew>16`, the
    iterator of a desugared `for` loop) are left out. Only the items the filter keeps are ranked."""
    keyed: list[tuple[str, str, int, str, dict[str, Any]]] = []
    append = keyed.append
    for item in items:
        name = item_name(item)
        if name[:1] != "<" and (not prefix or name.startswith(prefix)):
            get = item.get
            label = get("label") or ""
            append((get("sortText") or label, label, len(keyed), name, item))  # the index settles ties
    keyed.sort()
    return [(key[3], key[4]) for key in keyed[:limit]]


def is_rust_name(name: str) -> bool:
    return _RUST_NAME.fullmatch(name) is not None


def symbol_name(item: dict[str, Any]) -> str | None:
    """The name a completion item stands for (`item_name`), or None for the analyzer's internal names."""
    name = item_name(item)
    return name if _RUST_NAME.fullmatch(name) is not None else None


# The end of a line's text before a completion point that asks for a member or a path segment.
_MEMBER_ACCESS = re.compile(r"(?:\.|::)\s*\w*$")


def after_member_access(line_text: str, utf8_column: int) -> bool:
    """Whether completing at `utf8_column` of the line completes `receiver.name` or `Path::name`: the
    only places where `unwrap`/`expect` are offered."""
    before = line_text.encode("utf-8")[:utf8_column].decode("utf-8", "ignore")
    return _MEMBER_ACCESS.search(before) is not None


def imported_names(use_path: str) -> set[str]:
    """The names a `use` brings into scope, from its path as written: `a::{b, c as d, self}` gives b, d
    and a; a glob names nothing."""
    names: set[str] = set()
    prefix = ""
    for piece in re.split(r"([{},])", use_path):
        piece = piece.strip()
        if piece in ("", "{", "}", ","):
            continue
        if piece.endswith("::"):  # the path before a `{`
            prefix = piece.rstrip(":").split("::")[-1]
            continue
        if " as " in piece:
            names.add(piece.rsplit(" as ", 1)[1].strip())
            continue
        last = piece.split("::")[-1].strip()
        if last == "self":
            names.add(prefix)
        elif last != "*":
            names.add(last)
    names.discard("")
    return names


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


def hover_to_type(result: Any, named: list[str] | None = None) -> TypeResult:
    """The hover as a type answer. Where a name stands for several items (a macro's input it expands
    into several; a shorthand field, the local and the field), the answer shows each under its
    container path, a local first, then the most visible; `named`, the path segments an agent named
    the item by (`["Caps", "SELL"]`), keeps the one it means: the most visible of those in the
    container it named."""
    if not result:
        return {"display": "", "documentation": ""}
    items = [_without_an_items_notable_traits(item) for item in hover_items(hover_markdown(result.get("contents")))]
    if len(items) > 1:
        items = _meant(items, named)
    if len(items) == 1:
        display, documentation = split_hover(items[0])
        return {"display": display, "documentation": documentation}
    displays, docs = [], []
    for item in items:
        display, documentation = split_hover(item)
        container = hover_container(item)
        displays.append(f"// {container}\n{display}" if container else display)
        if documentation and documentation not in docs:
            docs.append(documentation)
    return {"display": "\n\n".join(displays), "documentation": "\n\n".join(docs)}


def _meant(items: list[str], named: list[str] | None) -> list[str]:
    """Several items of one name, a local first (no container), then by visibility (`pub`, then
    `pub(...)`, then private); by a path (`named`), those of the container it names, and of them the
    most visible alone."""
    headed = [(hover_container(item), item) for item in items]
    ranked = sorted(((bool(container), _visibility(hover_signature(item)), container, item) for container, item in headed),
                    key=lambda entry: entry[:2])
    if named is None:
        return [entry[3] for entry in ranked]
    if len(named) > 1:
        ranked = [entry for entry in ranked if entry[2].rsplit("::", 1)[-1] == named[-2]] or ranked
    best = ranked[0][:2]
    return [entry[3] for entry in ranked if entry[:2] == best]


def _visibility(signature: str) -> int:
    return 0 if signature.startswith("pub ") else 1 if signature.startswith("pub(") else 2


# rust-analyzer's line of a hover's notable traits: "Implements notable traits: `Read`, `Write`"
_NOTABLE_TRAITS = re.compile(r"^Implements notable traits: .*?(\r?)$", re.MULTILINE)
# a signature line declaring a function: `pub(crate) const unsafe extern "C" fn name`
_FN_SIGNATURE = re.compile(r'^(?:pub(?:\([^)\n]*\))? )?(?:(?:default|const|async|unsafe|safe|extern(?: "[^"\n]*")?) )*fn '
                           r'|^(?:pub(?:\([^)\n]*\))? )?(?:struct|enum|union|type) \w+<', re.MULTILINE)


def _without_an_items_notable_traits(markdown: str) -> str:
    """The hover without rust-analyzer's "Implements notable traits" line when it is of a function or
    a generic type's declaration: it asks them of the item with its parameters unknown, and answers
    "maybe" for every trait a blanket impl could give (`gen<T: Clone>(x: T) -> T` and `struct
    Buf<const M: usize>` "implement" `Read` and `Write`; `Vec::push`, `Future<Output = <fn push<{unknown},
    ...> as Future>::Output>`). A value's stay (`let f: File`: `Read`, `Write`)."""
    if "Implements notable traits: " not in markdown or not _FN_SIGNATURE.search(markdown.split("\n---\n", 1)[0]):
        return markdown  # the signature is above the first rule
    return _NOTABLE_TRAITS.sub(r"\1", markdown)


# Cargo's auto-discovered targets besides the library: each file here, or each folder's main.rs, is
# the root of a crate of its own.
_TARGET_FOLDERS = ("tests", "examples", "benches")


def _crate_of(rel: str) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
    """Where `rel`'s crate starts: (the folder its modules live in, its root files there in the order
    to look for them, the path of `rel` inside that folder); None for a file in no Cargo target."""
    parts = PurePosixPath(rel).parts
    if not rel.endswith(".rs"):
        return None
    if parts == ("build.rs",):
        return ".", ("build.rs",), parts
    if len(parts) >= 2 and parts[0] in _TARGET_FOLDERS:
        return _own_root(parts[:1], parts[1:])
    if len(parts) >= 3 and parts[:2] == ("src", "bin"):
        return _own_root(parts[:2], parts[2:])
    if len(parts) >= 2 and parts[0] == "src":
        return "src", ("lib.rs", "main.rs"), parts[1:]
    return None


def _own_root(folder: tuple[str, ...], inner: tuple[str, ...]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """`tests/x.rs` is a crate root; `tests/x/main.rs` is one whose modules live in `tests/x/`; and
    `tests/common/mod.rs` (no main.rs beside it, as the Cargo book shows) is a module the folder's
    crates share."""
    if len(inner) == 1:
        return "/".join(folder), (inner[0],), inner
    if len(inner) == 2 and inner[1] == "mod.rs":
        return "/".join(folder), (), inner
    return "/".join((*folder, inner[0])), ("main.rs",), inner[1:]


def module_path(rel: str) -> str | None:
    """`crate::a::b` for `src/a/b.rs` or `src/a/b/mod.rs`; `crate` for a crate root (`src/lib.rs`,
    `src/main.rs`, `src/bin/x.rs`, `tests/x.rs`, `examples/x/main.rs`, `build.rs`, ...); modules of
    the other targets from their own root; None for a file in no Cargo target."""
    crate = _crate_of(rel)
    if crate is None:
        return None
    _, roots, inner = crate
    if len(inner) == 1 and inner[0] in roots:
        return "crate"
    stem = inner[-1][:-3]
    segments = [*inner[:-1], *([] if stem == "mod" else [stem])]
    return "::".join(["crate", *segments])


def seam_candidates(rel: str) -> list[str]:
    """Where the enclosing seam may be, nearest first: the module files (`mod.rs`, or 2018's `a.rs`
    for `a/`) up to the crate's own root (`src/lib.rs`, then `src/main.rs`; `src/bin/x.rs`,
    `tests/x.rs`, `examples/x/main.rs`, `build.rs`, ...). Empty for a file in no Cargo target."""
    crate = _crate_of(rel)
    if crate is None:
        return []
    base, roots, inner = crate
    prefix = "" if base == "." else base + "/"
    found: list[str] = []
    if inner[-1] == "mod.rs" or (len(inner) == 1 and inner[0] in roots):
        found.append(rel)  # a seam encloses itself
    for depth in range(len(inner) - (2 if inner[-1] == "mod.rs" else 1), 0, -1):  # mod.rs owns its folder
        folder = prefix + "/".join(inner[:depth])
        found.append(f"{folder}/mod.rs")
        found.append(f"{folder}.rs")
    found.extend(prefix + root for root in roots if prefix + root not in found)
    return found
