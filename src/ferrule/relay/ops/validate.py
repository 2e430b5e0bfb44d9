"""`validate`: the analyzer's diagnostics for one document, and the policy's findings on its text; with
`compile`, rustc's too (ferrule.relay.compile), checked while the analyzer computes its own."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

from ferrule.conform import Enrichment
from ferrule.fastframe import LineIndex
from ferrule.lsp import RequestTimeout
from ferrule.relay import mapping
from ferrule.relay.blind import unlinked_file
from ferrule.relay.compile import CompileAnswer, compile_disabled, merged
from ferrule.relay.ops.context import OpContext
from ferrule.relay.params import ValidateParams
from ferrule.relay.results import Diagnostic, ValidateResult

PUSH_SETTLE_S = 0.5  # degraded push path: how long a version's pushes may keep coming once it is analysed
COMPILE_MARGIN_S = 0.1  # a compile check gives up this long before the budget ends, so the op still answers


async def validate(ctx: OpContext, params: ValidateParams) -> ValidateResult:
    file = ctx.file(params)
    ctx.documents.require(file, params.content)  # before cargo starts: a missing file is refused at once
    rel = file.rel
    async with compile_beside(ctx, rel, params.content, wanted=bool(params.compile)) as compiling:
        result = await _analyzer_view(ctx, params)
        if compiling is not None:
            # the warnings so far say what the analyzer lacks (std, proc-macros)
            merged(result, await compiling, rel, analyzer_misled="warnings" in result)
    blind_spot = unlinked_file(rel, result["diagnostics"])
    if blind_spot is not None:  # the analyzer checked nothing here: no diagnostics is no verdict
        result["degraded"] = True
        result["warnings"] = [*result.get("warnings", []), blind_spot]
    return ctx.mark(result)


@contextlib.asynccontextmanager
async def compile_beside(ctx: OpContext, rel: str, content: str | None = None, *,
                         wanted: bool = True) -> AsyncIterator[asyncio.Future[CompileAnswer] | None]:
    """rustc's answer (`start_compile`) while the op asks the analyzer; cargo is stopped if the op ends
    without awaiting it. None when not `wanted`."""
    compiling = start_compile(ctx, rel, content) if wanted else None
    try:
        yield compiling
    finally:
        if compiling is not None and not compiling.done():  # nothing may keep running after the op answered
            compiling.cancel()
            await asyncio.gather(compiling, return_exceptions=True)


def start_compile(ctx: OpContext, rel: str, content: str | None = None) -> asyncio.Future[CompileAnswer]:
    """rustc's answer for the overlays and an op's `content` for `rel`, started before the analyzer is asked."""
    disabled = compile_disabled(ctx.policy.current.compile)
    if disabled is not None:
        done: asyncio.Future[CompileAnswer] = asyncio.get_running_loop().create_future()
        done.set_result(CompileAnswer(error=disabled))
        return done
    overlays = {name: overlay.text for name, overlay in ctx.documents.overlays.items()}
    if content is not None:
        overlays[rel] = content
    return asyncio.ensure_future(ctx.compiler.check(overlays, rel, ctx.budget.deadline - COMPILE_MARGIN_S))


async def _analyzer_view(ctx: OpContext, params: ValidateParams) -> ValidateResult:
    file, content = ctx.file(params), params.content
    documents, client = ctx.documents, ctx.client
    text = documents.text(file, content)
    uri = documents.uri(file.rel)
    pull = ctx.analyzer.pull_diagnostics
    shown_text = content
    if not pull and content is None and file.rel not in documents.overlays:
        shown_text = text  # pushes come only for open documents
    policy = ctx.policy.current
    enriched: list[Enrichment] = []
    with documents.showing(client, file, shown_text) as shown:

        def meanwhile() -> None:  # while the analyzer computes the diagnostics
            shown.prepare()
            enriched.append(policy.enrich(file.rel, text))

        if pull:
            report = await ctx.request("textDocument/diagnostic", {"textDocument": {"uri": uri}}, meanwhile)
            raw = (report or {}).get("items") or []
        else:
            meanwhile()
            raw = await _pushed_diagnostics(ctx, uri, documents.version(file.rel), text.count("\n"))
    index = None if ctx.analyzer.codec.identity else LineIndex(text)
    diagnostics: list[Diagnostic] = []
    for item in raw:
        if not mapping.is_overlay_diagnostic(item):
            continue
        start = item["range"]["start"]
        diagnostics.append({
            "code": mapping.diagnostic_code(item),
            "category": mapping.SEVERITY.get(item.get("severity") or 1, "error"),
            "message": item.get("message", ""),
            "line": start["line"] + 1,
            "character": ctx.utf8_column(index, start["line"], start["character"]),
            "source": "rust-analyzer",
        })
    policy_fields = enriched[0]
    result: ValidateResult = {
        "diagnostics": diagnostics,
        "facts": policy_fields["facts"] if params.include_facts is not False else [],
        "markers": [],
        "conform_findings": policy_fields["conform_findings"],
        "advice": policy_fields["advice"],
        "degraded": not pull,
    }
    warnings = ctx.analyzer.warnings(diagnostics)
    if warnings:
        result["degraded"] = True
        result["warnings"] = warnings
    return result


async def _pushed_diagnostics(ctx: OpContext, uri: str, version: int, lines: int) -> list[dict[str, Any]]:
    """The last push for `version`. rust-analyzer publishes a version's syntax errors first and its
    semantic diagnostics once it has type-checked the file (seconds when cold); nothing marks a push
    as the last. Inlay hints over the whole file need that same type-checking, so their answer is
    the event after which only a push already on its way is left to wait for."""
    client, budget = ctx.client, ctx.budget
    await client.wait_diagnostics(uri, version, budget.remaining())
    if client.capabilities.get("inlayHintProvider"):
        await ctx.request("textDocument/inlayHint", {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}},
        })
    while True:
        settle = min(PUSH_SETTLE_S, budget.deadline - time.monotonic())
        if settle <= 0:
            break
        try:
            await client.wait_diagnostics(uri, version, settle, fresh=True)
        except RequestTimeout:
            break
    return client.diagnostics[uri][1]
