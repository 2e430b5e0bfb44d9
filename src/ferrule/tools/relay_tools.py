"""The relay's operations as MCP tools: rust_validate, rust_type, rust_complete, rust_scope, rust_update.

The server checks each call's arguments against the tool's input schema before `run`; the tool maps
them onto the op's params (docs/PROTOCOL.md section 3), runs the op on the server's shared relay
session, and answers the rendered report beside the relay's result object. A relay error is an
`isError` result carrying the error's kind and recipe, never a protocol error: the agent reads it and
acts on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ferrule.mcp import ToolOutput, progress
from ferrule.tools import descriptors, reports
from ferrule.tools.relay_link import SharedRelay
from ferrule.tools.reports import error_output

ParamsBuilder = Callable[[Mapping[str, Any]], dict[str, Any]]


class ArgumentError(ValueError):
    """Arguments that fit the schema but not together (a schema cannot say `character` needs `line`)."""


def _position(args: Mapping[str, Any]) -> dict[str, int]:
    # int(): a schema check lets 3.0 through as an integer; the relay wants 3.
    return {"line": int(args["line"]), "character": int(args.get("character", 0))}


def _copy(args: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {name: args[name] for name in names if args.get(name) is not None}


def _validate_params(args: Mapping[str, Any]) -> dict[str, Any]:
    compile_ = args.get("compile")
    return {**_copy(args, ("file", "content")), "compile": True if compile_ is None else bool(compile_)}


def _type_params(args: Mapping[str, Any]) -> dict[str, Any]:
    return {**_copy(args, ("file", "content")), "position": _position(args)}


def _complete_params(args: Mapping[str, Any]) -> dict[str, Any]:
    return {**_copy(args, ("file", "content", "prefix", "max")), "position": _position(args)}


def _scope_params(args: Mapping[str, Any]) -> dict[str, Any]:
    params = _copy(args, ("file",))
    if args.get("line") is not None:
        params["position"] = _position(args)
    elif args.get("character") is not None:
        raise ArgumentError("argument 'character' needs 'line' too (or leave both out for the top level)")
    return params


def _update_params(args: Mapping[str, Any]) -> dict[str, Any]:
    return {"file": args["file"], "content": args["content"]}


def argument_error(tool: str, schema: dict[str, Any], message: str) -> ToolOutput:
    args = ", ".join(
        f"{name}{'' if name in schema.get('required', []) else '?'}" for name in schema.get("properties", {})
    )
    return error_output(
        {"kind": "protocol", "message": message, "recipe": f"call {tool} with {{{args}}}"}, tool=tool
    )


class RelayTool:
    """One relay op behind one MCP tool."""

    def __init__(
        self,
        descriptor: dict[str, Any],
        op: str,
        relay: SharedRelay,
        build_params: ParamsBuilder,
        renderer: Callable[[Mapping[str, Any], Mapping[str, Any]], str],
    ) -> None:
        self._descriptor = descriptor
        self.name: str = descriptor["name"]
        self.op = op
        self.relay = relay
        self._build_params = build_params
        self._render = renderer

    def descriptor(self) -> dict[str, Any]:
        return self._descriptor

    def run(self, args: dict[str, Any]) -> ToolOutput:
        try:
            params = self._build_params(args)
        except ArgumentError as error:
            return argument_error(self.name, self._descriptor["inputSchema"], str(error))
        outcome = self.relay.call(self.op, params, progress=progress)
        if outcome.error is not None:
            return error_output(outcome.error.to_json(), tool=self.name, retried=outcome.retried)
        result = outcome.result or {}
        return ToolOutput(self._render(result, args), structured=dict(result))


_OPS: tuple[tuple[dict[str, Any], str, ParamsBuilder, Callable[..., str]], ...] = (
    (descriptors.RUST_VALIDATE, "validate", _validate_params, reports.render_validate),
    (descriptors.RUST_TYPE, "type", _type_params, reports.render_type),
    (descriptors.RUST_COMPLETE, "complete", _complete_params, reports.render_complete),
    (descriptors.RUST_SCOPE, "scope", _scope_params, reports.render_scope),
    (descriptors.RUST_UPDATE, "update", _update_params, reports.render_update),
)


def relay_tools(relay: SharedRelay) -> list[RelayTool]:
    """The five relay tools, all on `relay`."""
    return [RelayTool(descriptor, op, relay, build, renderer) for descriptor, op, build, renderer in _OPS]


__all__ = ["RelayTool", "argument_error", "relay_tools"]
