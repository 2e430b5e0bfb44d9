"""A validate answer cut to fit a model's context: every list capped and the rest counted by kind, facts
left out unless asked for; the MCP report, its structured result and `ferrule validate`'s text agree."""

from __future__ import annotations

import json

import jsonschema
import pytest

from ferrule.project import BadRequest
from ferrule.relay import terminal
from ferrule.relay.digest import (
    ADVICE_SHOWN,
    ELSEWHERE_SHOWN,
    ERRORS_SHOWN,
    FINDINGS_SHOWN,
    NOTES_SHOWN,
    RELATED_SHOWN,
    UNCONFIRMED_SHOWN,
    WARNINGS_SHOWN,
    compact,
    digest,
)
from ferrule.relay.params import ValidateParams, parse_params
from ferrule.tools.descriptors import RUST_VALIDATE, VALIDATE_OUTPUT
from ferrule.tools.relay_tools import _validate_structured
from ferrule.tools.reports import render_validate

ERRORS = ERRORS_SHOWN + 10
INACTIVE = 'code is inactive due to #[cfg] directives: feature = "full" is disabled'


def _diagnostic(line: int, category: str, code: str | None, message: str, source: str = "rust-analyzer",
                **extra) -> dict:
    return {"code": code, "category": category, "message": message, "line": line, "character": 4,
            "source": source, **extra}


def _fact(kind: str, n: int) -> dict:
    return {"kind": kind, "name": f"{kind}_{n}", "line": n, "end_line": n + 3, "visibility": "pub", "scope": "",
            "parent": None, "public": True, "doc": None, "doctest": False, "hidden": False, "test": False}


def _clean_large_file() -> dict:
    """The answer for a clean 3.5k-line file with a hundred `#[cfg]`-gated items (syn's expr.rs)."""
    return {
        "diagnostics": [_diagnostic(3 + 30 * n, "hint", "inactive-code", INACTIVE) for n in range(107)],
        "facts": [_fact("fn", n) for n in range(138)] + [_fact("impl", n) for n in range(104)]
        + [_fact("use", n) for n in range(18)],
        "markers": [],
        "conform_findings": [{"rule": "file-too-long", "message": "3558 lines, over max_file_lines = 1000",
                              "line": 1, "baselined": False}],
        "advice": ["line 1: file-too-long 3558 lines, over max_file_lines = 1000: split the file into modules"],
        "degraded": False,
    }


def _flooded() -> dict:
    """More of everything than its cap."""
    errors = [_diagnostic(n, "error", "E0308", f"mismatched types {n}", "rustc") for n in range(1, ERRORS + 1)]
    warnings = [_diagnostic(100 + n, "warning", "unused_variables", f"unused variable {n}", "rustc")
                for n in range(40)]
    hints = [_diagnostic(200 + n, "hint", "inactive-code" if n % 3 else "unused_mut", "a hint") for n in range(90)]
    findings = [{"rule": "unwrap-in-domain", "message": "`.unwrap()`", "line": n, "baselined": n % 2 == 0}
                for n in range(30)]
    return {"diagnostics": [*hints, *warnings, *errors], "facts": [_fact("fn", 1)], "markers": [],
            "conform_findings": findings, "advice": [f"advice {n}" for n in range(30)], "degraded": False}


def test_a_clean_large_file_answers_in_a_few_lines_with_the_hints_counted_by_kind():
    result = _clean_large_file()
    text = render_validate(result, {"file": "src/expr.rs"})
    structured = _validate_structured(result, {"file": "src/expr.rs"})
    jsonschema.validate(structured, VALIDATE_OUTPUT)
    assert len(text.encode()) + len(json.dumps(structured).encode()) < 4096
    assert text.splitlines()[0] == ("src/expr.rs: 0 errors, 0 warnings, 107 notes; 1 policy finding (1 new, 0 baselined)"
                                    " (rust-analyzer alone: compile check off)")
    assert f"notes (hints and information, counted by kind): 107 inactive-code; the first {NOTES_SHOWN}:" in text
    assert text.count("hint[inactive-code]") == NOTES_SHOWN
    assert "facts: 260 items (138 fn, 104 impl, 18 use)" in text and "include_facts: true" in text
    assert structured["diagnostic_counts"] == {"hint": 107}
    assert structured["note_kinds"] == {"inactive-code": 107}
    assert len(structured["diagnostics"]) == NOTES_SHOWN and structured["diagnostics_omitted"] == 107 - NOTES_SHOWN
    assert structured["facts"] == [] and structured["fact_counts"] == {"fn": 138, "impl": 104, "use": 18}


def test_include_facts_brings_every_fact_back():
    result = _clean_large_file()
    structured = _validate_structured(result, {"file": "src/expr.rs", "include_facts": True})
    jsonschema.validate(structured, VALIDATE_OUTPUT)
    assert structured["facts"] == result["facts"]


def test_every_list_is_capped_with_the_rest_counted_by_kind():
    result = _flooded()
    cut = digest(result)
    assert len(cut.errors) == ERRORS_SHOWN and cut.errors_omitted == ERRORS - ERRORS_SHOWN
    structured = compact(result)
    jsonschema.validate(structured, VALIDATE_OUTPUT)
    shown = structured["diagnostics"]
    assert [d["line"] for d in shown if d["category"] == "error"] == list(range(1, ERRORS_SHOWN + 1))
    assert sum(1 for d in shown if d["category"] == "warning") == WARNINGS_SHOWN
    assert sum(1 for d in shown if d["category"] == "hint") == NOTES_SHOWN
    assert structured["diagnostics_omitted"] == ERRORS - ERRORS_SHOWN + 40 - WARNINGS_SHOWN + 90 - NOTES_SHOWN
    assert structured["diagnostic_counts"] == {"hint": 90, "error": ERRORS, "warning": 40}
    assert structured["error_kinds"] == {"E0308": ERRORS}
    assert structured["warning_kinds"] == {"unused_variables": 40}
    assert structured["note_kinds"] == {"inactive-code": 60, "unused_mut": 30}
    assert len(structured["conform_findings"]) == FINDINGS_SHOWN
    assert structured["conform_findings_omitted"] == 30 - FINDINGS_SHOWN
    assert not any(f["baselined"] for f in structured["conform_findings"]), "new findings come first"
    assert len(structured["advice"]) == ADVICE_SHOWN and structured["advice_omitted"] == 30 - ADVICE_SHOWN

    text = render_validate(result, {"file": "src/lib.rs"})
    assert text.splitlines()[0] == (f"src/lib.rs: {ERRORS} errors, 40 warnings, 90 notes; "
                                    "30 policy findings (15 new, 15 baselined) (rust-analyzer alone: compile check off)")
    assert (f"diagnostics (errors by kind: {ERRORS} E0308; the first {ERRORS_SHOWN}; "
            f"warnings by kind: 40 unused_variables; the first {WARNINGS_SHOWN}):") in text
    for n in range(1, ERRORS_SHOWN + 1):
        assert f"  {n}:4 error[E0308] (rustc): mismatched types {n}\n" in text + "\n"
    assert text.count("error[E0308]") == ERRORS_SHOWN
    assert f"  ... and {ERRORS - ERRORS_SHOWN} more errors (fix those above and validate again to see them)" in text
    assert text.count("warning[unused_variables]") == WARNINGS_SHOWN
    assert f"  ... and {40 - WARNINGS_SHOWN} more warnings (fix those above and validate again to see them)" in text
    assert f"  ... and {30 - FINDINGS_SHOWN} more findings (rust_check lists every one)" in text
    assert "notes (hints and information, counted by kind): 60 inactive-code, 30 unused_mut" in text


def test_the_terminal_text_follows_the_same_shape():
    text = terminal.validation("src/lib.rs", _flooded())
    lines = text.splitlines()
    assert sum(1 for line in lines if "error[E0308]" in line) == ERRORS_SHOWN
    assert f"... and {ERRORS - ERRORS_SHOWN} more errors (--json lists every one)" in lines
    assert sum(1 for line in lines if "warning[unused_variables]" in line) == WARNINGS_SHOWN
    assert f"... and {40 - WARNINGS_SHOWN} more warnings (--json lists every one)" in lines
    assert sum(1 for line in lines if "hint[" in line) == NOTES_SHOWN
    assert f"notes: 60 inactive-code, 30 unused_mut; the first {NOTES_SHOWN}:" in lines
    assert sum(1 for line in lines if "policy[" in line) == FINDINGS_SHOWN
    assert lines[-1] == f"src/lib.rs: {ERRORS} errors, 40 warnings, 90 hints (rust-analyzer alone: compile check off); 30 policy findings (15 new); 1 facts"


def test_an_unconfirmed_error_is_listed_after_the_confirmed_ones_and_rustc_is_named_the_judge():
    result = {"diagnostics": [
        _diagnostic(8, "error", "E0308", "expected u32, found &'static str", unconfirmed=True),
        _diagnostic(2, "error", "E0308", "mismatched types", "rustc"),
        _diagnostic(5, "warning", "unused_variables", "unused variable: `x`", "rustc"),
    ], "facts": [], "markers": [], "conform_findings": [], "advice": [], "degraded": False,
        "compiled": True, "compile_ms": 900, "elsewhere": []}
    structured = compact(result)
    jsonschema.validate(structured, VALIDATE_OUTPUT)
    assert [(d["line"], d.get("unconfirmed", False)) for d in structured["diagnostics"]] == [
        (2, False), (8, True), (5, False)]
    text = render_validate(result, {"file": "src/lib.rs"})
    lines = text.splitlines()
    assert lines[0] == "src/lib.rs: 2 errors (1 unconfirmed by rustc), 1 warning; 0 policy findings"
    heading = next(i for i, line in enumerate(lines) if line.startswith("unconfirmed: 1 error"))
    assert "rustc is the judge" in lines[heading]
    assert lines[heading + 1] == "  8:4 error[E0308]: expected u32, found &'static str"
    assert lines.index("  2:4 error[E0308] (rustc): mismatched types") < heading
    assert "rustc is the judge" in lines[-1]
    cli = terminal.validation("src/lib.rs", result).splitlines()
    assert cli[-2].endswith("(unconfirmed: rustc reports no error here)") and cli[-2].startswith("src/lib.rs:8:5")
    assert "(1 unconfirmed by rustc, the judge)" in cli[-1]


def test_the_tool_declares_include_facts_and_its_output_schema():
    jsonschema.Draft202012Validator.check_schema(RUST_VALIDATE["outputSchema"])
    assert RUST_VALIDATE["inputSchema"]["properties"]["include_facts"]["type"] == "boolean"


def test_the_relay_takes_include_facts_as_a_boolean():
    params = parse_params("validate", ValidateParams, {"file": "src/lib.rs", "include_facts": False}, None)
    assert params.include_facts is False
    with pytest.raises(BadRequest, match="`include_facts` must be a boolean, got string"):
        parse_params("validate", ValidateParams, {"file": "src/lib.rs", "include_facts": "no"}, None)


def test_errors_in_other_files_are_capped_on_top_of_the_relays_cap_and_counted():
    elsewhere = [{**_diagnostic(n, "error", "E0061", "takes 2 arguments", "rustc"), "file": f"src/m{n}.rs"}
                 for n in range(1, 51)]
    result = {**_clean_large_file(), "compiled": True, "compile_ms": 10, "elsewhere": elsewhere,
              "elsewhere_omitted": 7}
    structured = compact(result)
    jsonschema.validate(structured, VALIDATE_OUTPUT)
    assert [d["file"] for d in structured["elsewhere"]] == [f"src/m{n}.rs" for n in range(1, ELSEWHERE_SHOWN + 1)]
    assert structured["elsewhere_omitted"] == 57 - ELSEWHERE_SHOWN
    text = render_validate(result, {"file": "src/expr.rs"})
    assert "57 errors in other files" in text.splitlines()[0]
    assert text.count("error[E0061]") == ELSEWHERE_SHOWN
    assert f"  ... and {57 - ELSEWHERE_SHOWN} more (rust_validate on those files lists theirs)" in text


def test_rustcs_related_lines_come_under_the_first_diagnostics_that_have_them_in_every_shape():
    related = ["line 4: immutable borrow occurs here", "help: consider cloning the value: `.clone()`"]
    errors = [_diagnostic(n, "error", "E0502", f"cannot borrow {n}", "rustc", related=related) for n in range(1, 16)]
    result = {**_clean_large_file(), "diagnostics": errors, "compiled": True, "compile_ms": 10}
    structured = compact(result)
    jsonschema.validate(structured, VALIDATE_OUTPUT)
    kept = [d for d in structured["diagnostics"] if "related" in d]
    assert [d["line"] for d in kept] == list(range(1, RELATED_SHOWN + 1)) and kept[0]["related"] == related
    assert all("related" in d for d in result["diagnostics"]), "the answer itself is left whole"
    report = render_validate(result, {"file": "src/lib.rs"}).splitlines()
    first = report.index("  1:4 error[E0502] (rustc): cannot borrow 1")
    assert report[first + 1:first + 3] == ["      " + line for line in related]
    assert report.count("      " + related[0]) == RELATED_SHOWN
    text = terminal.validation("src/lib.rs", result).splitlines()
    first = text.index("src/lib.rs:1:5: error[E0502] (rustc): cannot borrow 1")
    assert text[first + 1:first + 3] == ["    " + line for line in related]
    assert text.count("    " + related[0]) == RELATED_SHOWN


def test_the_unconfirmed_errors_are_capped_and_counted_the_confirmed_never():
    confirmed = [_diagnostic(n, "error", "E0308", "mismatched types", "rustc") for n in range(1, 31)]
    blind = [_diagnostic(100 + n, "error", "E0599", "no method `wrapping_add` on type `u64`", unconfirmed=True)
             for n in range(400)]
    result = {"diagnostics": [*blind, *confirmed], "facts": [], "markers": [], "conform_findings": [], "advice": [],
              "degraded": False, "compiled": True, "compile_ms": 900, "elsewhere": []}
    structured = compact(result)
    jsonschema.validate(structured, VALIDATE_OUTPUT)
    errors = structured["diagnostics"]
    assert [d["line"] for d in errors[:30]] == list(range(1, 31))
    assert [d["line"] for d in errors[30:]] == list(range(100, 100 + UNCONFIRMED_SHOWN))
    assert structured["diagnostics_omitted"] == 400 - UNCONFIRMED_SHOWN
    assert structured["diagnostic_counts"] == {"error": 430}
    text = render_validate(result, {"file": "src/lib.rs"})
    assert text.splitlines()[0].startswith("src/lib.rs: 430 errors (400 unconfirmed by rustc)")
    assert f"(rustc is the judge: these are likely not real, or in code rustc does not build); the first " \
           f"{UNCONFIRMED_SHOWN}:" in text
    assert text.count("error[E0599]") == UNCONFIRMED_SHOWN and text.count("error[E0308] (rustc)") == 30
    assert len(text) < 4096
    cli = terminal.validation("src/lib.rs", result)
    assert cli.count("error[E0599]") == UNCONFIRMED_SHOWN
    assert f"... and {400 - UNCONFIRMED_SHOWN} more unconfirmed errors (--json lists every one)" in cli


def test_a_warning_is_followed_by_rustcs_role_only_where_rustc_sees_more_than_the_analyzer():
    from ferrule.relay.blind import unlinked_file
    from ferrule.relay.health import PROC_MACRO_KIND, PROC_MACRO_RECIPE

    unexpanded = {"kind": PROC_MACRO_KIND, "message": "proc-macros are not expanded", "recipe": PROC_MACRO_RECIPE}
    base = {"diagnostics": [], "facts": [], "markers": [], "conform_findings": [], "advice": [], "degraded": True}
    text = render_validate({**base, "warnings": [unexpanded]}, {"file": "src/lib.rs"})
    assert "validate with `compile` for rustc's answer" in text
    compiled = render_validate({**base, "warnings": [unexpanded], "compiled": True, "compile_ms": 5},
                               {"file": "src/lib.rs"})
    assert "rustc's answer below is the one to trust" in compiled
    unlinked = unlinked_file("src/stray.rs", [_diagnostic(1, "hint", "unlinked-file", "file not included")])
    assert unlinked is not None
    text = render_validate({**base, "warnings": [unlinked]}, {"file": "src/stray.rs"})
    assert unlinked["recipe"] in text and "rustc" not in text


def test_a_file_no_crate_includes_is_not_called_clean_nor_checked_by_rustc():
    from ferrule.relay.blind import unlinked_file

    unlinked = unlinked_file("src/stray.rs", [_diagnostic(1, "hint", "unlinked-file", "file not included")])
    assert unlinked is not None
    hint = {"code": "unlinked-file", "category": "hint", "message": "This file is not included in any crates",
            "line": 1, "character": 0, "source": "rust-analyzer"}  # what the analyzer sends with it
    base = {"diagnostics": [hint], "facts": [], "markers": [], "conform_findings": [], "advice": [],
            "degraded": True, "warnings": [unlinked], "compiled": True, "compile_ms": 2300}
    text = render_validate(base, {"file": "src/stray.rs"})
    headline = next(line for line in text.splitlines() if line.startswith("src/stray.rs: "))
    assert headline.startswith("src/stray.rs: unchecked: no crate includes this file"), text
    assert "clean" not in text and "rustc checked this text" not in text
    assert "compile check: rustc built the project in 2.3 s, but no crate includes this file" in text
    cli = terminal.validation("src/stray.rs", base)
    assert "checked by rustc" not in cli and "rustc built the project in 2.3 s without it" in cli
    assert "src/stray.rs: unchecked: no crate includes this file" in cli and cli.count("no crate includes") == 1
