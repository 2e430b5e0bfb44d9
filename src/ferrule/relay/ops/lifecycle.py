"""`init` and `shutdown`: start the analyzer afresh, and stop it."""

from __future__ import annotations

from ferrule.relay.analyzer import QUIESCENCE_SETTLE_S
from ferrule.relay.ops.context import OpContext
from ferrule.relay.params import InitParams, ShutdownParams
from ferrule.relay.results import InitResult, ShutdownResult


async def init(ctx: OpContext, params: InitParams) -> InitResult:
    """Re-read the policy, (re)start the analyzer with no overlays, wait for quiescence within the budget.

    An analyzer started moments ago and not used since (`ferrule serve` starts one itself, so a host
    may send `init` first) is joined rather than started a second time."""
    analyzer = ctx.analyzer
    async with analyzer.lock:
        ctx.policy.forget()
        if not ctx.documents.overlays and analyzer.joinable():
            ctx.policy.load()
            quiescent = await ctx.client.wait_quiescent(ctx.budget.remaining(), settle=QUIESCENCE_SETTLE_S)
        else:
            ctx.documents.clear()
            quiescent = await analyzer.restart(ctx.budget.budget_ms / 1000, before_spawn=ctx.policy.load)
            if not params.unanswered:  # a host asked for this start: its next `init` means a new one
                analyzer.fresh_config = None
        client = ctx.client
        assert analyzer.binary is not None
        result: InitResult = {
            "ra_version": analyzer.binary.version,
            "position_encoding": client.position_encoding,
            "pull_diagnostics": analyzer.pull_diagnostics,
            "quiescent": quiescent,
        }
        std_error = analyzer.std_error()
        if std_error is not None:
            result["std_error"] = std_error
        proc_macro_error = analyzer.proc_macro_error()
        if proc_macro_error is not None and await ctx.packages.use_proc_macros(ctx.budget.remaining()):
            result["proc_macro_error"] = proc_macro_error
        return result


async def shutdown(ctx: OpContext, params: ShutdownParams) -> ShutdownResult:
    async with ctx.analyzer.lock:
        ctx.documents.clear()
        await ctx.analyzer.stop(min(ctx.budget.budget_ms / 1000, 5.0))
    return {}
