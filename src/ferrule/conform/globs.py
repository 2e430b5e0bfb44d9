"""Path patterns for conform.toml: `*` and `?` stay inside one path segment, `**` spans segments.

A pattern without a `/` matches a file's name in any directory (`lib.rs`), as in .gitignore; one with
a `/` matches the whole root-relative path (`src/bin/**`). `dir/**` matches everything under `dir`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    if "/" not in pattern:
        pattern = "**/" + pattern
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


class PathSet:
    """A set of patterns; `rel in paths` tells whether a root-relative path matches any of them."""

    __slots__ = ("patterns", "_compiled")

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(patterns)
        # "dir/" means everything under dir; a leading "/" only anchors, which every pattern with a "/" is
        self._compiled = tuple(_compile((p + "**" if p.endswith("/") else p).lstrip("/")) for p in self.patterns)

    def __contains__(self, rel_path: str) -> bool:
        return any(rx.match(rel_path) for rx in self._compiled)

    def __repr__(self) -> str:
        return f"PathSet({list(self.patterns)!r})"
