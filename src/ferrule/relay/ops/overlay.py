"""`update`: set, replace or drop a file's persistent overlay."""

from __future__ import annotations

import os

from ferrule.project import BadRequest
from ferrule.relay.documents import NOT_A_FILE_RECIPE
from ferrule.relay.ops.context import OpContext
from ferrule.relay.params import UpdateParams
from ferrule.relay.results import UpdateResult


async def update(ctx: OpContext, params: UpdateParams) -> UpdateResult:
    file = ctx.file(params)
    if params.content is not None and os.path.isdir(file.real):
        raise BadRequest(f"{file.rel} is a directory, not a file", NOT_A_FILE_RECIPE)
    had_overlay = file.rel in ctx.documents.overlays
    result: UpdateResult = {"version": ctx.documents.update(ctx.client, file, params.content)}
    if params.content is None:
        result["dropped"] = had_overlay  # false: there was none, so nothing changed
    return result
