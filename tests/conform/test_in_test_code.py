"""`in_test_code`: whether a position sits in test code, as the unwrap rule decides it for a call there."""

from __future__ import annotations

import pytest

from ferrule.conform import in_test_code
from ferrule.conform.facts import extract
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
