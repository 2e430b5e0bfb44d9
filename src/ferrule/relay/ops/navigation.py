"""`symbols`, `definition`, `references`, `implementations`: where things are, by position or by name.

Every answer is bounded: at most `max` items (a default when absent), and `more` counts the rest.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

from ferrule.fastframe import LineIndex
from ferrule.project import BadRequest
from ferrule.relay.mapping import MACRO_KIND, symbol_kind
from ferrule.relay.ops.context import OpContext
from ferrule.relay.params import (
    NAVIGATION_MAX_DEFAULT,
    DefinitionParams,
    ImplementationsParams,
    ReferencesParams,
    SymbolsParams,
)
from ferrule.relay.places import LINE_TEXT_MAX, Places, lsp_locations
from ferrule.relay.results import (
    FileReferences,
    FoundSymbol,
    Location,
    LocationsResult,
    OutlineSymbol,
    ReferencesResult,
    SymbolsResult,
)
from ferrule.relay.symbols import (
    doc_examples,
    is_macro,
    locations_as_written,
    refuse_unnamed,
    target,
    workspace_symbols,
)


async def symbols(ctx: OpContext, params: SymbolsParams) -> SymbolsResult:
    limit = params.max or NAVIGATION_MAX_DEFAULT
    kinds = frozenset(params.kinds) if params.kinds else None
    if (params.file is None) == (params.query is None):
        raise BadRequest("symbols takes `file` (the file's outline) or `query` (a workspace search), one of them",
                         "e.g. {\"file\": \"src/lib.rs\"} or {\"query\": \"Order\"}")
    if params.query is not None and not params.query.strip():
        raise BadRequest("symbols: `query` is empty: it names what to search for", "e.g. {\"query\": \"Order\"}")
    if params.file is not None:
        file = ctx.file(params)
        ctx.documents.require(file, None)
        ctx.documents.show_disk(ctx.client, file)
        uri = ctx.documents.uri(file.rel)
        answer = await ctx.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        places = Places(ctx)
        outline = [_outline(item, None, partial(is_macro, places, uri)) for item in answer or []]
        if kinds is not None:
            outline = [s for s in _flattened(outline) if s["kind"] in kinds]
        kept, more = _capped_tree(outline, limit)
        outline_result: SymbolsResult = {"symbols": kept, "more": more}
        return ctx.mark(outline_result)
    query = params.query or ""
    places = Places(ctx)
    found: list[FoundSymbol] = []
    seen = set()
    for item in await workspace_symbols(ctx, query):
        container, name = item.get("containerName"), item.get("name", "")
        uri, start = item["location"]["uri"], item["location"]["range"]["start"]
        kind = symbol_kind(item.get("kind"), container)
        if is_macro(places, uri, start, item.get("kind"), container):
            kind, name = MACRO_KIND, f"{name}!"
        listed = (name, kind, uri, start["line"], start["character"])
        if (kinds is None or kind in kinds) and listed not in seen:  # an exported macro is listed twice
            seen.add(listed)
            location = places.location(uri, item["location"]["range"])
            found.append({**location, "name": name, "kind": kind, "container": container})
    # exact first (a macro's `label!` by `label`), stable
    found.sort(key=lambda s: (s["name"].removesuffix("!") != query, s["name"].removesuffix("!").lower() != query.lower()))
    search_result: SymbolsResult = {"symbols": found[:limit], "more": max(0, len(found) - limit)}
    return ctx.mark(search_result)


async def definition(ctx: OpContext, params: DefinitionParams) -> LocationsResult:
    return await _locations(ctx, params, "textDocument/definition", NAVIGATION_MAX_DEFAULT, itself=True)


_TRAIT_PATH = re.compile(r"[\w:]+")
_DERIVE_LIST_LINES = 40  # how far above a trait's name its derive list may open
_DERIVE_OPEN = re.compile(rb"\bderive\s*\(")
_LIST_SO_FAR = re.compile(rb"[\w:,\s]*")
_LINE_COMMENT = re.compile(rb"//[^\n]*")


async def implementations(ctx: OpContext, params: ImplementationsParams) -> LocationsResult:
    return await _locations(ctx, params, "textDocument/implementation", params.max or NAVIGATION_MAX_DEFAULT,
                            annotate=_name_maker)


def _name_maker(location: Location, index: LineIndex | None) -> None:
    """What made an implementation placed where no `impl` is written: a `#[derive(...)]`, or the macro
    whose call holds the place (`bitflags!` places the impls it makes on the type's name in its input)."""
    _name_derived(location, index)
    if "derive" not in location and index is not None:
        made_by = enclosing_macro_call(index, location["line"] - 1, location["character"])
        if made_by is not None:
            location["macro"] = made_by


_MACRO_CALL_LINES = 200  # how far above a place the call of the macro it is in may open
_CALL_OPEN = re.compile(rb"(?<![\w!])((?:\w+::)*\w+!)\s*[({\[]$")  # `bitflags! {` up to its bracket
_BRACKET = re.compile(rb"[(){}\[\]]")
_IMPL = re.compile(rb"\bimpl\b")


def enclosing_macro_call(index: LineIndex, line: int, column: int) -> str | None:
    """The macro (`bitflags!`) whose call's brackets hold the place at 0-based `line` and byte `column`,
    when no `impl` is written on its line before it; None otherwise. Brackets are counted as written
    (one in a string or a comment may mislead it: the answer is a hint, as `derive` is)."""
    if not 0 <= line < index.line_count:
        return None
    here = index.line(line).encode("utf-8")[:column]
    if _IMPL.search(here) is not None:
        return None
    depth = 0  # brackets closed between a point and the place, not yet matched by their opening
    for number in range(line, max(-1, line - 1 - _MACRO_CALL_LINES), -1):
        raw = here if number == line else index.line(number).encode("utf-8")
        for bracket in reversed([found.start() for found in _BRACKET.finditer(raw)]):
            if raw[bracket] in b")}]":
                depth += 1
            elif depth:
                depth -= 1
            else:  # an opening that holds the place: a macro's call, or a block or list to look out of
                call = _CALL_OPEN.search(raw[:bracket + 1])
                if call is not None and call.group(1) != b"macro_rules!":
                    return call.group(1).decode("utf-8", "replace")
    return None


def _name_derived(location: Location, index: LineIndex | None) -> None:
    """An implementation a `#[derive(...)]` makes is placed on the trait's name in the attribute, and
    the line reads the same for each trait it derives: `derive` names the one this place stands for.
    The attribute may follow another on its line, sit in a `cfg_attr`, or spread over lines."""
    if location["line"] != location["end_line"]:
        return
    raw = location["text"][:LINE_TEXT_MAX].encode()  # a long line's text is cut: a place past the cut is not in it
    start, end = location["character"], location["end_character"]
    name = raw[start:end].decode("utf-8", "replace") if start < end <= len(raw) else ""
    if not _TRAIT_PATH.fullmatch(name):
        return
    before = raw[:start]
    if _DERIVE_OPEN.search(before) is None and index is not None:  # a list over several lines: its start above
        line = location["line"] - 1
        above = (index.line(n) for n in range(max(0, line - _DERIVE_LIST_LINES), line))
        before = "\n".join(above).encode() + b"\n" + before
    opens = list(_DERIVE_OPEN.finditer(before))
    opened = opens[-1] if opens else None
    # inside the list: only trait paths, commas and comments between its `(` and the name (not an impl
    # after `#[derive(Debug)] struct X;` on one line, nor `#[my_derive(Foo)]`)
    if (opened is None or b"#[" not in before[:opened.start()]
            or not _LIST_SO_FAR.fullmatch(_LINE_COMMENT.sub(b"", before[opened.end():]))):
        return
    location["derive"] = name


async def references(ctx: OpContext, params: ReferencesParams) -> ReferencesResult:
    place = await target(ctx, params)
    refuse_unnamed(ctx, place, params.symbol, "its uses")
    include = True if params.include_declaration is None else params.include_declaration
    context = {"context": {"includeDeclaration": include}}
    answer = await ctx.request("textDocument/references", {
        "textDocument": {"uri": place.uri}, "position": place.position, **context})
    pairs = lsp_locations(answer)
    if not pairs and params.symbol is not None:  # a name in a macro's body: asked where code names it
        pairs = await locations_as_written(ctx, place.path(params.symbol), "textDocument/references", context)
    places = Places(ctx)
    found = [places.location(uri, lsp_range) for uri, lsp_range in pairs]
    limit = params.max or NAVIGATION_MAX_DEFAULT
    by_file: dict[str, list[Location]] = {}
    for location in found:
        by_file.setdefault(location["file"], []).append(location)
    files: list[FileReferences] = []
    shown = 0
    # the project's files first (the analyzer's order otherwise): its own uses are what an agent edits
    for file, located in sorted(by_file.items(), key=lambda item: item[1][0]["read_only"]):
        located.sort(key=lambda loc: (loc["line"], loc["character"]))
        kept = located[:max(0, limit - shown)]
        if kept:
            files.append({"file": file, "references": kept})
            shown += len(kept)
    result: ReferencesResult = {"files": files, "count": len(found), "more": len(found) - shown,
                                **doc_examples(ctx, params, place)}
    return ctx.mark(result)


async def _locations(ctx: OpContext, params: DefinitionParams | ImplementationsParams, method: str,
                     limit: int, *, itself: bool = False,
                     annotate: Callable[[Location, LineIndex | None], None] | None = None) -> LocationsResult:
    """The analyzer's answer to `method` at the op's place; `itself`: the place a symbol was resolved
    to answers when the analyzer says nothing there; `annotate` adds to a location from its file's text."""
    place = await target(ctx, params)
    if not itself:  # `definition` answers where the macro makes it
        refuse_unnamed(ctx, place, params.symbol, "its implementations")
    answer = await ctx.request(method, {"textDocument": {"uri": place.uri}, "position": place.position})
    places = Places(ctx)
    found = lsp_locations(answer)
    if not found and itself and place.found is not None:
        found = [(place.uri, place.found)]  # a name in a macro's body, where the analyzer answers nothing
    elif not found and params.symbol is not None:  # the same: asked where code names it
        found = await locations_as_written(ctx, place.path(params.symbol), method)
    # the project's places first (a trait's implementations in std would hide the project's), then in
    # file order, not the analyzer's, which differs from one run to the next
    ours = {uri: places.in_project(uri) for uri in {uri for uri, _ in found}}
    found.sort(key=lambda f: (not ours[f[0]], f[0], f[1]["start"]["line"], f[1]["start"]["character"]))
    located = [places.location(uri, lsp_range) for uri, lsp_range in found[:limit]]
    if annotate is not None:
        for location, (uri, _) in zip(located, found, strict=False):
            annotate(location, places.file(uri)[2])
    result: LocationsResult = {"locations": located, "more": max(0, len(found) - limit)}
    return ctx.mark(result)


def _outline(item: dict[str, Any], container: str | None,
             is_macro_at: Callable[[dict[str, int], Any], bool]) -> OutlineSymbol:
    """One documentSymbol as the outline shows it; a flat SymbolInformation list is shown flat.
    `is_macro_at(start, kind)`: whether the name at `start` is a macro's (in a module too)."""
    lsp_range = item.get("range") or item.get("location", {}).get("range")
    name, kind = item.get("name", ""), symbol_kind(item.get("kind"), container)
    if is_macro_at((item.get("selectionRange") or lsp_range)["start"], item.get("kind")):
        name, kind = f"{name}!", MACRO_KIND
    entry: OutlineSymbol = {
        "name": name,
        "kind": kind,
        "line": lsp_range["start"]["line"] + 1,
        "end_line": lsp_range["end"]["line"] + 1,
        "detail": item.get("detail") or "",
    }
    outer = container or item.get("containerName")
    if outer:
        entry["container"] = outer
    children = item.get("children")
    if children:
        entry["children"] = [_outline(child, entry["name"], is_macro_at) for child in children]
    return entry


def _flattened(outline: list[OutlineSymbol]) -> list[OutlineSymbol]:
    flat: list[OutlineSymbol] = []
    for entry in outline:
        children = entry.pop("children", None)
        flat.append(entry)
        if children:
            flat.extend(_flattened(children))
    return flat


def _capped_tree(outline: list[OutlineSymbol], limit: int) -> tuple[list[OutlineSymbol], int]:
    """The first `limit` entries in reading order (parents before their children), and how many more."""
    left = limit
    more = 0

    def keep(entries: list[OutlineSymbol]) -> list[OutlineSymbol]:
        nonlocal left, more
        kept = []
        for entry in entries:
            if left <= 0:
                more += 1 + _count(entry.get("children") or [])
                continue
            left -= 1
            children = entry.pop("children", None)
            if children:
                inner = keep(children)
                if inner:
                    entry["children"] = inner
            kept.append(entry)
        return kept

    return keep(outline), more


def _count(entries: list[OutlineSymbol]) -> int:
    return sum(1 + _count(entry.get("children") or []) for entry in entries)


__all__ = ["definition", "implementations", "references", "symbols"]
