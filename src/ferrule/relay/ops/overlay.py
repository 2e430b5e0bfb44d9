"""`update`: set, replace or drop a file's persistent overlay."""

from __future__ import annotations

from ferrule.relay.ops.context import OpContext
from ferrule.relay.params import UpdateParams
from ferrule.relay.results import UpdateResult


async def update(ctx: OpContext, params: UpdateParams) -> UpdateResult:
    file = ctx.file(params)
    had_overlay = file.rel in ctx.documents.overlays
    result: UpdateResult = {"version": ctx.documents.update(ctx.client, file, params.content)}
    if params.content is None:
        result["dropped"] = had_overlay  # false: there was none, so nothing changed
    return result
