"""The readable text of the one-shot commands: positions as editors show them, summaries, notes."""

from __future__ import annotations

from ferrule.project import AnalyzerMissing
from ferrule.relay import terminal


def test_columns_are_1_based_characters_not_utf8_bytes():
    lines = ['    let café = "naïve ☕"; let size = café.len();']
    assert terminal.column(lines, 1, 34) == 31  # `size`: byte 34, the 31st character
    assert terminal.column(lines, 1, 0) == 1
    assert terminal.column(None, 1, 7) == 8  # without the text: the byte offset, 1-based


def test_validation_lists_diagnostics_findings_and_a_summary():
    value = {
        "diagnostics": [
            {"code": "E0308", "category": "error", "message": "expected u32, found &str", "line": 2, "character": 9},
            {"code": "", "category": "warning", "message": "unused", "line": 1, "character": 0},
        ],
        "conform_findings": [{"rule": "no-unwrap", "message": "`.unwrap()` in domain code", "line": 2,
                              "baselined": True}],
        "advice": ["replace the unwrap"], "facts": [{}, {}], "markers": [], "degraded": True,
    }
    text = terminal.validation("src/a.rs", value, ["fn f() {", '    let é: u32 = "x";'])
    assert text.splitlines() == [
        "src/a.rs:1:1: warning: unused",
        "src/a.rs:2:9: error[E0308]: expected u32, found &str",
        "src/a.rs:2: policy[no-unwrap]: `.unwrap()` in domain code (baselined)",
        "advice: replace the unwrap",
        "src/a.rs: 1 error, 1 warning (rust-analyzer alone: compile check off); 1 policy finding (0 new); 2 facts "
        "(degraded: diagnostics were pushed, not pulled)",
    ]
    assert terminal.error_count(value) == 1


def test_answers_given_while_indexing_say_so():
    text = terminal.result("type", "src/a.rs", {"display": "u8", "documentation": "", "indexing": True})
    assert text == "u8\n" + terminal.INDEXING_NOTE


def test_empty_answers_are_said_plainly():
    assert terminal.result("type", "a.rs", {"display": "", "documentation": ""}) == "(nothing known at this position)\n"
    assert terminal.result("complete", "a.rs", {"entries": []}) == "(no completions)\n"


def test_completions_flag_unsafe_entries():
    text = terminal.completions({"entries": [{"name": "unwrap", "kind": "method", "type_text": "fn(self) -> T",
                                            "unsafe": True}]})
    assert text == "unwrap  method  fn(self) -> T   [unsafe in domain code]\n"


def test_errors_carry_their_recipe():
    text = terminal.error("type", AnalyzerMissing("no rust-analyzer found"))
    assert text.startswith("ferrule type: rust-analyzer-missing: no rust-analyzer found\n  to fix: ")
    assert "rustup component add rust-analyzer" in text


def test_an_error_rustc_did_not_confirm_does_not_fail_the_command():
    confirmed = {"code": "E0382", "category": "error", "message": "use of moved value", "line": 3,
                 "character": 4, "source": "rustc"}
    unconfirmed = {"code": "E0599", "category": "error", "message": "no method", "line": 7, "character": 0,
                   "unconfirmed": True}
    assert terminal.error_count({"diagnostics": [unconfirmed], "compiled": True}) == 0
    assert terminal.error_count({"diagnostics": [confirmed, unconfirmed], "compiled": True}) == 1
