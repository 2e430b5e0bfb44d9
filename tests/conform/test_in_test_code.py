"""`in_test_code`: whether a position sits in test code, as the unwrap rule decides it for a call there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ferrule.conform import in_test_code, syntax
from ferrule.conform.facts import extract, in_test_code_of, may_be_test_code
from ferrule.fastframe import LineIndex
from testkit.live import position_of

SOURCE = '''\
pub fn domain(x: Option<u8>) -> u8 {
    x.unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn helper(x: Option<u8>) -> u8 {
        x.unwrap()
    }

    #[test]
    fn checks() {
        word.
    }
}

/// Docs between the attribute and the item.
#[test]
// a comment too
fn top_level_test() {
    Some(1).unwrap();
}

#[tokio::test]
async fn async_test() {
    Some(1).expect("one");
}

#[cfg(all(test, feature = "slow"))]
fn only_under_test_and_slow() {
    Some(1).unwrap();
}

#[cfg(any(test, feature = "x"))]
fn also_outside_tests() {
    Some(1).unwrap();
}

#[cfg(not(test))]
fn never_in_tests() {
    Some(1).unwrap();
}

fn statement_level() {
    #[cfg(test)]
    let _ = Some(1).unwrap();
    let _ = Some(2).unwrap();
}

mod inner {
    #![cfg(test)]
    fn f() {
        Some(1).unwrap();
    }
}
'''


def position(needle: str, nth: int = 0, after: bool = False) -> tuple[int, int]:
    """1-based line and 0-based byte column of `needle` (its end with `after`)."""
    at = position_of(SOURCE, needle, nth=nth, after=after)
    return at["line"], at["character"]


@pytest.mark.parametrize(("needle", "nth", "expected"), [
    ("x.unwrap()", 0, False),             # domain code
    ("x.unwrap()", 1, True),              # a helper inside #[cfg(test)] mod tests
    ("use super::*", 0, True),            # anywhere in that module
    ("Some(1).unwrap();", 0, True),       # #[test] with a doc comment and a comment in between
    ("Some(1).expect", 0, True),          # #[tokio::test]
    ("Some(1).unwrap();", 1, True),       # cfg(all(test, ..)) holds only under test
    ("Some(1).unwrap();", 2, False),      # cfg(any(test, ..)) also holds outside tests
    ("Some(1).unwrap();", 3, False),      # cfg(not(test))
    ("Some(1).unwrap();", 4, True),       # a statement under #[cfg(test)]
    ("Some(2).unwrap();", 0, False),      # the next statement is not
    ("Some(1).unwrap();", 5, True),       # a module marked by its inner #![cfg(test)]
])
def test_positions(needle, nth, expected):
    line, column = position(needle, nth)
    assert in_test_code(SOURCE, line, column) is expected


def test_agrees_with_the_unwrap_records_of_the_extractor():
    """Every unwrap/expect the rule sees: test or not as the extractor says, at its own position."""
    records = extract(SOURCE).unwraps
    assert len(records) >= 9
    lines = SOURCE.split("\n")
    for record in records:
        text = lines[record["line"] - 1]
        column = len(text[: text.index(record["method"])].encode())
        assert in_test_code(SOURCE, record["line"], column) is record["test"], record


def test_an_unfinished_method_call_inside_a_test_function():
    """Where completion asks: `word.` with nothing after the dot (a syntax error in the tree)."""
    line, column = position("word.", after=True)
    assert in_test_code(SOURCE, line, column) is True
    assert in_test_code(SOURCE.replace("#[test]\n    fn checks", "fn checks").replace("#[cfg(test)]\nmod tests",
                        "mod tests"), line, column) is False


def test_text_without_any_test_marker_is_domain_code_and_bytes_work():
    text = "fn f() {\n    Some(1).unwrap();\n}\n"
    assert in_test_code(text, 2, 4) is False
    assert in_test_code(text.encode(), 2, 4) is False
    assert in_test_code("#[test]\n" + text, 3, 4) is True


def test_positions_past_the_end_are_answered():
    assert in_test_code(SOURCE, 10_000, 0) is False
    assert in_test_code(SOURCE, 1, 10_000) is False


# ---- settled without parsing: `may_be_test_code` ---------------------------------------------------

REPO = Path(__file__).resolve().parents[2]
CRATES = Path(os.environ.get("RUST_OFFLINE_CRATES", "/opt/rust-offline/crates"))


def may_be_line_of_test_code(text: str, line: int) -> bool:
    """`may_be_test_code` for the 1-based `line`, its end found as the relay finds it."""
    return may_be_test_code(text, LineIndex(text).offset(line, 0))

def test_what_is_settled_without_parsing_is_what_the_tree_says():
    """Every line `may_be_test_code` settles as domain code, in every file of the fixtures and the
    real crates, is domain code for the tree at its start, middle and end."""
    files = sorted(REPO.glob("tests/**/*.rs")) + sorted(CRATES.glob("*/src/**/*.rs"))
    assert len(files) > 50, "the fixtures and $RUST_OFFLINE_CRATES (. /opt/rust-offline/env.sh)"
    settled = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        tree, index = syntax.parse(text.encode("utf-8")), LineIndex(text)
        for line, raw in enumerate(text.split("\n"), 1):
            if may_be_test_code(text, index.offset(line, 0)):
                continue
            settled += 1
            width = len(raw.encode("utf-8"))
            for column in (0, width // 2, width):
                assert not in_test_code_of(tree, line, column), f"{path}:{line}:{column}"
    assert settled > 10_000


@pytest.mark.parametrize(("needle", "nth"), [("x.unwrap()", 1), ("Some(1).expect", 0), ("Some(1).unwrap();", 5)])
def test_test_code_is_never_settled_without_parsing(needle, nth):
    assert may_be_line_of_test_code(SOURCE, position(needle, nth)[0])


def test_code_above_every_test_attribute_is_settled_without_parsing():
    without_inner_attributes = SOURCE[:SOURCE.index("mod inner")]
    assert not may_be_line_of_test_code(without_inner_attributes, position("x.unwrap()")[0])
    assert may_be_line_of_test_code(SOURCE, position("x.unwrap()")[0]), "an inner attribute further on: parsed"
    assert not may_be_line_of_test_code("fn f() {}\n", 1)


@pytest.mark.parametrize("attribute", ["#[test]", "# [ test ]", "#[tokio::test]", "#[rstest]",
                                       '#[cfg(all(feature = "]", test))]', "#[quickcheck]", "#[bench]"])
def test_an_attribute_naming_a_test_word_before_the_line_leaves_it_to_the_tree(attribute):
    text = f"{attribute}\nfn f() {{\n    Some(1).unwrap();\n}}\n"
    assert may_be_line_of_test_code(text, 3)


def test_an_inner_attribute_after_the_line_leaves_it_to_the_tree():
    """`#![cfg(test)]` marks its whole module, the comments before it too."""
    text = "mod m {\n    // a comment: Some(1).\n    #![cfg(test)]\n    fn f() {}\n}\n"
    assert in_test_code(text, 2, 25)
    assert may_be_line_of_test_code(text, 2)


def test_only_an_inner_attribute_naming_a_test_word_leaves_a_line_above_it_to_the_tree():
    text = ("fn f() {\n    Some(1).unwrap();\n}\n#[cfg(test)]\nmod tests {\n    #![allow(unused)]\n}\n"
            "mod more {\n    #![cfg(test)]\n}\n")
    assert not may_be_line_of_test_code(text.replace("#![cfg(test)]", ""), 2)
    assert may_be_line_of_test_code(text, 2)


def test_the_text_far_past_the_line_is_not_read():
    """An inner test attribute further than any comment run before a block's inner attributes could
    reach is not looked for: the lines of a large file's domain code are settled by what is near."""
    text = "fn f() {\n    Some(1).unwrap();\n}\n" + "// filler\n" * 5_000 + "mod tests {\n    #![cfg(test)]\n}\n"
    assert not may_be_line_of_test_code(text, 2)
    assert may_be_line_of_test_code(text, text.count("\n") - 2)
