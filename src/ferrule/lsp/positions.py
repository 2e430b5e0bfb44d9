"""Columns between the relay's UTF-8 code units and the encoding the server negotiated.

With `utf-8` granted the column passes through untouched (no line text needed); otherwise it is
converted through the line's text by `ferrule.fastframe.convert_column`.
"""

from __future__ import annotations

from typing import Any

from ferrule.fastframe import LineIndex, convert_column

ENCODINGS = ("utf-8", "utf-16", "utf-32")


class PositionCodec:
    """Converts `(line, utf-8 column)` pairs of one document to and from the server's encoding."""

    __slots__ = ("encoding", "identity")

    def __init__(self, encoding: str) -> None:
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown position encoding {encoding!r}")
        self.encoding = encoding
        self.identity = encoding == "utf-8"

    def to_server(self, line_text: str, utf8_column: int) -> int:
        if self.identity:
            return utf8_column
        return convert_column(line_text, utf8_column, "utf-8", self.encoding)

    def from_server(self, line_text: str, column: int) -> int:
        if self.identity:
            return column
        return convert_column(line_text, column, self.encoding, "utf-8")


def line_text(index: LineIndex, line: int) -> str:
    """The text of 0-based `line`, or "" past the end (a position there is clamped by the server)."""
    if 0 <= line < index.line_count:
        return index.line(line)
    return ""


def range_contains(lsp_range: Any, line: int, character: int) -> bool:
    """Whether an LSP range (ends included) holds the 0-based position; False for a missing range."""
    if not lsp_range:
        return False
    start, end = lsp_range.get("start") or {}, lsp_range.get("end") or {}
    return ((start.get("line", 0), start.get("character", 0)) <= (line, character)
            <= (end.get("line", -1), end.get("character", 0)))
