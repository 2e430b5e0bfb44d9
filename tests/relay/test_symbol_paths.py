"""How a name or path is read, and which candidates' paths it matches (no analyzer needed)."""

from __future__ import annotations

import pytest

from ferrule.fastframe import LineIndex
from ferrule.project import BadRequest
from ferrule.relay.ops.navigation import _capped_tree, enclosing_macro_call
from ferrule.relay.symbols import (
    _crate_name,
    _preferred,
    _qualified_by,
    _spells_another,
    is_macro,
    split_path,
)


def test_a_path_is_split_into_segments_and_a_leading_crate_dropped():
    assert split_path("crate::orders::Order::total") == ["orders", "Order", "total"]
    assert split_path(" Pricing ") == ["Pricing"]
    assert split_path("println!") == ["println!"]
    for bad in ("", "Order::", "a b", "1x", "Order::::total"):
        with pytest.raises(BadRequest):
            split_path(bad)


@pytest.mark.parametrize(("qualifiers", "matches"), [
    ([], True),
    (["Order"], True),
    (["pricing", "Order"], True),
    (["orders", "pricing", "Order"], True),
    (["shop", "orders", "Order"], True),  # the crate's own name may lead
    (["Report"], False),
    (["Order", "pricing"], False),  # out of order
    (["shop"], False),  # a single unknown qualifier is not taken for the crate's name
])
def test_qualifiers_must_appear_in_order_in_the_candidates_path(qualifiers, matches):
    assert _qualified_by(["orders", "pricing", "Order"], qualifiers) is matches


def test_an_outline_keeps_parents_before_children_and_counts_what_it_cut():
    outline = [{"name": "A", "children": [{"name": "a1"}, {"name": "a2"}]}, {"name": "B", "children": [{"name": "b1"}]}]
    kept, more = _capped_tree(outline, 2)
    assert kept == [{"name": "A", "children": [{"name": "a1"}]}]
    assert more == 3


@pytest.mark.parametrize(("folder", "crate"), [
    ("core", "core"), ("serde-1.0.152", "serde"), ("regex-syntax-0.6.27", "regex_syntax"), ("proc-macro2", "proc_macro2"),
])
def test_a_library_folder_names_its_crate(folder, crate):
    assert _crate_name(folder) == crate


def _symbol(name, kind, container=None):
    return {"name": name, "kind": kind, "containerName": container}


def test_a_derive_macro_and_for_a_bare_name_a_variant_give_way():
    trait, derive = _symbol("PartialEq", 11), _symbol("PartialEq", 12)
    assert _preferred([trait, derive], bare=True) == [trait]
    assert _preferred([trait, derive], bare=False) == [trait]
    struct, variant = _symbol("String", 23), _symbol("String", 22, "PanicMessage")
    assert _preferred([struct, variant], bare=True) == [struct]
    assert _preferred([struct, variant], bare=False) == [struct, variant]  # a qualified name chose these
    two = [_symbol("total", 6, "Order"), _symbol("total", 6, "Report")]
    assert _preferred(two, bare=True) == two  # nothing to prefer: still ambiguous
    assert _preferred([derive], bare=True) == [derive]
    functions = [_symbol("new", 12), _symbol("new", 12, "Order")]
    assert _preferred(functions, bare=True) == functions  # a lower-case function is a function


def test_a_candidate_the_project_cannot_name_is_told_apart():
    import asyncio
    from types import SimpleNamespace

    from ferrule.relay.symbols import _nameable

    shown = {"file:///p/src/lib.rs": ("src/lib.rs", False, None, object()),
             "file:///rust/std/src/collections/hash/map.rs": ("std/src/collections/hash/map.rs", True, None, None),
             "file:///reg/hashbrown-0.16.1/src/map.rs": ("hashbrown-0.16.1/src/map.rs", True, None, None),
             "file:///reg/regex-syntax-0.8.5/src/ast/mod.rs": ("regex-syntax-0.8.5/src/ast/mod.rs", True, None, None),
             "file:///opt/elsewhere/x.rs": ("/opt/elsewhere/x.rs", True, None, None),
             "file:///o/registry/hashbrown-0.16.1/src/map.rs": ("/o/registry/hashbrown-0.16.1/src/map.rs", True, None, None),
             "file:///reg/foo-1.0.0-beta.1/src/lib.rs": ("foo-1.0.0-beta.1/src/lib.rs", True, None, None)}
    places = SimpleNamespace(file=lambda uri: shown[uri])

    def named(uri: str, dependencies: frozenset[str] | None) -> bool:
        async def known() -> frozenset[str] | None:
            return dependencies

        ctx = SimpleNamespace(packages=SimpleNamespace(dependencies=known))
        return asyncio.run(_nameable(ctx, places, {"location": {"uri": uri}}))  # type: ignore[arg-type]

    deps = frozenset({"regex_syntax", "foo"})
    # the project's, std's, a registry crate it does not depend on, one it does, a tree nothing names
    # (a git checkout: not ruled out), std's own dependency outside every root, a pre-release it depends on
    assert [named(uri, deps) for uri in shown] == [True, True, False, True, True, False, True]
    assert named("file:///reg/hashbrown-0.16.1/src/map.rs", None), "when cargo cannot say, every library may be named"


class _OneFile:
    """Places' face that `_spells_another` uses, over one file's text (ASCII: columns are characters)."""

    def __init__(self, text: str) -> None:
        self.index = LineIndex(text)

    def file(self, uri):
        return uri, True, self.index, None

    def column(self, index, line, character):
        return character


def _at(start: tuple[int, int], end: tuple[int, int]) -> dict:
    return {"uri": "file:///num.rs", "range": {"start": {"line": start[0], "character": start[1]},
                                               "end": {"line": end[0], "character": end[1]}}}


@pytest.mark.parametrize(("location", "another"), [
    (_at((0, 13), (0, 22)), True),  # the name of the macro that makes it
    (_at((3, 4), (5, 5)), True),  # the whole call of that macro, as older analyzers list its items
    (_at((1, 11), (1, 22)), False),  # the item's own name
    (_at((1, 4), (2, 5)), False),  # an item's whole range, which names no macro at its start
    (_at((0, 0), (2, 5)), False),  # the whole definition of a macro: no call
    (_at((6, 4), (7, 5)), True),  # a call by path
])
def test_a_place_that_spells_a_macro_is_told_from_the_items_own(location, another):
    places = _OneFile("macro_rules! uint_impl {\n    pub fn checked_add(self) -> u8 { 0 }\n    }\n"
                      "    uint_impl! {\n        u8\n    }\n    core::uint_impl! {\n    }\n")
    assert _spells_another(places, location, "checked_add") is another


_MACROS = """macro_rules! tally {
    () => {};
}
pub macro gen($x:expr) { $x }
#[proc_macro]
/// Builds.
///
/// At length.
// a note
#[inline]
pub fn build(input: TokenStream) -> TokenStream { input }
fn helper() {}
#[proc_macro] pub fn inline(input: TokenStream) -> TokenStream { input }
// #[proc_macro]
fn commented() {}
fn tally() {}
"""


class _Unreadable:
    def file(self, uri):
        return uri, True, None, None


@pytest.mark.parametrize(("line", "name", "macro"), [
    (0, "tally", True),  # macro_rules!
    (3, "gen", True),  # a declarative macro 2.0
    (10, "build", True),  # under #[proc_macro], past its docs, a comment and another attribute
    (11, "helper", False),  # the function after it
    (12, "inline", True),  # the attribute on the function's line
    (14, "commented", False),  # an attribute in a comment is no attribute
    (15, "tally", False),  # a function of a macro's name
])
def test_a_macro_is_told_by_the_text_that_defines_it(line, name, macro):
    start = {"line": line, "character": _MACROS.split("\n")[line].index(name)}
    assert is_macro(_OneFile(_MACROS), "file:///m.rs", start, 12) is macro
    assert is_macro(_OneFile(_MACROS), "file:///m.rs", start, 6) is False  # a method's kind: never


def test_an_unreadable_macro_is_told_by_its_kind_only_where_a_macro_is_asked_for():
    start = {"line": 0, "character": 0}
    assert is_macro(_Unreadable(), "file:///x.rs", start, 12) is False  # the outline, the search: not claimed
    assert is_macro(_Unreadable(), "file:///x.rs", start, 12, unreadable=True) is True
    assert is_macro(_Unreadable(), "file:///x.rs", start, 12, "Trait", unreadable=True) is False  # a trait's method


@pytest.mark.parametrize("spec", ["vec!::new", "a!::b", "vec!!", "!"])
def test_a_bang_ends_the_last_segment_alone(spec):
    with pytest.raises(BadRequest):
        split_path(spec)


_CALLS = """bitflags! {
    /// What an item may do.
    pub struct Caps: u32 {
        const SELL = 0b01;
    }
}
priced!(Widget, 5);
impl Priced for Item {}
fn plain() { let v = (1, [2]); }
outer::wrap! [ fn inner() { if true { body() } } ]
macro_rules! made { () => { struct Made; } }
"""


@pytest.mark.parametrize(("line", "name", "macro"), [
    (2, "Caps", "bitflags!"),  # the type's name in the macro's input: where the impls it makes are placed
    (3, "SELL", "bitflags!"),  # nested brackets inside the call
    (6, "Widget", "priced!"),
    (7, "Priced", None),  # an impl written out
    (8, "2", None),  # brackets of no macro call
    (9, "body", "outer::wrap!"),  # a path, square brackets, blocks between
    (10, "Made", None),  # a macro's own definition is no call
])
def test_the_macro_call_that_holds_a_place(line, name, macro):
    column = len(_CALLS.split("\n")[line][:_CALLS.split("\n")[line].index(name)].encode())
    assert enclosing_macro_call(LineIndex(_CALLS), line, column) == macro
