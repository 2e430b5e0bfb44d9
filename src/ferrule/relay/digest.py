"""A `validate` answer cut to fit a model's context, the one shape every readable report of it follows.

The file's errors are kept up to a cap far above what a person fixes in one go, rustc's first, the rest
counted by code. The analyzer's errors that rustc, the judge, does not report (`unconfirmed`) come last
and are capped lower: an analyzer blind to part of the code (a standard library it cannot read, say) can
report thousands. Warnings, errors in other files (which validating those files lists), policy findings
and advice are capped too, the rest counted. Hints and
information notes (a large file gated by `#[cfg]` carries a hundred `inactive-code` hints) are counted
by kind, the first few shown. Facts, one per item of the file, are counted by kind and left out unless
asked for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

ERRORS_SHOWN = 50
WARNINGS_SHOWN = 10
UNCONFIRMED_SHOWN = 10
ELSEWHERE_SHOWN = 10
NOTES_SHOWN = 3
FINDINGS_SHOWN = 10
ADVICE_SHOWN = 5
RELATED_SHOWN = 10  # the listed diagnostics that keep rustc's related lines (places, notes, help), first first

#: said beside the verdict of a validate without rustc: it misses the borrow checker's errors and others
ANALYZER_ALONE = "rust-analyzer alone: compile check off"
SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2, "information": 2, "hint": 3}
_LISTED = ("error", "warning")


def _by_frequency(counts: Counter[str]) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _records(items: Iterable[Any]) -> list[Mapping[str, Any]]:
    return [item for item in items if isinstance(item, Mapping)]


@dataclass(frozen=True)
class Digest:
    """What a report of a `validate` answer shows, and how much of each list it leaves out."""

    errors: list[Mapping[str, Any]]  # the first ERRORS_SHOWN confirmed errors, rustc's first; then the first unconfirmed
    confirmed: int  # the errors rustc reports or has not judged, shown or not
    unconfirmed: int  # the analyzer's errors rustc does not report, shown or not
    error_kinds: dict[str, int]  # every confirmed error, by code
    warnings: list[Mapping[str, Any]]  # the first WARNINGS_SHOWN, in line order
    notes: list[Mapping[str, Any]]  # the first NOTES_SHOWN hints and information notes
    counts: dict[str, int]  # every diagnostic, by category
    warning_kinds: dict[str, int]  # every warning, by code
    note_kinds: dict[str, int]  # the hints and notes by code, most frequent first
    findings: list[Mapping[str, Any]]  # new findings first, then baselined; the first FINDINGS_SHOWN
    findings_total: int
    advice: list[str]
    advice_total: int
    fact_kinds: dict[str, int]
    facts_total: int
    elsewhere: list[Mapping[str, Any]]  # errors in other files (compile check): the first ELSEWHERE_SHOWN
    elsewhere_total: int

    compile_check: str  # "ran", "off" (not asked for, or switched off), "failed" (asked for, could not run)

    @property
    def listed_errors(self) -> list[Mapping[str, Any]]:
        """The confirmed errors shown."""
        return [d for d in self.errors if not d.get("unconfirmed")]

    @property
    def errors_omitted(self) -> int:
        return self.confirmed - len(self.listed_errors)

    @property
    def warnings_omitted(self) -> int:
        return self.counts.get("warning", 0) - len(self.warnings)

    @property
    def notes_total(self) -> int:
        return sum(self.note_kinds.values())

    @property
    def shown(self) -> list[Mapping[str, Any]]:
        """The diagnostics a report lists: errors, warnings, the first notes."""
        return [*self.errors, *self.warnings, *self.notes]

    @property
    def omitted(self) -> int:
        return sum(self.counts.values()) - len(self.shown)


def _position(d: Mapping[str, Any]) -> tuple[int, int]:
    return int(d.get("line") or 0), int(d.get("character") or 0)


def compile_check(result: Mapping[str, Any]) -> str:
    """How far rustc's word is in: "ran"; "off" when not asked for or switched off on purpose (the verdict
    is the analyzer's alone, as asked); "failed" when asked for and it could not run: the verdict is the
    analyzer's alone though it should not be, and misses what only rustc finds (the borrow checker's)."""
    if "compiled" not in result:
        return "off"
    if result.get("compiled"):
        return "ran"
    return "off" if (result.get("compile_error") or {}).get("kind") == "disabled" else "failed"


def _related_cut(*lists: list[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """The lists with rustc's related lines kept on the first RELATED_SHOWN diagnostics that have them."""
    left = RELATED_SHOWN
    out = []
    for items in lists:
        kept = []
        for d in items:
            if d.get("related"):
                if left:
                    left -= 1
                else:
                    d = {key: value for key, value in d.items() if key != "related"}
            kept.append(d)
        out.append(kept)
    return out


def digest(result: Mapping[str, Any]) -> Digest:
    diagnostics = _records(result.get("diagnostics") or [])
    errors = sorted((d for d in diagnostics if d.get("category", "error") == "error"),
                    key=lambda d: (bool(d.get("unconfirmed")), d.get("source") != "rustc", *_position(d)))
    unconfirmed = [d for d in errors if d.get("unconfirmed")]
    confirmed = [d for d in errors if not d.get("unconfirmed")]
    warnings = sorted((d for d in diagnostics if d.get("category") == "warning"), key=_position)
    notes = sorted((d for d in diagnostics if d.get("category", "error") not in _LISTED),
                   key=lambda d: (*_position(d), SEVERITY_RANK.get(d.get("category", ""), 9)))
    findings = sorted(_records(result.get("conform_findings") or []),
                      key=lambda f: (bool(f.get("baselined")), f.get("line") or 0, f.get("rule", "")))
    advice = [str(a) for a in result.get("advice") or []]
    facts = _records(result.get("facts") or [])
    elsewhere = _records(result.get("elsewhere") or [])
    shown_errors, shown_warnings, shown_elsewhere = _related_cut(
        confirmed[:ERRORS_SHOWN] + unconfirmed[:UNCONFIRMED_SHOWN], warnings[:WARNINGS_SHOWN],
        elsewhere[:ELSEWHERE_SHOWN])
    return Digest(
        errors=shown_errors,
        confirmed=len(confirmed),
        unconfirmed=len(unconfirmed),
        error_kinds=_by_frequency(Counter(str(d.get("code") or "error") for d in confirmed)),
        warnings=shown_warnings,
        notes=notes[:NOTES_SHOWN],
        warning_kinds=_by_frequency(Counter(str(d.get("code") or "warning") for d in warnings)),
        counts=_by_frequency(Counter(str(d.get("category", "error")) for d in diagnostics)),
        note_kinds=_by_frequency(Counter(str(d.get("code") or d.get("category")) for d in notes)),
        findings=findings[:FINDINGS_SHOWN],
        findings_total=len(findings),
        advice=advice[:ADVICE_SHOWN],
        advice_total=len(advice),
        fact_kinds=_by_frequency(Counter(str(f.get("kind", "item")) for f in facts)),
        facts_total=len(facts),
        elsewhere=shown_elsewhere,
        elsewhere_total=len(elsewhere) + int(result.get("elsewhere_omitted") or 0),
        compile_check=compile_check(result),
    )


_CUT = ("diagnostics", "facts", "conform_findings", "advice", "elsewhere", "elsewhere_omitted")


def compact(result: Mapping[str, Any], *, include_facts: bool = False) -> dict[str, Any]:
    """The answer with its lists cut as the digest cuts them, and the counts of what was left out; the
    facts only when asked for. Every other field (compile check, warnings, indexing) is kept as is."""
    cut = digest(result)
    out = {key: value for key, value in result.items() if key not in _CUT}
    out.update({
        "diagnostics": [dict(d) for d in cut.shown],
        "diagnostics_omitted": cut.omitted,
        "diagnostic_counts": cut.counts,
        "error_kinds": cut.error_kinds,
        "warning_kinds": cut.warning_kinds,
        "note_kinds": cut.note_kinds,
        "facts": list(result.get("facts") or []) if include_facts else [],
        "fact_counts": cut.fact_kinds,
        "conform_findings": [dict(f) for f in cut.findings],
        "conform_findings_omitted": cut.findings_total - len(cut.findings),
        "advice": cut.advice,
        "advice_omitted": cut.advice_total - len(cut.advice),
        "compile_check": cut.compile_check,
    })
    if "elsewhere" in result:
        out["elsewhere"] = [dict(d) for d in cut.elsewhere]
        if cut.elsewhere_total > len(cut.elsewhere):
            out["elsewhere_omitted"] = cut.elsewhere_total - len(cut.elsewhere)
    return out


def kinds_line(counts: Mapping[str, int]) -> str:
    """Counts by kind in one phrase: `107 inactive-code, 2 unused_mut`."""
    return ", ".join(f"{n} {kind}" for kind, n in counts.items())


__all__ = ["ADVICE_SHOWN", "ELSEWHERE_SHOWN", "ERRORS_SHOWN", "FINDINGS_SHOWN", "NOTES_SHOWN", "RELATED_SHOWN", "SEVERITY_RANK",
           "UNCONFIRMED_SHOWN", "WARNINGS_SHOWN", "Digest", "compact", "compile_check", "digest", "kinds_line"]
