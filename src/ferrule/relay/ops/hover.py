"""`type`: the analyzer's hover at a position, or on the item a `symbol` names, markdown stripped to
text; an empty one says why when the analyzer cannot see there (code `#[cfg]` switches off, a file no
crate includes)."""

from __future__ import annotations

from typing import Any

from ferrule.fastframe import LineIndex
from ferrule.lsp import ResponseError
from ferrule.project import BadRequest, ProjectFile
from ferrule.relay import mapping
from ferrule.relay.blind import inactive_at, unlinked_file
from ferrule.relay.const_args import SOURCE_LINES, filled, has_placeholder
from ferrule.relay.ops.context import OpContext
from ferrule.relay.params import TypeParams
from ferrule.relay.places import Places, lsp_locations
from ferrule.relay.results import TypeResult
from ferrule.relay.symbols import ask_as_written, refuse_unnamed, split_path, target


async def type_at(ctx: OpContext, params: TypeParams) -> TypeResult:
    if params.symbol is not None or params.file is None or params.position is None:
        return await _type_of_name(ctx, params)
    file, content = ctx.file(params), params.content
    ctx.documents.require(file, content)
    position = ctx.lsp_position(file, params.position, content)
    with ctx.documents.showing(ctx.client, file, content) as shown:
        uri = ctx.documents.uri(file.rel)
        asked = {"textDocument": {"uri": uri}, "position": position}
        hover = await ctx.request("textDocument/hover", asked, shown.prepare if shown.active else None)
        result = mapping.hover_to_type(hover)
        if has_placeholder(result["display"]):  # the definition's text says what they are
            defined = lsp_locations(await ctx.request("textDocument/definition", asked))
            shown_text = None if content is None else (uri, ctx.documents.index(file, content))
            _fill_consts(ctx, result, (defined[0][0], defined[0][1]["start"]) if defined else None, shown_text)
        if result["display"]:
            warnings = ctx.analyzer.warnings()
        else:  # silence: the analyzer may be blind here, and then says so in a hint
            diagnostics = await _hints(ctx, file)
            warnings = ctx.analyzer.warnings(diagnostics)
            blind_spot = (unlinked_file(file.rel, diagnostics)
                          or inactive_at(diagnostics, position["line"], position["character"]))
            if blind_spot is not None:
                warnings.append(blind_spot)
    return ctx.caveated(result, warnings)


async def _type_of_name(ctx: OpContext, params: TypeParams) -> TypeResult:
    """The hover of the item a `symbol` names, where it is defined (a library's too)."""
    if params.content is not None:
        raise BadRequest("`content` is the text of `file`: pass it with `file` and `position`, not `symbol`",
                         "name the place with `file` and `position` to ask about a transient text")
    place = await target(ctx, params)  # the named item; without a symbol, the error naming what is missing
    refuse_unnamed(ctx, place, params.symbol, "its type")
    hover = await ctx.request("textDocument/hover", {"textDocument": {"uri": place.uri}, "position": place.position})
    result = mapping.hover_to_type(hover, None if params.symbol is None else split_path(params.symbol))
    _fill_consts(ctx, result, (place.uri, place.position))
    if not result["display"]:  # a name in a macro's body (`u32::checked_add`): the hover where code names it
        assert params.symbol is not None  # target() resolved one
        asked = await ask_as_written(ctx, place.path(params.symbol), "textDocument/hover")
        if asked is not None:
            result = mapping.hover_to_type(asked[0])
    return ctx.caveated(result, ctx.analyzer.warnings())


def _fill_consts(ctx: OpContext, result: TypeResult, defined: tuple[str, dict[str, Any]] | None,
                 shown: tuple[str, LineIndex] | None = None) -> None:
    """The const arguments the analyzer wrote as `{const}` filled in from the text around the
    definition at `defined` (its URI and LSP position), when the file is one the relay reads: the text
    the analyzer was shown for the op (`shown`: its file's URI and the index of its `content`), else
    the file's overlay or disk text."""
    if defined is None or not has_placeholder(result["display"]):
        return
    uri, position = defined
    index = shown[1] if shown is not None and shown[0] == uri else Places(ctx).file(uri)[2]
    if index is None:
        return
    first = max(0, position["line"] - 2)  # `pub fn` may stand on a line above the name
    lines = [index.line(n) for n in range(first, min(index.line_count, first + SOURCE_LINES))]
    name_at = sum(len(text) + 1 for text in lines[:position["line"] - first]) + position["character"]
    result["display"] = filled(result["display"], "\n".join(lines), name_at)


async def _hints(ctx: OpContext, file: ProjectFile) -> list[dict[str, Any]]:
    """The analyzer's diagnostics of the shown text (LSP shape): pulled, or the last push."""
    uri = ctx.documents.uri(file.rel)
    if ctx.analyzer.pull_diagnostics:
        try:
            report = await ctx.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        except ResponseError:  # the reason is an addition: without it, the hover's answer stands alone
            return []
        return (report or {}).get("items") or []
    return ctx.client.diagnostics.get(uri, (None, []))[1]
