"""rust-analyzer 1.96's `{const}` and `<expr>` in a signature, filled in from the definition's text."""

from __future__ import annotations

import pytest

from ferrule.relay.const_args import filled

SOURCE = """pub const N: usize = 4;
pub fn digest(input: &[u8]) -> [u8; 32] { let _ = input; [0; 32] }
pub fn grid() -> [[i32; 3]; N] { [[0; 3]; N] }
pub fn make() -> Buf<16> { Buf { data: [0; 16] } }
pub fn twice() -> Buf<{ N * 2 }> { todo!() }
pub fn bound<T: Clone + Into<u8>, const K: usize>(x: [T; K]) -> [T; K]
where
    T: Copy,
{ x }
pub fn quoted() -> [u8; "]".len()] { todo!() }
"""


def at(name: str, source: str = SOURCE) -> int:
    """The offset of the definition's name, as the analyzer places it."""
    return source.index(f"fn {name}") + 3


@pytest.mark.parametrize(("name", "shown", "meant"), [
    ("digest", "pub fn digest(input: &[u8]) -> [u8; {const}]", "pub fn digest(input: &[u8]) -> [u8; 32]"),
    ("grid", "pub fn grid() -> [[i32; {const}]; {const}]", "pub fn grid() -> [[i32; 3]; N]"),
    ("make", "pub fn make() -> Buf<<expr>>", "pub fn make() -> Buf<16>"),
    ("twice", "pub fn twice() -> Buf<<expr>>", "pub fn twice() -> Buf<{ N * 2 }>"),
    # the analyzer shows a parameter's bounds under `where`, and the first line alone is filled in
    ("bound", "pub fn bound<T, const K: usize>(x: [T; {const}]) -> [T; {const}]\nwhere\n    T: Clone + Into<u8> + Copy,",
     "pub fn bound<T, const K: usize>(x: [T; K]) -> [T; K]\nwhere\n    T: Clone + Into<u8> + Copy,"),
    ("make", "impl Buf<<expr>>\npub fn make() -> Buf<<expr>>", "impl Buf<<expr>>\npub fn make() -> Buf<16>"),
    ("quoted", "pub fn quoted() -> [u8; {const}]", 'pub fn quoted() -> [u8; "]".len()]'),  # a literal is one token
])
def test_a_placeholder_takes_the_sources_text_where_everything_else_agrees(name, shown, meant):
    assert filled(shown, SOURCE, at(name)) == meant


@pytest.mark.parametrize(("name", "shown"), [
    ("digest", "pub fn other() -> [u8; {const}]"),  # not in the source
    ("digest", "pub fn digest(input: &[u16]) -> [u8; {const}]"),  # written otherwise: not guessed
    ("digest", "pub fn digest(input: &[u8]) -> [u8; {const}"),  # nothing after it says where it ends
    ("grid", "pub fn digest(input: &[u8]) -> [u8; {const}]"),  # another item's signature, not the one asked
])
def test_a_signature_the_source_does_not_match_at_the_definition_stays_as_shown(name, shown):
    assert filled(shown, SOURCE, at(name)) == shown


def test_the_definitions_own_signature_is_the_one_taken_not_a_twin_or_a_comment():
    twins = ('// pub fn key() -> [u8; 9]\n#[cfg(unix)]\npub fn key() -> [u8; 8] { [0; 8] }\n'
             '#[cfg(not(unix))]\npub fn key() -> [u8; 4] { [0; 4] }\n')
    second = twins.rindex("fn key") + 3
    assert filled("pub fn key() -> [u8; {const}]", twins, second) == "pub fn key() -> [u8; 4]"
    first = twins.index("pub fn key() -> [u8; 8]") + 7
    assert filled("pub fn key() -> [u8; {const}]", twins, first) == "pub fn key() -> [u8; 8]"


def test_a_huge_generated_line_is_not_searched_whole():
    """The window is cut at SOURCE_CHARS: a definition past a 100 KB line is not reached, and stays as shown."""
    source = "fn [ " * 20000 + "\npub fn f() -> [u8; 2] {}\n"
    assert filled("pub fn f() -> [u8; {const}]", source, source.index("fn f") + 3) == "pub fn f() -> [u8; {const}]"
