"""The shadow compile check behind `validate`'s `compile: true`: a mirror of the project with the
overlays written in (mirror), cargo run there under the op's budget (cargo), rustc's spans mapped back
to the text the op saw (spans), one run per project and effective state (checker), and its answer
joined to the analyzer's (merge)."""

from ferrule.relay.compile.checker import CompileAnswer, CompileChecker
from ferrule.relay.compile.merge import ELSEWHERE_CAP, compile_disabled, merged, stopped_at_syntax

__all__ = ["ELSEWHERE_CAP", "CompileAnswer", "CompileChecker", "compile_disabled", "merged", "stopped_at_syntax"]
