"""One file across edits: the tree re-parsed from the last one, the facts recomputed for the chunks an
edit touched. Both must be exactly what a fresh parse and a fresh extraction of the new text give."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ferrule.conform import syntax
from ferrule.conform.document import ParsedFile
from ferrule.conform.facts import count_lines, extract, in_test_code
from ferrule.conform.syntax import PARSES, SourceTree, changed_span
from ferrule.conform.utf8_offsets import WIDE_KEPT, Utf8Offsets

CRATES = Path(os.environ.get("RUST_OFFLINE_CRATES", "/opt/rust-offline/crates"))

BASE = '''\
//! A file with one of each thing the facts look at.
#![allow(dead_code)]
use std::env;
use std::env::var as read_var;

/// Frobs.
///
/// ```
/// assert!(true);
/// ```
pub fn frob(x: Option<u8>) -> u8 {
    let home = env::var("HOME");
    x.unwrap()
}

pub struct Meters(f64);

#[allow(clippy::unwrap_used)]
pub fn allowed(v: Result<u8, ()>) -> u8 {
    v.unwrap()
}

pub mod outer {
    #![allow(clippy::expect_used)]
    pub trait Speak {
        fn speak(&self) -> String;
    }

    impl Speak for super::Meters {
        fn speak(&self) -> String {
            let n = read_var("N").expect("set");
            unsafe { core::hint::unreachable_unchecked() }
        }
    }
}

extern "C" {
    fn abs(x: i32) -> i32;
}

macro_rules! grab {
    ($e:expr) => { $e.unwrap() };
}

fn uses_macro() {
    println!("{}", std::env::var("X").unwrap());
    grab!(Some(1));
}

#[cfg(test)]
mod tests {
    #[test]
    fn t() {
        Some(1).unwrap();
    }
}
'''

SNIPPETS = ["", "x", "\n", "\r\n", ".unwrap()", "Option::unwrap", 'env::var("A")', "#[cfg(test)]\n",
            "#![allow(clippy::unwrap_used)]\n", "use std::env as e;\n", "use std::*;\n", "mod m {\n", "}\n",
            "{", "/// ```\n/// f();\n/// ```\n", "pub struct B(u8);\n", "é☕\n", "unsafe { x() }",
            "fn g() { Some(1).unwrap(); }\n", "impl A { fn a(&self) {} }\n", "// a comment\n", "#[test]\n"]

edits = st.lists(st.tuples(st.floats(0, 1), st.integers(0, 40), st.sampled_from(SNIPPETS)), min_size=1, max_size=6)


def apply(text: str, edit: tuple[float, int, str]) -> str:
    where, removed, inserted = edit
    at = int(where * len(text))
    return text[:at] + inserted + text[at + removed:]


def shape(tree) -> list[tuple]:
    """Every node of a tree with its kind, bytes and points."""
    out, stack = [], [tree.root_node]
    while stack:
        node = stack.pop()
        out.append((node.type, node.start_byte, node.end_byte, tuple(node.start_point), tuple(node.end_point)))
        stack.extend(reversed(node.children))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits)
def test_an_edited_tree_is_the_tree_of_the_new_text(steps):
    text = BASE
    held = SourceTree(text.encode())
    for edit in steps:
        text = apply(text, edit)
        source = text.encode()
        held.update(source)
        assert held.lines == count_lines(source)
        fresh = syntax.parse(source)
        # Where the text does not parse, tree-sitter's error recovery may settle differently when it
        # reuses the old tree (an unclosed `mod m {` inserted at the top, say): both trees are readings
        # of a broken text. Once the text parses again, the two agree, which the later steps check.
        if not fresh.root_node.has_error:
            assert shape(held.tree) == shape(fresh)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits)
def test_facts_after_edits_are_the_facts_of_the_new_text(steps):
    text = BASE
    parsed = ParsedFile()
    parsed.update(text)
    assert parsed.facts().records() == extract(text).records()
    for edit in steps:
        text = apply(text, edit)
        parsed.update(text)
        if not syntax.parse(text.encode()).root_node.has_error:  # as above: a broken text may be read otherwise
            assert parsed.facts().records() == extract(text).records()


def test_facts_come_back_right_when_texts_alternate():
    """A transient text and the saved one, again and again, with the lines shifting between them."""
    saved = BASE
    changed = BASE.replace("    x.unwrap()\n", "    x.unwrap()\n    let y = x.expect(\"y\");\n")
    parsed = ParsedFile()
    for text in (saved, changed, saved, changed, changed, saved):
        parsed.update(text)
        assert parsed.facts().records() == extract(text).records()


def test_the_changed_span_is_the_part_that_differs():
    assert changed_span(b"abcdef", b"abXYef") == (2, 4, 4)
    assert changed_span(b"abc", b"abc") == (3, 3, 3)
    assert changed_span(b"aaaa", b"aa") == (2, 4, 2)  # the shared suffix does not reach into the prefix
    assert changed_span(b"", b"new") == (0, 0, 3)
    big = bytes(range(256)) * 100
    assert changed_span(big, big[:9000] + b"!" + big[9001:]) == (9000, 9001, 9001)


def test_a_changed_line_is_parsed_incrementally_and_an_unchanged_text_not_at_all():
    parsed = ParsedFile()
    parsed.update(BASE)
    full, incremental = PARSES.full, PARSES.incremental
    parsed.update(BASE.replace("let home", "let house"))
    parsed.update(BASE.replace("let home", "let house"))  # the same text again: nothing to do
    parsed.update(BASE)
    assert (PARSES.full, PARSES.incremental) == (full, incremental + 2)


def test_the_test_code_question_is_answered_from_the_tree_held():
    parsed = ParsedFile()
    lines = BASE.split("\n")
    for text in (BASE, BASE.replace("#[cfg(test)]\nmod tests", "mod tests")):
        parsed.update(text)
        full = PARSES.full
        for line, row in enumerate(lines, start=1):
            column = len(row) - len(row.lstrip())
            assert parsed.in_test_code(line, column) is in_test_code(text, line, column), (line, row)
        assert PARSES.full == full + len(lines)  # the fresh answers parsed; the held tree did not


def test_an_edit_recomputes_the_facts_of_the_chunk_it_touched_only(monkeypatch):
    """On a real 5.9k-line file, a one-line change in one method of a large `impl` runs the
    expression query over that method and the `impl`'s header, not over the file nor the `impl`."""
    path = CRATES / "regex-syntax-0.6.27" / "src" / "ast" / "parse.rs"
    text = path.read_text(encoding="utf-8")
    line = "        self.parser().capture_index.set(i);"
    assert line in text
    changed = text.replace(line, line + " // changed", 1)
    expected = extract(changed).records()
    parsed = ParsedFile()
    parsed.update(text)
    first = parsed.facts()
    queried: list[int] = []
    real = syntax.captures

    def counting(node, start=None, end=None):
        queried.append((end or node.end_byte) - (start or node.start_byte))
        return real(node, start, end)

    monkeypatch.setattr(syntax, "captures", counting)
    parsed.update(changed)
    facts = parsed.facts()
    assert facts is not first and facts.records() == expected
    assert len(queried) == 2 and sum(queried) < 1000, queried  # the impl's header, then the method's ten lines


@pytest.mark.parametrize("crate, rel", [("regex-syntax-0.6.27", "src/ast/parse.rs"),
                                        ("byteorder-1.4.3", "src/lib.rs")])
def test_real_files_keep_their_facts_across_edits(crate, rel):
    text = (CRATES / crate / rel).read_text(encoding="utf-8")
    parsed = ParsedFile()
    parsed.update(text)
    lines = text.split("\n")
    for number in (10, len(lines) // 3, len(lines) // 2, len(lines) - 20):
        edited = "\n".join([*lines[:number], "    let _x = std::env::var(\"A\").unwrap();", *lines[number:]])
        parsed.update(edited)
        assert parsed.facts().records() == extract(edited).records(), number


def test_a_containers_inner_attributes_hold_for_what_sits_directly_in_it():
    """A module's chunks are computed apart from its header: its `#![allow]` must still reach them."""
    text = 'mod m {\n    #![allow(clippy::expect_used)]\n    thread_local!(static K: u8 = Some(1).expect("k"));\n}\n'
    (record,) = extract(text).unwraps
    assert (record["scope"], record["allowed"], record["in_macro"]) == ("m", True, True)


wide_texts = st.text(alphabet=st.sampled_from(["a", "\n", "é", "☕", "😀", "中", " "]), max_size=30)


@settings(max_examples=200, deadline=None)
@given(wide_texts, st.lists(st.tuples(st.floats(0, 1), st.integers(0, 6), wide_texts), max_size=6))
def test_character_offsets_map_to_the_bytes_of_the_text_across_edits(text, steps):
    offsets = Utf8Offsets.of(text)
    for edit in [None, *steps]:
        if edit is not None:
            edited = apply(text, edit)
            start, old_end, new_end = changed_span(text, edited)
            offsets = offsets.edited(start, old_end, edited[start:new_end])
            text = edited
        assert [offsets.byte(at) for at in range(len(text) + 1)] == [len(text[:at].encode()) for at in range(len(text) + 1)]


def test_a_text_with_very_many_non_ascii_characters_is_encoded_whole():
    assert Utf8Offsets.of("é" * WIDE_KEPT) is not None
    assert Utf8Offsets.of("é" * (WIDE_KEPT + 1)) is None
    assert Utf8Offsets.of("é" * WIDE_KEPT).edited(0, 0, "é") is None
    parsed = ParsedFile()
    for text in ("// " + "é" * (WIDE_KEPT + 1) + "\nfn a() {}\n", "// " + "é" * (WIDE_KEPT + 1) + "\nfn b() {}\n",
                 "fn c() {}\n"):
        parsed.update(text)
        assert parsed.size == len(text.encode()) and parsed.facts().records() == extract(text).records()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 12), st.sampled_from(["é", "☕ x", "😀\n", "中文 ", "a"])),
                min_size=1, max_size=6))
def test_an_edit_around_non_ascii_text_keeps_the_bytes_and_the_answers_of_the_new_text(steps):
    """Only the changed characters are encoded: the bytes the tree holds must still be the new text's."""
    text = BASE.replace("/// Frobs.", "/// Frobs — à la “mode” ☕.")
    parsed = ParsedFile()
    parsed.update(text)
    for edit in steps:
        text = apply(text, edit)
        parsed.update(text)
        assert parsed.size == len(text.encode())
        if not syntax.parse(text.encode()).root_node.has_error:
            assert parsed.facts().records() == extract(text).records()
            for line, row in enumerate(text.split("\n"), start=1):
                column = len(row.encode()) - len(row.lstrip().encode())
                assert parsed.in_test_code(line, column) is in_test_code(text, line, column)
