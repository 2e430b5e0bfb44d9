"""Relay results as the text an agent reads.

One function per operation, each taking the relay's result object (docs/PROTOCOL.md section 3) and
the request that produced it. The text leads with the answer in one line, then the detail, one item a
line, with positions as `line:character` in the request's own convention. The structured result goes
beside it only to clients of MCP 2025-06-18 and later, so the report stands alone: every entry and
name the op answered, and whether the analyzer was still indexing. A validate report is cut as
ferrule.relay.digest cuts it (every list capped, the rest counted), to fit a model's context.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ferrule.mcp import ToolOutput
from ferrule.relay.blind import unlinked
from ferrule.relay.compile import stopped_at_syntax
from ferrule.relay.digest import ANALYZER_ALONE, SEVERITY_RANK, Digest, digest, kinds_line
from ferrule.relay.health import PROC_MACRO_KIND, STD_KIND
from ferrule.relay.ops.context import plural as _plural


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line if line else line for line in str(text).splitlines())


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _indexing_note(result: Mapping[str, Any], lines: list[str]) -> None:
    if result.get("indexing"):
        lines += ["", "note: indexing: rust-analyzer was still indexing the project; this answer may be partial"]


def _where(args: Mapping[str, Any]) -> str:
    if args.get("symbol") is not None:
        return str(args["symbol"])
    file = args.get("file", "?")
    if args.get("line") is None:
        return file
    if args.get("character") is None:  # a whole line, or lines (fixes)
        end = args.get("end_line")
        return f"{file} lines {args['line']}-{end}" if end is not None and end != args["line"] else \
            f"{file} line {args['line']}"
    return f"{file} {args['line']}:{args['character']}"


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
    return ([head + message[0]] + [" " * len(head) + rest for rest in message[1:] if rest.strip()]
            + ["      " + str(line) for line in d.get("related") or ()])


MISLEADING_KINDS = (STD_KIND, PROC_MACRO_KIND)  # what the analyzer lacks and rustc has


def _warning_lines(result: Mapping[str, Any]) -> list[str]:
    """Why the answer cannot be taken at its word: first, before anything it qualifies."""
    lines: list[str] = []
    for warning in result.get("warnings") or []:
        lines.extend(_warning_and_fix(warning))
        if warning.get("kind") not in MISLEADING_KINDS:  # code no crate builds: rustc sees no more
            continue
        if result.get("compiled"):
            lines.append("  rustc's answer below is the one to trust: it lacks nothing the analyzer lacks, "
                         "and the analyzer's errors are left out")
        else:
            lines.append("  the analyzer's errors below may not be real; validate with `compile` for rustc's answer")
    return lines + [""] if lines else []


def _compile_lines(result: Mapping[str, Any], cut: Digest) -> list[str]:
    if "compiled" not in result:
        return []
    lines = [""]
    if cut.elsewhere:
        omitted = cut.elsewhere_total - len(cut.elsewhere)
        lines.append(f"errors in other files (rustc): {cut.elsewhere_total}")
        for d in cut.elsewhere:
            lines.extend(_diagnostic_lines(d, f"{d.get('file', '?')} "))
        if omitted:
            lines.append(f"  ... and {omitted} more (rust_validate on those files lists theirs)")
        lines.append("")
    seconds = _compile_seconds(result)
    if not result.get("compiled"):
        # a check that could not run is said under the headline; one switched off on purpose, here
        return lines + _compile_failure_lines(result) if cut.compile_check == "off" else []
    if unlinked(result):
        lines.append(f"compile check: rustc built the project in {seconds}, but no crate includes this file, so "
                     "rustc did not check its text either")
    elif result.get("compile_stopped_at"):
        lines.append(f"compile check: cargo stopped at {', '.join(result['compile_stopped_at'])}, which failed, "
                     f"before checking this file ({seconds}): fix it, then validate again for rustc's word on this one")
    elif stopped_at_syntax([*(result.get("diagnostics") or []), *cut.elsewhere]):
        lines.append(f"compile check: rustc checked this text in {seconds} and stopped at a syntax error, "
                     "maybe before checking types: fix it, then validate again for rustc's word on the rest")
    else:
        lines.append(f"compile check: rustc checked this text in {seconds}; rustc is the judge: an analyzer "
                     "error it does not report is marked unconfirmed")
    return lines


def _compile_seconds(result: Mapping[str, Any]) -> str:
    return f"{(result.get('compile_ms') or 0) / 1000:.1f} s"


def _compile_failure_lines(result: Mapping[str, Any]) -> list[str]:
    """Why the compile check did not run (after how long, when the answer says), and the fix."""
    error = result.get("compile_error")
    if not error:
        return []
    spent = f", {_compile_seconds(result)}" if "compile_ms" in result else ""
    return [f"compile check: not run ({error.get('kind')}{spent}): {error.get('message', '')}",
            f"  fix: {error.get('recipe', '')}"]


def _unverified_headline(result: Mapping[str, Any], found: str) -> str:
    """The headline when rustc did not check the file: the compile check was asked for and could not
    run, or cargo stopped at a failed build script or library first. The analyzer's verdict alone
    misses what only rustc finds, so it is not called clean. Still no isError: the call answered, and
    what the analyzer found is real; an agent reads isError as "nothing here to use" (and retrying cannot
    help: the fix is in the project). This first line and the lines under it say what is missing."""
    stopped = result.get("compile_stopped_at")
    if stopped:
        why = f"cargo stopped at {', '.join(stopped)}, which failed, before rustc checked this file"
    else:
        error = result.get("compile_error") or {}
        reason = (str(error.get("message") or error.get("kind") or "").splitlines() or [""])[0]
        why = f"the compile check could not run ({reason})"
    return f"unverified: {found} by rust-analyzer alone; {why}, so errors only rustc finds (the borrow checker's among them) may be missing"


def _more_line(count: int, what: str, how: str) -> list[str]:
    return [f"  ... and {_plural(count, 'more ' + what)} ({how})"] if count else []


def _notes_lines(cut: Digest) -> list[str]:
    if not cut.notes_total:
        return []
    first = f"; the first {len(cut.notes)}" if cut.notes_total > len(cut.notes) else ""
    lines = ["", f"notes (hints and information, counted by kind): {kinds_line(cut.note_kinds)}{first}:"]
    for d in cut.notes:
        lines.extend(_diagnostic_lines(d))
    return lines


def _unconfirmed_lines(cut: Digest) -> list[str]:
    if not cut.unconfirmed:
        return []
    shown = [d for d in cut.errors if d.get("unconfirmed")]
    first = f"; the first {len(shown)}" if cut.unconfirmed > len(shown) else ""
    lines = ["", f"unconfirmed: {_plural(cut.unconfirmed, 'error')} rust-analyzer reports and rustc does not "
                 f"(rustc is the judge: these are likely not real, or in code rustc does not build){first}:"]
    for d in shown:
        lines.extend(_diagnostic_lines(d))
    return lines


def _listed_heading(cut: Digest) -> str:
    """`diagnostics:`, and for each list cut, its counts by kind and how many are shown."""
    cuts = [f"{what} by kind: {kinds_line(kinds)}; the first {shown}"
            for what, kinds, shown, omitted in (
                ("errors", cut.error_kinds, len(cut.listed_errors), cut.errors_omitted),
                ("warnings", cut.warning_kinds, len(cut.warnings), cut.warnings_omitted))
            if omitted]
    return f"diagnostics ({'; '.join(cuts)}):" if cuts else "diagnostics:"


def render_validate(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    """Errors and warnings listed up to their caps with the rest counted by kind, hints and notes counted
    by kind with the first few shown, findings and advice capped, facts counted: a clean large file
    answers in a few lines, and a file of a thousand errors in a few KB."""
    cut = digest(result)
    errors = cut.counts.get("error", 0)
    summary = [_plural(errors, "error"), _plural(cut.counts.get("warning", 0), "warning")]
    if cut.unconfirmed:
        summary[0] += f" ({cut.unconfirmed} unconfirmed by rustc)"
    if cut.notes_total:
        summary.append(_plural(cut.notes_total, "note"))
    own = ", ".join(summary)  # the file's own, before what its text breaks elsewhere
    broken_elsewhere = cut.elsewhere_total
    if broken_elsewhere:
        summary.append(f"{_plural(broken_elsewhere, 'error')} in other files")
    new_findings = sum(1 for f in result.get("conform_findings") or [] if not f.get("baselined"))
    policy = _plural(cut.findings_total, "policy finding")
    if cut.findings_total:
        policy += f" ({new_findings} new, {cut.findings_total - new_findings} baselined)"
    scratch = " (text passed in `content`)" if args.get("content") is not None else ""
    no_diagnostics = not sum(cut.counts.values()) and not broken_elsewhere
    if unlinked(result) and not errors and not cut.counts.get("warning") and not broken_elsewhere:
        # silence from code nothing builds is no verdict (the analyzer's own hint says the file is unlinked)
        verdict = f"unchecked: no crate includes this file, so nothing checked its code; {policy}"
    elif cut.compile_check == "failed":
        verdict = f"{_unverified_headline(result, 'no diagnostics' if no_diagnostics else ', '.join(summary))}; {policy}"
    elif result.get("compile_stopped_at"):  # rustc's errors in other files, none of this one's
        elsewhere = f"; {_plural(broken_elsewhere, 'error')} in other files" if broken_elsewhere else ""
        verdict = f"{_unverified_headline(result, own)}{elsewhere}; {policy}"
    elif no_diagnostics and not cut.findings_total:
        verdict = "clean: no diagnostics, no policy findings"
    else:
        verdict = f"{', '.join(summary)}; {policy}"
    if cut.compile_check == "off":
        verdict += f" ({ANALYZER_ALONE})"
    lines = [f"{args.get('file', '?')}{scratch}: {verdict}"]
    if cut.compile_check == "failed":
        lines += _compile_failure_lines(result)
    # rustc's errors first: where both speak, the compiler is the authority
    listed = cut.listed_errors + cut.warnings
    listed.sort(key=lambda d: (d.get("source") != "rustc", d.get("line", 0), d.get("character", 0),
                               SEVERITY_RANK.get(d.get("category", ""), 9)))
    if listed:
        lines += ["", _listed_heading(cut)]
        for d in listed:
            lines.extend(_diagnostic_lines(d))
        lines += _more_line(cut.errors_omitted, "error", "fix those above and validate again to see them")
        lines += _more_line(cut.warnings_omitted, "warning", "fix those above and validate again to see them")
    lines += _unconfirmed_lines(cut)
    lines += _notes_lines(cut)
    if cut.findings:
        lines += ["", "policy findings:"]
        for f in cut.findings:
            mark = " (baselined)" if f.get("baselined") else ""
            lines.append(f"  {f.get('line', '?')} {f.get('rule', '?')}{mark}: {f.get('message', '')}")
        lines += _more_line(cut.findings_total - len(cut.findings), "finding", "rust_check lists every one")
    if cut.advice:
        lines += ["", "advice:"]
        lines.extend("  - " + _indent(a, "    ").lstrip() for a in cut.advice)
        if cut.advice_total > len(cut.advice):
            lines.append(f"  ... and {cut.advice_total - len(cut.advice)} more (rust_check gives every finding's advice)")
    if cut.facts_total:
        # The facts are the policy's input, one per item of the file: listed, they would grow with the
        # file and fill a model's context. The findings and advice drawn from them are listed above.
        lines += ["", f"facts: {cut.facts_total} items ({kinds_line(cut.fact_kinds)}), the policy's input; "
                      "`include_facts: true` lists each in the structured result"]
    lines.extend(_compile_lines(result, cut))
    if result.get("degraded") and not result.get("warnings"):
        lines.append("")
        lines.append(
            "note: degraded: the analyzer offers no pull diagnostics, so these came from its push channel "
            "and may lag the text by one edit"
        )
    _indexing_note(result, lines)
    return "\n".join(_warning_lines(result) + lines)


DOC_SHOWN = 1_500  # characters of an item's documentation in a `type` answer (std's `Vec` has 9,000)


def cut_documentation(text: str, limit: int = DOC_SHOWN) -> tuple[str, int]:
    """The documentation's head, ending at a paragraph (else a line) within `limit` characters, and
    how many characters were left out: the summary comes first, the examples follow."""
    if len(text) <= limit:
        return text, 0
    cut = text.rfind("\n\n", 0, limit)
    if cut < limit // 3:
        cut = text.rfind("\n", 0, limit)
    if cut <= 0:
        cut = limit
    kept = text[:cut].rstrip()
    while kept and kept.rsplit("\n", 1)[-1].lstrip().startswith("#"):  # a heading without its section
        kept = kept.rsplit("\n", 1)[0].rstrip() if "\n" in kept else ""
    return kept, len(text) - len(kept)


def _doc_limit(args: Mapping[str, Any]) -> int:
    """The `doc_max` argument of rust_type (checked against its schema), else DOC_SHOWN."""
    given = args.get("doc_max")
    return given if type(given) is int and given >= 0 else DOC_SHOWN


def type_structured(result: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
    """The `type` answer with its documentation cut as the report cuts it."""
    shown, omitted = cut_documentation(str(result.get("documentation") or "").strip(), _doc_limit(args))
    return {**result, "documentation": shown, "documentation_omitted": omitted} if omitted else dict(result)


def render_type(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    display = str(result.get("display") or "").strip()
    limit = _doc_limit(args)
    documentation, omitted = cut_documentation(str(result.get("documentation") or "").strip(), limit)
    warnings = result.get("warnings") or []
    if not display and not documentation and warnings:
        lines = [f"{_where(args)}: the analyzer cannot see here"]
    elif not display and not documentation:
        lines = [f"{_where(args)}: nothing there to describe (no symbol or expression at this position)"]
    else:
        lines = [f"{_where(args)}:"]
    lines += _caveat_lines(result)  # why the answer is empty or may mislead, before it
    if display:
        lines.append(_indent(display, "  "))
    if documentation:
        lines.append("")
        lines.append(_indent(documentation, "  "))
    if omitted:
        lines.append(f"  ... and {omitted:,} more characters of documentation (`doc_max` above {limit:,} shows more)")
    _indexing_note(result, lines)
    return "\n".join(lines)


def _caveat_lines(result: Mapping[str, Any]) -> list[str]:
    """Each warning the answer carries (why it may mislead) with its fix."""
    return [line for warning in result.get("warnings") or [] for line in _warning_and_fix(warning)]


def _warning_and_fix(warning: Mapping[str, Any]) -> tuple[str, str]:
    return f"warning: {warning.get('message', '')}", f"  fix: {warning.get('recipe', '')}"


def render_complete(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    entries = result.get("entries") or []
    prefix = args.get("prefix")
    filtered = f" starting with {prefix!r}" if prefix else ""
    if not entries:
        lines = [f"{_where(args)}: no completions{filtered}", *_caveat_lines(result)]
        _indexing_note(result, lines)
        return "\n".join(lines)
    unsafe = sum(1 for e in entries if e.get("unsafe"))
    head = f"{_where(args)}: {_plural(len(entries), 'completion')}{filtered}"
    if unsafe:
        head += f"; {unsafe} marked unsafe (would panic in domain code)"
    rows = []
    for entry in entries:
        rows.append(
            [
                _one_line(entry.get("name", "")),
                str(entry.get("kind") or ""),
                _one_line(entry.get("type_text") or ""),
                "UNSAFE: panics; use a non-panicking alternative" if entry.get("unsafe") else "",
            ]
        )
    lines = [head, *_caveat_lines(result), *_columns(rows)]
    _indexing_note(result, lines)
    return "\n".join(lines)


def render_scope(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    cell = result.get("cell") or "(crate root)"
    seam = result.get("seam_file") or "(none)"
    lines = [f"{args.get('file', '?')}: module {cell}, seam file {seam}", *_caveat_lines(result)]
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
        more = result.get("more") or 0
        shown = f" (the file's own first; {more} more not shown: raise `max`)" if more else ""
        lines.append(f"{_plural(len(symbols), 'name')} in scope {place}{shown}:")
        rows = [
            [_one_line(s.get("name", "")), str(s.get("kind") or ""), _one_line(s.get("type_text") or "")]
            for s in symbols
        ]
        lines.extend(_columns(rows))
    else:
        lines.append(f"no names in scope {place}")
    _indexing_note(result, lines)
    return "\n".join(lines)


def render_update(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    file = args.get("file", "?")
    if args.get("content") is None:
        if result.get("dropped") is False:
            return f"{file}: had no overlay; the analyzer reads the file on disk, as before"
        return f"{file}: overlay dropped; the analyzer reads the file on disk again"
    version = result.get("version")
    suffix = f" (version {version})" if version is not None else ""
    if not str(file).endswith(".rs"):  # rust-analyzer reads manifests and other files from disk only
        return (f"{file}: overlay set{suffix}; rust_validate's compile check builds with this text, but "
                "rust-analyzer reads this file from disk, so its answers (types, completions, navigation) do "
                "not see it. The file on disk is unchanged.")
    return (
        f"{file}: overlay set{suffix}; rust_validate, rust_type, rust_complete and rust_scope now see this "
        "text. The file on disk is unchanged."
    )


# ---- navigation by name ----------------------------------------------------------------------------


def _asked(args: Mapping[str, Any]) -> str:
    """What the call looked at: the symbol, or file line:character."""
    return f"`{args['symbol']}`" if args.get("symbol") else _where(args)


def _location_line(location: Mapping[str, Any], indent: str = "  ") -> str:
    mark = "  (read-only library file)" if location.get("read_only") else ""
    if location.get("derive"):
        mark += f"  (#[derive({location['derive']})])"
    if location.get("macro"):
        mark += f"  (made by {location['macro']})"
    text = str(location.get("text") or "").strip()
    return f"{indent}{location.get('file', '?')}:{location.get('line', '?')}:{location.get('character', '?')}{mark}" + (
        f"\n{indent}    {text}" if text else "")


def _more(count: int, what: str) -> list[str]:
    return [f"... and {_plural(count, what)} more (raise `max` to see them)"] if count else []


def _kind_and_name(kind: str, name: str) -> str:
    """`struct OrderId`; an impl's name already says `impl OrderId`."""
    return name if name.startswith(f"{kind} ") else f"{kind} {name}"


def render_symbols(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    symbols = result.get("symbols") or []
    more = int(result.get("more") or 0)
    if args.get("query") is not None:
        if not symbols:
            return f"no symbols match {args['query']!r}"
        lines = [f"{_plural(len(symbols) + more, 'symbol')} matching {args['query']!r}:"]
        for s in symbols:
            qualified = f"{s['container']}::{s['name']}" if s.get("container") else s.get("name", "")
            lines.append(f"  {_kind_and_name(s.get('kind', ''), qualified)}")
            lines.append(_location_line(s, "    "))
        return "\n".join(lines + _more(more, "symbol"))
    if not symbols:
        return f"{args.get('file', '?')}: no items"
    lines = [f"{args.get('file', '?')}: outline"]

    def walk(entries: Sequence[Mapping[str, Any]], depth: int) -> None:
        for entry in entries:
            span = f"{entry.get('line')}-{entry.get('end_line')}"
            detail = f"  {_one_line(entry['detail'])}" if entry.get("detail") else ""
            lines.append(f"{'  ' * (depth + 1)}{span} {_kind_and_name(entry.get('kind', ''), entry.get('name', ''))}{detail}")
            walk(entry.get("children") or [], depth + 1)

    walk(symbols, 0)
    return "\n".join(lines + _more(more, "item"))


def render_locations(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    locations = result.get("locations") or []
    if not locations:
        return f"{_asked(args)}: nothing found"
    lines = [f"{_asked(args)}: {_plural(len(locations) + int(result.get('more') or 0), 'location')}"]
    lines.extend(_location_line(location) for location in locations)
    return "\n".join(lines + _more(int(result.get("more") or 0), "location"))


def _doc_example_lines(result: Mapping[str, Any], what: str) -> list[str]:
    """Where doc-comment examples mention the name: the analyzer never looks there."""
    count = int(result.get("doc_examples_count") or 0)
    if not count:
        return []
    lines = ["", f"not {what}: {_plural(count, 'line')} of doc-comment examples (doctests) mention the name; "
                 "rust-analyzer does not look inside them (they may name another item):"]
    lines += [f"  {m.get('file', '?')}:{m.get('line', '?')}  {m.get('text', '')}" for m in result.get("doc_examples") or []]
    return lines + _more(count - len(result.get("doc_examples") or []), "line")


def render_references(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    groups = result.get("files") or []
    count = int(result.get("count") or 0)
    if not count:
        return "\n".join([f"{_asked(args)}: no references", *_doc_example_lines(result, "searched")])
    more = int(result.get("more") or 0)
    if more:
        shown = count - more
        lines = [f"{_asked(args)}: {_plural(count, 'reference')}; the first {shown} shown, in "
                 f"{_plural(len(groups), 'file')} (the project's first)"]
    else:
        lines = [f"{_asked(args)}: {_plural(count, 'reference')} in {_plural(len(groups), 'file')}"]
    for group in groups:
        lines.append(f"  {group.get('file', '?')}")
        for ref in group.get("references") or []:
            lines.append(f"    {ref.get('line', '?')}:{ref.get('character', '?')}  {str(ref.get('text') or '').strip()}")
    return "\n".join(lines + _more(more, "reference") + _doc_example_lines(result, "searched"))


_APPLIED = {"overlay": "applied as overlays (the disk is unchanged)", "disk": "written to disk"}


EDITS_SHOWN = 50  # edits listed in a rename's or a fix's answer; every one is applied


def cut_changes(changes: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], int, int]:
    """The first EDITS_SHOWN edits, file by file, and how many edits and files were left out."""
    kept: list[dict[str, Any]] = []
    room = EDITS_SHOWN
    omitted_edits = omitted_files = 0
    for change in changes:
        edits = list(change.get("edits") or [])
        shown = edits[:room]
        room -= len(shown)
        if shown:
            kept.append({**change, "edits": shown})
        else:
            omitted_files += 1
        omitted_edits += len(edits) - len(shown)
    return kept, omitted_edits, omitted_files


def edits_structured(result: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
    """A rename's or a fix's answer with its edits listed as the report lists them, the rest counted."""
    kept, omitted, _ = cut_changes(result.get("changes") or [])
    return {**result, "changes": kept, "edits_omitted": omitted} if omitted else dict(result)


def render_edits(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    changes = result.get("changes") or []
    edits = sum(len(change.get("edits") or []) for change in changes)
    what = f"fix {result['title']!r}" if result.get("title") else f"rename {_asked(args)} to {args.get('new_name')!r}"
    status = _APPLIED.get(str(result.get("applied")), "not applied (pass apply: \"overlay\" or \"disk\")")
    lines = [f"{what}: {_plural(edits, 'edit')} in {_plural(len(changes), 'file')}, {status}"]
    lines += _caveat_lines(result)  # a name it collides with: before the edits that would make the clash
    new_name = args.get("new_name")
    if new_name and any(e.get("new_text") == f"r#{new_name}" for c in changes for e in c.get("edits") or []):
        lines.append(f"note: `{new_name}` is a keyword: the analyzer writes it as the raw identifier `r#{new_name}`")
    kept, omitted_edits, omitted_files = cut_changes(changes)
    for change in kept:
        lines.append(f"  {change.get('file', '?')}")
        for edit in change.get("edits") or []:
            span = f"{edit['line']}:{edit['character']}-{edit['end_line']}:{edit['end_character']}"
            lines.append(f"    {span} -> {repr(edit.get('new_text', ''))}")
    if omitted_edits:
        files = f", {_plural(omitted_files, 'more file')}" if omitted_files else ""
        done = "applied too" if result.get("applied") else "`apply` applies them with the rest"
        lines.append(f"  ... and {_plural(omitted_edits, 'more edit')}{files} ({done})")
    return "\n".join(lines + _doc_example_lines(result, "renamed"))


def render_fixes(result: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    fixes = result.get("fixes") or []
    code = f" for {args['code']}" if args.get("code") else ""
    missing = _compile_failure_lines(result)  # rustc's fixes are missing: why, and the fix
    if not fixes:
        return "\n".join([f"{_where(args)}: no fixes{code}", *missing])
    lines = [f"{_where(args)}: {_plural(len(fixes), 'fix')}{code} (apply one with rust_apply_fix and its id)"]
    lines.extend(_columns([[f["id"], f.get("kind") or "", f.get("title", "")] for f in fixes]))
    return "\n".join(lines + _more(int(result.get("more") or 0), "fix") + missing)


RESTARTED_NOTE = "rust-analyzer had died; a fresh one was started for this call with every overlay re-applied"


def what_happened(*, retried: bool, restarted: int, failed: bool) -> str | None:
    """What this call did about a dead analyzer, in one line; None when it did nothing."""
    if restarted and failed:
        again = ", and the call retried" if retried else ""
        return f"({RESTARTED_NOTE}{again}; it failed again)"
    if restarted:
        return f"note: {RESTARTED_NOTE}"
    if retried:
        return "(the call was retried once; it failed again)" if failed else (
            "note: the first attempt failed (oracle-crashed); the call was retried once")
    return None


def render_error(error: Mapping[str, Any], *, tool: str | None = None, retried: bool = False,
                 restarted: int = 0) -> str:
    kind = error.get("kind", "error")
    lead = f"{tool} failed: " if tool else ""
    lines = [f"{lead}{kind}: {error.get('message', '')}".rstrip()]
    happened = what_happened(retried=retried, restarted=restarted, failed=True)
    if happened:
        lines.append(happened)
    recipe = error.get("recipe")
    if recipe:
        lines.append(f"fix: {recipe}")
    return "\n".join(lines)


def error_output(error: Mapping[str, Any], *, tool: str, retried: bool = False, restarted: int = 0) -> ToolOutput:
    """An `isError` result: the readable report and `{"error": {kind, message, recipe}}`."""
    structured: dict[str, Any] = {"error": dict(error)}
    if retried:
        structured["retried"] = True
    if restarted:
        structured["restarted"] = restarted
    return ToolOutput(render_error(error, tool=tool, retried=retried, restarted=restarted), is_error=True,
                      structured=structured)


RENDERERS = {
    "validate": render_validate,
    "type": render_type,
    "complete": render_complete,
    "scope": render_scope,
    "update": render_update,
    "symbols": render_symbols,
    "definition": render_locations,
    "references": render_references,
    "implementations": render_locations,
    "rename": render_edits,
    "fixes": render_fixes,
    "apply_fix": render_edits,
}

__all__ = [
    "DOC_SHOWN",
    "EDITS_SHOWN",
    "RENDERERS",
    "cut_changes",
    "cut_documentation",
    "edits_structured",
    "error_output",
    "render_complete",
    "render_edits",
    "render_fixes",
    "render_locations",
    "render_references",
    "render_symbols",
    "render_error",
    "render_scope",
    "render_type",
    "render_update",
    "render_validate",
    "type_structured",
]
