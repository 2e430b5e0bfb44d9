"""The Rust parser: tree-sitter's Rust grammar, loaded once per process.

A `Parser` holds mutable state, so each thread gets its own; the `Language` and the compiled `Query`
are immutable and shared. Building them costs milliseconds, parsing a file costs microseconds, so
nothing here is built per call.
"""

from __future__ import annotations

import threading

import tree_sitter
import tree_sitter_rust

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


def parse(source: bytes) -> tree_sitter.Tree:
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = tree_sitter.Parser(LANGUAGE)
    return parser.parse(source)


def captures(node: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
    """Every capture of the expression query under `node`, by capture name, each list in source order."""
    return tree_sitter.QueryCursor(QUERY).captures(node)
