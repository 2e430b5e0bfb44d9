"""The const arguments rust-analyzer leaves out of a signature, filled in from the source.

Newer analyzers (1.96) write a function's const arguments in its hover as `{const}` or `<expr>`:
`pub fn digest(input: &[u8]) -> [u8; {const}]` for `-> [u8; 32]`, `Buf<<expr>>` for `Buf<16>`. The
definition's own text says what they are. The signature as shown and the source are compared token by
token (comments skipped, a literal one token); a placeholder takes the source's tokens up to the shown
token after it. A line is filled in only when every other token agrees and the matched text covers
the definition's name, so a signature the analyzer wrote differently, or another item's (a commented
out one, a `#[cfg]` twin), is never taken.
"""

from __future__ import annotations

import re
from itertools import pairwise

PLACEHOLDERS = ("{const}", "<expr>")
SOURCE_LINES = 12  # the definition's lines read: a signature spread over lines, its where clause
SOURCE_CHARS = 2000  # of them, at most: a generated line is not searched whole
SHOWN_CHARS = 1000  # a longer signature line stays as shown
_LEAD = 300  # how far before the definition's name its signature may start (`pub const unsafe fn`)
_MARK = "\x00"
_TOKEN = re.compile(r'//[^\n]*|/\*[\s\S]*?\*/|b?"(?:\\.|[^"\\])*"|b?\'(?:\\.|[^\'\\])\'|\'?\w+|::|->|=>|\x00|\S')
_OPEN, _CLOSE = "([{<", ")]}>"
_NO_SPACE_AFTER = frozenset({"(", "[", "<", ".", "::"})
_NO_SPACE_BEFORE = frozenset({")", "]", ">", ",", ";", ".", "::", "("})


def has_placeholder(display: str) -> bool:
    for placeholder in PLACEHOLDERS:  # asked of every type answer: no generator's frame
        if placeholder in display:
            return True
    return False


def filled(display: str, source: str, name_at: int) -> str:
    """`display` with the placeholders of each line the source agrees with replaced by its text;
    `name_at`: the offset in `source` of the definition's name, which the match must cover."""
    if not has_placeholder(display):
        return display
    source = source[:SOURCE_CHARS]
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(source) if not m.group().startswith(("//", "/*"))]
    return "\n".join(_filled_line(line, tokens, name_at) if has_placeholder(line) and len(line) <= SHOWN_CHARS
                     else line for line in display.split("\n"))


def _filled_line(line: str, source: list[tuple[int, int, str]], name_at: int) -> str:
    marked = line.replace("{const}", _MARK).replace("<expr>", _MARK)
    shown = _TOKEN.findall(marked)
    texts = [token for _, _, token in source]
    for start, (begins, _, token) in enumerate(source):
        if begins > name_at:
            break
        if token != shown[0] or begins < name_at - _LEAD:
            continue
        aligned = _aligned(shown, texts, start)
        if aligned is not None and source[aligned[1] - 1][1] > name_at:  # the match reaches the name
            pieces = marked.split(_MARK)  # one more than the placeholders, each of which has its fill
            return "".join(piece + fill for piece, fill in zip(pieces, [*aligned[0], ""], strict=True))
    return line


def _aligned(shown: list[str], source: list[str], at: int) -> tuple[list[str], int] | None:
    """The source's text for each placeholder of `shown` when the two agree from `source[at]`, and the
    index past the match; None when they do not."""
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
        fills.append(_joined(taken))
    return fills, at


def _joined(tokens: list[str]) -> str:
    """Tokens as the source spells them for the usual const expressions: `N`, `{ N * 2 }`, `"]".len()`."""
    text = tokens[0]
    for before, token in pairwise(tokens):
        text += token if before in _NO_SPACE_AFTER or token in _NO_SPACE_BEFORE else " " + token
    return text


def _past_bounds(source: list[str], at: int) -> int:
    """The index of the `,` or `>` that ends the bounds starting at `source[at]` (a `:`)."""
    depth = 0
    while at < len(source) and not (depth == 0 and source[at] in (",", ">")):
        depth += (source[at] in _OPEN) - (source[at] in _CLOSE)
        at += 1
    return at


__all__ = ["PLACEHOLDERS", "SOURCE_LINES", "filled", "has_placeholder"]
