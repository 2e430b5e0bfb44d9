"""The relay's error taxonomy (TCG-PROTOCOL-RUST section 4).

Five kinds, each a typed exception carrying an actionable recipe. The outer hop answers every one as
`{"kind", "message", "recipe"}`; nothing else escapes an op.
"""

from __future__ import annotations

from collections.abc import Iterable

ORACLE_PROTOCOL = 1

INSTALL_RECIPE = (
    "install it with `rustup component add rust-analyzer rust-src`, or point RUST_ANALYZER "
    "(or --rust-analyzer) at a rust-analyzer binary"
)


class RelayError(Exception):
    """Base of the taxonomy; subclasses fix `kind` and a default recipe."""

    kind = "protocol"
    default_recipe = ""

    def __init__(self, message: str, recipe: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.recipe = self.default_recipe if recipe is None else recipe

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "message": self.message, "recipe": self.recipe}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


class AnalyzerMissing(RelayError):
    kind = "rust-analyzer-missing"
    default_recipe = INSTALL_RECIPE


class WorkspaceUnloadable(RelayError):
    kind = "workspace-unloadable"
    default_recipe = "run `cargo metadata` standalone in the project root and fix what it reports"


class OracleCrashed(RelayError):
    kind = "oracle-crashed"
    default_recipe = (
        "retry the op once: the relay respawns rust-analyzer and re-applies every overlay; "
        "if it dies again, run rust-analyzer by hand in the project to see why"
    )


class ProtocolError(RelayError):
    kind = "protocol"
    default_recipe = f"frames are ORACLE_PROTOCOL {ORACLE_PROTOCOL}: {{proto, id, op, params}}, one JSON object per line"

    @classmethod
    def unknown_op(cls, op: object, known: Iterable[str]) -> ProtocolError:
        ops = ", ".join(known)
        return cls(f"unknown op {op!r}", f"known ops: {ops}")

    @classmethod
    def bad_param(cls, op: str, message: str) -> ProtocolError:
        return cls(f"{op}: {message}", "see TCG-PROTOCOL-RUST section 2 for the op's params")


class OpTimeout(RelayError):
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


KINDS = {cls.kind: cls for cls in (AnalyzerMissing, WorkspaceUnloadable, OracleCrashed, ProtocolError, OpTimeout)}

__all__ = [
    "ORACLE_PROTOCOL",
    "KINDS",
    "RelayError",
    "AnalyzerMissing",
    "WorkspaceUnloadable",
    "OracleCrashed",
    "ProtocolError",
    "OpTimeout",
]
