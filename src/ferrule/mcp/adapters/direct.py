"""`tools/call` of an `MCPServer` app straight to its own tool registry, with the SDK's semantics.

The SDK's kernel answers a call through its middleware (OpenTelemetry, the request-state boundary),
its params models, a `Context`, `MCPServer.call_tool` and `Tool.run`, which runs a sync tool on a
worker thread: some 250 µs a call, where the tool's own pydantic models validate and convert in a
few. For a tool without resolvers, called in the handshake era with plain params while the
middleware is a pass-through (no tracer configured, no request state), every one of those layers
does nothing but hand the call on. Such a call is served here: the tool's own `fn_metadata`
validates the arguments and converts the result, a `Context` is built as the kernel builds it for a
tool that asks for one, the failures are wrapped and logged as `Tool.run` and
`MCPServer._handle_call_tool` do, and the kernel's own `_serialize` shapes the wire form. A sync
tool that takes no `Context` runs where the SDK's worker thread would, off the read loop (sdk.py);
an async tool is awaited on the event loop. Everything else (a sync tool taking `Context`, another
era, unusual params, a subclass overriding the call path, extensions, middleware of the app's own)
goes through the kernel as before.

What is decided once per tool (kept while the registry holds the same tool object): whether it can
be called here; which argument keys may carry JSON in a string and which names the validated fields
are handed on under, which `validate_arguments` works out from the model's fields on every call; and
its output model, wrapping and pydantic adapter, which `convert_result` looks up through pydantic's
private-attribute machinery on every call. What is decided once per result
shape: the kernel's last step sieves a result through the revision's surface model (dropping what
the revision lacks, such as `structuredContent` before 2025-06-18, or `resultType` before
2026-07-28, and putting keys in the model's order); when all it did to a shape (the result's keys,
each content block's type and keys) at a revision was to drop and order keys, so that replaying that
gave the same bytes, later results of that shape are laid out the same way without it; a shape it
changed otherwise or refused always goes through it. What is decided once per tool and revision,
for a tool without an output schema or whose output is a plain `str`: where a text goes in the wire
result (`TextCuts`), so a text it returns is spliced in, already encoded, with no conversion at all.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from typing import Any

from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.mcpserver import server as mcpserver_module
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import (
    ResourceError,
    ToolError,
    UnexpectedResourceError,
    UnexpectedToolError,
)
from mcp.server.mcpserver.server import MCPServer
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.tools.tool_manager import ToolManager
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata, _convert_to_content
from mcp.server.request_state import RequestStateBoundary
from mcp.server.runner import ServerRunner, _extract_meta
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, InputRequiredResult, TextContent
from opentelemetry import trace
from orjson import JSONEncodeError, dumps
from pydantic import BaseModel, ValidationError

__all__ = ["DirectTools", "ResultSieve", "TextCuts", "ToolPlan"]

_UNKNOWN = object()
_PROVIDER_FROM_ENV = "OTEL_PYTHON_TRACER_PROVIDER" in os.environ  # what get_tracer_provider() would load
Layout = tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]
_PLAIN_KEYS = frozenset({"name", "arguments", "_meta"})
_PASS_THROUGH = (OpenTelemetryMiddleware, RequestStateBoundary)


class ToolPlan:
    """A direct-callable tool and what its call and result conversion need, looked up once."""

    __slots__ = ("tool", "name", "fn", "validate", "arg_model", "json_keys", "dump_names", "context_kwarg", "threaded",
                 "output_model", "adapter", "wrap", "texts")

    def __init__(self, tool: Tool) -> None:
        metadata = tool.fn_metadata
        self.tool = tool
        self.name = tool.name
        self.fn = tool.fn
        self.arg_model = metadata.arg_model
        fields = self.arg_model.model_fields
        by_key: dict[str, Any] = {}  # as pre_parse_json maps them: each field's name, then its alias
        for field_name, info in fields.items():
            by_key[field_name] = info
            if info.alias:
                by_key[info.alias] = info
        self.json_keys = frozenset(key for key, info in by_key.items() if info.annotation is not str)
        self.dump_names = tuple((field_name, info.alias or field_name) for field_name, info in fields.items())
        stock = getattr(self.arg_model, "model_dump_one_level", None) is ArgModelBase.model_dump_one_level
        self.validate = self._validate if stock else metadata.validate_arguments
        self.context_kwarg = tool.context_kwarg
        self.threaded = not tool.is_async  # a sync tool (never one taking Context): where the SDK's worker thread runs it
        self.output_model = metadata.output_model if metadata.output_schema is not None else None
        self.adapter = None if self.output_model is None else metadata._output_adapter(self.output_model)
        self.wrap = metadata.wrap_output
        # a str result is the text itself with no output schema, or wrapped as a plain `str`
        plain_text = self.output_model is None or (self.wrap and _plain_str(self.output_model))
        self.texts = TextCuts() if plain_text else None

    def run(self, arguments: dict[str, Any]) -> Any:
        """The body's value for `Tool.run(arguments, context, convert_result=True)` of a sync tool,
        called in place rather than on a worker thread (`converted` makes it the result)."""
        validated = self._validated(arguments)
        try:
            return self.fn(**validated)
        except MCPError:
            raise
        except Exception as exc:
            raise _wrapped(self.name, exc) from exc

    def converted(self, value: Any) -> Any:
        """The rest of `Tool.run`: the body's value converted, its failure wrapped as there."""
        try:
            return self.convert(value)
        except MCPError:
            raise
        except Exception as exc:
            raise _wrapped(self.name, exc) from exc

    async def run_async(self, arguments: dict[str, Any], context: Any) -> Any:
        """`Tool.run(arguments, context, convert_result=True)` for an async tool."""
        validated = self._validated(arguments)
        if self.context_kwarg is not None:
            validated = validated | {self.context_kwarg: context}
        try:
            return self.convert(await self.fn(**validated))
        except MCPError:
            raise
        except Exception as exc:
            raise _wrapped(self.name, exc) from exc

    def _validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """`FuncMetadata.validate_arguments` with the field lookups it makes on every call made once:
        pre-parse JSON sent as a string for a field that is not a string, validate with the tool's
        argument model, and hand its fields on one level deep."""
        data = arguments
        if self.json_keys:
            for key, value in arguments.items():
                if key in self.json_keys and isinstance(value, str):
                    try:
                        parsed = json.loads(value)
                    except (ValueError, RecursionError):
                        continue
                    if isinstance(parsed, str | int | float):
                        continue
                    if data is arguments:
                        data = dict(arguments)
                    data[key] = parsed
        model = self.arg_model.model_validate(data)
        return {name: getattr(model, field_name) for field_name, name in self.dump_names}

    def _validated(self, arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            return self.validate(arguments)  # type: ignore[no-any-return]
        except ValidationError as exc:
            raise ToolError(f"Error executing tool {self.name}: {exc}") from exc
        except MCPError:
            raise
        except Exception as exc:
            raise UnexpectedToolError(f"Error executing tool {self.name}") from exc

    def convert(self, result: Any) -> Any:
        """`FuncMetadata.convert_result`, with the output adapter it looks up each time held here."""
        if isinstance(result, InputRequiredResult):
            return result
        adapter = self.adapter
        if isinstance(result, CallToolResult):
            if adapter is not None and not result.is_error:
                adapter.validate_python(result.structured_content)
            return result
        content = _convert_to_content(result)
        if adapter is None:
            return CallToolResult(content=content)
        if self.wrap:
            result = {"result": result}
        validated = adapter.validate_python(result, by_alias=True, by_name=True)
        if isinstance(validated, BaseModel):
            structured = validated.model_dump(mode="json", by_alias=True)
        else:
            structured = adapter.dump_python(validated, mode="json", by_alias=True)
        return CallToolResult(content=content, structured_content=structured)


class DirectTools:
    """The direct route for one `MCPServer` app; `call()` answers a call or declines it (None)."""

    def __init__(self, app: MCPServer[Any]) -> None:
        self.app = app
        self._manager: ToolManager = app._tool_manager
        self._plans: dict[str, ToolPlan] = {}  # tool name -> the plan of the tool object found direct-callable
        self._sieve = ResultSieve()
        self._logger: logging.Logger = mcpserver_module.logger

    def usable(self) -> bool:
        """Whether the app's call path is the stock one (checked once, when the run starts)."""
        app, lowlevel = self.app, self.app._lowlevel_server
        entry = lowlevel.get_request_handler("tools/call")
        return (type(app).call_tool is MCPServer.call_tool
                and type(app)._handle_call_tool is MCPServer._handle_call_tool
                and type(self._manager) is ToolManager
                and entry is not None and entry.handler == app._handle_call_tool
                and lowlevel.cache_hints.get("tools/call") is None
                and all(type(m) in _PASS_THROUGH for m in lowlevel.middleware))

    def plan(self, runner: ServerRunner[Any], params: Any) -> ToolPlan | None:
        """The plan for a handshake-era call the route can take; None to leave it to the kernel."""
        if not _plain(params) or not runner.connection.initialize_accepted or _tracing():
            return None
        name = params["name"]
        tool = self._manager._tools.get(name)
        if tool is None:
            return None
        plan = self._plans.get(name)
        if plan is not None and plan.tool is tool:
            return plan
        if (type(tool).run is Tool.run and type(tool.fn_metadata) is FuncMetadata and not tool.resolved_params
                and (tool.is_async or tool.context_kwarg is None)):
            self._plans[name] = plan = ToolPlan(tool)
            return plan
        return None

    def call(self, runner: ServerRunner[Any], plan: ToolPlan, params: Any) -> dict[str, Any] | bytes:
        """The wire result of a sync tool's call (raising MCPError as the kernel would); a text
        result comes already encoded (`bytes`)."""
        try:
            value = plan.run(params.get("arguments") or {})
            if plan.texts is not None and type(value) is str:
                answer = plan.texts.answer(runner.connection.protocol_version, value,
                                           lambda probe: self._sieve.serialize(runner, plan.converted(probe)))
                if answer is not None:
                    return answer
            result = plan.converted(value)
        except MCPError:
            raise
        except Exception as exc:  # as MCPServer._handle_call_tool answers and logs it
            result = self._failed(plan.name, exc)
        return self._sieve.serialize(runner, result)

    async def call_async(self, runner: ServerRunner[Any], plan: ToolPlan, exchange: Any, params: Any) -> dict[str, Any]:
        """The wire result of an async tool's call, with the `Context` the kernel would give it."""
        context = None
        if plan.context_kwarg is not None:
            version = runner.connection.protocol_version
            request = runner._make_context(exchange, "tools/call", params, _extract_meta(params), version)
            context = Context(request_context=request, mcp_server=self.app, input_params=self._typed(params),
                              subscriptions=self.app._subscriptions)
        try:
            result = await plan.run_async(params.get("arguments") or {}, context)
        except MCPError:
            raise
        except Exception as exc:
            result = self._failed(plan.name, exc)
        return self._sieve.serialize(runner, result)

    def _typed(self, params: Any) -> Any:
        entry = self.app._lowlevel_server.get_request_handler("tools/call")
        assert entry is not None
        return entry.params_type.model_validate(params, by_name=False)

    def _failed(self, name: str, exc: Exception) -> CallToolResult:
        """The isError result `MCPServer._handle_call_tool` answers for a failed call, logged as it does."""
        self._log_failure(name, exc)
        return CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)

    def _log_failure(self, name: str, exc: Exception) -> None:
        logger = self._logger
        if isinstance(exc, ToolError) and not isinstance(exc, UnexpectedToolError):
            if isinstance(exc.__cause__, ValidationError):
                fields = sorted({".".join(str(part) for part in err["loc"]) for err in exc.__cause__.errors()})
                logger.info("Tool %r rejected arguments: %r", name, fields)
            else:
                logger.info("Tool %r failed: %r", name, str(exc))
        else:
            logger.error("Tool %r raised an unexpected exception", name, exc_info=exc)


class ResultSieve:
    """The kernel's `_serialize` of a tools/call result, its sieve replayed for a shape it only
    trimmed and reordered (one per app: what it learns holds for the app's run)."""

    def __init__(self) -> None:
        # (revision, result shape) -> the sieve's layout (its keys, each block's keys, in order) when
        # all it did to the shape was to drop and order keys; None when it did more
        self._sieved: dict[tuple[Any, ...], Layout | None] = {}

    def serialize(self, runner: ServerRunner[Any], result: Any) -> dict[str, Any]:
        """The wire form of `result` at the connection's revision, as the kernel shapes it."""
        version = runner.connection.protocol_version
        if type(result) is not CallToolResult:
            return runner._serialize("tools/call", version, result)
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        key = (version, _shape(dumped))
        layout = self._sieved.get(key)
        if layout is not None:
            return _laid_out(dumped, layout)
        sieved = runner._serialize("tools/call", version, result)
        if key not in self._sieved:
            layout = (tuple(sieved), tuple(tuple(block) for block in sieved.get("content", ())))
            same = sieved.keys() <= dumped.keys() and dumps(_laid_out(dumped, layout)) == dumps(sieved)
            self._sieved[key] = layout if same else None  # a shape the sieve changed otherwise always goes through it
        return sieved


class TextCuts:
    """The wire result of a text a tool returns, laid out once per revision: the encoded result
    of a probe text converted the full way, cut where the text goes. What a tool whose output is a
    plain `str` makes of a str is the text in fixed places (its conversion validates a `str`, or
    serializes one through a JSON round trip, and gives back any string UTF-8 can carry), so the
    answer to a later text is the text spliced into the cut. A second probe checks the cut; a
    layout it does not reproduce (or a conversion that fails on the probes) is never used."""

    # two texts no tool returns by chance (control characters)
    PROBES = ("\x00ferrule\x01text\x02probe\x03", "\x00ferrule\x01other\x02probe\x04")

    def __init__(self) -> None:
        self._cuts: dict[str, list[bytes] | None] = {}  # revision -> the cut; None: not laid out so

    def answer(self, revision: str, text: str, convert: Callable[[str], Any]) -> bytes | None:
        """The encoded wire result of `text` at `revision`, or None to convert it the full way.
        `convert` gives the wire result (a dict, or None for one that is not a plain layout)."""
        if revision in self._cuts:
            cut = self._cuts[revision]
        else:
            cut = self._cuts[revision] = self._cut(convert)
        if cut is None:
            return None
        try:
            return dumps(text).join(cut)
        except JSONEncodeError:  # a lone surrogate, which UTF-8 cannot carry: the full way
            return None

    def _cut(self, convert: Callable[[str], Any]) -> list[bytes] | None:
        try:
            forms = [convert(probe) for probe in self.PROBES]
            if None in forms:
                return None
            first, second = (dumps(form) for form in forms)
        except Exception:  # a conversion, or a result orjson does not encode: never laid out
            return None
        cut = first.split(dumps(self.PROBES[0]))
        return cut if len(cut) > 1 and dumps(self.PROBES[1]).join(cut) == second else None


def _plain_str(output_model: Any) -> bool:
    """Whether a wrapped output model's `result` is a plain `str` (no constraint, no validator)."""
    field = getattr(output_model, "model_fields", {}).get("result")
    return field is not None and field.annotation is str and not field.metadata


def _wrapped(name: str, exc: Exception) -> Exception:
    """What `Tool.run` raises for a tool body (or its result conversion) that raised `exc`."""
    if isinstance(exc, UnexpectedToolError | UnexpectedResourceError):
        return UnexpectedToolError(f"Error executing tool {name}: {exc}")
    if isinstance(exc, ToolError | ResourceError):
        return ToolError(f"Error executing tool {name}: {exc}")
    return UnexpectedToolError(f"Error executing tool {name}")


def _laid_out(dumped: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """`dumped` with the sieve's keys in the sieve's order, its content blocks' too."""
    keys, block_keys = layout
    result = {key: dumped[key] for key in keys}
    if "content" in result:
        result["content"] = [{key: block[key] for key in order} for block, order in zip(result["content"], block_keys, strict=True)]
    return result


def _shape(dumped: dict[str, Any]) -> tuple[Any, ...]:
    """What the revision's sieve looks at in a result: its keys, each content block's type and keys."""
    blocks = tuple((block.get("type"), *block) for block in dumped.get("content", ()))
    return (*dumped, blocks)


def _plain(params: Any) -> bool:
    """Params the kernel would only hand on: a string name, object arguments, at most a progress token."""
    if params is None or type(params.get("name")) is not str or any(key not in _PLAIN_KEYS for key in params):
        return False
    arguments = params.get("arguments")
    if arguments is not None and type(arguments) is not dict:
        return False
    meta = params.get("_meta")
    return meta is None or (type(meta) is dict and len(meta) == 1 and type(meta.get("progressToken")) in (str, int))


def _tracing() -> bool:
    """Whether OpenTelemetry has a real tracer (the SDK's middleware then records a span per call).
    Until a provider is set, `get_tracer_provider()` reads the environment on every call: the same
    answer comes from the environment variable, read once."""
    provider = getattr(trace, "_TRACER_PROVIDER", _UNKNOWN)
    if provider is None:
        return _PROVIDER_FROM_ENV
    if provider is _UNKNOWN:
        provider = trace.get_tracer_provider()
    return type(provider) not in (trace.ProxyTracerProvider, trace.NoOpTracerProvider)
