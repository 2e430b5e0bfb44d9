"""The gate: every Rust file of a project through the policy, matched against the baseline.

New deny findings fail the gate; accepted ones (in the baseline) do not; accepted findings that are
no longer there are reported as gone. Only `update_baseline=True` writes the baseline file: it then
holds exactly the current deny findings, so it shrinks as debt is paid and grows only on request.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field

from ferrule.conform.baseline import Key, key_of
from ferrule.conform.policy import Policy
from ferrule.conform.rules import RULES, Finding


@dataclass
class Reported:
    path: str
    finding: Finding
    baselined: bool


@dataclass
class GateResult:
    files: int = 0
    lines: int = 0
    reported: list[Reported] = field(default_factory=list)
    gone: list[tuple[Key, int]] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # path, reason
    baseline_written: tuple[int, int] | None = None  # entries added, removed (with update_baseline)
    line_counts: dict[str, int] = field(default_factory=dict)  # path -> its lines, of each file checked

    @property
    def new(self) -> list[Reported]:
        return [r for r in self.reported if r.finding.level == "deny" and not r.baselined]

    @property
    def passed(self) -> bool:
        return not self.new

    def counts(self) -> dict[str, int]:
        return {
            "files": self.files,
            "lines": self.lines,
            "new": len(self.new),
            "baselined": sum(1 for r in self.reported if r.baselined),
            "warnings": sum(1 for r in self.reported if r.finding.level == "warn"),
            "gone": sum(n for _, n in self.gone),
        }

    def by_rule(self) -> dict[str, int]:
        return dict(sorted(Counter(r.finding.rule for r in self.reported).items()))

    def narrowed(self, selection: list[str] | None) -> GateResult:
        """The same run seen through root-relative files and directories (a directory ends in `/`)."""
        if selection is None:
            return self

        def chosen(path: str) -> bool:
            return any(path == s or (s.endswith("/") and path.startswith(s)) for s in selection)

        counted = {path: n for path, n in self.line_counts.items() if chosen(path)}
        return GateResult(
            files=len(counted),
            lines=sum(counted.values()),
            reported=[r for r in self.reported if chosen(r.path)],
            gone=[(key, n) for key, n in self.gone if chosen(key[0])],
            unreadable=[(p, why) for p, why in self.unreadable if chosen(p)],
            baseline_written=self.baseline_written,
            line_counts=counted,
        )


def gate_json(policy: Policy, result: GateResult, paths: list[str] | None = None) -> dict:
    """The gate's answer as data: `ferrule check --format json` and the MCP tool's structured result."""
    return {
        "root": str(policy.root),
        "config": policy.origin,
        "paths": paths,  # null: the whole project
        "baseline": {"file": policy.config.baseline, "written": result.baseline_written is not None},
        "passed": result.passed,
        "counts": result.counts(),
        "by_rule": result.by_rule(),
        "findings": [
            {"path": r.path, "line": r.finding.line, "rule": r.finding.rule, "level": r.finding.level,
             "message": r.finding.message, "req": RULES[r.finding.rule].req, "fix": RULES[r.finding.rule].fix,
             "baselined": r.baselined, "scope": r.finding.scope, "snippet": r.finding.snippet}
            for r in result.reported
        ],
        "gone": [{"path": p, "rule": rule, "scope": s, "snippet": snip, "count": n}
                 for (p, rule, s, snip), n in result.gone],
        "unreadable": [{"path": p, "reason": why} for p, why in result.unreadable],
    }


def rust_files(policy: Policy) -> list[str]:
    """Root-relative paths of the project's .rs files, sorted; hidden and excluded directories skipped."""
    found: list[str] = []
    root = str(policy.root)
    inside = os.path.realpath(root) + os.sep
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(".") and not policy.is_excluded(f"{rel_dir}{d}/"))
        # a symlinked file that leads out of the project is not the project's: never read it
        found.extend(f"{rel_dir}{name}" for name in filenames
                     if name.endswith(".rs") and not policy.is_excluded(f"{rel_dir}{name}")
                     and os.path.realpath(os.path.join(dirpath, name)).startswith(inside))
    return sorted(found)


def run_gate(policy: Policy, *, update_baseline: bool = False) -> GateResult:
    """Check every file; raises BaselineError when the baseline file is unreadable."""
    baseline = policy.baseline()
    result = GateResult()
    current: Counter[Key] = Counter()
    for rel in rust_files(policy):
        try:
            source = (policy.root / rel).read_bytes()
        except OSError as exc:
            result.unreadable.append((rel, exc.strerror or str(exc)))
            continue
        facts, findings = policy.check_file(rel, source)
        result.files += 1
        result.lines += facts.lines
        result.line_counts[rel] = facts.lines
        for finding, accepted in zip(findings, baseline.mark(rel, findings), strict=True):
            result.reported.append(Reported(rel, finding, accepted))
            if finding.level == "deny":
                current[key_of(rel, finding)] += 1
    if update_baseline:
        before = baseline.counts
        added = sum(max(0, n - before.get(k, 0)) for k, n in current.items())
        removed = sum(max(0, n - current.get(k, 0)) for k, n in before.items())
        baseline.write(current)
        result.baseline_written = (added, removed)
        result.reported = [Reported(r.path, r.finding, r.finding.level == "deny") for r in result.reported]
    else:
        result.gone = baseline.gone(current)
    return result
