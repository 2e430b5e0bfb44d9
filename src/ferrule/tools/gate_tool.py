"""`rust_check`: the policy gate (`ferrule check`) as an MCP tool.

The gate reads the files on disk, not the analyzer, so it needs no rust-analyzer and no relay
session. conform.toml and the baseline are read afresh on every call: an agent that edits either
sees the effect at once. A gate that fails (new findings) is an `isError` result, like a failing CI
step; its report lists each new finding with the cited GUIDE requirement and the fix.

It takes its turn with the analyzer tools (docs/MCP.md section 4.4): `rust_rename` and `rust_apply_fix`
may write the files it reads, so a check sent after such an edit, in one read or not, sees the edit.
Its calls run beside the reading, so a `ping` is answered while a check waits for an earlier call
(indexing included).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ferrule.conform.advice import describe
from ferrule.conform.baseline import BaselineError
from ferrule.conform.config import ConfigError
from ferrule.conform.gate import Reported, gate_json, run_gate
from ferrule.conform.policy import Policy
from ferrule.mcp import ToolOutput
from ferrule.project import BadRequest, FerruleError, ProjectRoot, WorkspaceUnloadable
from ferrule.tools.descriptors import RUST_CHECK
from ferrule.tools.reports import error_output

_BASELINE_HINT = "run `ferrule check --update-baseline` in the project to drop them from the baseline"


def _selection(root: ProjectRoot, paths: Iterable[str]) -> list[str]:
    """Root-relative files and directories (a directory ends in `/`); BadRequest when unsafe or absent."""
    chosen = []
    for given in paths:
        file = root.file(given)
        if not file.path.exists():
            raise BadRequest(f"no such file or directory in the project: {given!r}",
                                "name files or directories relative to the project root, e.g. `src`")
        chosen.append(file.rel + "/" if file.path.is_dir() else file.rel)
    return chosen


def render_gate(answer: dict[str, Any], findings: list[Reported]) -> str:
    c = answer["counts"]
    scope = f" over {', '.join(answer['paths'])}" if answer["paths"] else ""
    verdict = "passed" if answer["passed"] else "FAILED"
    lines = [f"policy gate {verdict}{scope}: {c['new']} new, {c['baselined']} baselined, {c['warnings']} "
             f"warnings ({c['files']} files, {c['lines']} lines checked)"]
    sections = (
        ("new findings (fix these):", [r for r in findings if r.finding.level == "deny" and not r.baselined]),
        ("warnings:", [r for r in findings if r.finding.level == "warn"]),
        ("accepted by the baseline:", [r for r in findings if r.baselined]),
    )
    for title, rows in sections:
        if rows:
            lines += ["", title]
            lines += [f"  {r.path}:{r.finding.line}: {describe(r.finding)}" for r in rows]
    if answer["gone"]:
        lines += ["", f"gone from the code ({_BASELINE_HINT}):"]
        lines += [f"  {g['path']}: {g['rule']} in {g['scope'] or 'the file'}: {g['snippet']}" for g in answer["gone"]]
    for u in answer["unreadable"]:
        lines.append(f"skipped {u['path']}: cannot be read: {u['reason']}")
    lines += ["", f"policy: {answer['config']}"]
    return "\n".join(lines)


class GateTool:
    """`rust_check {paths?}` over the project at `root`."""

    concurrent = True  # it waits for its turn without holding up the reading
    ordered = True  # after the calls read before it: an edit written to disk, then the check of it

    def __init__(self, root: Path) -> None:
        self.root = ProjectRoot(root)

    def descriptor(self) -> dict[str, Any]:
        return RUST_CHECK

    def run(self, args: dict[str, Any]) -> ToolOutput:
        name = RUST_CHECK["name"]
        try:
            paths = args.get("paths")
            selection = _selection(self.root, paths) if paths else None
            policy = Policy.load(self.root.path, announce=False)
            result = run_gate(policy)
        except FerruleError as error:
            return error_output(error.to_json(), tool=name)
        except ConfigError as error:
            failure = WorkspaceUnloadable(f"conform.toml cannot be used: {error}",
                                          "fix the key it names in conform.toml (or remove the file for the defaults)")
            return error_output(failure.to_json(), tool=name)
        except BaselineError as error:
            failure = WorkspaceUnloadable(f"the baseline cannot be used: {error}",
                                          "fix or delete the baseline file, or regenerate it with "
                                          "`ferrule check --update-baseline`")
            return error_output(failure.to_json(), tool=name)
        seen = result.narrowed(selection)
        answer = gate_json(policy, seen, selection)
        return ToolOutput(render_gate(answer, seen.reported), is_error=not answer["passed"], structured=answer)


__all__ = ["GateTool", "render_gate"]
