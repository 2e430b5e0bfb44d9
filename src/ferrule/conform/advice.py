"""Advice strings: what a finding means, the docs/GUIDE.md requirement it breaks, and the fix.

One form serves the gate's text output and the relay's `advice` field, so a user sees the same
words in both:  `RULE message [GUIDE REQ-id] fix: ...`.
"""

from __future__ import annotations

from ferrule.conform.rules import RULES, Finding


def describe(finding: Finding) -> str:
    rule = RULES[finding.rule]
    warn = " (warning)" if finding.level == "warn" else ""
    return f"{finding.rule} {finding.message} [GUIDE {rule.req}] fix: {rule.fix}{warn}"


def advice_line(finding: Finding) -> str:
    """The relay's Class-F advice: the line, the rule, the cited GUIDE section and the fix."""
    rule = RULES[finding.rule]
    return f"line {finding.line}: {describe(finding)} (docs/GUIDE.md {rule.section})"
