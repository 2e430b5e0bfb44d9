"""The error kinds every answer of ferrule shares, each with the recipe that fixes it.

Five kinds (docs/PROTOCOL.md section 6). The relay answers each as `{"kind", "message", "recipe"}` in an
error frame; the MCP tools, relay-backed or not, carry the same object in an `isError` result.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

PROTOCOL_DOC = "docs/PROTOCOL.md"

INSTALL_RECIPE = (
    "install it with `rustup component add rust-analyzer rust-src`, or point RUST_ANALYZER "
    "(or --rust-analyzer) at a rust-analyzer binary"
)


class ErrorRecord(TypedDict):
    kind: str
    message: str
    recipe: str


class FerruleError(Exception):
    """An error a caller can act on: `kind` says which, `recipe` says what to do."""

    kind = "protocol"
    default_recipe = ""

    def __init__(self, message: str, recipe: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.recipe = self.default_recipe if recipe is None else recipe

    def to_json(self) -> ErrorRecord:
        return {"kind": self.kind, "message": self.message, "recipe": self.recipe}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


class AnalyzerMissing(FerruleError):
    kind = "rust-analyzer-missing"
    default_recipe = INSTALL_RECIPE


class WorkspaceUnloadable(FerruleError):
    kind = "workspace-unloadable"
    default_recipe = "run `cargo metadata` standalone in the project root and fix what it reports"


class OracleCrashed(FerruleError):
    kind = "oracle-crashed"
    default_recipe = (
        "retry the op once: the relay respawns rust-analyzer and re-applies every overlay; "
        "if it dies again, run rust-analyzer by hand in the project to see why"
    )


class BadRequest(FerruleError):
    """A request refused as asked: a bad frame, an unknown op, bad params, a path outside the root."""

    kind = "protocol"
    default_recipe = "frames are ORACLE_PROTOCOL 1: {proto, id, op, params}, one JSON object per line"

    @classmethod
    def unknown_op(cls, said: str, known: Iterable[str]) -> BadRequest:
        """`said` names what the request had instead of a known op (`unknown op "hover"`, no `op`)."""
        ops = ", ".join(known)
        return cls(f"{said}; known ops: {ops}", f"known ops: {ops}")


class OpTimeout(FerruleError):
    kind = "timeout"
    default_recipe = "raise the op's `timeout_ms` param, or wait for indexing to finish and retry"

    def __init__(
        self, message: str, recipe: str | None = None, *, op: str | None = None, budget_ms: int | None = None
    ) -> None:
        super().__init__(message, recipe)
        self.op = op
        self.budget_ms = budget_ms

    @classmethod
    def for_op(cls, op: str, budget_ms: int) -> OpTimeout:
        return cls(
            f"{op} got no answer within its budget of {budget_ms} ms",
            f"op {op!r}, budget {budget_ms} ms: pass a larger `timeout_ms` to {op}, "
            "or retry once the analyzer is quiescent",
            op=op,
            budget_ms=budget_ms,
        )


KINDS: dict[str, type[FerruleError]] = {
    cls.kind: cls for cls in (AnalyzerMissing, WorkspaceUnloadable, OracleCrashed, BadRequest, OpTimeout)
}

__all__ = [
    "INSTALL_RECIPE",
    "KINDS",
    "PROTOCOL_DOC",
    "AnalyzerMissing",
    "BadRequest",
    "ErrorRecord",
    "FerruleError",
    "OpTimeout",
    "OracleCrashed",
    "WorkspaceUnloadable",
]
