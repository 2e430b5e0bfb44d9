"""rustc's answer joined to the analyzer's diagnostics for the op's file, and the switches that turn the
shadow check off for a project."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from ferrule.project import ErrorRecord
from ferrule.relay.compile.checker import CompileAnswer
from ferrule.relay.results import Diagnostic, ElsewhereDiagnostic, ValidateResult

ELSEWHERE_CAP = 50
# rustc's lexer errors (unterminated literals and comments); its parser's errors carry no code
LEXER_CODES = frozenset({"E0748", "E0758", "E0762", "E0763", "E0765", "E0766"})
NO_COMPILE_ENV = "FERRULE_NO_COMPILE"
# rust-analyzer's code for an error rustc reports under another: a call with the wrong number of
# arguments is rustc's E0061 (E0060 for a variadic one, E0050 for a trait method's definition), the
# analyzer's E0107 (rustc's own E0107 is about generic arguments)
_RUSTC_CODES: dict[str | None, tuple[str | None, ...]] = {"E0107": ("E0107", "E0061", "E0060", "E0050")}


def compile_disabled(project_allows: bool) -> ErrorRecord | None:
    """Why compile checks are off here (cargo runs build scripts and proc macros), or None."""
    if os.environ.get(NO_COMPILE_ENV, "") not in ("", "0"):
        return {"kind": "disabled", "message": f"compile checks are off: {NO_COMPILE_ENV} is set",
                "recipe": f"unset {NO_COMPILE_ENV} to let validate run `cargo check` in a mirror of the project"}
    if not project_allows:
        return {"kind": "disabled", "message": "compile checks are off: conform.toml sets `[relay] compile = false`",
                "recipe": "remove `compile = false` from conform.toml's [relay] table and init again"}
    return None


def _local(diagnostic: ElsewhereDiagnostic) -> Diagnostic:
    return {key: value for key, value in diagnostic.items() if key != "file"}  # type: ignore[return-value]


def merged(result: ValidateResult, answer: CompileAnswer, rel: str, *, analyzer_misled: bool) -> None:
    """Add rustc's answer to `result` (whose diagnostics are the analyzer's for `rel`).

    An error both report (same line, same code: rustc's, or the analyzer's name for it) is kept once,
    as rustc's. When the analyzer is misled
    (std not loaded, proc-macros not expanded) its errors are artefacts of what it lacks: rustc, which
    has it, stands for them. rustc is the
    judge: an analyzer error on a line where rustc reports none is marked `unconfirmed` and goes after
    the others. But a syntax error may stop rustc before type checking, and a build script or library
    that fails stops cargo before the targets that wait for it (an example, the binaries, a dependent
    member): rustc's silence then judges nothing, and nothing is marked."""
    result["compile_ms"] = answer.ms
    if answer.error is not None:
        result["compiled"] = False
        result["compile_error"] = answer.error
        return
    result["compiled"] = True
    own = [_local(d) for d in answer.diagnostics if d["file"] == rel]
    confirmed = {(d["code"], d["line"]) for d in own}
    analyzer = [d for d in result["diagnostics"]
                if not any((code, d["line"]) in confirmed for code in _RUSTC_CODES.get(d["code"], (d["code"],)))
                and not (analyzer_misled and d["category"] == "error")]
    judged = {d["line"] for d in own if d["category"] == "error"}
    stopped_at = [] if own else _waited_for(rel, answer.failed_prerequisites)
    if stopped_at:
        result["compile_stopped_at"] = stopped_at
    if not stopped_at_syntax(answer.diagnostics) and not stopped_at:
        for d in analyzer:
            if d["category"] == "error" and d["line"] not in judged:
                d["unconfirmed"] = True
    result["diagnostics"] = sorted(own + analyzer,
                                   key=lambda d: (d.get("unconfirmed", False), d["line"], d["character"]))
    others = sorted((d for d in answer.diagnostics if d["file"] != rel and d["category"] == "error"),
                    key=lambda d: (d["file"], d["line"], d["character"]))
    result["elsewhere"] = others[:ELSEWHERE_CAP]
    if len(others) > ELSEWHERE_CAP:
        result["elsewhere_omitted"] = len(others) - ELSEWHERE_CAP


def _waited_for(rel: str, failed: Iterable[str]) -> list[str]:
    """The failed build scripts and libraries a target holding `rel` may have waited for, so that
    rustc never checked it: every target waits for a build script; a library's own files are those
    below its root's folder but the binaries' roots there (`src/main.rs`, `src/bin/`), and the rest
    wait for it."""
    def libraries_own(root: str) -> bool:
        folder = os.path.dirname(root) + "/" if os.path.dirname(root) else ""
        return rel.startswith(folder) and rel != folder + "main.rs" and not rel.startswith(folder + "bin/")

    if os.path.basename(rel) == "build.rs":
        return []  # a build script waits for its build-dependencies, none of the project's targets
    return [root for root in failed
            if root != rel and (os.path.basename(root) == "build.rs" or not libraries_own(root))]


def stopped_at_syntax(diagnostics: Iterable[Mapping[str, Any]]) -> bool:
    """Whether rustc reported a syntax error in the package, after which it may have checked no types."""
    return any(d.get("source", "rustc") == "rustc" and d.get("category") == "error"
               and (d.get("code") is None or d.get("code") in LEXER_CODES) for d in diagnostics)


__all__ = ["ELSEWHERE_CAP", "LEXER_CODES", "NO_COMPILE_ENV", "compile_disabled", "merged", "stopped_at_syntax"]
