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
"""


@pytest.mark.parametrize(("shown", "meant"), [
    ("pub fn digest(input: &[u8]) -> [u8; {const}]", "pub fn digest(input: &[u8]) -> [u8; 32]"),
    ("pub fn grid() -> [[i32; {const}]; {const}]", "pub fn grid() -> [[i32; 3]; N]"),
    ("pub fn make() -> Buf<<expr>>", "pub fn make() -> Buf<16>"),
    ("pub fn twice() -> Buf<<expr>>", "pub fn twice() -> Buf<{ N * 2 }>"),
    # the analyzer shows a parameter's bounds under `where`, and the first line alone is filled in
    ("pub fn bound<T, const K: usize>(x: [T; {const}]) -> [T; {const}]\nwhere\n    T: Clone + Into<u8> + Copy,",
     "pub fn bound<T, const K: usize>(x: [T; K]) -> [T; K]\nwhere\n    T: Clone + Into<u8> + Copy,"),
    ("impl Buf<<expr>>\npub fn make() -> Buf<<expr>>", "impl Buf<<expr>>\npub fn make() -> Buf<16>"),
])
def test_a_placeholder_takes_the_sources_text_where_everything_else_agrees(shown, meant):
    assert filled(shown, SOURCE) == meant


@pytest.mark.parametrize("shown", [
    "pub fn other() -> [u8; {const}]",  # not in the source
    "pub fn digest(input: &[u16]) -> [u8; {const}]",  # written otherwise: not guessed
    "pub fn digest(input: &[u8]) -> [u8; {const}",  # nothing after it says where it ends
])
def test_a_signature_the_source_does_not_match_stays_as_shown(shown):
    assert filled(shown, SOURCE) == shown
