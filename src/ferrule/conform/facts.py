"""Facts about one Rust file, from tree-sitter's Rust grammar: the records the rules read.

`extract(source)` returns a `FileFacts`; `FileFacts.records()` is the JSON list the relay's `validate`
returns as `facts`. Every record is a flat JSON object with `kind` and a 1-based `line`.

Schema (fields marked * appear only on some kinds):

    {"kind": "file", "line": 1, "lines": int}                  # lines in the file (one per record list)

    # items: kind is fn | struct | enum | union | trait | impl | mod | use | const | static | type |
    #        macro_rules | extern_crate
    {"kind", "name": str,              # impl: the implementing type; use: the path as written
     "line", "end_line": int,
     "visibility": str,                # "" (private), "pub", "pub(crate)", ...; an exported
                                       # macro_rules (#[macro_export]) counts as "pub"
     "scope": str,                     # enclosing item path, "" at the top ("outer::Type")
     "parent": str | null,             # kind of the enclosing item: null, "mod", "impl", "trait", "fn",
                                       # "extern"
     "public": bool,                   # "pub" here and in every enclosing mod: reachable from outside
     "doc": str | null,                # the doc comment (`///`, `/** */`, #[doc = ".."]), markers removed
     "doctest": bool,                  # the doc holds a code block rustdoc runs as a test
     "hidden": bool,                   # #[doc(hidden)]
     "test": bool,                     # test code by its attributes (#[cfg(test)], #[test], ...)
     "trait"*: str | null,             # impl only: the trait implemented
     "shape"*: "tuple" | "record" | "unit", "fields"*: int, "private_fields"*: int}   # struct only

    {"kind": "unsafe", "line", "end_line", "scope", "test"}     # an `unsafe { }` block

    {"kind": "unwrap", "method": "unwrap" | "expect",
     "receiver": str | null,           # the expression unwrapped, as written (null: a bare path reference)
     "form": "method" | "path",        # x.unwrap() | Option::unwrap(x) or a bare Option::unwrap
     "in_macro": bool,                 # found in a macro invocation's tokens (or a macro_rules body)
     "text": str,                      # the call as written, whitespace collapsed
     "line", "scope", "test",
     "allowed": bool}                  # #[allow]/#[expect](clippy::unwrap_used | expect_used) applies

    {"kind": "env_read", "function": "std::env::var",    # an ambient std::env access, resolved
     "text": str, "form": "call" | "reference", "in_macro": bool, "line", "scope", "test"}

Decisions worth knowing:
- Comments and string literals are never code: an `unwrap` there is no record.
- Macro arguments are tokens, not syntax; `x.unwrap()`, `Option::unwrap(..)` and `std::env::var`
  token sequences inside a macro invocation (or a macro_rules body) are recorded with in_macro true.
- `.unwrap()` needs no arguments and `.expect(..)` exactly one, as on Option/Result; the receiver's
  type is unknown to a parser, so any such method call counts (a documented heuristic).
- `Option::unwrap` / `Result::expect` paths count whether called or passed (`.map(Option::unwrap)`).
- `std::env` resolution follows the file's `use` declarations (`use std::env`, `use std::env as e`,
  `use std::env::var`, `use std::env::{self, var as v}`, globs), collected file-wide. Only the
  functions that touch ambient process state count (`var`, `vars`, `args`, `current_dir`, `set_var`,
  ...); `split_paths`, `join_paths` and the `env!` macro do not.
- "test" in records means test code by attributes only; the policy also treats test paths as tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, TypedDict

from tree_sitter import Node, Tree

from ferrule.conform import syntax
from ferrule.conform.attributes import (
    Attributes,
    clean_block_doc,
    has_doctest,
    read_attribute,
    summarise,
)
from ferrule.conform.imports import StdImports, segments


class Fact(TypedDict, total=False):
    """One record of the schema above; which keys a record has depends on its `kind`."""

    kind: str
    line: int
    lines: int
    name: str
    end_line: int
    visibility: str
    scope: str
    parent: str | None
    public: bool
    doc: str | None
    doctest: bool
    hidden: bool
    test: bool
    trait: str | None
    shape: str
    fields: int
    private_fields: int
    method: str
    receiver: str | None
    form: str
    in_macro: bool
    text: str
    allowed: bool
    function: str


class Branded(TypedDict):
    name: str
    line: int


ITEM_KINDS = {
    "function_item": "fn", "function_signature_item": "fn", "struct_item": "struct", "enum_item": "enum",
    "union_item": "union", "trait_item": "trait", "impl_item": "impl", "mod_item": "mod",
    "use_declaration": "use", "const_item": "const", "static_item": "static",
    "macro_definition": "macro_rules", "type_item": "type", "associated_type": "type",
    "extern_crate_declaration": "extern_crate",
}
_CONTAINERS = {"mod_item": "mod", "impl_item": "impl", "trait_item": "trait", "foreign_mod_item": "extern"}
_COMMENTS = frozenset({"line_comment", "block_comment"})
_UNWRAP_LINTS = {"unwrap": "clippy::unwrap_used", "expect": "clippy::expect_used"}
_UNWRAP_ARITY = {"unwrap": 0, "expect": 1}  # arguments besides the receiver
_PANICKING_TYPES = frozenset({"Option", "Result"})
# Tokens that can make up the receiver of `.unwrap()` inside a macro's token tree.
_CHAIN_TOKENS = frozenset({"identifier", "self", "token_tree", "metavariable", "integer_literal",
                           "string_literal", "raw_string_literal", "char_literal", ".", "::", "?", "!",
                           "super", "crate", "field_identifier", "primitive_type", "mutable_specifier"})
_MAX_TEXT = 160


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _opens_call(node: Node | None) -> bool:
    """A token tree that is an argument list: `( .. )`."""
    return node is not None and (node.text or b"").startswith(b"(")


def _squash(text: str) -> str:
    """Whitespace collapsed, so a reformatted line keeps its key; long texts cut."""
    text = " ".join(text.split())
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 3] + "..."


@dataclass(frozen=True)
class Scope:
    path: str = ""
    kind: str | None = None     # the enclosing item's kind
    test: bool = False
    allows: frozenset[str] = frozenset()
    public: bool = True         # every enclosing mod is pub (the file itself is)

    def enter(self, name: str, kind: str, attrs: Attributes, public: bool) -> Scope:
        return Scope(
            path=f"{self.path}::{name}" if self.path else name,
            kind=kind,
            test=self.test or attrs.test,
            allows=self.allows | attrs.allows if attrs.allows else self.allows,
            public=public,
        )


@dataclass
class FileFacts:
    lines: int
    items: list[Fact] = field(default_factory=list)
    unsafe: list[Fact] = field(default_factory=list)
    unwraps: list[Fact] = field(default_factory=list)
    env_reads: list[Fact] = field(default_factory=list)

    def records(self) -> list[Fact]:
        """Every record, the file record first, then the rest in source order."""
        rest = [*self.items, *self.unsafe, *self.unwraps, *self.env_reads]
        rest.sort(key=lambda r: r["line"])  # stable: items before what they contain
        return [{"kind": "file", "line": 1, "lines": self.lines}, *rest]


def count_lines(source: bytes) -> int:
    return source.count(b"\n") + (1 if source and not source.endswith(b"\n") else 0)


def extract(source: bytes | str) -> FileFacts:
    if isinstance(source, str):
        source = source.encode("utf-8")
    return facts_of(syntax.parse(source), source, count_lines(source), FactCache())


def facts_of(tree: Tree, source: bytes, lines: int, cache: FactCache) -> FileFacts:
    """The facts of `source` (whose tree is `tree`), each chunk's taken from `cache` when its text and
    context were seen before, computed (and kept) otherwise."""
    return _Extractor(source, lines, cache).run(tree.root_node)


def branded_newtypes(text: str | bytes) -> list[Branded]:
    """Seam newtypes: pub tuple structs with exactly one field, and that field private."""
    return branded_in(extract(text))


def branded_in(facts: FileFacts) -> list[Branded]:
    """The seam newtypes among a file's items."""
    return [
        {"name": item["name"], "line": item["line"]}
        for item in facts.items
        if item["kind"] == "struct" and item["visibility"] == "pub" and item.get("shape") == "tuple"
        and item["fields"] == 1 and item["private_fields"] == 1 and not item["test"]
    ]


# Words without which no attribute can mark test code (`test`, `rstest`, `test_case`, `bench`, ...).
_TEST_WORDS = (b"test", b"bench", b"quickcheck")
# Nodes whose `#![...]` inner attributes apply to everything inside them.
_INNER_ATTRIBUTE_HOLDERS = frozenset({"source_file", "declaration_list", "block"})


def in_test_code(text: str | bytes, line: int, column: int = 0) -> bool:
    """Whether the position (1-based `line`, 0-based byte `column`) lies in test code as the rules see
    it: under a `#[cfg(test)]`-like attribute (on a module, an item, a statement), in a `#[test]`-like
    function, or in a module or file whose `#![cfg(test)]` says so. The file's path is not looked at
    (`Policy.is_test_path` is the other half)."""
    source = text.encode("utf-8") if isinstance(text, str) else text
    if not may_hold_tests(source):
        return False
    return in_test_code_of(syntax.parse(source), line, column)


def may_hold_tests(source: bytes) -> bool:
    """False when no attribute of the text can mark test code: nothing needs parsing then."""
    return any(word in source for word in _TEST_WORDS)


# An attribute that names a test word before its first `]` outside a string: every attribute that can
# mark test code (`read_attribute`: a test attribute's path, or `cfg(..test..)`) is one.
_TEST_WORDS_PATTERN = "|".join(re.escape(word.decode()) for word in _TEST_WORDS)
_TEST_ATTRIBUTE = re.compile(r'#!?\s*\[(?:[^\]"]|"(?:[^"\\]|\\.)*")*?(?:' + _TEST_WORDS_PATTERN + ")")
_INNER_TEST_ATTRIBUTE = re.compile(r'#\s*!\s*\[(?:[^\]"]|"(?:[^"\\]|\\.)*")*?(?:' + _TEST_WORDS_PATTERN + ")")
# How far past a line the attributes are looked for: longer than an attribute, and than the comments
# that may stand between a block's `{` (on or before the line) and the inner attributes that open it.
_ATTRIBUTE_REACH = 16_384


def may_be_test_code(text: str, line_end: int) -> bool:
    """False when nothing can make a line test code, found without parsing: no attribute starting on
    or before the line names a test word, and no inner attribute that does (`#![...]`, which marks the
    block or file around it, the part before it too) follows the line closely. `line_end`: the offset
    where the line after it starts (the text's end past the last line), which a line index has; only
    the text up to a little past it is read. Test code usually closes a file, so most of a file's
    lines are settled so."""
    reach = line_end + _ATTRIBUTE_REACH
    first = _TEST_ATTRIBUTE.search(text, 0, reach)
    if first is None:
        return False
    return first.start() < line_end or _INNER_TEST_ATTRIBUTE.search(text, first.start(), reach) is not None


def in_test_code_of(tree: Tree, line: int, column: int = 0) -> bool:
    """`in_test_code` on a tree at hand."""
    root = tree.root_node
    point = (max(line - 1, 0), max(column, 0))
    node: Node | None = root.descendant_for_point_range(point, point)
    found: dict = {}
    while node is not None:
        prev = node.prev_sibling  # outer attributes of this node, comments between them allowed
        while prev is not None and (prev.type == "attribute_item" or prev.type in _COMMENTS):
            if prev.type == "attribute_item":
                read_attribute(_text(prev)[2:-1], found)
            prev = prev.prev_sibling
        if node.type in _INNER_ATTRIBUTE_HOLDERS:
            for text in _inner_attribute_texts(node):
                read_attribute(text[3:-1], found)
        if found.get("test"):
            return True
        node = node.parent
    return False


def _inner_attribute_texts(holder: Node) -> list[str]:
    """The `#![...]` attributes among a file's, module's or block's first children: Rust allows them
    only before the first item or statement, so the scan stops there (a list of every child would
    cost as much as the container is long)."""
    texts = []
    for index in range(holder.child_count):
        child = holder.child(index)
        assert child is not None
        kind = child.type
        if kind == "inner_attribute_item":
            texts.append(_text(child))
        elif kind not in _COMMENTS and kind != "{":
            break
    return texts


class FactCache:
    """The facts of one file's chunks, kept across its texts.

    A chunk is one item with the attributes and comments before it. Its facts depend only on its text
    and its context (the scope it sits in, the file's std imports), so they are kept by those: a new
    text looks each top-level chunk up, and walks into a container (`impl`, `mod`, `trait`, `extern`)
    only when its text changed, down to the items that did. Lines are kept relative to the chunk and
    moved to where it now stands. An entry lives while builds use it, and one build longer: transient
    texts and the saved one alternate.
    """

    __slots__ = ("_current", "_previous", "_contexts")

    _CONTEXTS_MAX = 4096  # distinct contexts before everything is forgotten (their numbers are reused)

    def __init__(self) -> None:
        self._current: dict[tuple, Any] = {}
        self._previous: dict[tuple, Any] = {}
        self._contexts: dict[tuple, int] = {}

    def turn(self) -> None:
        """A new build begins: what the build before the last one used is forgotten."""
        if len(self._contexts) > self._CONTEXTS_MAX:
            self._contexts.clear()
            self._current.clear()
        self._previous, self._current = self._current, {}

    def get(self, key: tuple) -> Any:
        value = self._current.get(key)
        if value is None:
            value = self._previous.get(key)
            if value is not None:
                self._current[key] = value
        return value

    def put(self, key: tuple, value: Any) -> None:
        self._current[key] = value

    def context(self, scope: Scope, imports: tuple) -> int:
        """A small number for (scope, imports), cheaper to hash in every key than the two."""
        key = (scope, imports)
        number = self._contexts.get(key)
        if number is None:
            number = self._contexts[key] = len(self._contexts)
        return number


class _Step:
    """One chunk of a container's children: attributes and comments, then the item (or other node)
    they lead to; `node` is None for those left at the end of the container."""

    __slots__ = ("members", "node", "body", "start", "row", "text", "captured", "_children")

    def __init__(self, members: list[Node], node: Node | None, source: bytes) -> None:
        self.members = members
        self.node = node
        body = node.child_by_field_name("body") if node is not None and node.type in _CONTAINERS else None
        self.body = body if body is not None and body.type == "declaration_list" else None
        first = members[0] if members else node
        last = node if node is not None else members[-1]
        assert first is not None and last is not None
        self.start, self.row = first.start_byte, first.start_point[0]
        self.text = source[self.start:last.end_byte]
        self.captured: dict[str, list[Node]] | None = None  # a leaf's captures, once queried
        self._children: tuple[list[_Step], tuple[str, ...]] | None = None

    def children(self, source: bytes) -> tuple[list[_Step], tuple[str, ...]]:
        """A container's body as chunks, and the texts of its inner attributes."""
        if self._children is None:
            assert self.body is not None
            self._children = _steps(self.body.children, source)
        return self._children


def _steps(children: list[Node], source: bytes) -> tuple[list[_Step], tuple[str, ...]]:
    """The chunks of a container's children, and the texts of its `#![...]` inner attributes."""
    steps: list[_Step] = []
    members: list[Node] = []
    inner: list[str] = []
    for child in children:
        kind = child.type
        if kind == "attribute_item" or kind in _COMMENTS:
            members.append(child)
        elif kind == "inner_attribute_item":
            members.append(child)
            if not steps and not any(m.type == "attribute_item" for m in members):
                inner.append(_text(child))  # where Rust allows it: before the first item
        elif kind != "{" and kind != "}":
            steps.append(_Step(members, child, source))
            members = []
    if members:
        steps.append(_Step(members, None, source))
    return steps, tuple(inner)


class _Chunk:
    """What one chunk contributes, in source order, its lines counted from its first row; and the
    last place it was put (records already moved there are handed out again while it stays)."""

    __slots__ = ("items", "found", "_placed")

    def __init__(self, items: list[Fact], found: list[Fact]) -> None:
        self.items = items
        self.found = found
        self._placed: tuple[int, list[Fact], list[Fact]] | None = None

    def placed(self, row: int) -> tuple[list[Fact], list[Fact]]:
        """The records with the chunk's first line at 0-based `row`."""
        placed = self._placed
        if placed is None or placed[0] != row:
            placed = self._placed = (row, [_shifted(r, row) for r in self.items], [_shifted(r, row) for r in self.found])
        return placed[1], placed[2]


def _shifted(record: Fact, rows: int) -> Fact:
    moved = record.copy()
    moved["line"] += rows
    if "end_line" in moved:
        moved["end_line"] += rows
    return moved


def _inner_attributes_scope(scope: Scope, texts: tuple[str, ...]) -> Scope:
    """`scope` with a container's `#![...]` attributes applied (they hold for everything inside it)."""
    if not texts:
        return scope
    found: dict = {}
    for text in texts:
        read_attribute(text[3:-1], found)
    attrs = summarise(found)
    return Scope(scope.path, scope.kind, scope.test or attrs.test, scope.allows | attrs.allows, scope.public)


class _Extractor:
    def __init__(self, source: bytes, lines: int, cache: FactCache) -> None:
        self.source = source
        self.facts = FileFacts(lines=lines)
        self.cache = cache
        self.scopes: dict[int, Scope] = {}  # item node id -> the scope inside it
        self.imports = StdImports()
        self.imports_key: tuple = ()
        self.found: list[tuple[int, Fact]] = []  # (byte offset, record): query order is not source order
        self.items: list[Fact] = []  # the records of the chunk being computed

    def run(self, root: Node) -> FileFacts:
        self.cache.turn()
        source = self.source
        steps, inner = _steps(root.children, source)
        for step in steps:
            aliases, globs = self._imports_of(step)
            self.imports.aliases.update(aliases)
            self.imports.globs.extend(globs)
        self.imports_key = (tuple(sorted(self.imports.aliases.items())), tuple(self.imports.globs))
        scope = _inner_attributes_scope(Scope(), inner)
        self.scopes[root.id] = scope
        context = self.cache.context(scope, self.imports_key)
        facts = self.facts
        items, found = facts.items, []
        for step in steps:
            placed_items, placed_found = self._chunk(step, scope, context).placed(step.row)
            items.extend(placed_items)
            found.extend(placed_found)
        lists = {"unsafe": facts.unsafe, "unwrap": facts.unwraps, "env_read": facts.env_reads}
        for record in found:
            lists[record["kind"]].append(record)
        return facts

    # ---- chunks ------------------------------------------------------------------------------

    def _imports_of(self, step: _Step) -> tuple[tuple, tuple]:
        """What the chunk's `use` declarations import from std: (name, path) pairs and globs, in order."""
        key = ("use", step.text)
        read = self.cache.get(key)
        if read is None:
            aliases: list[tuple[str, tuple[str, ...]]] = []
            globs: list[tuple[str, ...]] = []
            if step.body is not None:  # a container's header holds no `use`: its items may
                for child in step.children(self.source)[0]:
                    child_aliases, child_globs = self._imports_of(child)
                    aliases.extend(child_aliases)
                    globs.extend(child_globs)
            elif b"use" in step.text:
                chunk_imports = StdImports()
                for node in self._captures(step).get("use", ()):
                    chunk_imports.read(node)
                aliases.extend(chunk_imports.aliases.items())
                globs.extend(chunk_imports.globs)
            read = (tuple(aliases), tuple(globs))
            self.cache.put(key, read)
        return read

    def _chunk(self, step: _Step, scope: Scope, context: int) -> _Chunk:
        """The chunk's facts, from the cache when its text and context were seen before."""
        key = ("facts", step.text, context)
        chunk = self.cache.get(key)
        if chunk is None:
            chunk = self._container(step, scope) if step.body is not None else self._leaf(step, scope)
            self.cache.put(key, chunk)
        return chunk

    def _leaf(self, step: _Step, scope: Scope) -> _Chunk:
        node = step.node
        if node is not None and (node.type in ITEM_KINDS or node.type == "foreign_mod_item"):
            pending, docs = self._attributes(step.members)
            self._item(node, node.type, summarise(pending), docs, scope)
        self._expressions(self._captures(step), step.text)
        return self._gathered(step.row)

    def _container(self, step: _Step, scope: Scope) -> _Chunk:
        """A container's record and what its header holds, then each of its items' chunks."""
        node, body = step.node, step.body
        assert node is not None and body is not None
        children, inner_attributes = step.children(self.source)
        pending, docs = self._attributes(step.members)
        inner = _inner_attributes_scope(self._item(node, node.type, summarise(pending), docs, scope),
                                        inner_attributes)
        self.scopes[node.id] = inner  # what the header's and the items' expressions see above them
        self._expressions(self._captures(step, body.start_byte), step.text[:body.start_byte - step.start])
        chunk = self._gathered(step.row)
        context = self.cache.context(inner, self.imports_key)
        for child in children:
            placed_items, placed_found = self._chunk(child, inner, context).placed(child.row - step.row)
            chunk.items.extend(placed_items)
            chunk.found.extend(placed_found)
        return chunk

    @staticmethod
    def _captures(step: _Step, end: int | None = None) -> dict[str, list[Node]]:
        """The expression query's captures in the chunk's bytes (up to `end`: a container's header)."""
        if end is None and step.captured is not None:
            return step.captured
        node = step.node if step.node is not None else step.members[-1]
        parent = node.parent
        assert parent is not None
        start = step.start
        stop = start + len(step.text) if end is None else end
        captured = {name: [n for n in nodes if start <= n.start_byte < stop]  # what begins in the chunk
                    for name, nodes in syntax.captures(parent, start, stop).items()}
        if end is None:
            step.captured = captured
        return captured

    def _gathered(self, row: int) -> _Chunk:
        """The records gathered for one chunk, in source order and counted from its row; the gathering
        lists emptied for the next."""
        self.found.sort(key=lambda pair: pair[0])
        items, found = self.items, [record for _, record in self.found]
        for record in (*items, *found):  # made for this chunk alone: moved where they are
            record["line"] -= row
            if "end_line" in record:
                record["end_line"] -= row
        self.items, self.found = [], []
        return _Chunk(items, found)

    @staticmethod
    def _attributes(members: list[Node]) -> tuple[dict, list[str]]:
        """The outer attributes (read) and doc comments of a chunk's leading members."""
        pending: dict = {}
        docs: list[str] = []
        for child in members:
            kind = child.type
            if kind == "attribute_item":
                read_attribute(_text(child)[2:-1], pending)
            elif kind in _COMMENTS and child.child_by_field_name("outer") is not None:
                doc = child.child_by_field_name("doc")
                if doc is not None:
                    text = _text(doc)
                    docs.append(clean_block_doc(text) if kind == "block_comment" else _unspace(text))
        return pending, docs

    def _expressions(self, caps: dict[str, list[Node]], text: bytes) -> None:
        """The unwrap, env and unsafe records of one chunk's captures (`text`: the chunk's source)."""
        for node in caps.get("method_call", ()):
            self._method_call(node)
        for node in caps.get("path_ref", ()):
            self._path_ref(node)
        if self.imports or b"std" in text:
            for node in caps.get("scoped", ()):
                self._scoped(node)
            if self.imports:
                for node in caps.get("bare_call", ()):
                    self._bare_call(node)
        for node in caps.get("unsafe", ()):
            scope = self._scope_of(node)
            self.found.append((node.start_byte, {"kind": "unsafe", "line": node.start_point[0] + 1,
                                                 "end_line": node.end_point[0] + 1, "scope": scope.path,
                                                 "test": scope.test}))
        for node in caps.get("tokens", ()):
            self._scan_tokens(node)

    # ---- items -------------------------------------------------------------------------------

    def _item(self, node: Node, node_type: str, attrs: Attributes, docs: list[str], scope: Scope) -> Scope:
        """The item's record (none for an `extern` block); the scope inside it."""
        if node_type == "foreign_mod_item":  # `extern "C" { .. }`: its items live in the enclosing path
            inner = Scope(scope.path, "extern", scope.test or attrs.test, scope.allows | attrs.allows, False)
            self.scopes[node.id] = inner
            return inner
        kind = ITEM_KINDS[node_type]
        visibility = ""
        first = node.child(0)
        if first is not None and first.type == "visibility_modifier":
            visibility = " ".join(_text(first).split())
        if kind == "macro_rules" and attrs.exported:
            visibility = "pub"
        record: Fact = {"kind": kind, "name": self._item_name(node, kind),
                                  "line": node.start_point[0] + 1, "end_line": node.end_point[0] + 1,
                                  "visibility": visibility, "scope": scope.path, "parent": scope.kind}
        public = visibility == "pub" and (scope.public or kind == "macro_rules")
        if attrs.doc:
            docs = [*docs, attrs.doc]
        doc = "\n".join(docs) if docs else None
        record.update({"public": public, "doc": doc, "doctest": doc is not None and has_doctest(doc),
                       "hidden": attrs.hidden, "test": scope.test or attrs.test})
        if kind == "struct":
            record.update(self._struct_shape(node))
        elif kind == "impl":
            trait = node.child_by_field_name("trait")
            record["trait"] = _squash(_text(trait)) if trait is not None else None
        self.items.append(record)
        if kind in ("use", "extern_crate", "const", "static", "type"):
            return scope
        if kind == "impl":
            own = record["name"] if record["trait"] is None else f"<{record['name']} as {record['trait']}>"
        else:
            own = record["name"]
        inner = scope.enter(own, kind, attrs, public if kind == "mod" else False)
        if kind == "fn":
            inner = self._with_inner_attributes(node.child_by_field_name("body"), inner)
        self.scopes[node.id] = inner
        return inner

    @staticmethod
    def _item_name(node: Node, kind: str) -> str:
        if kind == "impl":
            target = node.child_by_field_name("type")
            return _squash(_text(target)) if target is not None else ""
        if kind == "use":
            arg = node.child_by_field_name("argument")
            return _squash(_text(arg)) if arg is not None else ""
        name = node.child_by_field_name("name")
        return _text(name) if name is not None else ""

    @staticmethod
    def _struct_shape(node: Node) -> Fact:
        body = node.child_by_field_name("body")
        if body is None:
            return {"shape": "unit", "fields": 0, "private_fields": 0}
        if body.type == "ordered_field_declaration_list":
            fields = len(body.children_by_field_name("type"))
            public = sum(1 for c in body.children if c.type == "visibility_modifier")
            return {"shape": "tuple", "fields": fields, "private_fields": fields - public}
        decls = [c for c in body.children if c.type == "field_declaration"]
        public = sum(1 for d in decls if d.child(0) is not None and d.child(0).type == "visibility_modifier")
        return {"shape": "record", "fields": len(decls), "private_fields": len(decls) - public}

    @staticmethod
    def _with_inner_attributes(body: Node | None, scope: Scope) -> Scope:
        """A function body's `#![allow(...)]` applies to the whole function."""
        if body is None:
            return scope
        return _inner_attributes_scope(scope, tuple(_inner_attribute_texts(body)))

    # ---- context of an expression --------------------------------------------------------------

    def _scope_of(self, node: Node) -> Scope:
        """The scope an expression sits in: its nearest walked item, plus attributes met on the way
        up (on statements, nested items, closures' statements)."""
        found: dict = {}
        names: list[str] = []
        ancestor = node.parent
        base = None
        while ancestor is not None:
            base = self.scopes.get(ancestor.id)
            if base is not None:
                break
            prev = ancestor.prev_sibling
            while prev is not None and (prev.type == "attribute_item" or prev.type in _COMMENTS):
                if prev.type == "attribute_item":
                    read_attribute(_text(prev)[2:-1], found)
                prev = prev.prev_sibling
            if ancestor.type in ITEM_KINDS and ancestor.type != "impl_item":
                name = ancestor.child_by_field_name("name")
                if name is not None:
                    names.append(_text(name))
            ancestor = ancestor.parent
        if base is None:
            base = Scope()
        if not found and not names:
            return base
        attrs = summarise(found)
        path = "::".join([base.path, *reversed(names)] if base.path else reversed(names))
        return Scope(path, base.kind, base.test or attrs.test, base.allows | attrs.allows, base.public)

    # ---- unwrap / expect -------------------------------------------------------------------------

    def _unwrap(self, anchor: Node, method: str, receiver: str | None, form: str, text: str,
                in_macro: bool = False) -> None:
        scope = self._scope_of(anchor)
        self.found.append((anchor.start_byte, {
            "kind": "unwrap", "method": method, "receiver": receiver, "form": form, "in_macro": in_macro,
            "text": _squash(text),
            "line": anchor.start_point[0] + 1, "scope": scope.path, "test": scope.test,
            "allowed": _UNWRAP_LINTS[method] in scope.allows,
        }))

    def _method_call(self, call: Node) -> None:
        function = call.child_by_field_name("function")
        field_node = function.child_by_field_name("field") if function is not None else None
        if function is None or field_node is None:
            return
        method = _text(field_node)
        args = call.child_by_field_name("arguments")
        if args is None or _argument_count(args) != _UNWRAP_ARITY[method]:
            return
        receiver = function.child_by_field_name("value")
        self._unwrap(field_node, method, _squash(_text(receiver)) if receiver is not None else None,
                     "method", _text(call))

    def _path_ref(self, node: Node) -> None:
        path = node.child_by_field_name("path")
        name = node.child_by_field_name("name")
        if path is None or name is None or _last_segment(_text(path)) not in _PANICKING_TYPES:
            return
        method = _text(name)
        parent = node.parent
        receiver = None
        text = _text(node)
        if parent is not None and parent.type == "call_expression" and \
                parent.child_by_field_name("function") == node:
            args = parent.child_by_field_name("arguments")
            first = next((a for a in args.named_children if a.type not in _COMMENTS), None) if args else None
            receiver = _squash(_text(first)) if first is not None else None
            text = _text(parent)
        self._unwrap(name, method, receiver, "path", text)

    # ---- std::env ----------------------------------------------------------------------------------

    def _env(self, anchor: Node, function: str, text: str, form: str, in_macro: bool = False) -> None:
        scope = self._scope_of(anchor)
        self.found.append((anchor.start_byte, {
            "kind": "env_read", "function": function, "text": _squash(text), "form": form, "in_macro": in_macro,
            "line": anchor.start_point[0] + 1, "scope": scope.path, "test": scope.test,
        }))

    def _scoped(self, node: Node) -> None:
        parent = node.parent
        if parent is not None and parent.type == "scoped_identifier" and \
                parent.child_by_field_name("path") == node:
            return  # a prefix of a longer path; the longer one is checked
        function = self.imports.env_function(segments(_text(node)))
        if function is None or _inside(node, "use_declaration"):
            return
        called = parent is not None and parent.type == "call_expression" and \
            parent.child_by_field_name("function") == node
        self._env(node, function, _text(parent if called else node), "call" if called else "reference")

    def _bare_call(self, node: Node) -> None:
        function = self.imports.env_function((_text(node),))
        if function is not None:
            self._env(node, function, _text(node.parent), "call")

    # ---- macro token trees ---------------------------------------------------------------------

    def _scan_tokens(self, tree: Node) -> None:
        kids = tree.children
        types = [k.type for k in kids]
        count = len(kids)
        for i, kind in enumerate(types):
            if kind == "token_tree" or kind == "token_repetition":  # `$( .. )*` in macro_rules
                self._scan_tokens(kids[i])
            elif kind == "." and i + 2 < count and types[i + 1] == "identifier" and types[i + 2] == "token_tree":
                name = kids[i + 1].text
                if name in (b"unwrap", b"expect"):
                    self._macro_method(kids, types, i, name.decode())
            elif kind == "identifier" and i + 1 < count and types[i + 1] == "::" and \
                    (i == 0 or types[i - 1] not in ("::", ".")):
                self._macro_path(kids, types, i)
            elif kind == "identifier" and self.imports and i + 1 < count and \
                    types[i + 1] == "token_tree" and (i == 0 or types[i - 1] not in ("::", ".")):
                function = self.imports.env_function((_text(kids[i]),))
                if function is not None and _opens_call(kids[i + 1]):
                    self._env(kids[i], function, self._span(kids[i], kids[i + 1]), "call", True)

    def _span(self, first: Node, last: Node) -> str:
        return self.source[first.start_byte:last.end_byte].decode("utf-8", "replace")

    def _macro_method(self, kids: list[Node], types: list[str], dot: int, method: str) -> None:
        args = kids[dot + 2]
        if not _opens_call(args):
            return
        if (len(args.children) > 2) != bool(_UNWRAP_ARITY[method]):
            return
        start = dot
        while start > 0 and types[start - 1] in _CHAIN_TOKENS:
            start -= 1
        receiver = self._span(kids[start], kids[dot - 1]) if start < dot else None
        self._unwrap(kids[dot + 1], method, _squash(receiver) if receiver else None, "method",
                     self._span(kids[start], args), True)

    def _macro_path(self, kids: list[Node], types: list[str], i: int) -> None:
        j = i
        while j + 2 < len(kids) and types[j + 1] == "::" and types[j + 2] == "identifier":
            j += 2
        if j == i:
            return
        path = tuple(_text(kids[k]) for k in range(i, j + 1, 2))
        after = kids[j + 1] if j + 1 < len(kids) and types[j + 1] == "token_tree" else None
        args = after if after is not None and _opens_call(after) else None
        end = args if args is not None else kids[j]
        if path[-1] in _UNWRAP_ARITY and len(path) >= 2 and path[-2] in _PANICKING_TYPES:
            receiver = self._first_argument(args) if args is not None else None
            self._unwrap(kids[j], path[-1], receiver, "path", self._span(kids[i], end), True)
            return
        function = self.imports.env_function(path)
        if function is not None:
            self._env(kids[i], function, self._span(kids[i], end), "call" if args is not None else "reference", True)

    def _first_argument(self, args: Node) -> str | None:
        """The tokens before the first top-level comma of a `( .. )` token tree."""
        inner = args.children[1:-1]
        end = next((k for k, node in enumerate(inner) if node.type == ","), len(inner))
        return _squash(self._span(inner[0], inner[end - 1])) if end else None


def _argument_count(args: Node) -> int:
    return sum(1 for a in args.named_children if a.type not in _COMMENTS and a.type != "attribute_item")


def _unspace(line: str) -> str:
    """A `///` line's text without the line ending and the one space that follows the marker."""
    line = line.rstrip("\r\n")
    return line[1:] if line.startswith(" ") else line


def _last_segment(path: str) -> str:
    depth = 0
    out = []
    for ch in path:  # drop generic arguments: `Option::<u8>` -> `Option`
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).rstrip(":").rsplit("::", 1)[-1].strip()


def _inside(node: Node, kind: str) -> bool:
    ancestor = node.parent
    while ancestor is not None:
        if ancestor.type == kind:
            return True
        ancestor = ancestor.parent
    return False
