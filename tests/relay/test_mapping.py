"""ferrule.relay.mapping: analyzer answers to results, module paths and seams, completion and diagnostic shapes."""

from __future__ import annotations

import pytest

from ferrule.relay import mapping


def test_hover_shapes():
    assert mapping.hover_to_type(None) == {"display": "", "documentation": ""}
    marked = {"contents": [{"language": "rust", "value": "let x: u8"}, "a *small* number"]}
    assert mapping.hover_to_type(marked) == {"display": "let x: u8", "documentation": "a small number"}
    plain = {"contents": {"kind": "plaintext", "value": "just text"}}
    assert mapping.hover_to_type(plain) == {"display": "just text", "documentation": ""}


# rust-analyzer 1.96's hover of `Vec::push` (shortened): the notable traits of a generic function's
# own type, which it could not resolve
_PUSH = ("```rust\nalloc::vec::Vec\n```\n\n```rust\nimpl<T, A> Vec<T, A>\npub fn push(&mut self, value: T)\n```\n\n"
         "---\n\nImplements notable traits: `Future<Output = <fn push<{unknown}, {unknown}>(&mut Vec<{unknown}, "
         "{unknown}>, {unknown}) as Future>::Output>`, `Iterator<Item = <fn push<{unknown}, {unknown}>(&mut "
         "Vec<{unknown}, {unknown}>, {unknown}) as Iterator>::Item>`\n\n---\n\nAppends an element to the back "
         "of a collection.")


# rust-analyzer 1.96's hover of `fn gen<T: Clone>(x: T) -> T`: its item type "maybe" implements both
_GENERIC_FN = ("```rust\nex\n```\n\n```rust\npub fn gen<T>(x: T) -> T\nwhere\n    T: Clone,\n```\n\n---\n\n"
               "Implements notable traits: `Read`, `Write`")


def hover_of(markdown: str) -> dict[str, str]:
    return dict(mapping.hover_to_type({"contents": {"kind": "markdown", "value": markdown}}))


def test_a_functions_notable_traits_are_left_out_none_is_its_own():
    assert hover_of(_PUSH) == {"display": "impl<T, A> Vec<T, A>\npub fn push(&mut self, value: T)",
                               "documentation": "Appends an element to the back of a collection."}
    assert hover_of(_GENERIC_FN) == {"display": "pub fn gen<T>(x: T) -> T\nwhere\n    T: Clone,",
                                     "documentation": ""}
    for head in ("pub(crate) const unsafe fn", "async fn", 'pub extern "C" fn', "default fn"):
        qualified = _GENERIC_FN.replace("pub fn", head)
        assert hover_of(qualified)["documentation"] == "", head


def test_a_generic_types_notable_traits_are_left_out_a_plain_ones_stay():
    """rust-analyzer 1.96 on `pub struct Buf<const M: usize>`: everything a blanket impl could give."""
    generic = ("```rust\ncst\n```\n\n```rust\npub struct Buf<const M: usize> {\n    pub data: [u8; M],\n}\n```\n\n"
               "---\n\nImplements notable traits: `Future<Output = <Buf<_> as Future>::Output>`, `Read`, `Write`")
    assert hover_of(generic)["documentation"] == ""
    for head in ("pub(crate) enum Either<L, R>", "union U<T>", "type Alias<T>"):
        assert hover_of(generic.replace("pub struct Buf<const M: usize>", head))["documentation"] == "", head
    plain = generic.replace("pub struct Buf<const M: usize>", "pub struct Reader").replace(
        "`Future<Output = <Buf<_> as Future>::Output>`, ", "")
    assert hover_of(plain)["documentation"] == "Implements notable traits: Read, Write"


# rust-analyzer 1.96's hover of a flag in `bitflags! { pub struct Caps: u32 { /// Sells. const SELL = 1; } }`:
# the name stands for each item the macro makes of it, their hovers joined by rules
_FLAG = "\n" + "\n\n---\n\n".join([
    "```rust\ninv::flags::__BitFlags\n```\n\n```rust\ntrait __BitFlags\nfn SELL(&self) -> bool\n```\n\n---\n\n"
    "Implements notable traits: `Read`, `Write`",
    "```rust\ninv::flags::Caps\n```\n\n```rust\npub(in ...) fn SELL(&self) -> bool\n```",
    "```rust\ninv::flags::Caps\n```\n\n```rust\npub const SELL: Self = Caps { bits: 1 }\n```\n\n---\n\nSells.",
    "```rust\ninv::flags::__BitFlags\n```\n\n```rust\nconst SELL: u32 = 0\n```",
    "```rust\ninv::flags::Caps\n```\n\n```rust\npub(in ...) const SELL: u32 = 1\n```",
])


def test_a_name_that_stands_for_several_items_shows_each_the_most_visible_first():
    shown = hover_of(_FLAG)
    assert shown["display"].split("\n\n") == [
        "// inv::flags::Caps\npub const SELL: Self = Caps { bits: 1 }",
        "// inv::flags::Caps\npub(in ...) fn SELL(&self) -> bool",
        "// inv::flags::Caps\npub(in ...) const SELL: u32 = 1",
        "// inv::flags::__BitFlags\ntrait __BitFlags\nfn SELL(&self) -> bool",
        "// inv::flags::__BitFlags\nconst SELL: u32 = 0",
    ]
    assert shown["documentation"] == "Sells."  # a function's notable traits go, as for one item


@pytest.mark.parametrize("named", [["Caps", "SELL"], ["SELL"], ["flags", "Caps", "SELL"]])
def test_by_a_path_the_most_visible_item_of_the_named_container_is_the_answer(named):
    answer = mapping.hover_to_type({"contents": {"kind": "markdown", "value": _FLAG}}, named)
    assert answer == {"display": "pub const SELL: Self = Caps { bits: 1 }", "documentation": "Sells."}


def test_of_a_private_container_by_its_path_its_items_stay_together():
    answer = mapping.hover_to_type({"contents": {"kind": "markdown", "value": _FLAG}}, ["__BitFlags", "SELL"])
    assert answer["display"] == ("// inv::flags::__BitFlags\ntrait __BitFlags\nfn SELL(&self) -> bool\n\n"
                                 "// inv::flags::__BitFlags\nconst SELL: u32 = 0")


def test_a_shorthand_fields_local_comes_before_the_field():
    """rust-analyzer 1.96 on `x` in `Foo { x, y }`: the name is the local and the field; the local is what
    the code there holds, and stays first."""
    hover = "```rust\nx: u32\n```\n\n---\n\n```rust\np2::Foo\n```\n\n```rust\npub x: u32\n```\n\n---\n\nThe x."
    assert hover_of(hover) == {"display": "x: u32\n\n// p2::Foo\npub x: u32", "documentation": "The x."}


def test_docs_that_open_with_code_are_not_another_item():
    one = "```rust\nm\n```\n\n```rust\npub fn f()\n```\n\n---\n\n```rust\nf();\n```\n\nCalls it."
    assert hover_of(one) == {"display": "pub fn f()", "documentation": "f();\n\nCalls it."}
    # an example and its output after a rule in the docs: two code blocks, but no path heads them
    ruled = ("```rust\np2\n```\n\n```rust\npub fn ruled()\n```\n\n---\n\nFirst.\n\n---\n\n"
             "```rust\nlet a = 1;\n```\n\n```text\nout\n```")
    shown = hover_of(ruled)
    assert shown["display"] == "pub fn ruled()" and "let a = 1;" in shown["documentation"]


def test_a_macros_completion_is_a_macro_the_rest_keep_lsps_kind():
    assert mapping.completion_kind({"kind": 3, "label": "vec!(…)"}, "vec!") == "macro"  # the analyzer: a function
    assert mapping.completion_kind({"kind": 3, "label": "drop(…)"}, "drop") == "function"
    assert mapping.completion_kind({"kind": 8, "label": "Clone"}, "Clone") == "interface"
    assert mapping.completion_kind({"kind": 14, "label": "x!"}, "x!") == "keyword"  # not a function: as LSP says


def test_notable_traits_of_a_value_stay():
    file = "```rust\nlet f: File\n```\n\n---\n\nImplements notable traits: `Read`, `Write`"
    assert hover_of(file)["documentation"] == "Implements notable traits: Read, Write"
    # a function named in the documentation's example is not the item's signature
    documented = file + "\n\n---\n\n```rust\nfn main() {}\n```"
    assert hover_of(documented)["documentation"].startswith("Implements notable traits: Read, Write")


@pytest.mark.parametrize(("rel", "cell"), [
    ("src/lib.rs", "crate"),
    ("src/main.rs", "crate"),
    ("src/shapes/mod.rs", "crate::shapes"),
    ("src/shapes/circle.rs", "crate::shapes::circle"),
    ("src/text.rs", "crate::text"),
    ("src/bin/tool.rs", "crate"),
    ("src/bin/tool/main.rs", "crate"),
    ("src/bin/tool/args.rs", "crate::args"),
    ("tests/finds.rs", "crate"),
    ("tests/finds/main.rs", "crate"),
    ("tests/finds/fixtures.rs", "crate::fixtures"),
    ("tests/common/mod.rs", "crate::common"),
    ("examples/demo.rs", "crate"),
    ("benches/speed.rs", "crate"),
    ("build.rs", "crate"),
    ("scripts/gen.rs", None),
])
def test_module_path_from_the_place_under_src(rel, cell):
    assert mapping.module_path(rel) == cell


@pytest.mark.parametrize(("rel", "seams"), [
    ("src/main.rs", ["src/main.rs", "src/lib.rs"]),
    ("src/bin/tool.rs", ["src/bin/tool.rs"]),
    ("src/bin/tool/main.rs", ["src/bin/tool/main.rs"]),
    ("src/bin/tool/args.rs", ["src/bin/tool/main.rs"]),
    ("src/bin/tool/args/mod.rs", ["src/bin/tool/args/mod.rs", "src/bin/tool/main.rs"]),
    ("tests/finds.rs", ["tests/finds.rs"]),
    ("tests/finds/fixtures.rs", ["tests/finds/main.rs"]),
    ("tests/common/mod.rs", ["tests/common/mod.rs"]),
    ("examples/demo.rs", ["examples/demo.rs"]),
    ("examples/demo/main.rs", ["examples/demo/main.rs"]),
    ("build.rs", ["build.rs"]),
    ("scripts/gen.rs", []),
])
def test_other_targets_have_their_own_crate_root(rel, seams):
    # a binary, a test, an example or a build script is a crate of its own: src/lib.rs is not its seam
    assert mapping.seam_candidates(rel) == seams


def test_seam_candidates_nearest_first():
    assert mapping.seam_candidates("src/a/b/c.rs") == [
        "src/a/b/mod.rs", "src/a/b.rs", "src/a/mod.rs", "src/a.rs", "src/lib.rs", "src/main.rs"]
    assert mapping.seam_candidates("src/a/mod.rs") == ["src/a/mod.rs", "src/lib.rs", "src/main.rs"]
    assert mapping.seam_candidates("src/lib.rs")[0] == "src/lib.rs"


def test_completion_items_from_every_answer_shape():
    item = {"label": "len()", "filterText": "len", "kind": 2}
    assert mapping.completion_items(None) == []
    assert mapping.completion_items([item]) == [item]
    assert mapping.completion_items({"isIncomplete": True, "items": [item]}) == [item]
    assert mapping.item_name(item) == "len"
    assert mapping.item_name({"label": "Vec"}) == "Vec"


def test_unwrap_receiver_heuristic():
    unwrap = {"label": "unwrap", "kind": 2}
    assert mapping.receiver_is_option_or_result([unwrap, {"label": "is_some", "kind": 2}], unwrap)
    assert mapping.receiver_is_option_or_result([unwrap, {"label": "map_err", "kind": 2}], unwrap)
    documented = {**unwrap, "documentation": {"kind": "markdown", "value": "Returns the contained [`Ok`] value"}}
    assert mapping.receiver_is_option_or_result([documented], documented)
    assert not mapping.receiver_is_option_or_result([unwrap, {"label": "len", "kind": 2}], unwrap)
    assert not mapping.receiver_is_option_or_result([unwrap, {"label": "is_some", "kind": 3}], unwrap)


def test_flycheck_diagnostics_are_not_overlay_diagnostics():
    assert mapping.is_overlay_diagnostic({"source": "rust-analyzer"})
    assert mapping.is_overlay_diagnostic({})
    assert not mapping.is_overlay_diagnostic({"source": "rustc"})
    assert not mapping.is_overlay_diagnostic({"source": "clippy"})
    assert mapping.diagnostic_code({"code": 308}) == "308"
    assert mapping.diagnostic_code({}) is None


def test_completion_entries_rank_by_sort_text_then_label_after_the_filter_and_before_the_cap():
    items = [
        {"label": "zeta", "sortText": "80000000"},
        {"label": "self::", "sortText": "ffffffe0"},
        {"label": "beta", "sortText": "7fffffff"},
        {"label": "<ra@gennew>16", "sortText": "00000000"},  # the analyzer's own name: never offered
        {"label": "alpha", "sortText": "7fffffff"},
        {"label": "gamma"},  # no sortText: its label stands in, as LSP says
        {"label": "Some", "filterText": "Some()", "sortText": "7ffffffe"},
    ]
    names = [name for name, _ in mapping.best(items, "", 100)]
    assert names == ["Some", "alpha", "beta", "zeta", "self::", "gamma"]
    assert [name for name, _ in mapping.best(items, "", 2)] == ["Some", "alpha"], "the cap keeps the best"
    assert [name for name, _ in mapping.best(items, "s", 100)] == ["self::"]
    assert [item["label"] for item in items][0] == "zeta", "the input is left as it was"


@pytest.mark.parametrize(("name", "expected"), [
    ("counts", True), ("HashMap", True), ("_private", True), ("r#type", True), ("println!", True),
    ("'a", True), ("名前", True), ("<ra@gennew>16", False), ("Some()", False), ("self::", False),
    ("Ord(alias <, >)", False), ("1x", False), ("", False), ("a b", False),
])
def test_rust_names(name, expected):
    assert mapping.is_rust_name(name) is expected


def test_symbol_name_is_the_labels_name_and_drops_internal_names():
    assert mapping.symbol_name({"label": "Some", "filterText": "Some()"}) == "Some"
    assert mapping.symbol_name({"label": "Ord(alias <, >, <=, >=)", "filterText": "Ord"}) == "Ord"
    assert mapping.symbol_name({"label": "counts"}) == "counts"
    assert mapping.symbol_name({"label": "<ra@gennew>16"}) is None


@pytest.mark.parametrize(("label", "filter_text", "name"), [
    # rust-analyzer runs a name's doc aliases into its filter text, and notes them in its label
    ("and_then(alias flatmap)", "and_thenflatmap", "and_then"),
    ("midpoint(alias average_floor, average)", "midpointaverage_flooraverage", "midpoint"),
    ("Vec(alias list, vector)", "Veclistvector", "Vec"),
    ("max(as Ord)", "max", "max"),  # a trait's method: the label names the trait
    ("len()", "len", "len"),
    ("println!(…)", "println!", "println!"),
    ("impl Display for Price", "impl Display", "impl Display for Price"),  # no name in either: the label
])
def test_a_completions_name_is_the_name_code_writes(label, filter_text, name):
    item = {"label": label, "filterText": filter_text}
    assert mapping.item_name(item) == name
    assert [found for found, _ in mapping.best([item], name[:2], 10)] == [name]


@pytest.mark.parametrize(("line", "column", "expected"), [
    ("    word.", 9, True), ("    word.un", 11, True), ("    Option::", 12, True), ("    Option::unw", 15, True),
    ("    wor", 7, False), ("    let x = ", 12, False), ("    名前.le", 13, True), ("    名前.le", 4, False),
])
def test_member_access_before_a_completion_point(line, column, expected):
    assert mapping.after_member_access(line, column) is expected


def test_a_generic_items_parameters_it_was_not_given_read_as_rusts_underscore():
    assert mapping.type_text({"detail": "Vec<{unknown}, {unknown}>"}) == "Vec<_, _>"
    assert mapping.type_text({"detail": "fn(&mut self) -> Option<{unknown}>"}) == "fn(&mut self) -> Option<_>"
    assert mapping.type_text({"detail": "SmallVec<[Token; 8]>"}) == "SmallVec<[Token; 8]>"
    assert mapping.type_text({}) == ""
