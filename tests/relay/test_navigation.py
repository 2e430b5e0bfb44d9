"""Navigation by name against a real rust-analyzer: the `orders` fixture (a `pricing` module, the trait
`Pricing` with two impls, `Order::total` used from three other files) and std.

One warm analyzer for the module; a test that sets overlays or writes files puts them back.
"""

from __future__ import annotations

import builtins
import os
import shutil
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from ferrule.project import BadRequest
from ferrule.relay import edits, texts
from ferrule.relay.libraries import library_roots
from ferrule.relay.sync import SyncSession
from ferrule.tools.reports import render_locations
from testkit.live import copy_crate, live_session, position_of
from testkit.tools import DEMO_CRATE

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def orders(tmp_path_factory, analyzer) -> Path:
    return copy_crate("orders", tmp_path_factory.mktemp("nav"))


@pytest.fixture(scope="module")
def session(orders) -> Iterator[SyncSession]:
    with live_session(orders) as live:
        yield live


def _text(orders: Path, rel: str) -> str:
    return (orders / rel).read_text(encoding="utf-8")


def _disk(orders: Path) -> dict[str, str]:
    return {str(p.relative_to(orders)): p.read_text(encoding="utf-8") for p in sorted(orders.rglob("*.rs"))}


# ---- symbols ---------------------------------------------------------------------------------------

def test_the_outline_of_a_file_is_a_tree_with_kinds_lines_and_signatures(session):
    outline = session.call("symbols", {"file": "src/orders/pricing.rs"})["symbols"]
    pricing = next(s for s in outline if s["name"] == "Pricing")
    assert (pricing["kind"], pricing["line"], pricing["end_line"]) == ("trait", 3, 7)
    assert pricing["children"] == [{"name": "price", "kind": "method", "line": 5, "end_line": 6,
                                   "detail": "fn(&self) -> u64", "container": "Pricing"}]
    impl = next(s for s in outline if s["name"] == "impl Order")
    assert [(c["name"], c["detail"]) for c in impl["children"]] == [("total", "fn(&self) -> u64")]


def test_an_outline_is_capped_and_the_rest_counted(session):
    whole = session.call("symbols", {"file": "src/orders/pricing.rs"})
    capped = session.call("symbols", {"file": "src/orders/pricing.rs", "max": 3})

    def count(entries):
        return sum(1 + count(e.get("children", [])) for e in entries)

    assert count(capped["symbols"]) == 3
    assert count(capped["symbols"]) + capped["more"] == count(whole["symbols"])


def test_a_workspace_search_puts_exact_matches_first_and_filters_kinds(session):
    found = session.call("symbols", {"query": "total"})["symbols"]
    names = [s["name"] for s in found]
    assert names[:2] == ["total", "total"] and "grand_total" in names[2:]
    assert {(s["container"], s["file"], s["line"]) for s in found[:2]} == {
        ("Order", "src/orders/pricing.rs", 22), ("Report", "src/report.rs", 12)}
    assert found[0]["text"].strip() == "pub fn total(&self) -> u64 {"
    functions = session.call("symbols", {"query": "total", "kinds": ["function"]})["symbols"]
    assert [s["name"] for s in functions] == ["grand_total"]


# ---- definition ------------------------------------------------------------------------------------

def test_definition_by_position_and_by_name_agree(session, orders):
    use = position_of(_text(orders, "src/report.rs"), "total()")
    by_position = session.call("definition", {"file": "src/report.rs", "position": use})["locations"]
    expected = [{"file": "src/orders/pricing.rs", "line": 22, "character": 11, "end_line": 22,
                 "end_character": 16, "text": "    pub fn total(&self) -> u64 {", "read_only": False}]
    assert by_position == expected
    for name in ("Order::total", "orders::pricing::Order::total", "crate::orders::Order::total"):
        assert session.call("definition", {"symbol": name})["locations"] == expected, name


def test_a_path_may_start_with_the_crates_own_name(session):
    # the package `orders` is the crate `orders`: `orders::Report` is `crate::report::Report`
    [found] = session.call("definition", {"symbol": "orders::Report"})["locations"]
    assert (found["file"], found["line"]) == ("src/report.rs", 6)
    assert session.call("definition", {"symbol": "orders::report::Report::total"})["locations"][0]["line"] == 12
    with pytest.raises(BadRequest, match="no `Report` matches"):
        session.call("definition", {"symbol": "elsewhere::Report"})


def test_an_empty_search_is_refused(session):
    with pytest.raises(BadRequest, match="`query` is empty"):
        session.call("symbols", {"query": " "})


def test_an_ambiguous_name_lists_every_candidate_with_file_and_line(session):
    with pytest.raises(BadRequest) as refused:
        session.call("definition", {"symbol": "total"})
    message = refused.value.message
    assert "ambiguous: 2 matches" in message
    assert "Order::total (method) at src/orders/pricing.rs:22" in message
    assert "Report::total (method) at src/report.rs:12" in message


def test_an_unknown_name_suggests_the_closest(session):
    with pytest.raises(BadRequest) as refused:
        session.call("references", {"symbol": "Order::totl"})
    assert "no symbol named `totl`" in refused.value.message and "total" in refused.value.message
    with pytest.raises(BadRequest) as wrong_type:
        session.call("definition", {"symbol": "Flat::total"})
    assert "no `total` matches 'Flat::total'" in wrong_type.value.message


def test_a_place_is_a_symbol_or_a_file_with_a_position(session):
    for params in ({}, {"file": "src/lib.rs"}, {"symbol": "Order", "file": "src/lib.rs",
                                                "position": {"line": 1, "character": 0}}):
        with pytest.raises(BadRequest):
            session.call("definition", params)
    with pytest.raises(BadRequest, match="outside the project|absolute path"):
        session.call("definition", {"file": "/etc/passwd", "position": {"line": 1, "character": 0}})


def test_a_definition_in_std_is_shown_by_its_library_path_read_only(session, orders, monkeypatch):
    opened: list[str] = []
    real_open = builtins.open

    def recording_open(file, *args, **kwargs):
        opened.append(os.fspath(file) if isinstance(file, (str, os.PathLike)) else repr(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(texts, "_disk", type(texts._disk)())  # cold: a test before may have read the file
    monkeypatch.setattr(builtins, "open", recording_open)
    at_vec = position_of(_text(orders, "src/orders/pricing.rs"), "Vec<Line>")
    [found] = session.call("definition", {"file": "src/orders/pricing.rs", "position": at_vec})["locations"]
    monkeypatch.undo()
    assert found["file"] == "alloc/src/vec/mod.rs" and found["read_only"] is True
    assert "pub struct Vec<" in found["text"]
    roots = [prefix for prefix, _ in library_roots(orders.resolve()).roots] + [str(orders.resolve()) + os.sep]
    assert opened and all(any(path.startswith(root) for root in roots) for path in opened), opened


@pytest.mark.parametrize(("symbol", "file", "line_text"), [
    # a variant named after the type it holds (`PanicMessage::String(String)`) gives way to the type
    ("String", "alloc/src/string.rs", "pub struct String"),
    # the derive macro of the same name, and the preludes' `use` lists, give way to the trait
    ("PartialEq", "core/src/cmp.rs", "trait PartialEq"),
    # a library's path starts with its crate, and std's facade may stand for core's or alloc's
    ("core::cmp::PartialEq", "core/src/cmp.rs", "trait PartialEq"),
    ("std::fmt::Debug", "core/src/fmt/mod.rs", "pub trait Debug"),
    ("std::string::String", "alloc/src/string.rs", "pub struct String"),
])
def test_a_library_item_is_found_by_its_name_or_its_path(session, symbol, file, line_text):
    [found] = session.call("definition", {"symbol": symbol})["locations"]
    assert found["file"] == file and line_text in found["text"], found


# ---- references and implementations ----------------------------------------------------------------

def test_references_across_files_are_grouped_with_their_lines(session):
    result = session.call("references", {"symbol": "Order::total"})
    by_file = {group["file"]: [(r["line"], r["text"].strip()) for r in group["references"]] for group in result["files"]}
    assert by_file == {
        "src/orders/pricing.rs": [(22, "pub fn total(&self) -> u64 {"), (29, "self.total()")],
        "src/orders/mod.rs": [(10, "order.total() >= 5_000")],
        "src/lib.rs": [(10, "orders.iter().map(Order::total).sum()")],
        "src/report.rs": [(13, "self.orders.iter().map(|order| order.total()).sum()")],
    }
    assert (result["count"], result["more"]) == (5, 0)
    without = session.call("references", {"symbol": "Order::total", "include_declaration": False})
    assert without["count"] == 4


def test_references_are_capped_and_the_rest_counted(session):
    result = session.call("references", {"symbol": "Order::total", "max": 2})
    assert sum(len(g["references"]) for g in result["files"]) == 2
    assert (result["count"], result["more"]) == (5, 3)


def test_implementations_of_a_trait_by_name_and_by_position(session, orders):
    by_name = session.call("implementations", {"symbol": "Pricing"})["locations"]
    assert [(loc["line"], loc["text"]) for loc in by_name] == [
        (27, "impl Pricing for Order {"), (36, "impl Pricing for Flat {")]
    at_trait = position_of(_text(orders, "src/orders/pricing.rs"), "Pricing {")
    assert session.call("implementations", {"file": "src/orders/pricing.rs", "position": at_trait})["locations"] == by_name


def test_references_list_the_projects_files_before_the_libraries(session):
    # `Iterator::sum`: used in three of the project's files and in std's own (rust-analyzer 1.85 takes
    # longer than a budget to find every use of something as common as `Vec`)
    found = session.call("references", {"symbol": "Iterator::sum", "max": 100, "include_declaration": False})
    files = [f["file"] for f in found["files"]]
    ours = [n for n, file in enumerate(files) if file.startswith("src/")]
    assert len(ours) == 3 and len(files) > 3, files
    assert ours == [0, 1, 2], files


# ---- rename ----------------------------------------------------------------------------------------

def test_a_rename_applied_as_overlays_is_seen_by_validate_and_leaves_the_disk(session, orders):
    before = _disk(orders)
    result = session.call("rename", {"symbol": "Order::total", "new_name": "sum", "apply": "overlay"})
    try:
        assert result["applied"] == "overlay"
        edited = {change["file"] for change in result["changes"]}
        assert edited == {"src/orders/pricing.rs", "src/orders/mod.rs", "src/lib.rs", "src/report.rs"}
        for change in result["changes"]:
            assert all(e["new_text"] == "sum" and e["end_character"] - e["character"] == len("total")
                       for e in change["edits"])
            report = session.call("validate", {"file": change["file"]})
            assert [d for d in report["diagnostics"] if d["category"] == "error"] == [], change["file"]
        assert session.call("definition", {"symbol": "Order::sum"})["locations"][0]["line"] == 22
        assert _disk(orders) == before
    finally:
        for file in edited:
            session.call("update", {"file": file, "content": None})


def test_a_rename_onto_a_name_already_beside_it_is_flagged(session, orders):
    before = _disk(orders)
    field = session.call("rename", {"symbol": "Line::units", "new_name": "unit_cents"})
    assert [w["kind"] for w in field["warnings"]] == ["rename-clash"]
    assert "`unit_cents` is already defined beside it (field at src/orders/pricing.rs:12)" in field["warnings"][0]["message"]
    struct = session.call("rename", {"symbol": "Order", "new_name": "Line"})
    assert "(struct at src/orders/pricing.rs:10)" in struct["warnings"][0]["message"]
    at_a_call = position_of(_text(orders, "src/orders/pricing.rs"), "total()")
    method = session.call("rename", {"file": "src/orders/pricing.rs", "position": at_a_call, "new_name": "total"})
    assert "warnings" not in method, "its own name is no clash"
    # a field and a method may share a name, and an inherent method may share a trait method's
    for legal in ({"symbol": "Order::total", "new_name": "lines"}, {"symbol": "Order::total", "new_name": "price"},
                  {"symbol": "Line::units", "new_name": "count"}):
        assert "warnings" not in session.call("rename", legal), legal
    assert _disk(orders) == before


def test_an_invalid_name_is_refused_with_the_analyzers_reason(session):
    with pytest.raises(BadRequest, match="rename refused: .*not an identifier"):
        session.call("rename", {"symbol": "Order::total", "new_name": "1total"})


def test_a_rename_written_to_disk_changes_every_file_atomically(session, orders):
    before = _disk(orders)
    try:
        result = session.call("rename", {"symbol": "Flat", "new_name": "Fixed", "apply": "disk"})
        assert result["applied"] == "disk"
        assert "pub struct Fixed(pub u64);" in _text(orders, "src/orders/pricing.rs")
        assert not [p for p in orders.rglob(".*.tmp")]
        assert session.call("definition", {"symbol": "Fixed"})["locations"][0]["file"] == "src/orders/pricing.rs"
        assert session.call("validate", {"file": "src/orders/pricing.rs"})["diagnostics"] == []
    finally:
        session.call("rename", {"symbol": "Fixed", "new_name": "Flat", "apply": "disk"})
    assert _disk(orders) == before


def test_a_disk_rename_is_refused_when_a_file_changed_since_the_analyzer_read_it(session, orders, monkeypatch):
    """The analyzer has not caught up with a change on disk (held here, as a busy file watcher would):
    nothing is written and the changed file is named."""
    report = orders / "src/report.rs"
    original = report.read_text(encoding="utf-8")
    views: dict[str, str] = {}
    real_view = edits._analyzer_text

    async def stale_view(ctx, uri):
        return views.get(uri) or await real_view(ctx, uri)

    views[report.as_uri()] = original
    monkeypatch.setattr(edits, "_analyzer_text", stale_view)
    changed = original + "\n// edited by someone else\n"
    report.write_text(changed, encoding="utf-8")
    before = _disk(orders)
    try:
        with pytest.raises(BadRequest) as refused:
            session.call("rename", {"symbol": "Order::total", "new_name": "sum", "apply": "disk"})
        assert "changed on disk since the analyzer read it: src/report.rs" in refused.value.message
        assert _disk(orders) == before
    finally:
        report.write_text(original, encoding="utf-8")


# ---- fixes -----------------------------------------------------------------------------------------

def test_the_fill_match_arms_fix_applied_as_an_overlay_makes_validate_clean(session, orders):
    rel = "src/orders/status.rs"
    broken = _text(orders, rel).replace('        Status::Shipped => "shipped",\n', "")
    session.call("update", {"file": rel, "content": broken})
    try:
        assert [d["code"] for d in session.call("validate", {"file": rel})["diagnostics"]] == ["E0004"]
        line = position_of(broken, "match status")["line"]
        offered = session.call("fixes", {"file": rel, "line": line, "code": "E0004"})["fixes"]
        [arm] = [fix for fix in offered if "match arm" in fix["title"]]
        assert arm["kind"] == "quickfix"
        preview = session.call("apply_fix", {"file": rel, "id": arm["id"]})
        assert preview["applied"] is None
        assert "Status::Shipped =>" in preview["changes"][0]["edits"][0]["new_text"]
        with pytest.raises(BadRequest, match="was answered for another file, not src/lib.rs"):
            session.call("apply_fix", {"file": "src/lib.rs", "id": arm["id"]})
        assert [d["code"] for d in session.call("validate", {"file": rel})["diagnostics"]] == ["E0004"]
        applied = session.call("apply_fix", {"file": rel, "id": arm["id"], "apply": "overlay"})
        assert applied["title"] == arm["title"] and applied["changes"][0]["file"] == rel
        assert session.call("validate", {"file": rel})["diagnostics"] == []
        assert _text(orders, rel) != broken  # the disk never saw either text
    finally:
        session.call("update", {"file": rel, "content": None})


def test_a_stale_fix_id_is_refused(session):
    rel = "src/orders/status.rs"
    stale = f"12:4-12:18/0/00000000/{zlib.crc32(rel.encode()):08x}"  # this file's, with no fix's title
    with pytest.raises(BadRequest, match="no longer offered"):
        session.call("apply_fix", {"file": rel, "id": stale, "apply": "overlay"})
    with pytest.raises(BadRequest, match="not a fix id"):
        session.call("apply_fix", {"file": rel, "id": "12:4-12:18/0/00000000", "apply": "overlay"})


def test_implementations_made_by_a_derive_name_their_trait(tmp_path, analyzer):
    crate = tmp_path / "demo"
    shutil.copytree(DEMO_CRATE, crate, ignore=shutil.ignore_patterns("target"))
    with live_session(crate) as live:
        found = live.call("implementations", {"symbol": "UnknownSku"})
    derived = [loc for loc in found["locations"] if loc["text"] == "#[derive(Debug, PartialEq)]"]
    assert [loc["derive"] for loc in derived] == ["Debug", "PartialEq"]
    assert all("derive" not in loc for loc in found["locations"] if loc not in derived)
    report = render_locations(found, {"symbol": "UnknownSku"})
    assert "src/orders/pricing.rs:8:9  (#[derive(Debug)])" in report
    assert "src/orders/pricing.rs:8:16  (#[derive(PartialEq)])" in report


def test_the_implementations_of_a_std_trait_list_the_projects_first(tmp_path, analyzer):
    """std implements `Iterator` hundreds of times; the project's one impl opens the answer, not
    beyond the cap (the libraries' paths sort before `src/` on some machines and after it on others)."""
    crate = _crate(tmp_path, "count", (
        "pub struct Count(pub u8);\n"
        "impl Iterator for Count {\n"
        "    type Item = u8;\n"
        "    fn next(&mut self) -> Option<u8> { self.0 = self.0.checked_sub(1)?; Some(self.0) }\n"
        "}\n"))
    with live_session(crate) as live:
        found = live.call("implementations", {"symbol": "Iterator", "max": 2})
    first, second = found["locations"]
    assert (first["file"], first["line"], first["read_only"]) == ("src/lib.rs", 2, False)
    assert second["read_only"] is True and found["more"] > 100


def test_a_functions_const_arguments_are_answered_as_written(tmp_path, analyzer):
    """rust-analyzer 1.96 writes `-> [u8; {const}]` and `Buf<<expr>>`; the source says 32 and 16."""
    crate = _crate(tmp_path, "consts", (
        "pub struct Buf<const M: usize> { pub data: [u8; M] }\n"
        "pub fn digest(input: &[u8]) -> [u8; 32] { let _ = input; [0; 32] }\n"
        "pub fn make() -> Buf<16> { Buf { data: [0; 16] } }\n"
        "pub fn use_them() -> usize { digest(b\"x\").len() + make().data.len() }\n"))
    with live_session(crate) as live:
        by_name = live.call("type", {"symbol": "digest"})["display"]
        at_call = live.call("type", {"file": "src/lib.rs", "position": {"line": 4, "character": 30}})["display"]
        # a transient text is the one the definition is read from, not the disk's
        content = (crate / "src" / "lib.rs").read_text(encoding="utf-8").replace("[u8; 32]", "[u8; 64]")
        unsaved = live.call("type", {"file": "src/lib.rs", "position": {"line": 4, "character": 30},
                                     "content": content})["display"]
        made = live.call("type", {"symbol": "make"})["display"]
        declared = live.call("type", {"symbol": "Buf"})
    assert by_name == at_call == "pub fn digest(input: &[u8]) -> [u8; 32]"
    assert unsaved == "pub fn digest(input: &[u8]) -> [u8; 64]"
    assert made == "pub fn make() -> Buf<16>"
    assert "notable traits" not in declared["documentation"], declared  # it "implemented" Read and Write


def test_a_path_several_items_match_names_the_one_code_means_by_it(tmp_path, analyzer):
    """`Meter::value` in code is the inherent method, not the trait's (Rust's own rule); two `Thing`s
    in two modules, neither in scope at the crate root, stay ambiguous."""
    crate = _crate(tmp_path, "paths", (
        "pub struct Meter(pub f64);\n"
        "impl Meter { pub fn value(&self) -> f64 { self.0 } }\n"
        "pub trait Measure { fn value(&self) -> f64; }\n"
        "impl Measure for Meter { fn value(&self) -> f64 { self.0 * 2.0 } }\n"
        "pub mod a { pub struct Thing; impl Thing { pub fn make() -> Self { Thing } } }\n"
        "pub mod b { pub struct Thing; impl Thing { pub fn make() -> Self { Thing } } }\n"))
    with live_session(crate) as live:
        [inherent] = live.call("definition", {"symbol": "Meter::value"})["locations"]
        [declared] = live.call("definition", {"symbol": "Measure::value"})["locations"]
        with pytest.raises(BadRequest, match="ambiguous: 2 matches"):
            live.call("definition", {"symbol": "Thing::make"})
    assert (inherent["line"], inherent["text"]) == (2, "impl Meter { pub fn value(&self) -> f64 { self.0 } }")
    assert declared["line"] == 3


def test_a_crate_root_ending_in_an_attribute_still_finds_a_primitives_method(tmp_path, analyzer):
    """The line that names the path is shown at the end of a crate root: an attribute the file ends
    with (`#[cfg(any())]`, which switches code off) does not take it."""
    crate = _crate(tmp_path, "tail", "pub fn one() -> u8 { 1 }\n")
    with live_session(crate) as live:
        live.call("update", {"file": "src/lib.rs", "content": "pub fn one() -> u8 { 1 }\n#[cfg(any())]\n"})
        [length] = live.call("definition", {"symbol": "str::len"})["locations"]
    assert length["file"] == "core/src/str/mod.rs", length


def test_the_uses_of_an_item_a_macro_makes_are_found_where_code_names_it(tmp_path, analyzer):
    """`u32::checked_add` is defined in the body of `uint_impl!`, where the analyzer finds no uses: not
    "nothing found", but the project's two calls, asked where code names the method."""
    crate = _crate(tmp_path, "calls", (
        "pub fn add(a: u32, b: u32) -> Option<u32> {\n    a.checked_add(b)\n}\n"
        "pub fn twice(a: u32) -> Option<u32> {\n    a.checked_add(a)\n}\n"))
    with live_session(crate) as live:
        found = live.call("references", {"symbol": "u32::checked_add"})
        lib = (crate / "src" / "lib.rs").read_text()
    own = [(ref["line"], ref["text"]) for group in found["files"] if group["file"] == "src/lib.rs"
           for ref in group["references"]]
    assert own == [(2, "    a.checked_add(b)"), (5, "    a.checked_add(a)")]  # not the line that asked
    assert found["files"][0]["file"] == "src/lib.rs" and "const _" not in lib


def test_a_derive_after_another_attribute_in_a_cfg_attr_or_over_lines_names_its_trait_too(tmp_path, analyzer):
    crate = _crate(tmp_path, "attrs", (
        "#[repr(C)] #[derive(Debug, Clone)]\n"
        "pub struct Packed { pub x: u8 }\n"
        "#[cfg_attr(all(), derive(Debug))]\n"
        "pub struct Switched;\n"
        "#[derive(Debug)] pub struct Inline; impl Default for Inline { fn default() -> Self { Inline } }\n"
        "#[derive(\n    Debug,\n    Clone,\n)]\n"
        "pub struct Spread;\n"))
    with live_session(crate) as live:
        packed, switched, inline, spread = (live.call("implementations", {"symbol": name})["locations"]
                                            for name in ("Packed", "Switched", "Inline", "Spread"))
    assert sorted((loc["line"], loc.get("derive")) for loc in packed) == [(1, "Clone"), (1, "Debug")]
    assert [(loc["line"], loc.get("derive")) for loc in switched] == [(3, "Debug")]
    assert sorted((loc["line"], loc.get("derive")) for loc in spread) == [(7, "Debug"), (8, "Clone")]
    # on one line, the derive's trait is named; the `impl` after it is no derive's
    assert sorted((loc["character"], loc.get("derive")) for loc in inline)[0] == (9, "Debug")
    assert len(inline) == 2 and [loc for loc in inline if loc["character"] > 20][0].get("derive") is None


def _crate(tmp_path: Path, name: str, lib_rs: str) -> Path:
    """A one-file library crate."""
    crate = tmp_path / name
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text(f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n')
    (crate / "src" / "lib.rs").write_text(lib_rs)
    return crate
