"""One ranged LSP content change taking a document's text from one version to the next.

A transient `content` on a 6k-line file usually differs from the text the analyzer holds in one line;
sending that line instead of the whole file twice per op (show, then restore) is most of what keeps
an op's cost independent of the file's size.
"""

from __future__ import annotations

from typing import Any

from ferrule.fastframe import changed_span

Span = tuple[int, int, int]  # (start, old_end, new_end), as `changed_span` gives it


def _units(piece: str, encoding: str) -> int:
    """The length of `piece` in the position encoding's code units."""
    if encoding == "utf-8":
        return len(piece.encode("utf-8"))
    if encoding == "utf-32":
        return len(piece)
    return len(piece.encode("utf-16-le", "surrogatepass")) // 2


def ranged_change(old: str, new: str, encoding: str, span: Span | None = None,
                  start_line: int | None = None) -> dict[str, Any] | None:
    """The contentChange replacing the part of `old` that differs from `new`; None when a CR comes
    before the change's end or in its text (line ends that servers count differently: the whole text
    is the safe change then; a CR after the change moves none of its positions).
    `span` and `start_line` (the line where the span starts), when the caller knows them already,
    spare passes over the whole text."""
    start, end_old, end_new = changed_span(old, new) if span is None else span
    if old.find("\r", 0, end_old) >= 0 or new.find("\r", start, end_new) >= 0:
        return None
    if start_line is None:
        start_line = old.count("\n", 0, start)
    start_of_line = old.rfind("\n", 0, start) + 1
    end_line = start_line + old.count("\n", start, end_old)
    end_of_line = old.rfind("\n", start, end_old) + 1 if end_line > start_line else start_of_line
    return {"range": {"start": {"line": start_line, "character": _units(old[start_of_line:start], encoding)},
                      "end": {"line": end_line, "character": _units(old[end_of_line:end_old], encoding)}},
            "text": new[start:end_new]}


__all__ = ["Span", "ranged_change"]
