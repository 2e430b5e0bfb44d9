"""A text's character offsets as UTF-8 byte offsets, kept across edits without encoding it again.

The syntax tree reads UTF-8, the relay holds `str`. Encoding a 200 KB text that is not pure ASCII
costs a few hundred microseconds; an edit changes a line. So the text's non-ASCII characters are
listed once (where they are, and how many bytes each adds), and an edit only shifts that list. A text
with very many of them is not worth the list: it is encoded whole, as before.
"""

from __future__ import annotations

import re
from bisect import bisect_left

_WIDE = re.compile(r"[^\x00-\x7f]")
WIDE_KEPT = 1024  # more non-ASCII characters than this: the text is encoded whole on each edit


def _added_bytes(char: str) -> int:
    """What the UTF-8 form of one non-ASCII character adds over one byte."""
    code = ord(char)
    return 1 if code < 0x800 else 2 if code < 0x10000 else 3


class Utf8Offsets:
    __slots__ = ("_at", "_added")

    def __init__(self, at: list[int], added: list[int]) -> None:
        self._at = at  # the offsets of the non-ASCII characters, ascending
        self._added = added  # the bytes each adds

    @classmethod
    def of(cls, text: str) -> Utf8Offsets | None:
        """The map of `text`; None when it has more than WIDE_KEPT non-ASCII characters."""
        if text.isascii():
            return cls([], [])
        at: list[int] = []
        added: list[int] = []
        for match in _WIDE.finditer(text):
            if len(at) == WIDE_KEPT:
                return None
            at.append(match.start())
            added.append(_added_bytes(match.group()))
        return cls(at, added)

    def byte(self, offset: int) -> int:
        """The UTF-8 byte offset of character `offset`."""
        count = bisect_left(self._at, offset)
        return offset + (sum(self._added[:count]) if count else 0)

    def edited(self, start: int, old_end: int, inserted: str) -> Utf8Offsets | None:
        """The map after `text[start:old_end]` became `inserted`; None when it grew past WIDE_KEPT."""
        at, added = self._at, self._added
        first, last = bisect_left(at, start), bisect_left(at, old_end)
        shift = len(inserted) - (old_end - start)
        new_at = at[:first]
        new_added = added[:first]
        if not inserted.isascii():
            for match in _WIDE.finditer(inserted):
                new_at.append(start + match.start())
                new_added.append(_added_bytes(match.group()))
        new_at += [offset + shift for offset in at[last:]] if shift else at[last:]
        new_added += added[last:]
        return Utf8Offsets(new_at, new_added) if len(new_at) <= WIDE_KEPT else None


__all__ = ["WIDE_KEPT", "Utf8Offsets"]
