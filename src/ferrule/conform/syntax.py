"""The Rust parser: tree-sitter's Rust grammar, loaded once per process, and trees kept across edits.

A `Parser` holds mutable state, so each thread gets its own; the `Language` and the compiled `Query`
are immutable and shared. Building them costs milliseconds; parsing a whole file costs about 0.25 ms
per KB of source, so a text that changed a little is re-parsed from its previous tree (`SourceTree`),
which costs what changed. `PARSES` counts both kinds.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import tree_sitter
import tree_sitter_rust

from ferrule.textspan import changed_span as changed_span

LANGUAGE = tree_sitter.Language(tree_sitter_rust.language())

# Everything the fact extractor needs below item level, found in one pass of the query engine (C).
# Items themselves are walked in Python: they are few, and their order decides docs and attributes.
_EXPRESSIONS = """
(call_expression
  function: (field_expression field: (field_identifier) @_method (#any-of? @_method "unwrap" "expect"))
) @method_call
(scoped_identifier name: (identifier) @_name (#any-of? @_name "unwrap" "expect")) @path_ref
(scoped_identifier) @scoped
(call_expression function: (identifier) @bare_call)
(use_declaration) @use
(unsafe_block) @unsafe
(macro_invocation (token_tree) @tokens)
(macro_rule right: (token_tree) @tokens)
"""

QUERY = tree_sitter.Query(LANGUAGE, _EXPRESSIONS)

_local = threading.local()


@dataclass
class ParseCount:
    """Parses since the process started: `full` ones read the whole text, `incremental` ones reuse the
    previous tree for everything an edit left alone."""

    full: int = 0
    incremental: int = 0


PARSES = ParseCount()


def parse(source: bytes, old: tree_sitter.Tree | None = None) -> tree_sitter.Tree:
    """The tree of `source`; with `old` (the previous text's tree, `edit`ed to match), only what the
    edit touched is parsed again."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = tree_sitter.Parser(LANGUAGE)
    if old is None:
        PARSES.full += 1
        return parser.parse(source)
    PARSES.incremental += 1
    return parser.parse(source, old)


class SourceTree:
    """One document's text and its syntax tree, brought to each new text by an incremental re-parse.

    The edit between two texts is their common prefix and suffix taken away: one span, found with a
    few block compares, so a one-line change costs about what parsing that line costs."""

    __slots__ = ("source", "tree", "newlines")

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.tree = parse(source)
        self.newlines = source.count(b"\n")

    def update(self, source: bytes, span: tuple[int, int, int] | None = None) -> bool:
        """Move to `source`; whether it differed from the text held. `span`: where it differs, as
        `changed_span` gives it, when the caller knows (a wider span than the least one will do)."""
        old = self.source
        if span is None:
            if source == old:
                return False
            span = changed_span(old, source)
        start, old_end, new_end = span
        root = self.tree.root_node
        start_point = _point(root, old, start)
        old_end_point = _point(root, old, old_end)
        inserted = source[start:new_end]
        added = inserted.count(b"\n")
        new_end_point = (start_point[0] + added, new_end - start + start_point[1] if not added
                         else len(inserted) - inserted.rfind(b"\n") - 1)
        self.tree.edit(start, old_end, new_end, start_point, old_end_point, new_end_point)
        self.newlines += added - old.count(b"\n", start, old_end)
        self.tree = parse(source, self.tree)
        self.source = source
        return True

    @property
    def lines(self) -> int:
        """Lines as an editor counts them: a last line without its newline counts too."""
        source = self.source
        return self.newlines + (1 if source and not source.endswith(b"\n") else 0)


def _point(root: tree_sitter.Node, source: bytes, offset: int) -> tuple[int, int]:
    """The (row, byte column) of `offset`, counted from the nearest node boundary before it rather than
    from the start of the text: the tree already knows the rows of its nodes."""
    base, (row, column) = 0, (0, 0)
    node = root.descendant_for_byte_range(offset, offset)
    if node is not None and node.start_byte <= offset:
        base, (row, column) = node.start_byte, node.start_point
        low, high = 0, node.child_count  # the last child that ends at or before `offset`, if any
        while low < high:
            middle = (low + high) // 2
            if node.child(middle).end_byte <= offset:  # type: ignore[union-attr]
                low = middle + 1
            else:
                high = middle
        before = node.child(low - 1) if low else None
        if before is not None and before.end_byte >= base:
            base, (row, column) = before.end_byte, before.end_point
    line_start = source.rfind(b"\n", base, offset)
    if line_start < 0:
        return row, column + offset - base
    return row + source.count(b"\n", base, offset), offset - line_start - 1


def captures(node: tree_sitter.Node, start: int | None = None, end: int | None = None,
             ) -> dict[str, list[tree_sitter.Node]]:
    """Every capture of the expression query under `node` (those that reach into the bytes `start` to
    `end` when given), by capture name, each list in source order."""
    cursor = tree_sitter.QueryCursor(QUERY)
    if start is not None and end is not None:
        cursor.set_byte_range(start, end)
    return cursor.captures(node)
