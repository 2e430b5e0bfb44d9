"""One project's policy: its conform.toml, its baseline, and the rules applied to one file at a time.

The gate (`ferrule check`) and the relay's `validate` both go through `Policy.check_file`, so the two
report the same findings for the same text.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TypedDict

from ferrule.conform.advice import advice_line
from ferrule.conform.baseline import Baseline, BaselineError
from ferrule.conform.config import Config, PathRoles, load_config
from ferrule.conform.facts import Fact, FileFacts, extract
from ferrule.conform.rules import Finding, FindingRecord, check


class Enrichment(TypedDict):
    """The policy's part of the relay's validate answer (docs/PROTOCOL.md section 5)."""

    facts: list[Fact]
    conform_findings: list[FindingRecord]
    advice: list[str]


def normalise(rel_path: str) -> str:
    rel = rel_path.replace("\\", "/")
    while rel.startswith("./"):
        rel = rel[2:]
    return rel


class Policy:
    def __init__(self, root: Path, config: Config, origin: str) -> None:
        self.root = Path(root)
        self.config = config
        self.origin = origin
        self.roles = PathRoles(config)
        self.baseline_path = self.root / config.baseline
        self._baseline: Baseline | None = None
        self._baseline_stamp: tuple[int, int] | None = None

    @classmethod
    def load(cls, root: Path, *, announce: bool = True) -> Policy:
        """Read `root/conform.toml` (absent: defaults); the origin goes to stderr. Raises ConfigError."""
        config, origin = load_config(Path(root))
        if announce:
            print(f"ferrule: policy from {origin}", file=sys.stderr, flush=True)
        return cls(Path(root), config, origin)

    def baseline(self) -> Baseline:
        """The baseline file as it is now (re-read when it changed on disk). Raises BaselineError."""
        try:
            st = os.stat(self.baseline_path)
            stamp = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            stamp = None
        if self._baseline is None or stamp != self._baseline_stamp:
            self._baseline = Baseline.load(self.baseline_path)
            self._baseline_stamp = stamp
        return self._baseline

    def is_test_path(self, rel_path: str) -> bool:
        return normalise(rel_path) in self.roles.tests

    def is_excluded(self, rel_path: str) -> bool:
        return normalise(rel_path) in self.roles.excluded

    def check_file(self, rel_path: str, source: bytes | str) -> tuple[FileFacts, list[Finding]]:
        facts = extract(source)
        return facts, check(facts, normalise(rel_path), self.config, self.roles)

    def enrich(self, rel_path: str, source: bytes | str | FileFacts) -> Enrichment:
        """The relay's enrichment of `validate`: facts, findings flagged against the baseline, advice.
        `source` is the file's text, or its facts when they are at hand (`ParsedFile.facts`)."""
        rel = normalise(rel_path)
        facts = source if isinstance(source, FileFacts) else extract(source)
        findings = check(facts, rel, self.config, self.roles)
        advice: list[str] = []
        try:
            flags = self.baseline().mark(rel, findings)
        except BaselineError as exc:
            flags = [False] * len(findings)
            advice.append(f"the baseline cannot be read, so no finding counts as accepted: {exc}")
        advice.extend(advice_line(f) for f, accepted in zip(findings, flags, strict=True) if not accepted)
        return {
            "facts": facts.records(),
            "conform_findings": [f.to_json(accepted) for f, accepted in zip(findings, flags, strict=True)],
            "advice": advice,
        }
