"""The relay's operations as MCP tools: rust_validate, rust_type, rust_complete, rust_scope, rust_update,
and navigation by name: rust_symbols, rust_definition, rust_references, rust_implementations,
rust_rename, rust_fixes, rust_apply_fix.

The server checks each call's arguments against the tool's input schema before `run`; the tool maps
them onto the op's params (docs/PROTOCOL.md section 3), runs the op on the server's shared relay
session, and answers the rendered report beside the relay's result object (rust_validate's cut to fit
a model's context, as its report is). A relay error is an
`isError` result carrying the error's kind and recipe, never a protocol error: the agent reads it and
acts on it.

The tools are concurrent (docs/MCP.md section 4.4): a call that ends its read runs on the thread that
read it, with the server's reading handed on while the analyzer works, so `ping` is answered and
`notifications/cancelled` is honoured meanwhile, and a quick call costs no hop between threads. The
relay session runs one op at a time (SharedRelay's lock), and the tools are ordered: their calls reach
it in the order they were read, whichever threads run them. Each call hands the relay its own progress,
bound as it begins: the analyzer's output (its indexing progress) is read by a task made during the
call that started the analyzer, in that call's context, not the context of the call it reports to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ferrule.mcp import ToolOutput, bound_progress
from ferrule.project import BadRequest, ErrorRecord, FerruleError, OpTimeout
from ferrule.relay.digest import compact
from ferrule.relay.documents import MISSING_FILE_RECIPE
from ferrule.relay.enrichment import POLICY_RECIPE
from ferrule.relay.params import PARAMS_RECIPE
from ferrule.relay.symbols import AMBIGUOUS_RECIPE
from ferrule.tools import descriptors, reports
from ferrule.tools.relay_link import SharedRelay
from ferrule.tools.reports import error_output

ParamsBuilder = Callable[[Mapping[str, Any]], dict[str, Any]]
Shaper = Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]  # (result, args) -> structured


class ArgumentError(ValueError):
    """Arguments that fit the schema but not together (a schema cannot say `character` needs `line`)."""


def _position(args: Mapping[str, Any]) -> dict[str, int]:
    # int(): a schema check lets 3.0 through as an integer; the relay wants 3.
    return {"line": int(args["line"]), "character": int(args.get("character", 0))}


def _copy(args: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {name: args[name] for name in names if args.get(name) is not None}


def _compile(args: Mapping[str, Any]) -> bool:
    """The tools' `compile`: rustc's word too unless switched off."""
    return args.get("compile") is None or bool(args["compile"])


def _validate_params(args: Mapping[str, Any]) -> dict[str, Any]:
    # the facts are always asked for: the structured result counts them by kind even when it leaves them out
    return {**_copy(args, ("file", "content")), "compile": _compile(args)}


def _validate_structured(result: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
    """The answer cut as the report is, to fit a model's context; the facts only when asked for."""
    return compact(result, include_facts=bool(args.get("include_facts")))


def _whole(result: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
    return dict(result)


def _type_params(args: Mapping[str, Any]) -> dict[str, Any]:
    return {**_copy(args, ("content",)), **_place(args)}


def _complete_params(args: Mapping[str, Any]) -> dict[str, Any]:
    return {**_copy(args, ("file", "content", "prefix", "max")), "position": _position(args)}


def _scope_params(args: Mapping[str, Any]) -> dict[str, Any]:
    params = _copy(args, ("file", "max"))
    if args.get("line") is not None:
        params["position"] = _position(args)
    elif args.get("character") is not None:
        raise ArgumentError("argument 'character' needs 'line' too (or leave both out for the top level)")
    return params


def _update_params(args: Mapping[str, Any]) -> dict[str, Any]:
    return {"file": args["file"], "content": args["content"]}


# ---- navigation by name ----------------------------------------------------------------------------


def _place(args: Mapping[str, Any]) -> dict[str, Any]:
    """`symbol`, or `file` with `line` and `character`: the place a navigation tool looks at."""
    if args.get("symbol") is not None:
        if any(args.get(name) is not None for name in ("file", "line", "character")):
            raise ArgumentError("pass either 'symbol' or 'file' with 'line' and 'character', not both")
        return {"symbol": args["symbol"]}
    missing = [name for name in ("file", "line", "character") if args.get(name) is None]
    if len(missing) == 3:
        raise ArgumentError("missing 'symbol', or 'file' with 'line' and 'character': one of them names the place")
    if missing:  # a place without its column would be column 0: a silent "nothing found"
        raise ArgumentError(f"missing {' and '.join(repr(name) for name in missing)}: 'file', 'line' and "
                            "'character' name the place together (or pass 'symbol' alone)")
    return {"file": args["file"], "position": _position(args)}


def _symbols_params(args: Mapping[str, Any]) -> dict[str, Any]:
    return _copy(args, ("file", "query", "kinds", "max"))


def _definition_params(args: Mapping[str, Any]) -> dict[str, Any]:
    return _place(args)


def _references_params(args: Mapping[str, Any]) -> dict[str, Any]:
    return {**_place(args), **_copy(args, ("include_declaration", "max"))}


def _implementations_params(args: Mapping[str, Any]) -> dict[str, Any]:
    return {**_place(args), **_copy(args, ("max",))}


def _rename_params(args: Mapping[str, Any]) -> dict[str, Any]:
    return {**_place(args), **_copy(args, ("new_name", "apply"))}


def _fixes_params(args: Mapping[str, Any]) -> dict[str, Any]:
    params = {**_copy(args, ("file", "code", "max")), "compile": _compile(args)}
    if args.get("character") is not None:
        if args.get("end_line") is not None:
            raise ArgumentError("pass 'character' for a position, or 'end_line' for a range of lines, not both")
        params["position"] = _position(args)
    else:
        params.update(_copy(args, ("line", "end_line")))
    return params


def _apply_fix_params(args: Mapping[str, Any]) -> dict[str, Any]:
    return _copy(args, ("file", "id", "apply"))


def _call_with(tool: str, schema: dict[str, Any]) -> str:
    args = ", ".join(
        f"{name}{'' if name in schema.get('required', []) else '?'}" for name in schema.get("properties", {})
    )
    return f"call {tool} with {{{args}}}"


def argument_error(tool: str, schema: dict[str, Any], message: str) -> ToolOutput:
    return error_output({"kind": "protocol", "message": message, "recipe": _call_with(tool, schema)}, tool=tool)


def for_tools(error: FerruleError, tool: str, schema: dict[str, Any]) -> ErrorRecord:
    """A relay error as the agent on this face reads it: recipes that name relay ops or params
    (`update`, `init`, `timeout_ms`, the protocol's params) name the tools and arguments it has."""
    record = error.to_json()
    if isinstance(error, OpTimeout) and error.budget_ms is not None:
        record["message"] = f"{tool} got no answer within its budget of {error.budget_ms} ms"
        record["recipe"] = (f"call {tool} again once rust-analyzer has finished indexing (the first calls "
                            "after a start wait for it)")
    elif error.recipe in (PARAMS_RECIPE, BadRequest.default_recipe):  # the relay's frames mean nothing here
        record["recipe"] = _call_with(tool, schema)
    elif error.recipe == MISSING_FILE_RECIPE:
        record["recipe"] = "create the file, or pass its text in `content` or set it with rust_update first"
    elif error.recipe == POLICY_RECIPE:
        record["recipe"] = "fix conform.toml (or remove it to use the defaults) and call the tool again"
    elif error.recipe == AMBIGUOUS_RECIPE:
        record["recipe"] = ("qualify the name with its type or module (e.g. `Order::total`), or name the place "
                            "with `file`, `line` and `character` instead")
    return record


class RelayTool:
    """One relay op behind one MCP tool."""

    concurrent = True  # its run blocks on the analyzer, and calls from several threads take turns at the relay
    ordered = True  # ... in the order they were read: an edit, then the check of it

    def __init__(
        self,
        descriptor: dict[str, Any],
        op: str,
        relay: SharedRelay,
        build_params: ParamsBuilder,
        renderer: Callable[[Mapping[str, Any], Mapping[str, Any]], str],
        shape: Shaper = _whole,
    ) -> None:
        self._descriptor = descriptor
        self.name: str = descriptor["name"]
        self.op = op
        self.relay = relay
        self._build_params = build_params
        self._render = renderer
        self._shape = shape

    def descriptor(self) -> dict[str, Any]:
        return self._descriptor

    def run(self, args: dict[str, Any]) -> ToolOutput:
        try:
            if type(file := args.get("file")) is str and file != (named := self.relay.project_name(file)):
                args = {**args, "file": named}
            params = self._build_params(args)
        except ArgumentError as wrong:
            return argument_error(self.name, self._descriptor["inputSchema"], str(wrong))
        except BadRequest as refused:
            return error_output(for_tools(refused, self.name, self._descriptor["inputSchema"]), tool=self.name)
        outcome = self.relay.call(self.op, params, progress=bound_progress())
        if outcome.error is not None:
            record = for_tools(outcome.error, self.name, self._descriptor["inputSchema"])
            return error_output(record, tool=self.name, retried=outcome.retried, restarted=outcome.restarted)
        result = outcome.result or {}
        report = self._render(result, args)
        happened = reports.what_happened(retried=outcome.retried, restarted=outcome.restarted, failed=False)
        if happened:
            report += "\n\n" + happened
        return ToolOutput(report, structured=self._shape(result, args))


_OPS: tuple[tuple[dict[str, Any], str, ParamsBuilder, Callable[..., str]], ...] = (
    (descriptors.RUST_VALIDATE, "validate", _validate_params, reports.render_validate),
    (descriptors.RUST_TYPE, "type", _type_params, reports.render_type),
    (descriptors.RUST_COMPLETE, "complete", _complete_params, reports.render_complete),
    (descriptors.RUST_SCOPE, "scope", _scope_params, reports.render_scope),
    (descriptors.RUST_UPDATE, "update", _update_params, reports.render_update),
    (descriptors.RUST_SYMBOLS, "symbols", _symbols_params, reports.render_symbols),
    (descriptors.RUST_DEFINITION, "definition", _definition_params, reports.render_locations),
    (descriptors.RUST_REFERENCES, "references", _references_params, reports.render_references),
    (descriptors.RUST_IMPLEMENTATIONS, "implementations", _implementations_params, reports.render_locations),
    (descriptors.RUST_RENAME, "rename", _rename_params, reports.render_edits),
    (descriptors.RUST_FIXES, "fixes", _fixes_params, reports.render_fixes),
    (descriptors.RUST_APPLY_FIX, "apply_fix", _apply_fix_params, reports.render_edits),
)


_SHAPES: dict[str, Shaper] = {"validate": _validate_structured, "type": reports.type_structured,
                               "rename": reports.edits_structured, "apply_fix": reports.edits_structured}


def relay_tools(relay: SharedRelay) -> list[RelayTool]:
    """The relay tools, all on `relay`."""
    return [RelayTool(descriptor, op, relay, build, renderer, _SHAPES.get(op, _whole))
            for descriptor, op, build, renderer in _OPS]


__all__ = ["RelayTool", "argument_error", "for_tools", "relay_tools"]
