"""Where the analyzer is blind, the words an answer carries: the cause and the fix, before the answer,
on the terminal and in the MCP report. (The live cases: tests/relay/test_workspace.py and
test_proc_macros_unexpanded.py.)"""

from __future__ import annotations

from ferrule.relay import terminal
from ferrule.relay.blind import inactive, inactive_at, unlinked_file
from ferrule.relay.health import analyzer_warnings
from ferrule.tools.reports import render_complete, render_scope, render_type

UNEXPANDED = {"health": "warning", "quiescent": True,
              "message": "Failed spawning proc-macro server for workspace `/w/Cargo.toml`: Failed to run proc-macro "
                         "server from path /usr/libexec/rust-analyzer-proc-macro-srv, error: version mismatch"}
SERVER_ERROR = {"code": "macro-error", "message": "proc macro server error: Failed to run proc-macro server"}


def inactive_hint(start: tuple[int, int], end: tuple[int, int]) -> dict:
    return {"code": "inactive-code", "message": 'code is inactive due to #[cfg] directives: feature = "full" is disabled',
            "range": {"start": {"line": start[0], "character": start[1]}, "end": {"line": end[0], "character": end[1]}}}


def test_a_proc_macro_server_failure_matters_only_where_a_file_shows_it():
    assert analyzer_warnings(UNEXPANDED) == []  # a project with no proc-macro use loses nothing
    (warning,) = analyzer_warnings(UNEXPANDED, [SERVER_ERROR])
    assert warning["kind"] == "proc-macros-unexpanded"
    assert "/usr/libexec/rust-analyzer-proc-macro-srv" in warning["message"]
    assert "rustup component add rust-analyzer" in warning["recipe"]


def test_a_server_that_fails_only_when_asked_is_reported_from_the_macro_error():
    # an older analyzer starts a newer toolchain's server with a healthy status, then gets no answer
    healthy = {"health": "ok", "quiescent": True}
    silent = {"code": "macro-error", "message": "proc-macro server did not respond with data"}
    (warning,) = analyzer_warnings(healthy, [silent])
    assert warning["kind"] == "proc-macros-unexpanded" and warning["message"].endswith("did not respond with data")
    assert "rustup component add rust-analyzer" in warning["recipe"]


def test_a_macro_error_of_the_users_own_macro_carries_nothing():
    own = {"code": "macro-error", "message": "no rules expected the token `,`"}
    assert analyzer_warnings({"health": "ok", "quiescent": True}, [own]) == []


def test_inactive_code_is_found_by_its_range():
    hints = [inactive_hint((22, 0), (26, 1))]
    assert inactive_at(hints, 21, 4) is None
    warning = inactive_at(hints, 24, 8)
    assert warning is not None and warning["message"].startswith('inactive: feature = "full" is disabled')
    assert "`cargo check --features full`" in warning["recipe"]


def test_a_cfg_that_is_no_feature_gets_a_general_recipe():
    warning = inactive('code is inactive due to #[cfg] directives: target_os = "windows" is disabled')
    assert warning["message"].startswith('inactive: target_os = "windows" is disabled')
    assert "configuration that switches it on" in warning["recipe"]


def test_an_unlinked_file_names_the_module_to_declare():
    assert unlinked_file("src/a.rs", [{"code": "inactive-code"}]) is None
    warning = unlinked_file("crates/core/src/orphan.rs", [{"code": "unlinked-file", "message": "not included"}])
    assert warning is not None and "not part of any crate" in warning["message"]
    assert "`mod orphan;`" in warning["recipe"]


def test_an_empty_type_answer_says_why_on_the_terminal_and_in_the_report():
    warning = inactive('code is inactive due to #[cfg] directives: feature = "full" is disabled')
    result = {"display": "", "documentation": "", "degraded": True, "warnings": [warning]}
    text = terminal.type_text(result)
    assert text.startswith('warning: inactive: feature = "full" is disabled')
    assert "nothing known" not in text
    report = render_type(result, {"file": "src/lib.rs", "line": 25, "character": 8}).splitlines()
    assert report[0] == "src/lib.rs 25:8: the analyzer cannot see here"
    assert report[1].startswith('warning: inactive: feature = "full" is disabled')
    assert report[2].startswith("  fix: the analyzer sees the package with its default features only")


def test_completions_and_scope_say_first_what_they_may_lack():
    std = {"kind": "std-unloaded", "message": "rust-analyzer did not load the standard library",
           "recipe": "set RUST_SRC_PATH"}
    entries = {"entries": [{"name": "len", "kind": "method", "type_text": "fn(&self) -> usize", "unsafe": False}],
               "degraded": True, "warnings": [std]}
    names = {"symbols": [], "more": 0, "cell": "crate", "seam_file": None, "branded": [],
             "degraded": True, "warnings": [std]}
    at = {"file": "src/lib.rs", "line": 3, "character": 4}
    for report in (render_complete(entries, at), render_complete({**entries, "entries": []}, at),
                   render_scope(names, {"file": "src/lib.rs"})):
        assert report.splitlines()[1:3] == ["warning: rust-analyzer did not load the standard library",
                                            "  fix: set RUST_SRC_PATH"], report
    for text in (terminal.completions(entries), terminal.scope(names)):
        assert text.startswith("warning: rust-analyzer did not load the standard library\n  to fix: set RUST_SRC_PATH")
