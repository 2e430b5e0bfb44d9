"""`type`: the analyzer's hover at a position, markdown stripped to text; an empty one says why when
the analyzer cannot see there (code `#[cfg]` switches off, a file no crate includes)."""

from __future__ import annotations

from typing import Any

from ferrule.lsp import ResponseError
from ferrule.project import ProjectFile
from ferrule.relay import mapping
from ferrule.relay.blind import inactive_at, unlinked_file
from ferrule.relay.ops.context import OpContext
from ferrule.relay.params import TypeParams
from ferrule.relay.results import TypeResult


async def type_at(ctx: OpContext, params: TypeParams) -> TypeResult:
    file, content = ctx.file(params), params.content
    ctx.documents.require(file, content)
    position = ctx.lsp_position(file, params.position, content)
    with ctx.documents.showing(ctx.client, file, content) as shown:
        hover = await ctx.request("textDocument/hover", {
            "textDocument": {"uri": ctx.documents.uri(file.rel)}, "position": position},
            shown.prepare if shown.active else None)
        result = mapping.hover_to_type(hover)
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
