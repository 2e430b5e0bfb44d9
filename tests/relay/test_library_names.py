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
])
def test_a_path_names_one_item_in_the_project_or_its_libraries(session, symbol, file, line_text):
    [found] = session.call("definition", {"symbol": symbol})["locations"]
    assert found["file"] == file and line_text in found["text"], found
