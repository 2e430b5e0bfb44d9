"""The baseline ratchet: the accepted findings, kept in a committed JSON file.

An entry is keyed by path, rule, scope (the enclosing item) and snippet (the code as written), with
a count for identical findings in one scope. No line numbers: an edit above a finding does not
change its key. The file is written in one stable order, one entry per line, so diffs are small.

    {"version": 1, "findings": [
      {"path": "src/lib.rs", "rule": "unwrap-outside-tests", "scope": "Parser::next",
       "snippet": "self.peek().unwrap()", "count": 1},
      ...]}

Only deny-level findings are baselined. Matching takes, per key, the first `count` findings in line
order as baselined; any further ones are new.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from ferrule.conform.rules import Finding

Key = tuple[str, str, str, str]  # path, rule, scope, snippet
FORMAT_VERSION = 1


class BaselineError(ValueError):
    """The baseline file exists but cannot be used; the message names the file."""


def key_of(path: str, finding: Finding) -> Key:
    return (path, finding.rule, finding.scope, finding.snippet)


class Baseline:
    def __init__(self, counts: Counter[Key] | None = None, path: Path | None = None) -> None:
        self.counts: Counter[Key] = counts if counts is not None else Counter()
        self.path = path

    @classmethod
    def load(cls, path: Path) -> Baseline:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return cls(Counter(), path)
        except OSError as exc:
            raise BaselineError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
        try:
            data = json.loads(raw)
            if data.get("version") != FORMAT_VERSION:
                raise ValueError(f"version {data.get('version')!r}, expected {FORMAT_VERSION}")
            counts: Counter[Key] = Counter()
            for entry in data["findings"]:
                key = (entry["path"], entry["rule"], entry["scope"], entry["snippet"])
                if not all(isinstance(part, str) for part in key) or type(entry["count"]) is not int:
                    raise ValueError(f"malformed entry {entry!r}")
                counts[key] += entry["count"]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise BaselineError(f"{path}: not a baseline file this version can read: {exc}; "
                                "delete it and run `ferrule check --update-baseline` to rebuild it") from exc
        return cls(counts, path)

    def for_path(self, path: str) -> Counter[Key]:
        return Counter({k: n for k, n in self.counts.items() if k[0] == path})

    def mark(self, path: str, findings: Iterable[Finding]) -> list[bool]:
        """`baselined` for each finding (in the order given, which must be line order)."""
        used: Counter[Key] = Counter()
        flags = []
        for finding in findings:
            if finding.level != "deny":
                flags.append(False)
                continue
            key = key_of(path, finding)
            used[key] += 1
            flags.append(used[key] <= self.counts.get(key, 0))
        return flags

    def gone(self, current: Counter[Key]) -> list[tuple[Key, int]]:
        """Accepted findings no longer present, with how many of each went."""
        return sorted((key, n - current.get(key, 0)) for key, n in self.counts.items() if n > current.get(key, 0))

    @staticmethod
    def render(counts: Counter[Key]) -> str:
        entries = [json.dumps({"path": p, "rule": r, "scope": s, "snippet": snip, "count": n},
                              ensure_ascii=False)
                   for (p, r, s, snip), n in sorted(counts.items()) if n > 0]
        body = ",\n  ".join(entries)
        return (f'{{"version": {FORMAT_VERSION}, "findings": [\n  {body}\n]}}\n' if entries
                else f'{{"version": {FORMAT_VERSION}, "findings": []}}\n')

    def write(self, counts: Counter[Key]) -> None:
        """Replace the file atomically with exactly these accepted findings."""
        assert self.path is not None
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(self.render(counts), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:
            raise BaselineError(f"{self.path}: cannot be written: {exc.strerror or exc}") from exc
        self.counts = Counter({k: n for k, n in counts.items() if n > 0})
