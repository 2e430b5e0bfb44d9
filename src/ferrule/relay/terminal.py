"""Readable text of an op's result, for a person at a terminal (the one-shot commands).

Positions are shown the way rustc and editors show them: `file:line:col`, both 1-based, the column in
characters (the protocol's `character` is a 0-based UTF-8 byte offset; the line's text converts it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ferrule.project import FerruleError
from ferrule.relay.blind import unlinked
from ferrule.relay.digest import ANALYZER_ALONE, SEVERITY_RANK, digest, kinds_line

INDEXING_NOTE = "(rust-analyzer was still indexing: this answer may be incomplete)\n"


def result(op: str, file: str, value: Mapping[str, Any], source: str | None = None) -> str:
    lines = source.splitlines() if source is not None else None
    if op == "type":
        text = type_text(value)
    elif op == "complete":
        text = completions(value)
    elif op == "validate":
        text = validation(file, value, lines)
    elif op == "scope":
        text = scope(value)
    else:
        text = "".join(f"{key}: {val}\n" for key, val in value.items())
    return text + (INDEXING_NOTE if value.get("indexing") else "")


def error(command: str, err: FerruleError) -> str:
    text = f"ferrule {command}: {err.kind}: {err.message}"
    if err.recipe:
        text += f"\n  to fix: {err.recipe}"
    return text


def column(lines: Sequence[str] | None, line: int, character: int) -> int:
    """The 1-based character column of a 0-based UTF-8 byte offset on a 1-based line."""
    if lines is None or not 1 <= line <= len(lines):
        return character + 1
    prefix = lines[line - 1].encode("utf-8")[:character]
    return len(prefix.decode("utf-8", errors="ignore")) + 1


# ---------------------------------------------------------------------------------------------------


def type_text(value: Mapping[str, Any]) -> str:
    display = (value.get("display") or "").strip()
    docs = (value.get("documentation") or "").strip()
    caveats = _caveats(value)
    if not display and not docs:
        return caveats + ("" if caveats else "(nothing known at this position)\n")
    return caveats + display + ("\n\n" + docs if docs else "") + "\n"


def _warnings(value: Mapping[str, Any]) -> list[str]:
    """Why the answer cannot be taken at its word, and the fix: said before the answer."""
    return [f"warning: {warning.get('message')}\n  to fix: {warning.get('recipe')}"
            for warning in value.get("warnings") or []]


def _caveats(value: Mapping[str, Any]) -> str:
    return "".join(line + "\n" for line in _warnings(value))


def _table(rows: list[list[str]]) -> str:
    if not rows:
        return ""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    out = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=True)] + [row[-1]]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out) + "\n"


def completions(value: Mapping[str, Any]) -> str:
    entries = value.get("entries") or []
    caveats = _caveats(value)
    if not entries:
        return caveats + "(no completions)\n"
    rows = [[e.get("name", ""), e.get("kind", "") or "", (e.get("type_text") or "")
             + ("   [unsafe in domain code]" if e.get("unsafe") else "")] for e in entries]
    return caveats + _table(rows)


def error_count(value: Mapping[str, Any]) -> int:
    """The file's errors and those its text causes in other files (with a compile check). An error
    rustc did not confirm does not count: when rustc has answered, it is the judge."""
    own = sum(1 for d in value.get("diagnostics") or [] if d.get("category") == "error" and not d.get("unconfirmed"))
    return own + len(value.get("elsewhere") or []) + (value.get("elsewhere_omitted") or 0)


def _diagnostic_line(file: str, d: Mapping[str, Any], lines: Sequence[str] | None) -> str:
    line = d.get("line", 0)
    code = f"[{d['code']}]" if d.get("code") not in (None, "") else ""
    where = f"{file}:{line}:{column(lines, line, d.get('character', 0))}"
    source = " (rustc)" if d.get("source") == "rustc" else ""
    unconfirmed = " (unconfirmed: rustc reports no error here)" if d.get("unconfirmed") else ""
    related = "".join(f"\n    {said}" for said in d.get("related") or ())
    return f"{where}: {d.get('category', 'diagnostic')}{code}{source}: {d.get('message', '')}{unconfirmed}{related}"


def _more(count: int, what: str) -> list[str]:
    return [f"... and {count} more {what}{'s' if count != 1 else ''} (--json lists every one)"] if count else []


def validation(file: str, value: Mapping[str, Any], lines: Sequence[str] | None = None) -> str:
    """As rust_validate's report (ferrule.relay.digest): errors and warnings listed up to their caps, the
    unconfirmed last; hints and notes counted by kind, the first few shown; the rest capped."""
    cut = digest(value)
    listed = sorted(cut.listed_errors + cut.warnings, key=lambda d: (d.get("line", 0), d.get("character", 0)))
    out = [_diagnostic_line(file, d, lines) for d in listed]
    out += _more(cut.errors_omitted, "error")
    out += _more(cut.warnings_omitted, "warning")
    unconfirmed = [d for d in cut.errors if d.get("unconfirmed")]
    out += [_diagnostic_line(file, d, lines) for d in unconfirmed]
    out += _more(cut.unconfirmed - len(unconfirmed), "unconfirmed error")
    if cut.notes_total:
        first = f"; the first {len(cut.notes)}" if cut.notes_total > len(cut.notes) else ""
        out.append(f"notes: {kinds_line(cut.note_kinds)}{first}:")
        out += ["  " + _diagnostic_line(file, d, lines) for d in cut.notes]
    for f in cut.findings:
        note = " (baselined)" if f.get("baselined") else ""
        out.append(f"{file}:{f.get('line', 0)}: policy[{f.get('rule', '')}]: {f.get('message', '')}{note}")
    out += _more(cut.findings_total - len(cut.findings), "policy finding")
    out += [f"advice: {advice}" for advice in cut.advice]
    out += _more(cut.advice_total - len(cut.advice), "piece of advice")
    ordered = sorted(cut.counts.items(), key=lambda item: (SEVERITY_RANK.get(item[0], 9), item[0]))
    summary = ", ".join(f"{n} {c}{'s' if n != 1 else ''}" for c, n in ordered) or "no diagnostics"
    if cut.unconfirmed:
        summary += f" ({cut.unconfirmed} unconfirmed by rustc, the judge)"
    if unlinked(value) and not error_count(value):  # silence from code nothing builds is no verdict
        summary = f"unchecked: no crate includes this file, so nothing checked its code ({summary})"
    elif cut.compile_check == "failed":  # the analyzer alone misses what only rustc finds: no clean bill
        summary = (f"unverified: {summary} by rust-analyzer alone, the compile check could not run "
                   f"({value['compile_error'].get('kind')})")
    elif cut.compile_check == "off":
        summary += f" ({ANALYZER_ALONE})"
    if cut.findings_total:
        new = sum(1 for f in value.get("conform_findings") or [] if not f.get("baselined"))
        summary += f"; {cut.findings_total} policy finding{'s' if cut.findings_total != 1 else ''} ({new} new)"
    if cut.facts_total:
        summary += f"; {cut.facts_total} facts"
    for other in cut.elsewhere:
        out.append(f"{other.get('file')}:{other.get('line', 0)}: error[{other.get('code') or ''}]: {other.get('message', '')}")
    if cut.elsewhere_total > len(cut.elsewhere):
        out.append(f"... and {cut.elsewhere_total - len(cut.elsewhere)} more errors in other files")
    if value.get("compiled"):
        built = f"{(value.get('compile_ms') or 0) / 1000:.1f} s"
        stopped = value.get("compile_stopped_at")
        summary += (f"; rustc built the project in {built} without it" if unlinked(value)
                    else f"; not checked by rustc: cargo stopped at {', '.join(stopped)}, which failed" if stopped
                    else f"; checked by rustc in {built}")
    elif value.get("compile_error"):
        out.append(compile_not_run(value["compile_error"]))
    if value.get("degraded") and not value.get("warnings"):
        summary += " (degraded: diagnostics were pushed, not pulled)"
    out.append(f"{file}: {summary}")
    return "\n".join(_warnings(value) + out) + "\n"


def compile_not_run(error: Mapping[str, Any]) -> str:
    """Why the compile check did not run, and the fix: what rustc would have said is missing."""
    return f"compile check not run ({error.get('kind')}): {error.get('message')}\n  to fix: {error.get('recipe')}"


def scope(value: Mapping[str, Any]) -> str:
    out = [*_warnings(value), f"module:    {value.get('cell') or '(unknown)'}",
           f"seam file: {value.get('seam_file') or '(none)'}"]
    branded = value.get("branded") or []
    if branded:
        names = ", ".join(f"{b.get('name')}" + (f" ({b['seam']})" if b.get("seam") else "") for b in branded)
        out.append(f"branded newtypes (heuristic): {names}")
    symbols = value.get("symbols") or []
    more = value.get("more") or 0
    left_out = f" ({more} more not shown: raise --max)" if more else ""
    out.append(f"{len(symbols)} symbol{'s' if len(symbols) != 1 else ''} in scope{left_out}:")
    text = "\n".join(out) + "\n"
    ordered = sorted(symbols, key=lambda s: (s.get("kind") or "", s.get("name") or ""))
    rows = [["  " + s.get("name", ""), s.get("kind", "") or "", s.get("type_text") or ""] for s in ordered]
    return text + _table(rows)


__all__ = ["column", "compile_not_run", "completions", "error", "error_count", "result", "scope", "type_text", "validation"]
