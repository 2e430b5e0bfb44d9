"""Hover contents (MarkupContent, MarkedString or a list of them) to plain text."""

from __future__ import annotations

import re
from typing import Any

_FENCES = ("```", "~~~")
_FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~)[^\n]*$", re.MULTILINE)
_RULE = r"[ \t]*(?:---+|\*\*\*+|___+)[ \t]*"  # a thematic break's line
_RULES = re.compile(rf"^{_RULE}$", re.MULTILINE)
_RULE_THEN_CODE = re.compile(rf"^{_RULE}\n(?:[ \t]*\n)*[ \t]*(?:```|~~~)", re.MULTILINE)
_PATH = re.compile(r"(?:r#)?[^\W\d]\w*(?:::(?:r#)?[^\W\d]\w*)*")  # a container's path: `inv::flags::Caps`
_LINK_DEFS = re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]*\S+[^\n]*$", re.MULTILINE)
_HEADINGS = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+", re.MULTILINE)
_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_REF_LINK = re.compile(r"\[([^\]\n]+)\]\[[^\]\n]*\]")
_BARE_REF = re.compile(r"\[(`?[^\]\[\n]+`?)\](?!\()")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_CODE_SPAN = re.compile(r"`([^`\n]*)`")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!<>|])")
_TRAILING = re.compile(r"[ \t]+$", re.MULTILINE)
_BLANKS = re.compile(r"\n{3,}")
_MARKUP_CHARS = frozenset("`*_[]#\\-~")


def hover_markdown(contents: object) -> str:
    """Flatten any LSP hover `contents` shape to one markdown string."""
    if contents is None:
        return ""
    if isinstance(contents, str):
        return contents
    if isinstance(contents, dict):
        value = contents.get("value", "")
        if "language" in contents:  # MarkedString {language, value}
            return f"```{contents['language']}\n{value}\n```"
        return str(value)
    if isinstance(contents, list):
        return "\n\n".join(hover_markdown(part) for part in contents)
    return str(contents)


def split_hover(markdown: str) -> tuple[str, str]:
    """(display, documentation): the signature code block(s) before the first rule, and the prose after.

    rust-analyzer writes `container path` block, `signature` block, `---`, docs; the display is the
    last code block of the header (the signature), the documentation everything after the rule.
    """
    blocks, prose_head, rest = _hover_parts(markdown)
    display = "\n".join(blocks[-1]).strip() if blocks else ""
    if not display and prose_head:  # plain-text hover without code
        display, prose_head = markdown_to_text("\n".join(prose_head)), []
    documentation = markdown_to_text("\n".join(prose_head + rest))
    return display, documentation


def hover_container(markdown: str) -> str:
    """The path of the item's container (`inv::flags::Caps`): the header's code block before the
    signature; empty when the header has the signature alone (a local, a crate)."""
    blocks = _hover_parts(markdown, header_only=True)[0]
    return "\n".join(blocks[-2]).strip() if len(blocks) >= 2 else ""


def hover_items(markdown: str) -> list[str]:
    """The hover of each item it describes. rust-analyzer joins the hovers of a name that stands for
    several items (a macro's input expanded into several; a `use` of a type and a macro of one name)
    with a rule, as it separates one item's signature from its docs: a rule followed by a header (a
    container path block, then a signature block) starts the next item."""
    # the common case, decided without a walk (and without the regex when no line can be a rule)
    if ("---" not in markdown and "***" not in markdown and "___" not in markdown) or _RULE_THEN_CODE.search(markdown) is None:
        return [markdown]
    lines = markdown.split("\n")
    starts = [0]
    in_code = False
    for at, line in enumerate(lines):
        bare = line.strip()
        if bare.startswith(_FENCES):
            in_code = not in_code
        elif not in_code and _is_rule(bare) and _opens_header(lines, at + 1):
            starts.append(at + 1)
    if len(starts) == 1:
        return [markdown]
    ends = [start - 1 for start in starts[1:]] + [len(lines)]  # each item without the rule that ends it
    return ["\n".join(lines[start:end]).strip("\n") for start, end in zip(starts, ends, strict=True)]


def _opens_header(lines: list[str], at: int) -> bool:
    """Whether an item's header opens at line `at`: a code block holding a path alone (its container,
    `inv::flags::Caps`), then a code block (its signature), only blank lines before and between them.
    A doc example after a rule in the docs is code, not a path."""
    for block in range(2):
        while at < len(lines) and not lines[at].strip():
            at += 1
        if at >= len(lines) or not lines[at].strip().startswith(_FENCES):
            return False
        opened = at = at + 1
        while at < len(lines) and not lines[at].strip().startswith(_FENCES):
            at += 1
        if at >= len(lines) or (block == 0 and (at != opened + 1 or not _PATH.fullmatch(lines[opened].strip()))):
            return False
        at += 1
    return True


def hover_signature(markdown: str) -> str:
    """The signature alone (`split_hover`'s display, the docs left unread): cheap on long docs."""
    blocks = _hover_parts(markdown, header_only=True)[0]
    return "\n".join(blocks[-1]).strip() if blocks else ""


def _hover_parts(markdown: str, *, header_only: bool = False) -> tuple[list[list[str]], list[str], list[str]]:
    """(the header's code blocks, its prose lines, the lines after the first rule: none if `header_only`)."""
    blocks: list[list[str]] = []
    prose_head: list[str] = []
    in_code = False
    lines = markdown.split("\n")
    for at, line in enumerate(lines):
        bare = line.strip()
        if bare.startswith(_FENCES):
            in_code = not in_code
            if in_code:
                blocks.append([])
            continue
        if in_code:
            blocks[-1].append(line)  # an unterminated fence: its lines are collected all the same
        elif not bare:
            continue
        elif _is_rule(bare):  # the header ends; a std item's docs run to hundreds of lines after it
            return blocks, prose_head, [] if header_only else lines[at + 1:]
        else:
            prose_head.append(line)
    return blocks, prose_head, []


def _is_rule(bare: str) -> bool:
    """A thematic break: three or more of `-`, `*` or `_` alone on a (stripped) line."""
    return len(bare) >= 3 and bare[0] in "-*_" and bare == bare[0] * len(bare)


def markdown_to_text(markdown: str) -> str:
    """Strip markdown syntax, keeping code block contents and link texts."""
    if _MARKUP_CHARS.isdisjoint(markdown):
        return markdown.strip()
    # fences split the text into prose and code (odd pieces); only prose is unescaped
    pieces = _FENCE_LINE.split(markdown)
    for at in range(0, len(pieces), 2):
        pieces[at] = _prose(pieces[at])
    text = "".join(pieces)
    if " \n" in text or "\t\n" in text:
        text = _TRAILING.sub("", text)
    return (_BLANKS.sub("\n\n", text) if "\n\n\n" in text else text).strip()


def _emphasised(match: re.Match[str]) -> str:
    return match.group(2) or match.group(3)


# The passes over prose, in order, each with the characters its syntax cannot do without.
_PASSES: tuple[tuple[re.Pattern[str], Any, frozenset[str]], ...] = (
    (_RULES, "", frozenset("-*_")),
    (_LINK_DEFS, "", frozenset("[")),
    (_HEADINGS, "", frozenset("#")),
    (_LINK, r"\1", frozenset("[")),
    (_REF_LINK, r"\1", frozenset("[")),
    (_BARE_REF, r"\1", frozenset("[")),
    (_CODE_SPAN, r"\1", frozenset("`")),
    (_EMPHASIS, _emphasised, frozenset("*_")),
    (_ESCAPE, r"\1", frozenset("\\")),
)


def _prose(text: str) -> str:
    # A pass whose characters are absent would find nothing: most doc prose skips most of them. A
    # pass only removes characters, so what is present at the start bounds what any pass can meet.
    present = _MARKUP_CHARS.intersection(text)
    for pattern, replacement, needs in _PASSES:
        if not needs.isdisjoint(present):
            text = pattern.sub(replacement, text)
    return text
