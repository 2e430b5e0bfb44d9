"""Macros by name (`label!`, `vec!`, `bitflags!`), and the items a macro's input expands into: a crate
with a macro of its own beside a method of its name, and a dependency whose crate and macro share a
name (bitflags, from the registry: offline, the one `/opt/rust-offline/env.sh` sets up)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ferrule.project import BadRequest
from ferrule.relay.sync import SyncSession
from testkit.live import live_session, position_of

pytestmark = pytest.mark.live

FILES = {
    "Cargo.toml": '[package]\nname = "inv"\nversion = "0.1.0"\nedition = "2021"\n\n'
                  '[dependencies]\nbitflags = "1.3"\n',
    "src/lib.rs": "#[macro_use]\nmod macros;\npub mod flags;\npub mod store;\n",
    "src/macros.rs": (
        "/// Whole units to cents.\nmacro_rules! cents {\n    ($e:expr) => { ($e as u64) * 100 };\n}\n\n"
        "/// A label with the unit.\n#[macro_export]\nmacro_rules! label {\n"
        "    ($v:expr) => { format!(\"{} cents\", $v) };\n}\n\n"
        "mod inner {\n    #[allow(unused_macros)]\n    macro_rules! deep {\n        () => {};\n    }\n}\n"),
    "src/flags.rs": (
        "use bitflags::bitflags;\n\nbitflags! {\n    /// What an item may do.\n    pub struct Caps: u32 {\n"
        "        /// It can be sold.\n        const SELL = 0b01;\n        const SHIP = 0b10;\n    }\n}\n\n"
        "pub fn sellable(c: Caps) -> bool {\n    c.contains(Caps::SELL)\n}\n"),
    "src/store.rs": (
        "pub trait Priced {\n    fn price(&self) -> u64;\n"
        "    fn label(&self) -> String { crate::label!(self.price()) }\n}\n\n"
        "pub struct Item(pub u32);\n\nimpl Priced for Item {\n    fn price(&self) -> u64 { cents!(self.0) }\n}\n\n"
        "pub fn parts() -> Vec<u64> {\n    vec![Item(1).price()]\n}\n"),
}


@pytest.fixture(scope="module")
def session(tmp_path_factory, analyzer) -> Iterator[SyncSession]:
    crate = tmp_path_factory.mktemp("macros") / "inv"
    for rel, text in FILES.items():
        (crate / rel).parent.mkdir(parents=True, exist_ok=True)
        (crate / rel).write_text(text)
    with live_session(crate) as live:
        yield live


@pytest.mark.parametrize(("symbol", "file", "line_text"), [
    ("cents!", "src/macros.rs", "macro_rules! cents {"),  # the project's, in scope by #[macro_use]
    ("label!", "src/macros.rs", "macro_rules! label {"),  # not the trait's method `label`
    ("inv::label!", "src/macros.rs", "macro_rules! label {"),  # exported: at the crate root's path
    ("bitflags!", "bitflags-1.3.2/src/lib.rs", "macro_rules! bitflags {"),  # not the crate `bitflags`
    ("bitflags::bitflags!", "bitflags-1.3.2/src/lib.rs", "macro_rules! bitflags {"),
    ("vec!", "alloc/src/macros.rs", "macro_rules! vec {"),  # past the search's 128 fuzzy `vec`s: as code names it
    ("println!", "std/src/macros.rs", "macro_rules! println {"),
])
def test_a_macro_is_found_by_its_name_with_the_bang(session, symbol, file, line_text):
    [found] = session.call("definition", {"symbol": symbol})["locations"]
    assert (found["file"], found["text"].strip()) == (file, line_text)


def test_a_bare_name_lists_the_macro_as_it_is_asked_for(session):
    with pytest.raises(BadRequest) as refused:
        session.call("definition", {"symbol": "label"})
    assert "label! (macro) at src/macros.rs:8" in refused.value.message
    assert "Priced::label (method) at src/store.rs:3" in refused.value.message


@pytest.mark.parametrize(("symbol", "refusal"), [
    ("nope!", "no macro named `nope!`"),
    ("Item!", "no macro named `Item!`"),  # not the struct: `Item! {}` as code resolves `Item` in every namespace
    ("Item::price!", "no macro named `price!`"),  # nor a method
    ("Priced::label!", "no `label` matches 'Priced::label!'; `label` is: label! (macro) at src/macros.rs:8"),
])
def test_a_name_with_a_bang_that_names_no_macro_is_refused(session, symbol, refusal):
    with pytest.raises(BadRequest) as refused:
        session.call("definition", {"symbol": symbol})
    assert refusal in refused.value.message


def test_the_uses_of_a_project_macro_by_its_name(session):
    found = session.call("references", {"symbol": "cents!"})
    assert {(group["file"], ref["line"]) for group in found["files"] for ref in group["references"]} == {
        ("src/macros.rs", 2), ("src/store.rs", 9)}


def test_the_symbol_search_and_the_outline_call_a_macro_a_macro(session):
    listed = [(s["name"], s["kind"]) for s in session.call("symbols", {"query": "label"})["symbols"]]
    assert listed.count(("label!", "macro")) == 1 and ("label", "method") in listed  # an exported macro is listed twice
    outline = session.call("symbols", {"file": "src/macros.rs"})["symbols"]
    assert [(s["name"], s["kind"]) for s in outline] == [("cents!", "macro"), ("label!", "macro"), ("inner", "module")]
    assert [(s["name"], s["kind"]) for s in outline[2]["children"]] == [("deep!", "macro")]  # in a module too
    only = session.call("symbols", {"query": "label", "kinds": ["macro"]})["symbols"]
    assert [s["name"] for s in only] == ["label!"]


def test_a_flag_by_its_path_is_the_constant_code_names(session):
    """bitflags expands `const SELL` into a constant, a method and a trait's items: by its path the
    answer is the constant, with the flag's docs."""
    answer = session.call("type", {"symbol": "Caps::SELL"})
    assert answer["display"] == "pub const SELL: Self = Caps { bits: 1 }"
    assert answer["documentation"] == "It can be sold."


def test_a_position_on_a_macros_input_shows_every_item_it_becomes(session):
    position = position_of(FILES["src/flags.rs"], "SELL = ")
    display = session.call("type", {"file": "src/flags.rs", "position": position})["display"]
    items = display.split("\n\n")
    assert items[0] == "// inv::flags::Caps\npub const SELL: Self = Caps { bits: 1 }"  # the most visible first
    assert len(items) > 2 and all(item.startswith("// inv::flags::") for item in items)
    assert "Implements notable traits" not in display


def test_a_plain_hover_is_one_item(session):
    answer = session.call("type", {"symbol": "Caps"})
    assert answer["display"].startswith("pub struct Caps") and "//" not in answer["display"]
    assert answer["documentation"] == "What an item may do."


def test_the_impls_a_macro_makes_name_the_macro(session):
    """bitflags places every impl it makes on the type's name in its input, a line with no `impl`."""
    found = session.call("implementations", {"symbol": "Caps"})["locations"]
    own = [location for location in found if location["file"] == "src/flags.rs"]
    assert own and all(location.get("macro") == "bitflags!" for location in own), own
    assert all("macro" not in location for location in found if location.get("derive"))
