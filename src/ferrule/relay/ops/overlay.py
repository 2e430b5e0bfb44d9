"""`update`: set, replace or drop a file's persistent overlay."""

from __future__ import annotations

from ferrule.relay.ops.context import OpContext
from ferrule.relay.params import UpdateParams
from ferrule.relay.results import UpdateResult


async def update(ctx: OpContext, params: UpdateParams) -> UpdateResult:
    return {"version": ctx.documents.update(ctx.client, ctx.file(params), params.content)}
