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

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ferrule.conform.baseline import BaselineError
from ferrule.conform.config import ConfigError
from ferrule.conform.gate import Reported, gate_json, run_gate
from ferrule.conform.policy import Policy
from ferrule.conform.rules import RULES
from ferrule.mcp import ToolOutput
from ferrule.project import BadRequest, FerruleError, ProjectRoot, WorkspaceUnloadable
from ferrule.relay.ops.context import plural
from ferrule.tools.descriptors import GATE_MAX_DEFAULT, RUST_CHECK
from ferrule.tools.reports import error_output

_BASELINE_HINT = "run `ferrule check --update-baseline` in the project to drop them from the baseline"


def _selection(root: ProjectRoot, paths: Iterable[str]) -> list[str]:
    """Root-relative files and directories (a directory ends in `/`); BadRequest when unsafe or absent."""
    chosen = []
    for given in paths:
        file = root.file(root.name_of(given))  # an absolute path inside the project too
        if not file.path.exists():
            raise BadRequest(f"no such file or directory in the project: {given!r}",
                                "name files or directories relative to the project root, e.g. `src`")
        if not file.path.is_dir() and not file.rel.endswith(".rs"):
            raise BadRequest(f"{file.rel!r} is not a Rust source file: the gate checks .rs files",
                             "name .rs files or directories (e.g. `src`), or leave `paths` out for the whole project")
        chosen.append(file.rel + "/" if file.path.is_dir() else file.rel)
    return chosen


def _sections(findings: list[Reported]) -> tuple[tuple[str, list[Reported]], ...]:
    """The findings in the order an agent acts on them: the new ones (they fail the gate) first."""
    return (
        ("new findings (fix these):", [r for r in findings if r.finding.level == "deny" and not r.baselined]),
        ("warnings:", [r for r in findings if r.finding.level == "warn"]),
        ("accepted by the baseline:", [r for r in findings if r.baselined]),
    )


def shown_findings(findings: list[Reported], limit: int) -> list[Reported]:
    """The first `limit` findings in the report's order: what the report and the structured result list."""
    return [r for _, rows in _sections(findings) for r in rows][:limit]


def render_gate(answer: dict[str, Any], findings: list[Reported], limit: int | None = None) -> str:
    """The gate's verdict, then up to `limit` findings (the new ones first; the rest counted by rule),
    each fix said once per rule: a project adopting the policy may have hundreds of findings."""
    c = answer["counts"]
    scope = f" over {', '.join(answer['paths'])}" if answer["paths"] else ""
    verdict = "passed" if answer["passed"] else "FAILED"
    lines = [f"policy gate {verdict}{scope}: {c['new']} new, {c['baselined']} baselined, {c['warnings']} "
             f"warnings ({plural(c['files'], 'file')}, {plural(c['lines'], 'line')} checked)"]
    room = len(findings) if limit is None else limit
    for title, rows in _sections(findings):
        if rows:
            shown, rest = rows[:room], rows[room:]
            room -= len(shown)
            lines += ["", title]
            lines += [f"  {r.path}:{r.finding.line}: {r.finding.rule} {r.finding.message}" for r in shown]
            if rest:
                by_rule = Counter(r.finding.rule for r in rest).most_common()
                lines.append(f"  ... and {len(rest)} more: " + ", ".join(f"{rule} {n}" for rule, n in by_rule)
                             + " (pass a larger `max`, or `paths` to narrow)")
    rules = dict.fromkeys(r.finding.rule for r in findings)
    if rules:
        lines += ["", "how to fix:"]
        lines += [f"  {rule} [GUIDE {RULES[rule].req}] fix: {RULES[rule].fix}" for rule in rules]
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
        limit = int(args.get("max") or GATE_MAX_DEFAULT)
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
        report = render_gate(answer, seen.reported, limit)
        # the structured result lists what the report lists (in the gate's order), and counts the rest
        listed = {id(r) for r in shown_findings(seen.reported, limit)}
        answer["findings"] = [f for f, r in zip(answer["findings"], seen.reported, strict=True) if id(r) in listed]
        answer["findings_omitted"] = len(seen.reported) - len(listed)
        return ToolOutput(report, is_error=not answer["passed"], structured=answer)


__all__ = ["GateTool", "render_gate", "shown_findings"]
