"""`type`: the analyzer's hover at a position, markdown stripped to text."""

from __future__ import annotations

from ferrule.relay import mapping
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
    return ctx.mark(mapping.hover_to_type(hover))
