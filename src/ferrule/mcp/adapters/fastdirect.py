"""`tools/call` of a fastmcp app straight to its local tools, with fastmcp's semantics.

fastmcp answers a call through the SDK's kernel (params model, `FastMCPServerMiddleware`, the
request-state boundary), `_on_call_tool`, `call_tool` twice (once around its middleware chain and
extension interceptors, once around the lookup), the lookup through providers, transforms,
visibility (global and per session) and auth, then `FunctionTool.run`, which hands a sync tool to a
worker thread: some 400 µs a call. For an app in its plain configuration (the `FastMCP` class
itself, only its local provider, no transforms, no auth, no extensions, no middleware but the
default `DereferenceRefsMiddleware`, which hands calls on, a state store of fastmcp's own making
and no tracer) and a plain `FunctionTool` (sync, unversioned, enabled, no `auth`, no timeout, no
injected parameters), every layer above the tool only hands the call on, and the lookup finds the
tool object the local provider holds under its key. Such a call is served here, with the same
context a tool body can read (`get_context()` and its request, the lifespan's shared context, the
client-call marks) and the same steps as fastmcp's: its own type adapter validates and calls,
`convert_result` and `_mark_non_object_result` shape the result, failures are logged and masked
as `call_tool` does (a Prefab payload's tool names are re-addressed by its own last step, on the
event loop), `_on_call_tool`'s wrapping and error results follow, and the kernel's serializer
shapes the wire form. A text that a tool returns under a `str` (or open) annotation is spliced into
the wire form fastmcp gives a text, laid out once per revision (direct.py's `TextCuts`).

What is checked once, when the run starts: the app's class and configuration. What is checked on
every call, cheaply: that the lists a run can change (middleware, providers, transforms, extensions)
are still the ones checked, and that the local provider still holds the planned tool object under
its key (an unversioned tool cannot share its name with a versioned one, so the lookup's answer is
that object). Per-session visibility rules live in the app's state store, which a plain call does
not read; every change to them is announced with a `list_changed` notification, so the first one
the app sends ends the route for the run (`revoke()`). A sync tool fastmcp would run on a worker
thread runs off the main thread (sdk.py: on the thread that read its call, else on a worker thread
of workers.py), which writes its answer; one marked `run_in_thread=False` runs on the main thread,
as fastmcp runs it on its event loop's.
"""

from __future__ import annotations

import contextvars
import inspect
import logging
from collections.abc import Coroutine
from typing import Any

import mcp_types
from fastmcp.exceptions import DisabledError, FastMCPError, NotFoundError, ToolError, ValidationError
from fastmcp.server import server as server_module
from fastmcp.server.context import Context, set_transport
from fastmcp.server.dependencies import (
    _dispatching_tool_call,
    _serving_client_tool_call,
    bind_request_context,
    without_injected_parameters,
)
from fastmcp.server.low_level import FastMCPServerMiddleware
from fastmcp.server.middleware.dereference import DereferenceRefsMiddleware
from fastmcp.server.middleware.middleware import Middleware
from fastmcp.server.mixins import mcp_operations
from fastmcp.server.providers.prefab_payload import payload_has_identities
from fastmcp.server.server import FastMCP, _SchemaCacheLocalProvider, _validation_error_summary
from fastmcp.server.telemetry import telemetry_mode
from fastmcp.server.transforms.visibility import is_enabled
from fastmcp.tools.base import InputRequiredToolResult, RawStructuredToolResult, ToolResult
from fastmcp.tools.function_tool import (
    FunctionTool,
    _materialize_sync_generator,
    _strict_input_validation,
    _ToolBodyError,
    _validate_input,
    _wrap_body_errors,
)
from fastmcp.utilities.exceptions import get_http_status_code, is_timeout_error
from fastmcp.utilities.types import get_cached_typeadapter
from key_value.aio.stores.memory import MemoryStore
from mcp.server.request_state import RequestStateBoundary
from mcp.server.runner import ServerRunner, _extract_meta
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError as PydanticValidationError

from .direct import ResultSieve, TextCuts, _plain, _tracing

__all__ = ["FastPlan", "FastTools"]

_handler_log = mcp_operations.logger
_TEXT_TYPES = (str, Any, inspect.Signature.empty)  # return annotations under which a str is serialized as itself
_PASS_THROUGH_HOOKS = ("__call__", "_dispatch_handler", "on_message", "on_request", "on_call_tool")


class FastPlan:
    """A direct-callable fastmcp tool and its call adapter, looked up once."""

    __slots__ = ("tool", "key", "name", "adapter", "threaded", "texts")

    def __init__(self, tool: FunctionTool) -> None:
        self.tool = tool
        self.key = tool.key
        self.name = tool.name
        # FunctionTool.run's own adapter: the body wrapped so its pydantic errors are told apart
        body = without_injected_parameters(_wrap_body_errors(tool.fn, materialize_generators=True),
                                           run_in_thread=tool.run_in_thread)
        self.adapter = get_cached_typeadapter(_wrap_body_errors(body))
        self.threaded = tool.run_in_thread
        self.texts = TextCuts() if tool.return_type in _TEXT_TYPES else None

    def run(self, arguments: dict[str, Any], strict: bool | None, finish: Any) -> Any:
        """The body's value for `Tool._run(arguments)` of a sync FunctionTool, in the calling
        thread (`converted` makes it the ToolResult). `finish` awaits, on the event loop, what a
        body returned that fastmcp would await there."""
        try:
            result = _validate_input(self.adapter, arguments, strict=strict)  # validates, then calls the body
            try:
                if inspect.isawaitable(result) or inspect.isasyncgen(result):
                    result = finish(_settled(result))
            except PydanticValidationError as exc:
                raise _ToolBodyError(str(exc)) from exc
        except PydanticValidationError as exc:
            raise ValidationError(str(exc), log_level=logging.WARNING) from exc
        return result

    def converted(self, result: Any) -> ToolResult:
        """The rest of `Tool._run`: the body's value as the tool's ToolResult."""
        if isinstance(result, mcp_types.InputRequiredResult):
            return InputRequiredToolResult(result)
        return self.tool._mark_non_object_result(self.tool.convert_result(result))


class FastTools:
    """The direct route for one fastmcp app; `plan()` says whether a call can take it."""

    def __init__(self, app: FastMCP) -> None:
        self.app = app
        self._local = app._local_provider
        self._plans: dict[str, FastPlan] = {}
        self._sieve = ResultSieve()
        self._watched: tuple[Any, ...] = ()
        self.revoked = False
        self._base: contextvars.Context | None = None  # what every call's context starts from
        self._base_of: Any = None  # the lifespan's snapshot it holds

    def usable(self) -> bool:
        """Whether the app is in the plain configuration (checked once, when the run starts)."""
        app, lowlevel = self.app, self.app._mcp_server
        entry = lowlevel.get_request_handler("tools/call")
        plain = (type(app) is FastMCP and type(self._local) is _SchemaCacheLocalProvider
                 and entry is not None and entry.handler == app._on_call_tool
                 and lowlevel.cache_hints.get("tools/call") is None
                 and [type(m) for m in lowlevel.middleware] == [FastMCPServerMiddleware, RequestStateBoundary]
                 and app.auth is None and not app._extensions and not app._transforms and not self._local._transforms
                 and app.providers == [self._local] and bool(app._shared_context_snapshot)
                 and type(app._state_storage) in (type(None), MemoryStore)
                 and telemetry_mode() != "propagation_only"
                 and all(_passes_calls_on(m) for m in app.middleware))
        self._watched = self._lists()
        return plain

    def revoke(self) -> None:
        """The app announced a change of its lists (per-session visibility among them): every
        later call takes fastmcp's own path."""
        self.revoked = True

    def _lists(self) -> tuple[Any, ...]:
        app = self.app
        return (*app.middleware, None, *app.providers, None, *app._transforms, None, *self._local._transforms,
                None, *app._extensions)

    def plan(self, runner: ServerRunner[Any], params: Any) -> FastPlan | None:
        """The plan for a handshake-era call the route can take; None to leave it to fastmcp."""
        if self.revoked or not _plain(params) or not runner.connection.initialize_accepted or _tracing():
            return None
        if self._lists() != self._watched:
            return None
        name = params["name"]
        plan = self._plans.get(name)
        components = self._local._components
        if plan is not None:
            return plan if components.get(plan.key) is plan.tool and is_enabled(plan.tool) else None
        tool = components.get(f"tool:{name}@")
        if (type(tool) is FunctionTool and tool.name == name and tool.version is None and is_enabled(tool)
                and tool.auth is None and tool.timeout is None and not inspect.iscoroutinefunction(tool.fn)
                and not _injects(tool)):
            self._plans[name] = plan = FastPlan(tool)
            return plan
        return None

    def call(self, runner: ServerRunner[Any], plan: FastPlan, exchange: Any, params: Any, finish: Any) -> dict[str, Any] | bytes:
        """The wire result of the call (raising MCPError as the kernel would), in the calling
        thread, in a context of its own (as each request's task has one under fastmcp) holding
        what fastmcp's path gives the tool body. A text result comes already encoded (`bytes`)."""
        return self._call_context().run(self._call, runner, plan, exchange, params, finish)

    def _call_context(self) -> contextvars.Context:
        """A context of the call's own, holding what fastmcp's stdio run sets for everything it
        serves (the transport `stdio`) and the lifespan's shared context: made once (a copy costs
        a tenth of setting them), again if the lifespan's snapshot is replaced."""
        snapshot = self.app._shared_context_snapshot
        if self._base is None or self._base_of is not snapshot:
            base = contextvars.Context()
            base.run(_enter_stdio, snapshot)
            self._base, self._base_of = base, snapshot
        return self._base.copy()

    def _call(self, runner: ServerRunner[Any], plan: FastPlan, exchange: Any, params: Any, finish: Any) -> dict[str, Any] | bytes:
        app = self.app
        version = runner.connection.protocol_version
        request = runner._make_context(exchange, "tools/call", params, _extract_meta(params), version)
        arguments = params.get("arguments") or {}
        with bind_request_context(request):
            if _handler_log.isEnabledFor(logging.DEBUG):
                _handler_log.debug(f"[{app.name}] Handler called: call_tool %s with %s", plan.name, arguments)
            with _serving_client_tool_call():
                result: Any
                try:
                    result = self._called(runner, plan, arguments, finish)
                    if type(result) is bytes:
                        return result
                    result = _wire_result(plan.name, result, version)
                except (DisabledError, NotFoundError):  # as _on_call_tool answers them
                    result = _error_result(f"Unknown tool: {plan.name!r}")
                except FastMCPError as exc:
                    result = _error_result(str(exc))
        return self._sieve.serialize(runner, result)

    def _called(self, runner: ServerRunner[Any], plan: FastPlan, arguments: dict[str, Any], finish: Any) -> ToolResult | bytes:
        """`call_tool(name, arguments)`: its `Context`, its client-call mark, and the body's
        failures logged and masked as it does."""
        context = Context(fastmcp=self.app)
        _completed(context.__aenter__())
        try:
            with _dispatching_tool_call():
                result = self._guarded(runner, plan, arguments, _strict_input_validation(), finish)
            if not isinstance(result, bytes) and payload_has_identities(result.structured_content):
                result = finish(_rebound(self.app, result))  # a Prefab payload: its tool names re-addressed
            return result
        finally:
            _completed(context.__aexit__(None, None, None))

    def _guarded(self, runner: ServerRunner[Any], plan: FastPlan, arguments: dict[str, Any], strict: bool | None,
                 finish: Any) -> ToolResult | bytes:
        logger, name = server_module.logger, plan.name
        try:
            value = plan.run(arguments, strict, finish)
            if plan.texts is not None and type(value) is str:
                answer = plan.texts.answer(runner.connection.protocol_version, value,
                                           lambda probe: self._converted_fully(runner, plan, probe))
                if answer is not None:
                    return answer
            return plan.converted(value)
        except ValidationError as exc:
            cause = exc.__cause__
            if isinstance(cause, PydanticValidationError):
                logger.warning("Invalid arguments for tool %r: %s", name, _validation_error_summary(cause))
            else:
                logger.warning("Invalid arguments for tool %r", name)
            raise
        except FastMCPError as exc:
            logger.log(exc.log_level, f"Error calling tool {name!r}", exc_info=False)
            raise
        except PydanticValidationError as exc:
            logger.warning("Invalid arguments for tool %r: %s", name, _validation_error_summary(exc))
            raise
        except Exception as exc:
            if isinstance(exc, MCPError) and exc.error.code == MISSING_REQUIRED_CLIENT_CAPABILITY:
                logger.debug("Tool %r requires a client capability the client did not declare", name)
                raise
            status_code = get_http_status_code(exc)
            logger.error(f"Error calling tool {name!r}", exc_info=status_code is None)
            if status_code == 429:
                raise ToolError("Rate limited by upstream API, please retry later") from exc
            if is_timeout_error(exc):
                raise ToolError("Upstream request timed out, please retry") from exc
            if self.app._mask_error_details:
                raise ToolError(f"Error calling tool {name!r}") from exc
            raise ToolError(f"Error calling tool {name!r}: {exc}") from exc

    def _converted_fully(self, runner: ServerRunner[Any], plan: FastPlan, value: Any) -> dict[str, Any] | None:
        """The wire result of a body's `value` by fastmcp's whole conversion; None for one that a
        Prefab payload's last step would change."""
        converted = plan.converted(value)
        if payload_has_identities(converted.structured_content):
            return None
        return self._sieve.serialize(runner, _wire_result(plan.name, converted, runner.connection.protocol_version))


def _enter_stdio(snapshot: dict[Any, Any] | None) -> None:
    set_transport("stdio")
    for var, value in (snapshot or {}).items():
        var.set(value)


def _wire_result(name: str, result: Any, version: str) -> Any:
    """What `_on_call_tool` hands the kernel for a tool's result."""
    if not isinstance(result, ToolResult):
        return result
    if isinstance(result, InputRequiredToolResult):
        if version not in MODERN_PROTOCOL_VERSIONS:
            raise MCPError(
                code=INVALID_PARAMS,
                message=(f"Tool {name!r} returned an InputRequiredResult to request client input, but the "
                         "multi-round-trip result type (SEP-2322) only exists at MCP 2026-07-28; this connection "
                         f"negotiated {version!r}. Use ctx.elicit() for server-initiated input on handshake-era "
                         "connections."),
            )
        return result.input_required
    if isinstance(result, RawStructuredToolResult) or (
            result.structured_content is not None and not isinstance(result.structured_content, dict)):
        fastmcp_meta = result.meta.get("fastmcp") if result.meta else None
        if not (isinstance(fastmcp_meta, dict) and fastmcp_meta.get("wrap_result") is True):
            meta = dict(result.meta or {})
            meta["fastmcp"] = {**(fastmcp_meta if isinstance(fastmcp_meta, dict) else {}), "wrap_result": True}
            result = ToolResult(content=result.content, structured_content={"result": result.structured_content},
                                meta=meta, is_error=result.is_error)
    return mcp_operations._normalize_call_tool_result(result.to_mcp_result())


def _error_result(text: str) -> mcp_types.CallToolResult:
    return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=text)], is_error=True)


def _passes_calls_on(middleware: Any) -> bool:
    """A middleware whose every hook a tools/call meets is the base class's pass-through."""
    cls = type(middleware)
    return cls is DereferenceRefsMiddleware and all(
        getattr(cls, hook) is getattr(Middleware, hook) for hook in _PASS_THROUGH_HOOKS)


def _injects(tool: FunctionTool) -> bool:
    """Whether fastmcp resolves parameters of the tool's own (Context, dependencies)."""
    return without_injected_parameters(tool.fn, run_in_thread=tool.run_in_thread) is not tool.fn


async def _rebound(app: FastMCP, result: ToolResult) -> Any:
    """`call_tool`'s last step for a Prefab payload, on the event loop (it lists the tools), with
    the transport fastmcp's stdio run sets."""
    set_transport("stdio")
    return await app._rebind_prefab_tool_names(result)


async def _settled(result: Any) -> Any:
    """What `FunctionTool._execute` makes of an awaitable or async generator a sync body returned."""
    if inspect.isawaitable(result):
        result = await result
    if inspect.isasyncgen(result):
        return [item async for item in result]
    return _materialize_sync_generator(result)


def _completed(step: Coroutine[Any, Any, Any]) -> Any:
    """The value of a coroutine that finishes without suspending (`Context`'s entry and exit
    while the lifespan's shared context is applied)."""
    try:
        step.send(None)
    except StopIteration as done:
        return done.value
    step.close()
    raise RuntimeError("a step expected to finish at once suspended")
