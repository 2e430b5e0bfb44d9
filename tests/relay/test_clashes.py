"""Which outline items share a renamed item's scope and namespace (no analyzer needed: outlines as
rust-analyzer answers them)."""

from __future__ import annotations

from ferrule.relay.clashes import _namespace, _siblings


def _at(line: int, name: str, kind: int, detail: str = "", children: list | None = None, end: int | None = None) -> dict:
    node = {"name": name, "kind": kind, "detail": detail,
            "range": {"start": {"line": line, "character": 0}, "end": {"line": end or line, "character": 80}},
            "selectionRange": {"start": {"line": line, "character": 4}, "end": {"line": line, "character": 9}}}
    if children is not None:
        node["children"] = children
    return node


OUTLINE = [
    _at(0, "one", 12, "fn() -> u32"),
    _at(1, "mac", 12),  # macro_rules!: a "function" without a signature
    _at(2, "impl Gen<u32>", 19, children=[_at(3, "ga", 6, "fn(&self)")], end=4),
    _at(5, "impl Gen<i32>", 19, children=[_at(6, "gb", 6, "fn(&self)")], end=7),
    _at(8, "impl Gen<u32>", 19, children=[_at(9, "gc", 6, "fn(&self)")], end=10),
    _at(11, "impl Display for Gen<u32>", 19, children=[_at(12, "fmt", 6, "fn(&self, ...)")], end=13),
]


def _start(line: int) -> dict:
    return {"line": line, "character": 4}


def test_a_macro_and_a_function_live_in_different_namespaces():
    assert _namespace(OUTLINE[0]) == "values" and _namespace(OUTLINE[1]) == "macros"


def test_inherent_methods_share_a_scope_only_with_impls_of_the_same_type():
    item, scope = _siblings(OUTLINE, _start(3))
    assert item["name"] == "ga" and [n["name"] for n in scope] == ["ga", "gc"]
    item, scope = _siblings(OUTLINE, _start(12))
    assert item["name"] == "fmt" and [n["name"] for n in scope] == ["fmt"], "a trait impl is its own scope"


def test_a_top_level_item_shares_the_files_level():
    item, scope = _siblings(OUTLINE, _start(0))
    assert item["name"] == "one" and len(scope) == len(OUTLINE)
    assert _siblings(OUTLINE, {"line": 40, "character": 4}) is None
