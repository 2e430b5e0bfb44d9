"""rust_validate's report of a compile check: a missing std first, rustc's errors before the analyzer's,
then the other files the change breaks, then how long the check took or why it did not run."""

from __future__ import annotations

from ferrule.tools.relay_tools import _validate_params
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


def test_a_check_that_could_not_run_says_why_and_how_to_fix_it():
    error = {"kind": "timeout", "message": "cargo check did not finish", "recipe": "pass a larger `timeout_ms`"}
    result = {**BASE, "degraded": False, "compiled": False, "compile_ms": 30000, "compile_error": error,
              "diagnostics": []}
    text = render_validate(result, {"file": "src/lib.rs"}).splitlines()
    assert text[-2] == "compile check: not run (timeout, 30.0 s): cargo check did not finish"
    assert text[-1] == "  fix: pass a larger `timeout_ms`"
