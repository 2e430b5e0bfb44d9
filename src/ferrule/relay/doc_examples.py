"""Where the project's doc-comment examples mention a name.

rust-analyzer's rename and references do not look inside the code blocks of doc comments (`///`, `//!`,
`/** */`, `/*! */`),
and `cargo check` does not build them, so a rename written to disk can break doctests that every
other answer calls clean. `rename` and `references` say where such examples mention the name, for the
agent to look at (they may mention another item of the same name).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TypedDict

from ferrule.project import BadRequest, ProjectRoot
from ferrule.relay import texts
from ferrule.relay.documents import Documents

MENTIONS_SHOWN = 10
_EXAMPLES_CAP = 4096  # files whose example lines are kept, each with the text they were read from
_EXAMPLES: dict[str, tuple[str, list[tuple[int, str]]]] = {}

_DOC_LINE = re.compile(r"\s*//[/!](?!/)\s?(.*)")  # `///` or `//!`, not `////`; the text after it
_BLOCK_OPEN = re.compile(r"\s*/\*(?:\*(?![*/])|!)")  # `/**` (not `/***` nor the empty `/**/`) or `/*!`
_COMMENT_MARK = re.compile(r"/\*|\*/")
# the tokens doc comments cannot start inside, each found by its first character: a line comment, whole;
# the opening of a block comment (nesting is counted apart); a string's quote (a raw string's `r#"`
# is told by what stands before it); a char, whole (a lone quote is a lifetime's or a label's)
_LEXEME = re.compile(r"""//[^\n]*|/\*|"|'(?:\\(?:u\{[0-9a-fA-F_]*\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'|'""")
_STRING_END = re.compile(r'(?:[^"\\]|\\.)*"', re.S)  # from after the opening quote: escapes passed over
_RAW_OPENER = re.compile(r"(?<!\w)[bc]?r\Z")  # what stands before a raw string's `#`s (searched up to them)
_RAW_HASHES_MAX = 255
_BLOCK_DECORATION = re.compile(r"\s*\*(?!/) ?")  # the ` * ` a block doc comment's lines often start with
_FENCE = re.compile(r"\s*(?:```|~~~)\s*([\w,\- ]*)")
# a fence's info string: none, or rustdoc's (`rust`, `should_panic`, `no_run`, `ignore`, `edition2021`,
# ...); any other language (`text`, `toml`, `console`) is no doctest
_NOT_RUST = re.compile(r"(?!rust\b|should_panic\b|no_run\b|ignore\b|compile_fail\b|edition\d+\b|test_harness\b"
                       r"|standalone_crate\b)[a-z]")


class DocMention(TypedDict):
    file: str
    line: int  # 1-based
    text: str  # the example's line, as the comment has it


def lines_mentioning(text: str, name: str) -> list[tuple[int, str]]:
    """(1-based line, the example's text) of each doc-comment example line of `text` naming `name` as
    a whole word."""
    return _naming(example_lines(text), name)


def _naming(lines: list[tuple[int, str]], name: str) -> list[tuple[int, str]]:
    word = re.compile(rf"(?<![\w]){re.escape(name)}(?![\w])")
    return [(number, body) for number, body in lines if word.search(body)]


def example_lines(text: str) -> list[tuple[int, str]]:
    """(1-based line, its text) of every line of `text`'s doc-comment examples (the code blocks rustdoc
    runs). A code block opens and closes with a fence line in the comment."""
    found: list[tuple[int, str]] = []
    in_block = in_example = False  # in a code block; in one rustdoc runs
    if "//" not in text and "/*" not in text:
        return found
    for number, body in _doc_bodies(text):
        if body is None:
            in_block = in_example = False  # a comment that ends closes its examples
            continue
        fence = _FENCE.match(body)
        if fence is not None:
            if in_block:
                in_block = in_example = False
            else:
                in_block = True
                in_example = not any(_NOT_RUST.match(tag.strip()) for tag in fence.group(1).split(","))
        elif in_example:
            found.append((number, body.strip()))
    return found


def _doc_bodies(text: str) -> Iterator[tuple[int, str | None]]:
    """(1-based line, its doc-comment text) of each line of `text`; None for a line that is no doc comment."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]  # numbered as LineIndex does: at `\n` only
    inside = _lines_starting_inside(text)
    at = 0
    while at < len(lines):
        opened = _BLOCK_OPEN.match(lines[at]) if at not in inside else None
        if opened is None:
            doc = _DOC_LINE.match(lines[at]) if at not in inside else None
            yield at + 1, doc.group(1) if doc is not None else None
            at += 1
            continue
        comment = _block_comment(lines, at, opened.end())
        yield from comment
        at += len(comment)


def _lines_starting_inside(text: str) -> set[int]:
    """The 0-based lines of `text` that begin inside a string literal or a block comment: a `///` or
    `/**` there opens no doc comment. A literal or comment left open (an edit under way) runs to the
    end of the text, as the compiler reads it."""
    spans: list[tuple[int, int]] = []  # [start, end) of each literal or block comment over lines
    at = 0
    while (found := _LEXEME.search(text, at)) is not None:
        token, (start, end) = found.group(), found.span()
        if token == "/*":  # block comments nest: counted to the `*/` that closes this one
            depth = 1
            while depth and (mark := _COMMENT_MARK.search(text, end)) is not None:
                depth += 1 if mark.group() == "/*" else -1
                end = mark.end()
            end = end if not depth else len(text)
        elif token == '"':
            hashes = ""
            if start and text[start - 1] in "r#":
                before = text[max(0, start - _RAW_HASHES_MAX):start]
                hashes = "#" * (len(before) - len(before.rstrip("#")))
            opener = start - len(hashes)
            if opener and text[opener - 1] == "r" and _RAW_OPENER.search(text, max(0, opener - 2), opener):
                end = text.find('"' + hashes, end)  # `r#"`: closed by a quote and as many `#`s, no escapes
                end = end + 1 + len(hashes) if end >= 0 else len(text)
            else:
                closed = _STRING_END.match(text, end)
                end = closed.end() if closed is not None else len(text)
        else:  # a line comment, a char or a lone quote: within its line
            at = end
            continue
        if text.find("\n", start, end) >= 0:
            spans.append((start, end))
        at = end
    inside: set[int] = set()
    if spans:
        offset, pending = 0, iter(spans)
        span: tuple[int, int] | None = next(pending)
        for number, line in enumerate(text.split("\n")):
            while span is not None and span[1] <= offset:
                span = next(pending, None)
            if span is not None and span[0] < offset < span[1]:
                inside.add(number)
            offset += len(line) + 1
    return inside


def _block_comment(lines: list[str], first: int, start: int) -> list[tuple[int, str]]:
    """(1-based line, its text) of the block doc comment opening on `lines[first]` before `start`: up to
    the `*/` that closes it (block comments nest), with the ` * ` decoration taken off only when every
    line after the first that has text wears it, as rustdoc does."""
    bodies: list[tuple[int, str]] = []
    depth, at, column = 1, first, start
    while depth and at < len(lines):
        line, end = lines[at], len(lines[at])
        for mark in _COMMENT_MARK.finditer(line, column):
            depth += 1 if mark.group() == "/*" else -1
            if not depth:
                end = mark.start()
                break
        bodies.append((at + 1, line[column:end]))
        at, column = at + 1, 0
    decorated = [(number, body, _BLOCK_DECORATION.match(body)) for number, body in bodies[1:]]
    if all(decoration is not None for _, body, decoration in decorated if body.strip()):
        bodies[1:] = [(number, body[decoration.end():] if decoration is not None else body)
                      for number, body, decoration in decorated]
    return bodies


def _examples_of(real: str, text: str) -> list[tuple[int, str]]:
    """`text`'s example lines, kept per file while it is the file's text: a search reads only these
    lines again."""
    known = _EXAMPLES.get(real)
    if known is not None and known[0] is text:
        return known[1]
    found = example_lines(text)
    if len(_EXAMPLES) >= _EXAMPLES_CAP and real not in _EXAMPLES:
        _EXAMPLES.clear()
    _EXAMPLES[real] = (text, found)
    return found


def mentions(root: ProjectRoot, documents: Documents, files: Iterable[str], name: str,
             ) -> tuple[list[DocMention], int]:
    """The first MENTIONS_SHOWN mentions of `name` in the examples of `files` (root-relative, read as
    the analyzer sees them: an overlay's text first), and how many there are in all."""
    shown: list[DocMention] = []
    total = 0
    for rel in files:
        try:
            file = root.file(rel)
        except BadRequest:  # a link out of the root: not the project's
            continue
        seen = texts.seen(documents, file)
        if seen is None or name not in seen[0]:  # most files: one substring test
            continue
        for number, body in _naming(_examples_of(file.real, seen[0]), name):
            total += 1
            if len(shown) < MENTIONS_SHOWN:
                shown.append({"file": file.rel, "line": number, "text": body})
    return shown, total


__all__ = ["MENTIONS_SHOWN", "DocMention", "lines_mentioning", "mentions"]
