"""One file as the policy sees it while it is being edited: its syntax tree, re-parsed incrementally
when the text changes, and its facts, recomputed only for the chunks an edit touched.

    parsed = ParsedFile()
    parsed.update(text)                 # an incremental re-parse of what changed since the last text
    parsed.facts()                      # FileFacts of that text (the same object until it changes)
    parsed.in_test_code(line, column)   # answered from the tree held, nothing parsed
"""

from __future__ import annotations

from ferrule.conform.facts import (
    Branded,
    FactCache,
    FileFacts,
    branded_in,
    facts_of,
    in_test_code_of,
    may_hold_tests,
)
from ferrule.conform.syntax import SourceTree
from ferrule.conform.utf8_offsets import Utf8Offsets
from ferrule.fastframe import changed_span


class ParsedFile:
    __slots__ = ("_text", "_tree", "_offsets", "_cache", "_facts", "_may_hold_tests")

    def __init__(self) -> None:
        self._text: str | None = None
        self._tree: SourceTree | None = None
        self._offsets: Utf8Offsets | None = None  # the held text's character-to-byte map
        self._cache = FactCache()
        self._facts: FileFacts | None = None
        self._may_hold_tests: bool | None = None

    def update(self, text: str) -> None:
        """Hold `text` from now on."""
        old = self._text
        if text == old:
            return
        tree, offsets = self._tree, self._offsets
        if tree is None or old is None or offsets is None:
            source = text.encode("utf-8")
            if tree is None:
                self._tree = SourceTree(source)
            else:
                tree.update(source)
            self._offsets = Utf8Offsets.of(text)
        else:  # only the changed characters are encoded; the rest of the bytes are the held ones
            start, old_end, new_end = changed_span(old, text)
            inserted = text[start:new_end]
            encoded = inserted.encode("utf-8")
            byte_start, byte_old_end = offsets.byte(start), offsets.byte(old_end)
            held = memoryview(tree.source)  # sliced without copies: the join copies once
            tree.update(b"".join((held[:byte_start], encoded, held[byte_old_end:])),
                        (byte_start, byte_old_end, byte_start + len(encoded)))
            self._offsets = offsets.edited(start, old_end, inserted)
        self._text = text
        self._facts = None
        self._may_hold_tests = None

    @property
    def size(self) -> int:
        """Bytes of the text held."""
        return len(self._tree.source) if self._tree is not None else 0

    @property
    def _source(self) -> SourceTree:
        if self._tree is None:
            raise RuntimeError("ParsedFile.update gives it a text first")
        return self._tree

    def facts(self) -> FileFacts:
        """The facts of the text held; the same object until the text changes (read, never change it)."""
        if self._facts is None:
            held = self._source
            self._facts = facts_of(held.tree, held.source, held.lines, self._cache)
        return self._facts

    def in_test_code(self, line: int, column: int) -> bool:
        """Whether the position (1-based line, UTF-8 byte column) of the text held is in test code."""
        held = self._source
        if self._may_hold_tests is None:
            self._may_hold_tests = may_hold_tests(held.source)
        return self._may_hold_tests and in_test_code_of(held.tree, line, column)

    def branded(self) -> list[Branded]:
        return branded_in(self.facts())


__all__ = ["ParsedFile"]
