"""Library items named by a path whose last segment the project also defines, or whose container the
analyzer names with its generics: the demo crate has `OrderId::new` and `Quantity::new`."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from ferrule.relay.sync import SyncSession
from testkit.live import live_session
from testkit.tools import DEMO_CRATE

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def session(tmp_path_factory, analyzer) -> Iterator[SyncSession]:
    crate = tmp_path_factory.mktemp("names") / "demo-crate"
    shutil.copytree(DEMO_CRATE, crate, ignore=shutil.ignore_patterns("target"))
    with live_session(crate) as live:
        yield live


@pytest.mark.parametrize(("symbol", "file", "line_text"), [
    ("String::new", "alloc/src/string.rs", "pub const fn new() -> String"),  # beside the project's `new`s
    ("Option::map", "core/src/option.rs", "fn map<U, F>(self, f: F) -> Option<U>"),  # past the search's 128 `map`s (const in newer std)
    ("Iterator::map", "core/src/iter/traits/iterator.rs", "fn map<B, F>(self, f: F) -> Map<Self, F>"),
    ("Vec::push", "alloc/src/vec/mod.rs", "pub fn push(&mut self, value: T)"),  # the container is `Vec<T, A>`
    ("std::vec::Vec::push", "alloc/src/vec/mod.rs", "pub fn push(&mut self, value: T)"),
    ("Quantity::new", "src/orders/mod.rs", "pub fn new("),  # the project's own still come first
    ("Ord", "core/src/cmp.rs", "trait Ord: "),  # past 128 fuzzy matches of `ord` (`OrderId`, `word`, ...)
    ("std::cmp::Ord", "core/src/cmp.rs", "trait Ord: "),
    ("HashMap", "std/src/collections/hash/map.rs", "pub struct HashMap<"),  # not std's own `hashbrown`'s
    ("Debug", "core/src/fmt/mod.rs", "trait Debug"),  # the prelude's, not core's `str::lossy::Debug` struct
    ("Result", "core/src/result.rs", "pub enum Result<"),  # the prelude's, not an alias (`fmt::Result`)
    # not listed by the analyzer's symbol search: a primitive and its methods, found as code names them
    ("str::len", "core/src/str/mod.rs", "fn len(&self) -> usize"),
    ("slice::len", "core/src/slice/mod.rs", "fn len(&self) -> usize"),  # the docs' name for `[T]`
    ("f64::sqrt", ("std/src/num/f64.rs", "std/src/f64.rs"), "fn sqrt(self) -> f64"),  # the newer std's file, the older's
    ("u32", "core/src/primitive_docs.rs", "mod prim_u32"),  # older analyzers place it nowhere: the docs' module
    # listed at the macro that makes it (`macro_rules! uint_impl`): the item in the macro's body
    ("u32::checked_add", "core/src/num/uint_macros.rs", "fn checked_add(self, rhs: Self) -> Option<Self>"),
])
def test_a_path_names_one_item_in_the_project_or_its_libraries(session, symbol, file, line_text):
    [found] = session.call("definition", {"symbol": symbol})["locations"]
    assert found["file"] in ((file,) if isinstance(file, str) else file) and line_text in found["text"], found


def test_a_path_found_as_code_names_it_leaves_the_crate_root_as_it_was(session):
    """The line that names the path is shown to the analyzer for one request, never written, and gone
    from what the analyzer sees afterwards."""
    lib = session.session.root.path / "src" / "lib.rs"
    before, outline = lib.read_bytes(), session.call("symbols", {"file": "src/lib.rs"})
    [found] = session.call("definition", {"symbol": "str::is_char_boundary"})["locations"]
    assert found["file"] == "core/src/str/mod.rs"
    assert lib.read_bytes() == before
    assert session.call("symbols", {"file": "src/lib.rs"}) == outline  # no `const _` left behind
    assert session.call("validate", {"file": "src/lib.rs"})["diagnostics"] == []


@pytest.mark.parametrize(("symbol", "display"), [
    ("Vec::push", "pub fn push(&mut self, value: T)"),
    ("str::len", "pub const fn len(&self) -> usize"),
    ("u32::checked_add", "pub const fn checked_add(self, rhs: Self) -> Option<Self>"),  # made by a macro
    ("Quantity::new", "pub fn new("),  # the project's own
    ("std::fs::File::open", "pub fn open<P>(path: P)"),  # generic: the analyzer's "maybe" is no trait of it
])
def test_the_type_of_a_name_is_its_signature_and_docs(session, symbol, display):
    answer = session.call("type", {"symbol": symbol})
    assert display in answer["display"] and answer["documentation"], answer
    assert "notable traits" not in answer["documentation"]  # a function's item type implements none


def test_the_type_of_a_name_takes_no_content_and_needs_a_place(session):
    with pytest.raises(Exception, match="not `symbol`"):
        session.call("type", {"symbol": "Vec::push", "content": "fn main() {}"})
    with pytest.raises(Exception, match="missing `symbol`, or `file` with `position`"):
        session.call("type", {"file": "src/lib.rs"})


def test_a_path_nothing_names_is_still_refused_with_the_closest_names(session):
    with pytest.raises(Exception, match="no symbol named `nothing_at_all`"):
        session.call("definition", {"symbol": "u32::nothing_at_all"})
