"""rustc is the judge of the analyzer's errors: with rustc's answer in, an analyzer error on a line where
rustc reports no error is marked `unconfirmed` and goes after the others; without it nothing is marked."""

from __future__ import annotations

from ferrule.relay.compile import CompileAnswer, merged


def _rustc(line: int, code: str | None, category: str = "error") -> dict:
    return {"file": "src/lib.rs", "code": code, "category": category, "message": f"{code} (rustc)", "line": line,
            "character": 8, "source": "rustc"}


def _analyzer(line: int, code: str | None, category: str = "error") -> dict:
    return {"code": code, "category": category, "message": f"{code} (analyzer)", "line": line, "character": 4,
            "source": "rust-analyzer"}


def _verdicts(result: dict) -> list[tuple[int, str | None, str, bool]]:
    return [(d["line"], d["code"], d["source"], d.get("unconfirmed", False)) for d in result["diagnostics"]]


def test_an_error_rustc_reports_on_the_same_line_under_another_code_is_confirmed():
    result = {"diagnostics": [_analyzer(4, "E0412"), _analyzer(9, "E0599"), _analyzer(12, "E0308")]}
    merged(result, CompileAnswer([_rustc(4, "E0425"), _rustc(12, "E0308")], ms=5), "src/lib.rs", analyzer_misled=False)
    assert _verdicts(result) == [
        (4, "E0412", "rust-analyzer", False), (4, "E0425", "rustc", False), (12, "E0308", "rustc", False),
        (9, "E0599", "rust-analyzer", True)]


def test_an_error_the_analyzer_names_by_another_code_than_rustc_is_kept_once_as_rustcs():
    """`add(1)` for `fn add(a, b)`: rustc's E0061, the analyzer's E0107, one error, counted once."""
    result = {"diagnostics": [_analyzer(22, "E0107"), _analyzer(30, "E0107")]}
    merged(result, CompileAnswer([_rustc(22, "E0061"), _rustc(30, "E0107")], ms=5), "src/lib.rs",
           analyzer_misled=False)
    assert _verdicts(result) == [(22, "E0061", "rustc", False), (30, "E0107", "rustc", False)]


def test_after_a_syntax_error_rustcs_silence_judges_nothing():
    for syntax_error in (_rustc(4, None), _rustc(4, "E0765"), {**_rustc(2, None), "file": "src/other.rs"}):
        result = {"diagnostics": [_analyzer(4, "syntax-error"), _analyzer(9, "E0308")]}
        merged(result, CompileAnswer([syntax_error], ms=5), "src/lib.rs", analyzer_misled=False)
        assert not any(d.get("unconfirmed") for d in result["diagnostics"]), syntax_error


def test_a_rustc_warning_confirms_no_error_and_the_analyzers_warnings_are_never_judged():
    result = {"diagnostics": [_analyzer(3, "E0308"), _analyzer(5, "unused_variables", "warning"),
                              _analyzer(6, "inactive-code", "hint")]}
    merged(result, CompileAnswer([_rustc(3, "unused_mut", "warning")], ms=5), "src/lib.rs", analyzer_misled=False)
    assert _verdicts(result) == [
        (3, "unused_mut", "rustc", False), (5, "unused_variables", "rust-analyzer", False),
        (6, "inactive-code", "rust-analyzer", False), (3, "E0308", "rust-analyzer", True)]


def test_without_rustcs_answer_nothing_is_judged():
    result = {"diagnostics": [_analyzer(3, "E0308")]}
    error = {"kind": "timeout", "message": "cargo check did not finish", "recipe": "pass a larger `timeout_ms`"}
    merged(result, CompileAnswer(error=error, ms=30000), "src/lib.rs", analyzer_misled=False)
    assert _verdicts(result) == [(3, "E0308", "rust-analyzer", False)]
    assert result["compiled"] is False


def test_a_file_whose_target_waited_for_a_failed_build_script_or_library_is_not_judged():
    """cargo checks nothing that depends on a build script or library that fails: an example, the
    binaries, a dependent member. rustc's silence on their files judges nothing, and the answer says
    where cargo stopped; a failed library's own files were checked, and are judged."""
    def judged(rel: str, failed: tuple[str, ...], rustc: list[dict]) -> dict:
        result = {"diagnostics": [_analyzer(3, "E0308")]}
        merged(result, CompileAnswer(rustc, ms=5, failed_prerequisites=failed), rel, analyzer_misled=False)
        return result

    build_failed = judged("examples/demo.rs", ("build.rs",), [{**_rustc(4, "E0382"), "file": "build.rs"}])
    assert _verdicts(build_failed) == [(3, "E0308", "rust-analyzer", False)]
    assert build_failed["compile_stopped_at"] == ["build.rs"]
    library = ("core/src/lib.rs",)
    dependent = judged("app/src/main.rs", library, [{**_rustc(6, "E0382"), "file": "core/src/stats.rs"}])
    assert _verdicts(dependent) == [(3, "E0308", "rust-analyzer", False)]
    assert dependent["compile_stopped_at"] == ["core/src/lib.rs"]
    own_file = judged("core/src/area.rs", library, [{**_rustc(6, "E0382"), "file": "core/src/stats.rs"}])
    assert _verdicts(own_file) == [(3, "E0308", "rust-analyzer", True)] and "compile_stopped_at" not in own_file
    for binary in ("core/src/main.rs", "core/src/bin/tool.rs"):  # beside the library, yet waiting for it
        assert judged(binary, library, [])["compile_stopped_at"] == ["core/src/lib.rs"], binary
    assert "compile_stopped_at" not in judged("core/build.rs", library, [])  # it waits for no library
    assert "compile_stopped_at" not in judged("src/a.rs", ("lib.rs",), [])  # a library rooted at the package's top
    reported_here = judged("examples/demo.rs", ("build.rs",), [{**_rustc(9, "E0599"), "file": "examples/demo.rs"}])
    assert "compile_stopped_at" not in reported_here  # rustc reached it after all
