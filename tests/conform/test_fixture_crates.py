"""The rules over the fixture crates: exactly the marked lines are findings, no others.

tests/conform/crates/ledger holds every case the policy decides, each commented where it stands;
tests/conform/crates/tidy follows every rule and must pass with no findings.
"""

from __future__ import annotations

from ferrule.conform import Policy
from ferrule.conform.gate import run_gate
from testkit.conform import CRATES, expected_findings


def _findings(root):
    result = run_gate(Policy.load(root, announce=False))
    return {(r.path, r.finding.line, r.finding.rule) for r in result.reported}, result


def test_ledger_findings_are_exactly_the_marked_lines():
    root = CRATES / "ledger"
    got, result = _findings(root)
    want = expected_findings(root)
    assert want, "the fixture lost its markers"
    assert sorted(got - want) == [], "findings on unmarked lines"
    assert sorted(want - got) == [], "marked lines without a finding"
    assert not result.passed
    assert {rule for _, _, rule in want} == {"unwrap-outside-tests", "seam-doctest", "env-outside-roots",
                                            "file-too-long"}


def test_tidy_crate_has_no_findings():
    got, result = _findings(CRATES / "tidy")
    assert got == set()
    assert result.passed and result.files == 1


def test_every_rule_has_a_negative_case_in_ledger():
    """The fixture also holds what must NOT be flagged; spot-check that each of those exists."""
    text = (CRATES / "ledger" / "src" / "engine.rs").read_text()
    for clean in ("#[allow(clippy::unwrap_used)]", "#[expect(clippy::expect_used", "unwrap_or(0)",
                  '"a string that says x.unwrap()', "// A comment that mentions", "#[cfg(test)]",
                  "let check = |name: &str|"):
        assert clean in text, clean
    assert "std::env::var" in (CRATES / "ledger" / "src" / "main.rs").read_text()
    assert "getenv(" in (CRATES / "ledger" / "src" / "settings.rs").read_text()
