"""rustc's JSON messages (as cargo relays them) mapped to the protocol's diagnostics.

The primary span of each `compiler-message` locates it: `line_start` is 1-based, `column_start` is
1-based in characters; the protocol counts UTF-8 bytes of the line from 0, measured on the text rustc
compiled (the mirror's file). A span inside a macro of another crate is followed out through its
expansions to the call in the project.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from ferrule.relay.results import ElsewhereDiagnostic

LEVELS = {"error": "error", "warning": "warning", "note": "information", "help": "hint"}
RELATED_MAX = 4  # lines of rustc's own notes and help, and of the other places it labels, per diagnostic
RELATED_CHARS = 200
_APPLICABLE = frozenset({"MachineApplicable", "MaybeIncorrect"})
# rustc's note on where a lint's level came from: no help to anyone fixing the code
_LINT_LEVEL_NOTE = re.compile(r"`#\[(?:warn|deny|forbid)\(.*\)\]`.* on by default$|^requested on the command line"
                              r"|^the lint level is defined here$|^`[^`]*` implied by `[^`]*`$")


def byte_column(line_text: str, column: int) -> int:
    """rustc's 1-based character column on `line_text` as a 0-based UTF-8 byte offset."""
    return len(line_text[:max(column - 1, 0)].encode("utf-8", "surrogatepass"))


def _local(file_name: str, tree: str) -> str | None:
    """The project-relative name of a span's file, or None for a file outside the project."""
    if os.path.isabs(file_name):
        if not file_name.startswith(tree.rstrip(os.sep) + os.sep):
            return None
        file_name = os.path.relpath(file_name, tree)
    rel = os.path.normpath(file_name).replace(os.sep, "/")
    return None if rel.startswith("../") or rel == ".." else rel


def _primary(spans: list[dict[str, Any]], tree: str) -> tuple[str, dict[str, Any]] | None:
    for primary in spans:
        span: dict[str, Any] | None = primary if primary.get("is_primary") else None
        while span is not None:
            rel = _local(span.get("file_name") or "", tree)
            if rel is not None:
                return rel, span
            span = (span.get("expansion") or {}).get("span")
    return None


def _with_label(message: str, label: object) -> str:
    """rustc's headline and its primary label: "mismatched types: expected `u32`, found `&str`"."""
    return f"{message}: {label}" if isinstance(label, str) and label and label not in message else message


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= RELATED_CHARS else text[:RELATED_CHARS - 1] + "…"


@dataclass(frozen=True)
class Suggestion:
    """A fix rustc suggests for one of its diagnostics, as edits of the project's files."""

    file: str  # the diagnostic's file, root-relative
    line: int  # the diagnostic's line, 1-based
    code: str | None
    title: str  # rustc's help, its suggested text after it
    # (file, line, byte column, end line, end byte column, new text): lines 1-based, columns 0-based UTF-8
    edits: tuple[tuple[str, int, int, int, int, str], ...]


def _suggested(child: dict[str, Any]) -> list[dict[str, Any]]:
    return [span for span in child.get("spans") or [] if span.get("suggested_replacement") is not None]


def _range(span: dict[str, Any]) -> tuple[str, int, int, int, int]:
    return (str(span.get("file_name")), int(span.get("line_start") or 1), int(span.get("column_start") or 1),
            int(span.get("line_end") or 1), int(span.get("column_end") or 1))


def _alternatives(spans: list[dict[str, Any]]) -> bool:
    """Whether a help's suggested spans are choices, not the parts of one change: rustc lists the
    candidates of "consider importing one of these items" as spans over one place. The parts of one
    change never overlap."""
    ranges = sorted(_range(span) for span in spans)
    return any(a[0] == b[0] and (a[1:3] == b[1:3] or (b[1], b[2]) < (a[3], a[4])) for a, b in pairwise(ranges))


def _help_text(child: dict[str, Any]) -> str:
    """A note or help with its suggested text: `consider cloning the value ...: `.clone()``, `and 3 more
    edits` for the parts of one change, `or 2 others` for choices."""
    spans = _suggested(child)
    shown = [str(span["suggested_replacement"]).strip() for span in spans if span["suggested_replacement"]]
    others = len(shown) - 1
    more = "" if not others else (f" or {others} other{'s' if others > 1 else ''}" if _alternatives(spans)
                                  else f" and {others} more edit{'s' if others > 1 else ''}")
    message = str(child.get("message") or "")
    if not shown:
        return message
    # rustc may quote its suggestion in the message itself ("implement the missing item: `fn f()`")
    return message + ("" if f"`{shown[0]}`" in message else f": `{shown[0]}`") + more


def _related(message: dict[str, Any], rel: str, tree: str) -> list[str]:
    """What rustc says beside its headline, one line each: the other places it labels ("line 25: value
    moved here"), then its notes and help, a help's suggested text after it, and a note's place in the
    project when it points at one ("note: function defined here: line 17"). The first RELATED_MAX."""
    lines = []
    for span in message.get("spans") or []:
        label = span.get("label")
        place = None if span.get("is_primary") or not label else _place(span, rel, tree)
        if place is not None:
            lines.append(f"{place}: {label}")
    for child in message.get("children") or []:
        level, text = child.get("level"), child.get("message") or ""
        if level not in ("note", "help") or not text or _LINT_LEVEL_NOTE.search(text):
            continue
        spans = child.get("spans") or []
        pointed = None if _suggested(child) else next(
            (place for span in spans if (place := _place(span, rel, tree)) is not None), None)
        lines.append(f"{level}: {_help_text(child)}" + (f": {pointed}" if pointed else ""))
    return [_one_line(line) for line in lines[:RELATED_MAX]]


def _place(span: dict[str, Any], rel: str, tree: str) -> str | None:
    """`line 25` of the diagnostic's own file, `src/b.rs line 3` of another project file; None outside."""
    where = _local(span.get("file_name") or "", tree)
    if where is None:
        return None
    return f"line {span.get('line_start')}" if where == rel else f"{where} line {span.get('line_start')}"


# The kinds of target others wait for: when one fails, cargo checks nothing that depends on it
_DEPENDED_ON = frozenset({"custom-build", "lib", "rlib", "dylib", "proc-macro"})


def failed_prerequisites(messages: Iterable[dict[str, Any]], tree: str) -> tuple[str, ...]:
    """The root files (root-relative) of the project's build scripts and libraries that failed: an
    error reported for the target and no artifact built of it (an error only in a library's
    `#[cfg(test)]` code is its test build's, and the library itself was built). The targets that
    depend on them were not checked, so rustc's silence on their files judges nothing."""
    errors, built = [], set()
    for record in messages:
        target = record.get("target") or {}
        if not _DEPENDED_ON.intersection(target.get("kind") or ()):
            continue
        source = str(target.get("src_path") or "")
        if record.get("reason") == "compiler-artifact" and not (record.get("profile") or {}).get("test"):
            built.add(source)
        elif record.get("reason") == "compiler-message" and (record.get("message") or {}).get("level") == "error":
            errors.append(source)
    real_tree = os.path.realpath(tree)  # cargo names a target by its real path; the mirror may sit behind a link
    failed = []
    for source in errors:
        rel = _local(source, tree) or _local(source, real_tree)
        if source not in built and rel is not None and rel not in failed:
            failed.append(rel)
    return tuple(failed)


def diagnostics(messages: Iterable[dict[str, Any]], tree: str,
                line_of: Callable[[str, int], str]) -> list[ElsewhereDiagnostic]:
    """The located diagnostics of cargo's JSON `messages` for the project in `tree`, each once (a file
    checked for several targets reports the same error once per target). `line_of(rel, line)` is the
    text of a 1-based line of a file as rustc saw it."""
    found: dict[tuple[object, ...], ElsewhereDiagnostic] = {}
    for record in messages:
        if record.get("reason") != "compiler-message":
            continue
        message = record.get("message") or {}
        category = LEVELS.get(message.get("level") or "")
        located = _primary(message.get("spans") or [], tree)
        if category is None or located is None:
            continue
        rel, span = located
        line = int(span.get("line_start") or 1)
        code = (message.get("code") or {}).get("code")
        diagnostic: ElsewhereDiagnostic = {
            "file": rel,
            "code": code,
            "category": category,
            "message": _with_label(message.get("message") or "", span.get("label")),
            "line": line,
            "character": byte_column(line_of(rel, line), int(span.get("column_start") or 1)),
            "source": "rustc",
        }
        related = _related(message, rel, tree)
        if related:
            diagnostic["related"] = related
        key = (rel, line, diagnostic["character"], code, diagnostic["message"])
        found.setdefault(key, diagnostic)
    return list(found.values())


def suggestions(messages: Iterable[dict[str, Any]], tree: str,
                line_of: Callable[[str, int], str]) -> list[Suggestion]:
    """The fixes rustc suggests that it deems right or likely right (`MachineApplicable`,
    `MaybeIncorrect`; not those with placeholders to fill in), every edit inside the project; each
    once, in rustc's order."""
    found: dict[tuple[object, ...], Suggestion] = {}
    for record in messages:
        if record.get("reason") != "compiler-message":
            continue
        message = record.get("message") or {}
        located = _primary(message.get("spans") or [], tree)
        if located is None:
            continue
        rel, span = located
        for child in message.get("children") or []:
            spans = _suggested(child)
            # choices (`use` one of these paths) each a fix of its own; the parts of one change, one fix
            changes = [[one] for one in spans] if _alternatives(spans) else [spans] if spans else []
            for change in changes:
                edits = [_edit(part, tree, line_of) for part in change]
                if all(edits):
                    title = _one_line(_help_text({**child, "spans": change}))
                    suggestion = Suggestion(rel, int(span.get("line_start") or 1),
                                            (message.get("code") or {}).get("code"), title,
                                            tuple(sorted(edit for edit in edits if edit is not None)))
                    found.setdefault((suggestion.file, suggestion.line, title, suggestion.edits), suggestion)
    return list(found.values())


def _edit(span: dict[str, Any], tree: str,
          line_of: Callable[[str, int], str]) -> tuple[str, int, int, int, int, str] | None:
    """A suggested span as an edit of a project file, at byte columns; None outside the project or when
    rustc is not sure enough of it."""
    where = _local(span.get("file_name") or "", tree)
    if where is None or span.get("suggestion_applicability") not in _APPLICABLE:
        return None
    _, line, column, end, end_column = _range(span)
    return (where, line, byte_column(line_of(where, line), column), end, byte_column(line_of(where, end), end_column),
            str(span["suggested_replacement"]))


__all__ = ["RELATED_CHARS", "RELATED_MAX", "Suggestion", "byte_column", "diagnostics", "suggestions"]
