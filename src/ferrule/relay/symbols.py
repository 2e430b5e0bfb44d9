"""Names to positions: what an agent calls `Order::total` is found through the analyzer's workspace
symbol search and resolved to the one place it names.

A name or a path (`orders::pricing::Order::total`, `Pricing`, `Order::total`): the last segment is the
name, searched exactly; the segments before it must appear, in order, in the candidate's path (its
module path from its file, then its container; a library's starts with its crate, `core::cmp`). A
last segment with its `!` (`vec!`) names a macro alone, told by the text that defines it (the
analyzer lists macros as functions). `use` re-exports give way to what they re-export, a derive
macro to its trait, and, for a bare name, an enum variant or a field to the item it is named after.
What the search does not list (a primitive and its methods, `str::len`; a macro past its cap,
`vec!`) or lists at the macro that makes it is found as code names it (`_as_written`). One match is
the answer; of several, the one code at a crate root means by the path (by a bare name, among the
libraries' alone); else they are a `protocol` error listing them; none suggests the closest names.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from dataclasses import dataclass
from typing import Any

from ferrule.project import BadRequest
from ferrule.relay import mapping
from ferrule.relay.doc_examples import mentions
from ferrule.relay.ops.context import OpContext
from ferrule.relay.packages import METADATA_TIMEOUT_S
from ferrule.relay.params import TargetParams
from ferrule.relay.places import Places, lsp_locations
from ferrule.relay.results import DocExamples

CANDIDATES_SHOWN = 10  # in an ambiguity's message
SUGGESTIONS = 5

_USE = re.compile(r"\s*(?:pub(?:\([^)]*\))?\s+)?use\b")
# an impl block's outline name: `impl<T> Vec<T>`, `impl<T: Debug> Debug for Vec<T>`: its trait, its type
_IMPL_LABEL = re.compile(r"impl\b(?:<[^>]*(?:<[^>]*>[^>]*)*>)?\s*(?:(.*?)\s+for\s+)?(.+)", re.S)
_TYPE_NAME = re.compile(r"(?:[\w:]+::)?(\w+)")
_WORD_END = re.compile(r"\w*$")
_WORD_START = re.compile(r"\w*")
_MACRO_KEYWORD = re.compile(rb"(?:\bmacro_rules!|\bmacro)\s*$")  # what stands before a macro's name where it is defined
_ATTRIBUTE_LINES = 40  # how far above a function its `#[proc_macro]` may stand, past its docs
_MACRO_CALL = re.compile(rb"(?:\w+::)*(?!macro_rules!)(\w+)!")  # a call (`paste::paste!` too), not a definition
# the primitive types code names, each documented in core's `mod prim_<name>` (primitive_docs.rs)
_PRIMITIVES = frozenset("bool char str i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f16 f32 f64 f128".split())
_SPELLED_IN_CODE = {"slice": "<[_]>"}  # `slice::len`, as the docs name it: the primitive has no path
_USE_LIST_LINES = 40  # how far above a name its `use` item may start
_MODULE = 2  # the protocol's SymbolKind
_FUNCTION = 12  # rust-analyzer gives macros this kind too
_MEMBERS = frozenset({8, 22})  # Field, EnumMember
_SEGMENT_RECIPE = ("pass a name such as `total`, or a path such as `Order::total` or "
                   "`orders::pricing::Order::total`; `symbols` with `query` lists what is there")
AMBIGUOUS_RECIPE = "qualify the name with its type or module (e.g. `Order::total`), or pass `file` and `position`"


@dataclass(frozen=True, slots=True)
class Target:
    """Where an op looks: a document and a position in the analyzer's own encoding. `found`, for a
    place a symbol was resolved to, is the range of the name there: the definition itself; `written`,
    the path that resolved it as code names it (empty: no path does), to ask again where code names
    it; `in_macro`, a place a macro's body makes."""

    uri: str
    position: dict[str, int]
    found: dict[str, Any] | None = None
    written: tuple[str, ...] | None = None
    in_macro: bool = False

    @staticmethod
    def of(uri: str, lsp_range: dict[str, Any], written: list[str] | None = None, *, in_macro: bool = False) -> Target:
        return Target(uri, lsp_range["start"], lsp_range, None if written is None else tuple(written), in_macro)

    def path(self, symbol: str) -> list[str]:
        """The path to ask at where code names it: the one that resolved this place, else `symbol`'s."""
        assert self.written != (), "a place no path names is refused before it is asked about again"
        return list(self.written) if self.written is not None else split_path(symbol)


def made_by_macro(ctx: OpContext, place: Target, symbol: str, why: str, recipe: str, lead: str = "") -> BadRequest:
    """The refusal for an item a macro makes, where the analyzer cannot be asked about it by name."""
    made = Places(ctx).location(place.uri, place.found or {"start": place.position, "end": place.position})
    return BadRequest(f"{lead}`{symbol}` is made by a macro ({made['file']}:{made['line']}), {why}", recipe)


def unnamed(place: Target) -> bool:
    """A macro makes the item and no path names it as code: only the macro's own place is known, and
    what the analyzer answers there is the macro's, not the item's."""
    return place.written == ()


def refuse_unnamed(ctx: OpContext, place: Target, symbol: str | None, asked: str) -> None:
    """Refuse to ask the analyzer about `asked` (its uses, its type) at a place no path names."""
    if unnamed(place):
        raise made_by_macro(ctx, place, str(symbol), f"and no path from the crate root names it: {asked} "
                            "cannot be asked by name", "ask at a position where it is used")


def split_path(spec: str) -> list[str]:
    segments = [segment.strip() for segment in spec.strip().split("::")]
    if segments and segments[0] == "crate":
        segments = segments[1:]
    names = [*segments[:-1], segments[-1].removesuffix("!")] if segments else []  # a `!` ends the last alone: `vec!`
    if not segments or not all(mapping.is_rust_name(name) and not name.endswith("!") for name in names):
        raise BadRequest(f"`symbol` {spec!r} is not a Rust name or path", _SEGMENT_RECIPE)
    return segments


async def workspace_symbols(ctx: OpContext, query: str, *, libraries: bool = False,
                            types_only: bool = False) -> list[dict[str, Any]]:
    """rust-analyzer's workspace symbol search over every kind of item (not only types, its default),
    or over types and traits alone."""
    answer = await ctx.request("workspace/symbol", {
        "query": query, "searchKind": "onlyTypes" if types_only else "allSymbols",
        "searchScope": "workspaceAndDependencies" if libraries else "workspace"})
    return list(answer or [])


async def target(ctx: OpContext, params: TargetParams) -> Target:
    """The op's place: `{file, position}` as given, or `{symbol}` resolved."""
    if params.symbol is not None:
        if params.file is not None or params.position is not None:
            raise BadRequest("pass either `symbol` or `file` with `position`, not both", _SEGMENT_RECIPE)
        return await resolve(ctx, params.symbol)
    if params.file is None or params.position is None:
        raise BadRequest("missing `symbol`, or `file` with `position`: one of them names the place",
                         _SEGMENT_RECIPE)
    file = ctx.file(params)
    ctx.documents.require(file, None)
    ctx.documents.show_disk(ctx.client, file)
    return Target(ctx.documents.uri(file.rel), ctx.lsp_position(file, params.position, None))


def doc_examples(ctx: OpContext, params: TargetParams, place: Target) -> DocExamples:
    """Where the project's doc-comment examples mention the op's name (the path's last segment, else
    the identifier at the position): the analyzer's answer leaves them out."""
    name = split_path(params.symbol)[-1].removesuffix("!") if params.symbol is not None else _name_at(ctx, place)
    if not name:
        return {}
    shown, total = mentions(ctx.root, ctx.documents, ctx.policy.current.rust_files(), name)
    return {"doc_examples": shown, "doc_examples_count": total} if total else {}


def _name_at(ctx: OpContext, place: Target) -> str:
    _, _, index, _ = Places(ctx).file(place.uri)
    line = place.position["line"]
    if index is None or not 0 <= line < index.line_count:
        return ""
    text = index.line(line)
    column = ctx.utf8_column(index, line, place.position["character"])
    at = len(text.encode("utf-8")[:column].decode("utf-8", "ignore"))
    return _WORD_END.search(text[:at]).group() + _WORD_START.match(text[at:]).group()  # type: ignore[union-attr]


async def resolve(ctx: OpContext, spec: str, *, as_written: bool = True) -> Target:
    """The place `spec` names; `as_written` False: from the symbol search alone (no code shown)."""
    segments = split_path(spec)
    name = segments[-1].removesuffix("!")
    places = Places(ctx)
    qualifiers = segments[:-1]
    macro = segments[-1].endswith("!")
    found = await workspace_symbols(ctx, name)
    exact = _named(places, found, name, macro)
    matching = await _qualified(ctx, places, exact, qualifiers)
    if not matching:  # not the project's (`String::new` beside a `Quantity::new`): the libraries too
        found += await workspace_symbols(ctx, name, libraries=True)
        exact = _unique(_named(places, found, name, macro))
        if not exact and name[:1].isupper():
            # the search answers 128 names at most, fuzzily: `Ord` is past `ord`, `word`, `OrderId`...;
            # among types and traits alone it is not
            found += await workspace_symbols(ctx, name, libraries=True, types_only=True)
            exact = _unique(_named(places, found, name, macro))
        matching = await _qualified(ctx, places, exact, qualifiers)
    if not matching and qualifiers and not macro:  # the search answers 128 names at most: `new` may be past them
        matching = await _members(ctx, qualifiers, name)
    definitions = [s for s in matching if not _is_reexport(places, s)]
    matching = _unique(definitions or matching)
    if len(matching) > 1:  # a dependency of the standard library's own (`hashbrown`'s `HashMap`) gives way
        nameable = [s for s in matching if await _nameable(ctx, places, s)]
        matching = nameable or matching
    matching = _preferred(matching, bare=len(segments) == 1)
    if len(matching) == 1:
        location = matching[0]["location"]
        if as_written and _spells_another(places, location, name):  # a macro made it: where it expands
            # only when the answer touches the search's document: at the crate root the name may mean
            # another item (std's `Vec` beside a macro's), and then the path from the crate names it
            within = location["uri"]
            from_crate = await _from_crate(ctx, places, within, segments)
            written = (await _as_written(ctx, places, segments, within=within)
                       or (from_crate and await _as_written(ctx, places, from_crate, within=within)))
            if written:
                return dataclasses.replace(written, in_macro=True)
            # the macro's own place; no path tried names the item, so none is asked again
            return Target.of(location["uri"], location["range"], [], in_macro=True)
        return Target.of(location["uri"], location["range"])
    if as_written and not matching:  # not a listed item (`u32`, `str::len`): the path as code names it
        written = await _as_written(ctx, places, segments)
        # `S! {}` resolves `S` in every namespace: a macro's name must reach a macro
        if written is not None and (not macro or defines_macro(places, written.uri, written.position)):
            return written
        if len(segments) == 1 and name in _PRIMITIVES:  # placed by newer analyzers only: at its docs, as they do
            docs = _unique([s for s in await workspace_symbols(ctx, f"prim_{name}", libraries=True)
                            if s.get("name") == f"prim_{name}" and s.get("kind") == _MODULE
                            and places.file(s["location"]["uri"])[1]])  # core's, and std's of the same file
            if len(docs) == 1:
                return Target.of(docs[0]["location"]["uri"], docs[0]["location"]["range"])
    # several: the one code means by the path (`Meter::value`, the inherent method and not a trait's);
    # by a bare name, only among the libraries' (`Debug`, the trait and an unnameable struct of core):
    # the project's own stay for the agent to choose
    elif as_written and (qualifiers or all(places.file(s["location"]["uri"])[1] for s in matching)):
        answered = {(at, r["start"]["line"]) for at, r in await locations_as_written(ctx, segments, "textDocument/definition")}
        meant = [s for s in matching if (s["location"]["uri"], s["location"]["range"]["start"]["line"]) in answered]
        if not meant and not qualifiers:  # the analyzer answers `Debug`'s derive macro for the trait: the match beside it
            meant = [s for s in matching if s["location"]["uri"] in {at for at, _ in answered}]
        if len(meant) == 1:
            return Target.of(meant[0]["location"]["uri"], meant[0]["location"]["range"])
    if matching:
        shown = [_described(places, s) for s in matching[:CANDIDATES_SHOWN]]
        rest = len(matching) - len(shown)
        raise BadRequest(
            f"`symbol` {spec!r} is ambiguous: {len(matching)} matches: " + "; ".join(shown)
            + (f"; and {rest} more" if rest > 0 else ""),
            AMBIGUOUS_RECIPE)
    # without the standard library the analyzer knows none of its items: "no such name" would be false
    unloaded = ctx.analyzer.std_error()
    missing_std = "; rust-analyzer did not load the standard library, so none of its items can be found" \
        if unloaded is not None else ""
    recipe = _SEGMENT_RECIPE if unloaded is None else f"{_SEGMENT_RECIPE}; for the standard library's: {unloaded['recipe']}"
    if exact:
        raise BadRequest(
            f"no `{name}` matches {spec!r}; `{name}` is: " + "; ".join(
                _described(places, s) for s in exact[:CANDIDATES_SHOWN]) + missing_std, recipe)
    names = {str(s.get("name")) + ("!" if macro else "") for s in found if not macro or _is_macro(places, s)}
    close = difflib.get_close_matches(name + ("!" if macro else ""), sorted(names), n=SUGGESTIONS, cutoff=0.5)
    hint = f"; closest names: {', '.join(close)}" if close else ""
    what = f"macro named `{name}!`" if macro else f"symbol named `{name}`"
    raise BadRequest(f"no {what} in the workspace or its libraries{hint}{missing_std}", recipe)


async def _as_written(ctx: OpContext, places: Places, segments: list[str], within: str | None = None) -> Target | None:
    """Where the analyzer resolves the path when code names it (`ask_as_written`'s `definition`). For
    what the symbol search does not list (a primitive, `u32`; a primitive's methods, `str::len`) or
    lists at the macro that makes it (`u32::checked_add` at `macro_rules! uint_impl`). None when the
    analyzer resolves nothing, or (`within`) nothing it answers is in that document: the name means
    another item where code names it (a macro's `Vec`, and std's at the crate root)."""
    found = await locations_as_written(ctx, segments, "textDocument/definition")
    # `within`: the answer must touch the listed document (the macro's call there, `uint_impl! {`); the
    # item itself may be in the macro's own file
    if not found or (within is not None and all(at != within for at, _ in found)):
        return None
    # the item itself before the macro call that makes it (`uint_impl! {` for `u32::checked_add`)
    name = segments[-1].removesuffix("!")
    at, lsp_range = next(((at, r) for at, r in found if not _spells_another(places, {"uri": at, "range": r}, name)),
                         found[0])
    return Target.of(at, lsp_range, segments)


async def _from_crate(ctx: OpContext, places: Places, uri: str, segments: list[str]) -> list[str] | None:
    """`segments` led by the module path of the project file at `uri` (`crate::gen::Vec`); None for a
    library's file or a crate root's, where the path alone already starts from the crate."""
    shown, read_only, _, _ = places.file(uri)
    module = None if read_only else (await ctx.packages.placement(shown, _cargo_wait(ctx))).cell
    return [*module.split("::"), *segments] if module and module != "crate" else None


async def locations_as_written(ctx: OpContext, segments: list[str], method: str,
                               extra: dict[str, Any] | None = None) -> list[tuple[str, dict[str, Any]]]:
    """(uri, range) of `method`'s locations where code names the path, but the asking line's own: for
    a name the analyzer answers nothing at (an item in a macro's body: `u32::checked_add`)."""
    asked = await ask_as_written(ctx, segments, method, extra)
    if asked is None:
        return []
    answer, uri, position = asked
    return [(at, lsp_range) for at, lsp_range in lsp_locations(answer)
            if at != uri or lsp_range["start"]["line"] != position["line"]]


async def ask_as_written(ctx: OpContext, segments: list[str], method: str,
                         extra: dict[str, Any] | None = None) -> tuple[Any, str, dict[str, int]] | None:
    """`method`'s answer (`extra`: its params beyond the place) on the path as code names it, with the
    document and position it was asked at. A line naming the path is shown appended to a crate root
    for the one request (never written; the file's own lines keep their places). None when no crate
    root can be read, or the path is not ASCII."""
    first = _SPELLED_IN_CODE.get(segments[0], segments[0]) if len(segments) > 1 else segments[0]
    path = "::".join([first, *segments[1:]])
    if not path.isascii():
        return None
    host = await ctx.packages.crate_root()
    if host is None:
        return None
    try:
        file = ctx.root.file(host)
        text = ctx.documents.text(file, None)
    except BadRequest:
        return None
    # an anonymous const names nothing (nothing to warn of, nothing to clash with); a bare name as a
    # type (`u32`), a path as a value (`str::len`, `Vec::new`), a macro's as a call (its path resolves
    # whatever the expansion makes of no input); an empty one first takes any attribute the file ends
    # with (`#[cfg(test)]` would switch the line off)
    if path.endswith("!"):
        line = f"const _: () = {{ {path} {{}} }};"
    elif len(segments) == 1:
        line = f"const _: () = {{ let _: {path}; }};"
    else:
        line = f"const _: () = {{ let _ = {path}; }};"
    content = text + ("\n" if text and not text.endswith("\n") else "") + "const _: () = ();\n" + line + "\n"
    position = {"line": content.count("\n") - 1, "character": line.rindex(segments[-1])}  # ASCII: any encoding
    uri = ctx.documents.uri(file.rel)
    with ctx.documents.showing(ctx.client, file, content) as shown:
        answer = await ctx.request(method, {"textDocument": {"uri": uri}, "position": position, **(extra or {})},
                                   shown.prepare if shown.active else None)
    return answer, uri, position


def _spells_another(places: Places, location: dict[str, Any], name: str) -> bool:
    """Whether a location spells a name other than `name` (the symbol was made by a macro, and its
    place is the macro's): a one-line range, or a range over lines that opens a macro call (older
    analyzers list such an item at the whole call, `uint_impl! { ... }`); False when it cannot tell."""
    start, end = location["range"]["start"], location["range"]["end"]
    _, _, index, _ = places.file(location["uri"])
    if index is None or not 0 <= start["line"] < index.line_count:
        return False
    text = index.line(start["line"]).encode("utf-8")
    begin = places.column(index, start["line"], start["character"])
    if start["line"] == end["line"]:
        spelled = text[begin:places.column(index, end["line"], end["character"])]
    else:
        call = _MACRO_CALL.match(text, begin)
        spelled = call.group(1) if call else b""
    return bool(spelled) and spelled.decode("utf-8", "replace") != name


async def _members(ctx: OpContext, qualifiers: list[str], name: str) -> list[dict[str, Any]]:
    """`name` as a member of the type or trait the qualifiers name, from the outline of the file that
    defines it: the trait's own items, and those of the impl blocks there for that type
    (`impl<T> Vec<T>`, `impl Display for Vec<T>`). As workspace symbols; none when the container is
    not one item."""
    try:
        owner = await resolve(ctx, "::".join(qualifiers), as_written=False)  # the members' file is what counts
    except BadRequest:
        return []
    outline = await ctx.request("textDocument/documentSymbol", {"textDocument": {"uri": owner.uri}})
    type_name = qualifiers[-1]
    found = []
    for node in outline or []:
        if "children" not in node or "selectionRange" not in node:
            continue  # a flat SymbolInformation answer has no members to look in
        label = str(node.get("name") or "")
        own = node["selectionRange"]["start"] == owner.position
        impl_for = impl_parts(label)
        if own or (impl_for is not None and _type_name(impl_for[1]) == type_name):
            container = type_name if own else label
            found += [{"name": child.get("name"), "kind": child.get("kind"), "containerName": container,
                       "location": {"uri": owner.uri, "range": child["selectionRange"]}}
                      for child in node["children"] if child.get("name") == name and "selectionRange" in child]
    return found


def _cargo_wait(ctx: OpContext) -> float:
    """How long cargo's metadata may be waited for: its own limit, within the op's budget."""
    return min(METADATA_TIMEOUT_S, ctx.budget.remaining())


async def _qualified(ctx: OpContext, places: Places, candidates: list[dict[str, Any]],
                     qualifiers: list[str]) -> list[dict[str, Any]]:
    """The candidates whose path the qualifiers fit; all of them for a bare name, with nothing asked."""
    if not qualifiers:
        return candidates
    return [s for s in candidates if _qualified_by(await _path_of(ctx, places, s, qualifiers), qualifiers)]


async def _path_of(ctx: OpContext, places: Places, symbol: dict[str, Any], qualifiers: list[str]) -> list[str]:
    """The candidate's path segments before its name: its file's module path, led by its crate
    (`core::cmp` for `core/src/cmp.rs`; the project's own crate only when the qualifiers name it, so
    that cargo is asked no more than needed), then its container."""
    shown, read_only, _, _ = places.file(symbol["location"]["uri"])
    if read_only:
        folder, _, inner = shown.partition("/")  # a library file is shown from its crate's folder
        module = mapping.module_path(inner) if folder and inner else None
        segments = [_crate_name(folder), *module.split("::")[1:]] if module else []
    else:  # in its own package: a workspace member's `crates/core/src/a.rs` is `crate::a` of its crate
        module = (await ctx.packages.placement(shown, _cargo_wait(ctx))).cell
        segments = module.split("::")[1:] if module else []
        if module and qualifiers and qualifiers[0] not in segments:
            crate = await ctx.packages.crate_name(shown, _cargo_wait(ctx))
            if crate is not None:
                segments.insert(0, crate)
    container = symbol.get("containerName")
    if container:
        container = container.split("<", 1)[0].strip()  # `Vec<T, A>`, an impl's container: the type's name
    if container and (not segments or segments[-1] != container):
        segments.append(container)
    return segments


def _qualified_by(path: list[str], qualifiers: list[str]) -> bool:
    """Whether `qualifiers` appear in `path` in order; the first of several that is not in the path may
    be the crate's own name."""
    def subsequence(wanted: list[str]) -> bool:
        remaining = iter(path)
        return all(any(segment == want for segment in remaining) for want in wanted)

    return subsequence(qualifiers) or (
        len(qualifiers) > 1 and qualifiers[0] not in path and subsequence(qualifiers[1:]))


def impl_parts(label: str) -> tuple[str | None, str] | None:
    """(trait, type) of an impl block's outline name, each as written (trait None for an inherent impl);
    None for a name that is no impl."""
    matched = _IMPL_LABEL.match(label)
    if matched is None:
        return None
    trait = matched.group(1)
    return (" ".join(trait.split()) if trait is not None else None), " ".join(matched.group(2).split())


def _type_name(written: str) -> str:
    """`Vec` of `Vec<T>` or `std::vec::Vec<T>`."""
    matched = _TYPE_NAME.match(written)
    return matched.group(1) if matched is not None else written


SYSROOT_CRATES = frozenset({"std", "core", "alloc", "proc_macro", "test"})


async def _nameable(ctx: OpContext, places: Places, symbol: dict[str, Any]) -> bool:
    """Whether the project's code can name the candidate: its own, the standard library's crates, and
    the crates its manifests depend on (unknown when cargo cannot say: then every library is)."""
    shown, _, _, file = places.file(symbol["location"]["uri"])
    if file is not None:
        return True
    if shown.startswith("/"):  # outside every known root: named by a versioned folder on its path, if any
        versioned = [match.group(1) for part in shown.split("/") if (match := _VERSIONED.fullmatch(part))]
        if not versioned:
            return True  # a git checkout or a vendored tree: nothing says the project cannot name it
        crate = versioned[-1].replace("-", "_")
    else:
        crate = _crate_name(shown.split("/", 1)[0])
    if crate in SYSROOT_CRATES:
        return True
    dependencies = await ctx.packages.dependencies()
    return dependencies is None or crate in dependencies


_VERSIONED = re.compile(r"(.+?)-\d+\.\d+\.\d+(?:[-+][\w.+-]*)?")  # a registry folder: `foo-1.0.0-beta.1`


def _crate_name(folder: str) -> str:
    """The crate a library folder holds: `core`, `serde` of `serde-1.0.152`, `regex_syntax` of
    `regex-syntax-0.6.27`, `foo` of `foo-1.0.0-beta.1`."""
    versioned = _VERSIONED.fullmatch(folder)
    return (versioned.group(1) if versioned is not None else folder).replace("-", "_")


def _named(places: Places, symbols: list[dict[str, Any]], name: str, macro: bool) -> list[dict[str, Any]]:
    """The search's matches of `name` exactly; for a macro's (`bitflags!`), the macros alone: the
    crate, the module or the method of that name is not it."""
    return [s for s in symbols if s.get("name") == name and (not macro or _is_macro(places, s, unreadable=True))]


def is_macro(places: Places, uri: str, start: dict[str, int], kind: Any, container: Any = None, *,
             unreadable: bool = False) -> bool:
    """Whether the symbol whose name is at `start` of the document at `uri` is a macro: the analyzer
    lists one as a function, and the text says which (`macro_rules! name`, `macro name`, a function
    under `#[proc_macro]`). `unreadable`: the answer when the text cannot be read, for a function of
    no container."""
    if kind != _FUNCTION:
        return False
    defined = defines_macro(places, uri, start)
    return defined if defined is not None else unreadable and not container


def defines_macro(places: Places, uri: str, start: dict[str, int]) -> bool | None:
    """Whether the text at `start` names a macro where it is defined; None when it cannot be read."""
    _, _, index, _ = places.file(uri)
    line = start["line"]
    if index is None or not 0 <= line < index.line_count:
        return None
    before = index.line(line).encode("utf-8")[:places.column(index, line, start["character"])]
    if _MACRO_KEYWORD.search(before) is not None or b"#[proc_macro]" in before:
        return True
    for above in range(line - 1, max(-1, line - 1 - _ATTRIBUTE_LINES), -1):  # its attributes, docs between
        text = index.line(above).strip()
        attribute = text.startswith("#[") and text.endswith("]")  # alone on its line: not an item's start
        if attribute and text == "#[proc_macro]":
            return True
        if text and not attribute and not text.startswith("//"):
            break
    return False


def _is_macro(places: Places, symbol: dict[str, Any], *, unreadable: bool = False) -> bool:
    location = symbol["location"]
    return is_macro(places, location["uri"], location["range"]["start"], symbol.get("kind"),
                    symbol.get("containerName"), unreadable=unreadable)


def _is_reexport(places: Places, symbol: dict[str, Any]) -> bool:
    """Whether the candidate is a name in a `use` item, on its first line or on a later line of its list
    (`pub use core::prelude::v1::{` ... `PartialEq, ...`)."""
    location = symbol["location"]
    _, _, index, _ = places.file(location["uri"])
    line = location["range"]["start"]["line"]
    if index is None or not 0 <= line < index.line_count:
        return False
    for above in range(line, max(-1, line - _USE_LIST_LINES), -1):
        text = index.line(above)
        if _USE.match(text) is not None:
            return True
        if above < line and (not text.strip() or ";" in text or text.rstrip().endswith("{")):
            return False  # an earlier statement or item ends or opens here: the line is in no `use`
    return False


def _preferred(candidates: list[dict[str, Any]], *, bare: bool) -> list[dict[str, Any]]:
    """Candidates that give way to another of their name: a derive macro to its trait (a capitalised
    "function" is a macro: `PartialEq`), and, for a bare name, an enum variant or a field to the item
    it is named after (`String` of `PanicMessage::String(String)`). The rest when none is left."""
    if len(candidates) < 2:
        return candidates
    kept = [c for c in candidates if not (c.get("kind") == _FUNCTION and str(c.get("name"))[:1].isupper())]
    if bare:
        kept = [c for c in kept if c.get("kind") not in _MEMBERS]
    return kept or candidates


def _unique(symbols: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[tuple[str, int, int]] = set()
    kept = []
    for symbol in symbols:
        start = symbol["location"]["range"]["start"]
        key = (symbol["location"]["uri"], start["line"], start["character"])
        if key not in seen:
            seen.add(key)
            kept.append(symbol)
    return kept


def _described(places: Places, symbol: dict[str, Any]) -> str:
    location = places.location(symbol["location"]["uri"], symbol["location"]["range"])
    if _is_macro(places, symbol):  # as the agent would ask for it
        return f"{symbol.get('name')}! (macro) at {location['file']}:{location['line']}"
    container = symbol.get("containerName")
    qualified = f"{container}::{symbol.get('name')}" if container else str(symbol.get("name"))
    return f"{qualified} ({mapping.symbol_kind(symbol.get('kind'), container)}) at {location['file']}:{location['line']}"


__all__ = ["AMBIGUOUS_RECIPE", "Target", "defines_macro", "doc_examples", "is_macro", "resolve", "split_path", "target",
           "workspace_symbols"]
