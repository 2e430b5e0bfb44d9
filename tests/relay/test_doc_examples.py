"""Doc-comment examples (doctests) that mention a renamed or looked-up name: the analyzer never looks
inside them, so `rename` and `references` say where they are."""

from __future__ import annotations

import shutil

import pytest

from ferrule.relay.doc_examples import _EXAMPLES, _examples_of, example_lines, lines_mentioning
from ferrule.tools.reports import render_edits, render_references
from testkit.live import live_session
from testkit.tools import DEMO_CRATE

EXAMPLES = '''/// Gets it.
///
/// ```
/// let q = Quantity::new(3);
/// assert_eq!(q.get(), 3);
/// ```
pub fn get(&self) -> u32 { self.0 }
//// four slashes are no doc comment: get
// ```
// get
/// ```rust
/// let widget = get_widget(); get
/// ```
/// get, outside the example
/// ```text
/// get: prose in a block rustdoc does not run
/// ```
/// ```rust,no_run
/// thing.get();
/// ```
//! ```
//! get()
'''


def test_only_lines_inside_a_doc_comments_code_block_that_name_the_word_count():
    assert lines_mentioning(EXAMPLES, "get") == [(5, "assert_eq!(q.get(), 3);"),
                                                 (12, "let widget = get_widget(); get"), (19, "thing.get();"),
                                                 (22, "get()")]
    assert lines_mentioning(EXAMPLES, "widget") == [(12, "let widget = get_widget(); get")]
    assert lines_mentioning(EXAMPLES, "Gets") == []  # prose, not an example


BLOCK_EXAMPLES = '''/**
 * Gets it.
 *
 * ```
 * let q = Quantity::new(3);
 * assert_eq!(q.get(), 3);
 * ```
 */
pub fn get(&self) -> u32 { self.0 }
/* ```
get: an ordinary block comment
``` */
/*! ```
    get()
``` */
/*** ```
get: no doc comment either
``` */
/** ```text
get: prose
``` */ fn after() { get(); }
/**
```
let r = &mut get(); /* a nested comment */
*r = get(); /* another
   get: inside it */ get_more();
```
*/
/*!*
```
get(1)
```
*/
'''


def test_block_doc_comments_examples_count_as_line_comments_do():
    assert lines_mentioning(BLOCK_EXAMPLES, "get") == [
        (6, "assert_eq!(q.get(), 3);"), (14, "get()"),
        # nested comments do not end the doc comment; an undecorated comment's lines keep their `*`
        (24, "let r = &mut get(); /* a nested comment */"), (25, "*r = get(); /* another"),
        (26, "get: inside it */ get_more();"), (31, "get(1)")]  # `/*!*` opens an inner doc comment
    assert lines_mentioning(BLOCK_EXAMPLES, "Gets") == []  # prose, not an example


IN_LITERALS = r"""
const HELP: &str = "usage: \"
/// ```
/// get(); // a string's line (its escaped quote closes nothing), no doc comment
/// ```
";
const RAW: &str = r#"a "quoted" word
/** ```
get: a raw string's
``` */
"#;
/* a comment
/// ```
/// get(); // no doc comment inside a comment
/// ```
*/
fn quotes<'a>(x: &'a str) -> char { let _ = '"'; let _ = b'\''; 'outer: loop { break 'outer '/' } }
/// ```
/// assert_eq!(get(), "a string opened and closed on one line");
/// ```
pub fn get() -> &'static str { "after the literals" }
// a comment's quotes open nothing: don't say "hi
const DIR: &str = r"C:\"; // a raw string ends at its first quote: no escapes
/// ```
/// get();
/// ```
pub fn again() {}
"""


def test_a_doc_comment_inside_a_string_or_a_comment_is_none():
    assert lines_mentioning(IN_LITERALS, "get") == [
        (19, 'assert_eq!(get(), "a string opened and closed on one line");'), (25, "get();")]


def test_lines_are_counted_at_line_feeds_only_as_the_analyzer_counts_them():
    # a form feed ends no line; a string broken only by line separators (U+2028) holds no doc comment
    assert lines_mentioning("\x0c\n/// ```\n/// get();\n/// ```\n", "get") == [(3, "get();")]
    assert lines_mentioning('const S: &str = "a\u2028/// ```\u2028/// get();\u2028/// ```\u2028";\n', "get") == []


def test_a_files_example_lines_are_read_once_per_text_and_a_changed_text_afresh():
    first = _examples_of("/p/src/lib.rs", EXAMPLES)
    assert first == example_lines(EXAMPLES)
    assert _examples_of("/p/src/lib.rs", EXAMPLES) is first, "the same text: its lines are not read again"
    kept = len(_EXAMPLES)
    edited = EXAMPLES.replace("assert_eq!(q.get(), 3);", "assert_eq!(q.value(), 3);")
    assert (5, "assert_eq!(q.value(), 3);") in _examples_of("/p/src/lib.rs", edited)
    assert len(_EXAMPLES) == kept and _EXAMPLES["/p/src/lib.rs"][0] is edited, "one entry per file, not per text"
    assert lines_mentioning(edited, "get") == [(12, "let widget = get_widget(); get"), (19, "thing.get();"),
                                               (22, "get()")]


@pytest.mark.live
def test_rename_and_references_say_which_doc_examples_mention_the_name(tmp_path, analyzer):
    crate = tmp_path / "demo-crate"
    shutil.copytree(DEMO_CRATE, crate, ignore=shutil.ignore_patterns("target"))
    with live_session(crate) as session:
        renamed = session.call("rename", {"symbol": "Quantity::get", "new_name": "units"})
        by_position = session.call("references", {"file": "src/orders/mod.rs",
                                                  "position": {"line": 55, "character": 11}})
        by_name = session.call("references", {"symbol": "Quantity::get"})
        unused = session.call("references", {"symbol": "OrderId::new"})
    # seven example lines call a `get` (OrderId's among them: the text cannot tell the two apart)
    assert renamed["doc_examples_count"] == 7 and len(renamed["doc_examples"]) == 7
    assert {"file": "src/lib.rs", "line": 15, "text": "assert_eq!(qty.get(), 3);"} in renamed["doc_examples"]
    assert by_position["doc_examples"] == by_name["doc_examples"] == renamed["doc_examples"]
    assert unused["doc_examples_count"] >= 2  # `OrderId::new(1)` in examples of mod.rs
    report = render_edits(renamed, {"symbol": "Quantity::get", "new_name": "units"})
    assert "not renamed: 7 lines of doc-comment examples (doctests) mention the name" in report
    assert "  src/lib.rs:15  assert_eq!(qty.get(), 3);" in report
    assert "not searched: 7 lines" in render_references(by_name, {"symbol": "Quantity::get"})
