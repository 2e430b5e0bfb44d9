"""Relay results as the text an agent reads.

One function per operation, each taking the relay's result object (docs/PROTOCOL.md section 3) and
the request that produced it. The text leads with the answer in one line, then the detail, one item a
line, with positions as `line:character` in the request's own convention. The structured result goes
to the agent unchanged beside it; this is the readable view, so it never drops a fact the agent needs
to act (every diagnostic, finding and piece of advice is shown) but summarises bulk (facts).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ferrule.mcp import ToolOutput

# Wider columns are cut, so that one long type does not push every row off the screen.
_NAME_WIDTH = 32
_TYPE_WIDTH = 72
_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2, "information": 2, "hint": 3}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line if line else line for line in str(text).splitlines())


def _cut(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _where(args: Mapping[str, Any]) -> str:
    file = args.get("file", "?")
    if args.get("line") is None:
        return file
    return f"{file} {args['line']}:{args.get('character', 0)}"


def _columns(rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    """Left-aligned columns; the last column is never padded."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=True)] + [row[-1]]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def _diagnostic_lines(d: Mapping[str, Any], prefix: str = "") -> list[str]:
    code = f"[{d['code']}]" if d.get("code") not in (None, "") else ""
    source = f" ({d['source']})" if d.get("source") == "rustc" else ""
    head = f"  {prefix}{d.get('line', '?')}:{d.get('character', '?')} {d.get('category', 'error')}{code}{source}: "
    message = str(d.get("message", "")).strip().splitlines() or [""]
    return [head + message[0]] + [" " * len(head) + rest for rest in message[1:] if rest.strip()]


def _warning_lines(result: Mapping[str, Any]) -> list[str]:
    """Why the answer cannot be taken at its word: first, before anything it qualifies."""
    lines = []
    for warning in result.get("warnings") or []:
        lines.append(f"warning: {warning.get('message', '')}")
        lines.append(f"  fix: {warning.get('recipe', '')}")
        if result.get("compiled"):
            lines.append("  rustc's answer below is the one to trust: it was checked with the standard library, "
                         "and the analyzer's errors are left out")
        else:
            lines.append("  the analyzer's errors below may not be real; validate with `compile` for rustc's answer")
    return lines + [""] if lines else []


def _compile_lines(result: Mapping[str, Any]) -> list[str]:
    if "compiled" not in result:
        return []
    lines = [""]
    elsewhere = result.get("elsewhere") or []
    if elsewhere:
        omitted = result.get("elsewhere_omitted") or 0
        lines.append(f"errors in other files (rustc): {len(elsewhere) + omitted}")
        for d in elsewhere:
            lines.extend(_diagnostic_lines(d, f"{d.get('file', '?')} "))
        if omitted:
            lines.append(f"  ... and {omitted} more")
        lines.append("")
    seconds = f"{(result.get('compile_ms') or 0) / 1000:.1f} s"
    error = result.get("compile_error")
    if result.get("compiled"):
        lines.append(f"compile check: rustc checked this text in {seconds}")
    elif error:
        lines.append(f"compile check: not run ({error.get('kind')}, {seconds}): {error.get('message', '')}")
        lines.append(f"  fix: {error.get('recipe', '')}")
    return lines


def render_validate(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    # rustc's diagnostics first: where both speak, the compiler is the authority
    diagnostics = sorted(
        result.get("diagnostics") or [],
        key=lambda d: (d.get("source") != "rustc", d.get("line", 0), d.get("character", 0),
                       _SEVERITY_ORDER.get(d.get("category"), 9)),
    )
    findings = result.get("conform_findings") or []
    advice = result.get("advice") or []
    severities = Counter(d.get("category", "error") for d in diagnostics)
    new_findings = sum(1 for f in findings if not f.get("baselined"))
    summary = [_plural(severities.get("error", 0), "error"), _plural(severities.get("warning", 0), "warning")]
    others = len(diagnostics) - severities.get("error", 0) - severities.get("warning", 0)
    if others:
        summary.append(_plural(others, "note"))
    broken_elsewhere = len(result.get("elsewhere") or []) + (result.get("elsewhere_omitted") or 0)
    if broken_elsewhere:
        summary.append(f"{_plural(broken_elsewhere, 'error')} in other files")
    policy = _plural(len(findings), "policy finding")
    if findings:
        policy += f" ({new_findings} new, {len(findings) - new_findings} baselined)"
    scratch = " (text passed in `content`)" if args.get("content") is not None else ""
    lines = [f"{args.get('file', '?')}{scratch}: {', '.join(summary)}; {policy}"]
    if not diagnostics and not findings and not broken_elsewhere:
        lines[0] = f"{args.get('file', '?')}{scratch}: clean: no diagnostics, no policy findings"
    if diagnostics:
        lines.append("")
        lines.append("diagnostics:")
        for d in diagnostics:
            lines.extend(_diagnostic_lines(d))
    if findings:
        lines.append("")
        lines.append("policy findings:")
        for f in sorted(findings, key=lambda f: (f.get("line") or 0, f.get("rule", ""))):
            mark = " (baselined)" if f.get("baselined") else ""
            lines.append(f"  {f.get('line', '?')} {f.get('rule', '?')}{mark}: {f.get('message', '')}")
    if advice:
        lines.append("")
        lines.append("advice:")
        lines.extend("  - " + _indent(a, "    ").lstrip() for a in advice)
    facts = result.get("facts") or []
    if facts:
        kinds = Counter(str(f.get("kind", "item")) for f in facts if isinstance(f, Mapping))
        listing = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append("")
        lines.append(f"facts: {len(facts)} items ({listing}); the structured result lists them")
    lines.extend(_compile_lines(result))
    if result.get("degraded") and not result.get("warnings"):
        lines.append("")
        lines.append(
            "note: degraded: the analyzer offers no pull diagnostics, so these came from its push channel "
            "and may lag the text by one edit"
        )
    return "\n".join(_warning_lines(result) + lines)


def render_type(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    display = str(result.get("display") or "").strip()
    documentation = str(result.get("documentation") or "").strip()
    if not display and not documentation:
        return f"{_where(args)}: nothing there to describe (no symbol or expression at this position)"
    lines = [f"{_where(args)}:"]
    if display:
        lines.append(_indent(display, "  "))
    if documentation:
        lines.append("")
        lines.append(_indent(documentation, "  "))
    return "\n".join(lines)


def render_complete(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    entries = result.get("entries") or []
    prefix = args.get("prefix")
    filtered = f" starting with {prefix!r}" if prefix else ""
    if not entries:
        return f"{_where(args)}: no completions{filtered}"
    unsafe = sum(1 for e in entries if e.get("unsafe"))
    head = f"{_where(args)}: {_plural(len(entries), 'completion')}{filtered}"
    if unsafe:
        head += f"; {unsafe} marked unsafe (would panic in domain code)"
    rows = []
    for entry in entries:
        rows.append(
            [
                _cut(entry.get("name", ""), _NAME_WIDTH),
                str(entry.get("kind") or ""),
                _cut(entry.get("type_text") or "", _TYPE_WIDTH),
                "UNSAFE: panics; use a non-panicking alternative" if entry.get("unsafe") else "",
            ]
        )
    return "\n".join([head, *_columns(rows)])


def render_scope(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    cell = result.get("cell") or "(crate root)"
    seam = result.get("seam_file") or "(none)"
    lines = [f"{args.get('file', '?')}: module {cell}, seam file {seam}"]
    branded = result.get("branded") or []
    if branded:
        lines.append("")
        lines.append("branded newtypes (pub tuple structs with one private field; use them, not raw values):")
        for b in branded:
            where = [f"line {b['line']}"] if b.get("line") is not None else []
            where.append(f"seam {b.get('seam', '?')}")
            if b.get("heuristic"):
                where.append("heuristic")
            lines.append(f"  {b.get('name', '?')} ({', '.join(where)})")
    symbols = result.get("symbols") or []
    place = f"at {args['line']}:{args.get('character', 0)}" if args.get("line") is not None else "at top level"
    lines.append("")
    if symbols:
        lines.append(f"{_plural(len(symbols), 'name')} in scope {place}:")
        rows = [
            [_cut(s.get("name", ""), _NAME_WIDTH), str(s.get("kind") or ""), _cut(s.get("type_text") or "", _TYPE_WIDTH)]
            for s in symbols
        ]
        lines.extend(_columns(rows))
    else:
        lines.append(f"no names in scope {place}")
    return "\n".join(lines)


def render_update(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    file = args.get("file", "?")
    if args.get("content") is None:
        return f"{file}: overlay dropped; the analyzer reads the file on disk again"
    version = result.get("version")
    suffix = f" (version {version})" if version is not None else ""
    return (
        f"{file}: overlay set{suffix}; rust_validate, rust_type, rust_complete and rust_scope now see this "
        "text. The file on disk is unchanged."
    )


def render_error(error: Mapping[str, Any], *, tool: str | None = None, retried: bool = False) -> str:
    kind = error.get("kind", "error")
    lead = f"{tool} failed: " if tool else ""
    lines = [f"{lead}{kind}: {error.get('message', '')}".rstrip()]
    if retried:
        lines.append("(the analyzer was respawned and the call retried once; it failed again)")
    recipe = error.get("recipe")
    if recipe:
        lines.append(f"fix: {recipe}")
    return "\n".join(lines)


def error_output(error: Mapping[str, Any], *, tool: str, retried: bool = False) -> ToolOutput:
    """An `isError` result: the readable report and `{"error": {kind, message, recipe}}`."""
    structured: dict[str, Any] = {"error": dict(error)}
    if retried:
        structured["retried"] = True
    return ToolOutput(render_error(error, tool=tool, retried=retried), is_error=True, structured=structured)


RENDERERS = {
    "validate": render_validate,
    "type": render_type,
    "complete": render_complete,
    "scope": render_scope,
    "update": render_update,
}

__all__ = [
    "RENDERERS",
    "error_output",
    "render_complete",
    "render_error",
    "render_scope",
    "render_type",
    "render_update",
    "render_validate",
]
