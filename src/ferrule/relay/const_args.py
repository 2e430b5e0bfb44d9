"""The const arguments rust-analyzer leaves out of a signature, filled in from the source.

Newer analyzers (1.96) write a function's const arguments in its hover as `{const}` or `<expr>`:
`pub fn digest(input: &[u8]) -> [u8; {const}]` for `-> [u8; 32]`, `Buf<<expr>>` for `Buf<16>`. The
definition's own text says what they are. The signature as shown and the source are compared token by
token; a placeholder takes the source's tokens up to the shown token after it, and the line is filled
in only when every other token agrees, so a signature the analyzer wrote differently stays as shown.
"""

from __future__ import annotations

import re

PLACEHOLDERS = ("{const}", "<expr>")
SOURCE_LINES = 12  # the definition's lines read: a signature spread over lines, its where clause
_MARK = "\x00"
_TOKEN = re.compile(r"'?\w+|::|->|=>|\x00|\S")
_OPEN, _CLOSE = "([{<", ")]}>"
_TIGHT = re.compile(r"\s*(::|[)\],;>])|([(\[<]|::)\s*")


def has_placeholder(display: str) -> bool:
    return any(placeholder in display for placeholder in PLACEHOLDERS)


def filled(display: str, source: str) -> str:
    """`display` with the placeholders of each line the source agrees with replaced by its text."""
    if not has_placeholder(display):
        return display
    tokens = _TOKEN.findall(source)
    return "\n".join(_filled_line(line, tokens) if has_placeholder(line) else line for line in display.split("\n"))


def _filled_line(line: str, source: list[str]) -> str:
    marked = line.replace("{const}", _MARK).replace("<expr>", _MARK)
    shown = _TOKEN.findall(marked)
    for start, token in enumerate(source):
        if token == shown[0] and (fills := _aligned(shown, source, start)) is not None:
            pieces = marked.split(_MARK)  # one more than the placeholders, each of which has its fill
            return "".join(piece + fill for piece, fill in zip(pieces, [*fills, ""], strict=True))
    return line


def _aligned(shown: list[str], source: list[str], at: int) -> list[str] | None:
    """The source's text for each placeholder of `shown` when the two agree from `source[at]`, else None."""
    fills = []
    for index, token in enumerate(shown):
        if token != _MARK:
            if at < len(source) and source[at] == ":" and token in (",", ">"):
                at = _past_bounds(source, at)  # `<T: Clone, ...>`: the analyzer shows its bounds under `where`
            if at >= len(source) or source[at] != token:
                return None
            at += 1
            continue
        after = shown[index + 1] if index + 1 < len(shown) else None
        if after is None or after == _MARK:
            return None  # nothing shown after it to say where it ends
        depth, taken = 0, []
        while at < len(source) and not (depth == 0 and source[at] == after):
            if source[at] in _OPEN:
                depth += 1
            elif source[at] in _CLOSE:
                if depth == 0:
                    return None  # a bracket the placeholder does not own
                depth -= 1
            taken.append(source[at])
            at += 1
        if not taken or at >= len(source):
            return None
        fills.append(_TIGHT.sub(lambda m: m.group(1) or m.group(2), " ".join(taken)))
    return fills


def _past_bounds(source: list[str], at: int) -> int:
    """The index of the `,` or `>` that ends the bounds starting at `source[at]` (a `:`)."""
    depth = 0
    while at < len(source) and not (depth == 0 and source[at] in (",", ">")):
        depth += (source[at] in _OPEN) - (source[at] in _CLOSE)
        at += 1
    return at


__all__ = ["PLACEHOLDERS", "SOURCE_LINES", "filled", "has_placeholder"]
