"""The readable reports: every diagnostic, finding and piece of advice shown; positions as sent."""

from __future__ import annotations

import pytest

from ferrule.tools import reports

VALIDATE_RESULT = {
    "diagnostics": [
        {"code": "unused_variables", "category": "warning", "message": "unused variable: `x`", "line": 3, "character": 8},
        {"code": "E0308", "category": "error", "message": "expected u64, found u32", "line": 15, "character": 21},
    ],
    "facts": [{"kind": "fn", "name": "a"}, {"kind": "fn", "name": "b"}, {"kind": "struct", "name": "C"}],
    "markers": [],
    "conform_findings": [
        {"rule": "unwrap-in-domain", "message": "`.unwrap()` in domain code", "line": 14, "baselined": False},
        {"rule": "env-outside-roots", "message": "std::env read outside env_roots", "line": 21, "baselined": True},
    ],
    "advice": ["GUIDE §6: return a Result instead of unwrapping", "GUIDE R-001: read the environment in config"],
    "degraded": False,
}


def test_validate_report_leads_with_counts_and_lists_everything():
    text = reports.render_validate(VALIDATE_RESULT, {"file": "src/orders/pricing.rs"})
    first = text.splitlines()[0]
    assert first == ("src/orders/pricing.rs: 1 error, 1 warning; 2 policy findings (1 new, 1 baselined) "
                     "(rust-analyzer alone: compile check off)")
    # Diagnostics in line order, each with line:character, severity and code.
    assert "  3:8 warning[unused_variables]: unused variable: `x`" in text
    assert "  15:21 error[E0308]: expected u64, found u32" in text
    assert text.index("3:8 warning") < text.index("15:21 error")
    assert "  14 unwrap-in-domain: `.unwrap()` in domain code" in text
    assert "  21 env-outside-roots (baselined): std::env read outside env_roots" in text
    for advice in VALIDATE_RESULT["advice"]:
        assert f"  - {advice}" in text
    assert "facts: 3 items (2 fn, 1 struct)" in text
    assert "degraded" not in text


def test_validate_clean_file_and_degraded_note():
    text = reports.render_validate({"diagnostics": [], "conform_findings": [], "advice": [], "degraded": True},
                                  {"file": "src/lib.rs", "content": "fn main() {}"})
    assert text.startswith("src/lib.rs (text passed in `content`): clean: no diagnostics, no policy findings")
    assert "note: degraded" in text


def test_validate_multiline_message_is_indented_under_its_head():
    result = {"diagnostics": [{"code": None, "category": "error", "message": "first\nsecond", "line": 1,
                               "character": 0}]}
    lines = reports.render_validate(result, {"file": "a.rs"}).splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("  1:0 error: first"))
    assert lines[head + 1].strip() == "second"
    assert lines[head + 1].startswith(" " * len("  1:0 error: "))


def test_type_report_shows_display_then_documentation():
    text = reports.render_type({"display": "pub fn get(&self) -> u64", "documentation": "The raw id."},
                              {"file": "src/lib.rs", "line": 4, "character": 9})
    assert text.splitlines() == ["src/lib.rs 4:9:", "  pub fn get(&self) -> u64", "", "  The raw id."]


def test_type_report_says_when_nothing_is_there():
    text = reports.render_type({"display": "", "documentation": ""}, {"file": "src/lib.rs", "line": 1, "character": 0})
    assert text.startswith("src/lib.rs 1:0: nothing there")


def test_complete_report_aligns_columns_and_marks_unsafe_entries():
    result = {"entries": [
        {"name": "unwrap", "kind": "method", "type_text": "fn(self) -> u32", "unsafe": True},
        {"name": "unwrap_or", "kind": "method", "type_text": "fn(self, u32) -> u32", "unsafe": False},
    ]}
    lines = reports.render_complete(result, {"file": "src/a.rs", "line": 3, "character": 7, "prefix": "unw"})
    lines = lines.splitlines()
    assert lines[0] == "src/a.rs 3:7: 2 completions starting with 'unw'; 1 marked unsafe (would panic in domain code)"
    assert lines[1].startswith("  unwrap     method  fn(self) -> u32")
    assert "UNSAFE" in lines[1] and "UNSAFE" not in lines[2]
    assert lines[2] == "  unwrap_or  method  fn(self, u32) -> u32"


def test_complete_report_keeps_long_types_whole_and_says_when_empty():
    long_type = "impl Iterator<Item = " + "Vec<u8>, " * 20 + ">"
    text = reports.render_complete({"entries": [{"name": "it", "kind": "function", "type_text": long_type}]},
                                  {"file": "a.rs", "line": 1, "character": 0})
    assert text.splitlines()[1].endswith(long_type)
    assert reports.render_complete({"entries": []}, {"file": "a.rs", "line": 1, "character": 0,
                                                    "prefix": "zz"}) == "a.rs 1:0: no completions starting with 'zz'"


def test_scope_report_names_module_seam_newtypes_and_symbols():
    result = {
        "symbols": [{"name": "OrderId", "kind": "struct", "type_text": "OrderId"},
                    {"name": "unit_price", "kind": "function", "type_text": "fn(&str) -> Option<u32>"}],
        "cell": "orders::pricing",
        "seam_file": "src/orders/mod.rs",
        "branded": [{"name": "OrderId", "seam": "crate::orders", "heuristic": True, "line": 11}],
    }
    text = reports.render_scope(result, {"file": "src/orders/pricing.rs"})
    lines = text.splitlines()
    assert lines[0] == "src/orders/pricing.rs: module orders::pricing, seam file src/orders/mod.rs"
    assert "  OrderId (line 11, seam crate::orders, heuristic)" in lines
    assert "2 names in scope at top level:" in lines
    assert any(line.startswith("  unit_price  function  fn(&str) -> Option<u32>") for line in lines)


def test_scope_report_at_a_position_without_symbols():
    text = reports.render_scope({"symbols": [], "cell": "", "seam_file": None, "branded": []},
                               {"file": "src/lib.rs", "line": 2, "character": 4})
    assert text.splitlines()[0] == "src/lib.rs: module (crate root), seam file (none)"
    assert text.splitlines()[-1] == "no names in scope at 2:4"


def test_update_report_set_and_dropped():
    assert "overlay set (version 3)" in reports.render_update({"version": 3}, {"file": "a.rs", "content": "x"})
    assert "overlay dropped" in reports.render_update({"version": 4, "dropped": True}, {"file": "a.rs", "content": None})
    manifest = reports.render_update({"version": 1}, {"file": "Cargo.toml", "content": "[package]"})
    assert "compile check builds with this text" in manifest and "rust-analyzer reads this file from disk" in manifest
    none = reports.render_update({"version": 4, "dropped": False}, {"file": "a.rs", "content": None})
    assert none == "a.rs: had no overlay; the analyzer reads the file on disk, as before"


def test_error_report_carries_kind_message_and_recipe():
    error = {"kind": "rust-analyzer-missing", "message": "no rust-analyzer found",
             "recipe": "rustup component add rust-analyzer"}
    text = reports.render_error(error, tool="rust_type")
    assert text.splitlines() == ["rust_type failed: rust-analyzer-missing: no rust-analyzer found",
                                 "fix: rustup component add rust-analyzer"]
    crashed = {"kind": "oracle-crashed", "message": "died", "recipe": ""}
    retried = reports.render_error(crashed, retried=True)
    assert "retried once; it failed again" in retried and "fix:" not in retried
    assert "started" not in retried, "nothing was started: the report must not say so"
    restarted = reports.render_error(crashed, retried=True, restarted=1)
    assert "a fresh one was started for this call with every overlay re-applied, and the call retried" in restarted


def leaves(value):
    """Every string and number in a result, at any depth."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in leaves(item)]
    return [] if isinstance(value, bool) or value is None else [str(value)]


LONG_TYPE = "impl Fn(HashMap<String, Vec<(OrderId, Quantity)>>) -> Result<BTreeMap<String, u64>, ParseError>"
FULL_RESULTS = {  # (renderer, result, args): every field an op answers, filled in
    "validate": (reports.render_validate, {**VALIDATE_RESULT, "indexing": True}, {"file": "src/a.rs"}),
    "type": (reports.render_type, {"display": "let total: u64", "documentation": "The sum.", "indexing": True},
             {"file": "src/a.rs", "line": 2, "character": 8}),
    "complete": (reports.render_complete, {"entries": [
        {"name": "a_rather_long_method_name_that_goes_on", "kind": "method", "type_text": LONG_TYPE, "unsafe": False},
        {"name": "expect", "kind": "method", "type_text": "fn(self, &str) -> u32", "unsafe": True}],
        "indexing": True}, {"file": "src/a.rs", "line": 2, "character": 8}),
    "scope": (reports.render_scope, {
        "symbols": [{"name": "OrderId", "kind": "struct", "type_text": LONG_TYPE}],
        "cell": "crate::orders", "seam_file": "src/orders/mod.rs",
        "branded": [{"name": "OrderId", "seam": "crate::orders", "heuristic": True, "line": 4}],
        "indexing": True}, {"file": "src/orders/ids.rs"}),
}


@pytest.mark.parametrize("op", sorted(FULL_RESULTS))
def test_the_report_alone_carries_the_whole_answer(op):
    # clients before MCP 2025-06-18 get no structuredContent: the report is all they read
    render, result, args = FULL_RESULTS[op]
    text = render(result, args)
    # every field but the policy's facts, which the report counts by kind (they grow with the file)
    missing = [leaf for key, value in result.items() if key != "facts" for leaf in leaves(value) if leaf not in text]
    assert missing == [], text
    assert "still indexing" in text, "the answer may be partial: the report must say so"


def test_the_validate_report_counts_facts_by_kind_and_does_not_list_them():
    facts = [
        {"kind": "file", "line": 1, "lines": 30},
        {"kind": "fn", "name": "parse_line", "line": 17, "end_line": 20, "visibility": "pub", "scope": "",
         "doctest": True, "test": False},
        {"kind": "impl", "name": "Order", "line": 22, "end_line": 29, "visibility": "", "trait": "Display"},
        {"kind": "unwrap", "method": "unwrap", "text": "std::env::var(\"A\").unwrap()", "line": 28, "scope": "f",
         "allowed": False},
        {"kind": "env_read", "function": "std::env::var", "text": "std::env::var(\"A\")", "line": 28, "scope": "f"},
    ]
    text = reports.render_validate({**VALIDATE_RESULT, "facts": facts}, {"file": "src/a.rs"})
    assert "facts: 5 items (1 env_read, 1 file, 1 fn, 1 impl, 1 unwrap), the policy's input" in text
    assert "parse_line" not in text and "std::env::var" not in text, "a fact is counted, not listed"


def test_counts_of_fixes_read_as_english():
    fixes = [{"id": f"12:4-12:9/{n}/ab", "kind": "quickfix", "title": f"fix {n}"} for n in range(3)]
    text = reports.render_fixes({"fixes": fixes, "more": 2}, {"file": "src/a.rs", "line": 12})
    assert text.splitlines()[0] == "src/a.rs line 12: 3 fixes (apply one with rust_apply_fix and its id)"
    assert text.splitlines()[-1] == "... and 2 fixes more (raise `max` to see them)"
    lines = reports.render_fixes({"fixes": []}, {"file": "src/a.rs", "line": 12, "end_line": 14})
    assert lines == "src/a.rs lines 12-14: no fixes"  # a range is not a column


def test_an_impl_in_an_outline_is_named_once():
    symbols = [{"name": "impl OrderId", "kind": "impl", "line": 13, "end_line": 31, "detail": "",
                "children": [{"name": "new", "kind": "method", "line": 14, "end_line": 16, "detail": "fn() -> Self"}]},
               {"name": "OrderId", "kind": "struct", "line": 3, "end_line": 3, "detail": ""}]
    lines = reports.render_symbols({"symbols": symbols, "more": 0}, {"file": "src/a.rs"}).splitlines()
    assert lines[1:] == ["  13-31 impl OrderId", "    14-16 method new  fn() -> Self", "  3-3 struct OrderId"]


def test_long_documentation_is_cut_at_a_paragraph_and_the_rest_counted():
    summary = "A contiguous growable array type.\n\n" + "More about it. " * 60
    documentation = summary + "\n\n# Examples\n\n" + "```\nlet v = Vec::new();\n```\n" * 300
    result = {"display": "pub struct Vec<T>", "documentation": documentation}
    report = reports.render_type(result, {"file": "src/lib.rs", "line": 3, "character": 4})
    assert "A contiguous growable array type." in report and "# Examples" not in report
    omitted = len(documentation.strip()) - len(summary.rstrip())
    assert f"... and {omitted:,} more characters of documentation" in report
    assert len(report) < reports.DOC_SHOWN + 300
    structured = reports.type_structured(result, {})
    assert structured["documentation"] == summary.rstrip() and structured["documentation_omitted"] == omitted
    short = {"display": "u8", "documentation": "The 8-bit unsigned integer type."}
    assert reports.type_structured(short, {}) == short
    assert "more characters" not in reports.render_type(short, {"file": "a.rs", "line": 1, "character": 0})


def test_doc_max_asks_for_more_of_the_documentation_or_none():
    documentation = "A contiguous growable array type.\n\n" + "More about it. " * 60 + "\n\n# Examples\n\n" + "x\n" * 900
    result = {"display": "pub struct Vec<T>", "documentation": documentation}
    where = {"file": "src/lib.rs", "line": 3, "character": 4}
    whole = reports.render_type(result, {**where, "doc_max": 200_000})
    assert "# Examples" in whole and "more characters" not in whole
    assert reports.type_structured(result, {"doc_max": 200_000})["documentation"] == documentation
    bare = reports.render_type(result, {**where, "doc_max": 0})
    assert "A contiguous" not in bare and "pub struct Vec<T>" in bare
    assert f"... and {len(documentation.strip()):,} more characters of documentation (`doc_max` above 0" in bare
    cut = reports.render_type(result, where)
    assert f"(`doc_max` above {reports.DOC_SHOWN:,} shows more)" in cut


def test_a_rename_clash_is_said_before_the_edits():
    warning = {"kind": "rename-clash", "message": "`two` is already defined beside it (function at src/lib.rs:19): "
               "after this rename the code does not compile", "recipe": "choose another name"}
    result = {"changes": [{"file": "src/lib.rs", "edits": [{"line": 15, "character": 7, "end_line": 15,
                                                            "end_character": 10, "new_text": "two"}]}],
              "applied": None, "warnings": [warning]}
    lines = reports.render_edits(result, {"symbol": "one", "new_name": "two"}).splitlines()
    assert lines[1] == "warning: " + warning["message"] and lines[2] == "  fix: choose another name"
    assert lines[3] == "  src/lib.rs"


def test_a_rename_to_a_keyword_says_it_is_written_raw():
    result = {"changes": [{"file": "src/lib.rs", "edits": [{"line": 15, "character": 7, "end_line": 15,
                                                            "end_character": 10, "new_text": "r#fn"}]}],
              "applied": None}
    report = reports.render_edits(result, {"symbol": "one", "new_name": "fn"})
    assert "note: `fn` is a keyword: the analyzer writes it as the raw identifier `r#fn`" in report
    plain = reports.render_edits({**result, "changes": [{"file": "src/lib.rs", "edits": [
        {"line": 15, "character": 7, "end_line": 15, "end_character": 10, "new_text": "two"}]}]},
        {"symbol": "one", "new_name": "two"})
    assert "keyword" not in plain


def test_a_large_rename_lists_its_first_edits_and_counts_the_rest():
    edit = {"line": 1, "character": 4, "end_line": 1, "end_character": 8, "new_text": "Extent"}
    changes = [{"file": f"src/m{n}.rs", "edits": [edit] * 4} for n in range(40)]  # 160 edits in 40 files
    result = {"changes": changes, "applied": None}
    report = reports.render_edits(result, {"symbol": "Span", "new_name": "Extent"})
    assert report.splitlines()[0].startswith("rename `Span` to 'Extent': 160 edits in 40 files, not applied")
    assert report.count(" -> 'Extent'") == reports.EDITS_SHOWN
    assert "  ... and 110 more edits, 27 more files (`apply` applies them with the rest)" in report
    structured = reports.edits_structured(result, {})
    assert sum(len(c["edits"]) for c in structured["changes"]) == reports.EDITS_SHOWN
    assert structured["edits_omitted"] == 110 and len(structured["changes"]) == 13
    applied = reports.render_edits({**result, "applied": "overlay"}, {"symbol": "Span", "new_name": "Extent"})
    assert "(applied too)" in applied
    small = {"changes": changes[:2], "applied": None}
    assert reports.edits_structured(small, {}) == small and "more edit" not in reports.render_edits(small, {})
