"""One ranged LSP content change taking a document's text from one version to the next.

A transient `content` on a 6k-line file usually differs from the text the analyzer holds in one line;
sending that line instead of the whole file twice per op (show, then restore) is most of what keeps
an op's cost independent of the file's size.
"""

from __future__ import annotations

from typing import Any

from ferrule.conform.textspan import changed_span


def _position(text: str, offset: int, encoding: str) -> dict[str, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    before = text[line_start:offset]
    if encoding == "utf-8":
        character = len(before.encode("utf-8"))
    elif encoding == "utf-32":
        character = len(before)
    else:
        character = len(before.encode("utf-16-le", "surrogatepass")) // 2
    return {"line": text.count("\n", 0, line_start), "character": character}


def ranged_change(old: str, new: str, encoding: str) -> dict[str, Any] | None:
    """The contentChange replacing the part of `old` that differs from `new`; None when the texts hold
    a CR (line ends that servers count differently: the whole text is the safe change then)."""
    if "\r" in old or "\r" in new:
        return None
    start, end_old, end_new = changed_span(old, new)
    return {"range": {"start": _position(old, start, encoding), "end": _position(old, end_old, encoding)},
            "text": new[start:end_new]}


__all__ = ["ranged_change"]
