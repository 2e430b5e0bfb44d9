"""The relay's Session: one warm rust-analyzer for one project, and the ops of the table over it.

`await session.call(op, params)` checks the params against the op table and runs the op;
`await session.run(op, typed_params)` runs params checked already (the envelope's). Both raise only
`FerruleError` subclasses, with the params and results of docs/PROTOCOL.md section 3. Ops on different
files may run concurrently; the caller serialises ops on one file.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence

from ferrule.lsp import LspClient, RequestTimeout, ResponseError, ServerExited
from ferrule.lsp.client import ProgressCallback
from ferrule.project import BadRequest, OpTimeout, ProjectRoot
from ferrule.relay.analyzer import AnalyzerProcess
from ferrule.relay.compile import CompileChecker
from ferrule.relay.documents import Documents
from ferrule.relay.enrichment import PolicySlot
from ferrule.relay.ops import OP_NAMES, OPS, OpContext
from ferrule.relay.ops.context import Budget
from ferrule.relay.packages import Packages
from ferrule.relay.params import FileParams, OpParams, parse_params, shown
from ferrule.relay.results import OpResult


class Session:
    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        analyzer: str | None = None,
        on_progress: ProgressCallback | None = None,
        quiet_policy: bool = False,
        cool_down: Sequence[float] | None = None,
    ) -> None:
        """`quiet_policy` keeps the line saying where the policy came from (printed on stderr at each
        init) to itself: for embedders whose stderr is not a log, such as a tool's captured output.
        `cool_down` lets an analyzer that died twice in a row start again on its own after that
        schedule's wait (see AnalyzerProcess), for callers that cannot send `init`."""
        self.root = ProjectRoot(root)
        self.analyzer = AnalyzerProcess(self.root, explicit=analyzer, on_progress=on_progress, cool_down=cool_down)
        self.documents = Documents(self.root)
        self.policy = PolicySlot(self.root.path, announce=not quiet_policy)
        self.compiler = CompileChecker(self.root)  # validate's shadow cargo checks, one at a time
        self.packages = Packages(self.root)

    @property
    def client(self) -> LspClient | None:
        """The analyzer's live connection, if it runs."""
        return self.analyzer.client

    async def call(self, op: str, params: Mapping[str, object] | None = None) -> OpResult:
        """Check `params` (a JSON object) against the op table, then run the op."""
        spec = OPS.get(op)
        if spec is None:
            raise BadRequest.unknown_op(f"unknown op {shown(op)}", OP_NAMES)
        return await self.run(op, parse_params(op, spec.params, params, self.root))

    async def run(self, op: str, params: OpParams) -> OpResult:
        """Run `op` with params checked already (by `call`, or by the envelope in `serve`)."""
        spec = OPS[op]
        budget = Budget(op, spec.budget_ms if params.timeout_ms is None else params.timeout_ms)
        analyzer = self.analyzer
        try:
            if spec.on_a_file:
                client = analyzer.client
                if client is None or not client.alive:
                    client = await analyzer.running(OPS["init"].budget_ms / 1000, before_spawn=self.policy.load,
                                                    reopen=self.documents.reopen_all)
                    if isinstance(params, FileParams):  # a start takes seconds: check the path again at use
                        params = dataclasses.replace(params, checked=None)
                budget.began_busy = client.busy
                self.documents.before_op(client, analyzer.pull_diagnostics,
                                         params.checked if isinstance(params, FileParams) else None)
            result = await spec.handler(OpContext(budget, self.root, analyzer, self.documents, self.policy,
                                                   self.compiler, self.packages), params)
        except ServerExited as exited:
            raise analyzer.crashed(exited) from None
        except RequestTimeout:
            raise OpTimeout.for_op(op, budget.budget_ms) from None
        except ResponseError as error:
            raise BadRequest(f"{op}: the analyzer refused the request: {error}",
                             "check the file and position; the analyzer's message says what it could not do") from None
        finally:
            if op != "init":
                analyzer.fresh_config = None  # an analyzer something used is no longer one `init` may join
        analyzer.op_succeeded()
        return result

    async def aclose(self) -> None:
        await self.call("shutdown", {})


__all__ = ["Session"]
