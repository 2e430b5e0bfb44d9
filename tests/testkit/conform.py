"""Helpers for the policy tests.

The fixture crates under crates/ mark each line the policy must flag with a trailing
`// expect: RULE` comment.
"""

from __future__ import annotations

import re
from pathlib import Path

CRATES = Path(__file__).resolve().parents[1] / "conform" / "crates"
MARK = re.compile(r"//.*\bexpect: ([a-z-]+)\s*$")


def expected_findings(root: Path) -> set[tuple[str, int, str]]:
    """(path, line, rule) for every marked line of every .rs file under root."""
    found = set()
    for path in sorted(root.rglob("*.rs")):
        rel = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            m = MARK.search(line)
            if m:
                found.add((rel, number, m.group(1)))
    return found
