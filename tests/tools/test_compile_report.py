"""rust_validate's report of a compile check: a missing std first, rustc's errors before the analyzer's,
then the other files the change breaks, then how long the check took or why it did not run."""

from __future__ import annotations

from ferrule.relay.terminal import validation
from ferrule.tools.relay_tools import _validate_params, _validate_structured
from ferrule.tools.reports import render_validate

BASE = {"facts": [], "markers": [], "conform_findings": [], "advice": []}


def _diagnostic(line: int, source: str, code: str, message: str) -> dict:
    return {"code": code, "category": "error", "message": message, "line": line, "character": 4, "source": source}


def test_the_compile_check_is_on_unless_turned_off():
    assert _validate_params({"file": "src/lib.rs"})["compile"] is True
    assert _validate_params({"file": "src/lib.rs", "compile": False})["compile"] is False


def test_rustc_comes_first_then_other_files_then_the_time():
    result = {**BASE, "degraded": False, "compiled": True, "compile_ms": 1250,
              "diagnostics": [_diagnostic(2, "rust-analyzer", "unused", "unused variable"),
                              _diagnostic(9, "rustc", "E0382", "borrow of moved value: `v`")],
              "elsewhere": [{**_diagnostic(2, "rustc", "E0061", "this function takes 2 arguments"),
                             "file": "src/orders.rs"}],
              "elsewhere_omitted": 3}
    text = render_validate(result, {"file": "src/lib.rs"}).splitlines()
    assert text[0] == "src/lib.rs: 2 errors, 0 warnings, 4 errors in other files; 0 policy findings"
    rustc, analyzer = text.index("  9:4 error[E0382] (rustc): borrow of moved value: `v`"), \
        text.index("  2:4 error[unused]: unused variable")
    assert rustc < analyzer
    other = text.index("errors in other files (rustc): 4")
    assert text[other + 1] == "  src/orders.rs 2:4 error[E0061] (rustc): this function takes 2 arguments"
    assert text[other + 2] == "  ... and 3 more (rust_validate on those files lists theirs)"
    assert text[-1].startswith("compile check: rustc checked this text in 1.2 s; rustc is the judge")


def test_a_missing_std_is_said_first_and_rustc_is_the_one_to_trust():
    warning = {"kind": "std-unloaded", "message": "rust-analyzer did not load the standard library",
               "recipe": "rustup component add rust-src"}
    result = {**BASE, "degraded": True, "warnings": [warning], "compiled": True, "compile_ms": 10,
              "diagnostics": [], "elsewhere": []}
    text = render_validate(result, {"file": "src/lib.rs"}).splitlines()
    assert text[0] == "warning: rust-analyzer did not load the standard library"
    assert "rustup component add rust-src" in text[1] and "one to trust" in text[2]
    assert "push channel" not in "\n".join(text)


def test_a_check_that_could_not_run_is_no_clean_bill_and_says_why_first():
    error = {"kind": "cargo-failed", "recipe": "run `cargo check --all-targets` in the project root",
             "message": "cargo check failed: error: no matching package named `nope` found"}
    result = {**BASE, "degraded": False, "compiled": False, "compile_ms": 100, "compile_error": error,
              "diagnostics": []}
    text = render_validate(result, {"file": "src/lib.rs"}).splitlines()
    assert text[0] == ("src/lib.rs: unverified: no diagnostics by rust-analyzer alone; the compile check could not "
                       "run (cargo check failed: error: no matching package named `nope` found), so errors only "
                       "rustc finds (the borrow checker's among them) may be missing; 0 policy findings")
    assert text[1:3] == ["compile check: not run (cargo-failed, 0.1 s): " + error["message"],
                         "  fix: run `cargo check --all-targets` in the project root"]
    assert "clean" not in "\n".join(text)
    assert _validate_structured(result, {"file": "src/lib.rs"})["compile_check"] == "failed"
    terminal_text = validation("src/lib.rs", result)
    assert terminal_text.splitlines()[-1].startswith("src/lib.rs: unverified: no diagnostics by rust-analyzer alone")


def test_errors_found_while_the_check_could_not_run_are_said_to_be_the_analyzers_alone():
    error = {"kind": "timeout", "message": "cargo check did not finish", "recipe": "pass a larger `timeout_ms`"}
    result = {**BASE, "degraded": False, "compiled": False, "compile_ms": 30000, "compile_error": error,
              "diagnostics": [_diagnostic(3, "rust-analyzer", "E0308", "mismatched types")]}
    text = render_validate(result, {"file": "src/lib.rs"}).splitlines()
    assert text[0].startswith("src/lib.rs: unverified: 1 error, 0 warnings by rust-analyzer alone; the compile "
                              "check could not run (cargo check did not finish)")
    assert text[1] == "compile check: not run (timeout, 30.0 s): cargo check did not finish"
    assert "  3:4 error[E0308]: mismatched types" in text


def test_a_check_switched_off_leaves_the_analyzers_verdict_said_as_such_without_alarm():
    off = {"kind": "disabled", "message": "compile checks are off: FERRULE_NO_COMPILE is set",
           "recipe": "unset FERRULE_NO_COMPILE"}
    switched_off = {**BASE, "degraded": False, "compiled": False, "compile_ms": 0, "compile_error": off,
                    "diagnostics": []}
    not_asked = {**BASE, "degraded": False, "diagnostics": []}
    for result in (switched_off, not_asked):
        text = render_validate(result, {"file": "src/lib.rs"}).splitlines()
        assert text[0] == "src/lib.rs: clean: no diagnostics, no policy findings (rust-analyzer alone: compile check off)"
        assert _validate_structured(result, {"file": "src/lib.rs"})["compile_check"] == "off"
    assert render_validate(switched_off, {"file": "src/lib.rs"}).splitlines()[-1] == "  fix: unset FERRULE_NO_COMPILE"


def test_after_a_syntax_error_rustc_is_not_called_the_judge():
    result = {**BASE, "degraded": False, "compiled": True, "compile_ms": 100,
              "diagnostics": [{**_diagnostic(9, "rustc", "", "this file contains an unclosed delimiter"), "code": None},
                              _diagnostic(3, "rust-analyzer", "E0308", "mismatched types")], "elsewhere": []}
    text = render_validate(result, {"file": "src/lib.rs"})
    assert "unconfirmed" not in text and "stopped at a syntax error" in text.splitlines()[-1]


def test_a_file_cargo_stopped_before_is_unverified_in_the_headline_and_the_last_line_says_where():
    result = {**BASE, "degraded": False, "compiled": True, "compile_ms": 200,
              "compile_stopped_at": ["crates/core/build.rs"],
              "diagnostics": [_diagnostic(3, "rust-analyzer", "E0308", "expected u8, found usize")],
              "elsewhere": [{**_diagnostic(4, "rustc", "E0382", "borrow of moved value: `v`"), "file": "crates/core/build.rs"}]}
    text = render_validate(result, {"file": "crates/core/examples/demo.rs"}).splitlines()
    assert text[0] == ("crates/core/examples/demo.rs: unverified: 1 error, 0 warnings by rust-analyzer alone; cargo "
                       "stopped at crates/core/build.rs, which failed, before rustc checked this file, so errors only "
                       "rustc finds (the borrow checker's among them) may be missing; 1 error in other files; "
                       "0 policy findings")
    assert text[-1].startswith("compile check: cargo stopped at crates/core/build.rs, which failed, before checking")
    shell = validation("crates/core/examples/demo.rs", result)
    assert "not checked by rustc: cargo stopped at crates/core/build.rs, which failed" in shell
