"""`tools/call` of an `MCPServer` app straight to its own tool registry, with the SDK's semantics.

The SDK's kernel answers a call through its middleware (OpenTelemetry, the request-state boundary),
its params models, a `Context`, `MCPServer.call_tool` and `Tool.run`, which runs a sync tool on a
worker thread: some 250 µs a call, where the tool's own pydantic models validate and convert in a
few. For a sync tool that takes no `Context` and no resolvers, called in the handshake era with
plain params while the middleware is a pass-through (no tracer configured, no request state), every
one of those layers does nothing but hand the call on. Such a call is served here, on the read loop
inside the capture guard: the tool's own `fn_metadata` validates the arguments and converts the
result, the failures are wrapped and logged as `Tool.run` and `MCPServer._handle_call_tool` do, and
the kernel's own `_serialize` shapes the wire form. Everything else (another tool, another era,
unusual params, a subclass overriding the call path, extensions, user middleware) goes through the
kernel as before. The decisions for a tool are taken once and kept while the registry holds the
same tool object.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.mcpserver import server as mcpserver_module
from mcp.server.mcpserver.exceptions import (
    ResourceError,
    ToolError,
    UnexpectedResourceError,
    UnexpectedToolError,
)
from mcp.server.mcpserver.server import MCPServer
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.tools.tool_manager import ToolManager
from mcp.server.request_state import RequestStateBoundary
from mcp.server.runner import ServerRunner
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent
from opentelemetry import trace
from pydantic import ValidationError

__all__ = ["DirectTools"]

_PLAIN_KEYS = frozenset({"name", "arguments", "_meta"})
_PASS_THROUGH = (OpenTelemetryMiddleware, RequestStateBoundary)


class DirectTools:
    """The direct route for one `MCPServer` app; `call()` answers a call or declines it (None)."""

    def __init__(self, app: MCPServer[Any]) -> None:
        self.app = app
        self._manager: ToolManager = app._tool_manager
        self._tools: dict[str, Tool] = {}  # tool name -> the tool object found direct-callable
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

    def _tool(self, name: str) -> Tool | None:
        tool = self._manager._tools.get(name)
        if tool is None:
            return None
        if self._tools.get(name) is tool:
            return tool
        if (type(tool).run is Tool.run and not tool.is_async and tool.context_kwarg is None
                and not tool.resolved_params):
            self._tools[name] = tool
            return tool
        return None

    def call(self, runner: ServerRunner[Any], params: Any) -> dict[str, Any] | None:
        """The wire result of a handshake-era call it can take (raising MCPError as the kernel
        would); None to leave the call to the kernel."""
        if not _plain(params) or not runner.connection.initialize_accepted or _tracing():
            return None
        tool = self._tool(params["name"])
        if tool is None:
            return None
        arguments = params.get("arguments") or {}
        try:
            result = self._run(tool, arguments)
        except MCPError:
            raise
        except Exception as exc:  # as MCPServer._handle_call_tool answers and logs it
            self._log_failure(tool.name, exc)
            result = CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)
        return runner._serialize("tools/call", runner.connection.protocol_version, result)

    @staticmethod
    def _run(tool: Tool, arguments: dict[str, Any]) -> Any:
        """`Tool.run(arguments, context, convert_result=True)` for a sync tool without Context or
        resolvers, called in place rather than on a worker thread."""
        try:
            validated = tool.fn_metadata.validate_arguments(arguments)
        except ValidationError as exc:
            raise ToolError(f"Error executing tool {tool.name}: {exc}") from exc
        except MCPError:
            raise
        except Exception as exc:
            raise UnexpectedToolError(f"Error executing tool {tool.name}") from exc
        try:
            return tool.fn_metadata.convert_result(tool.fn(**validated))
        except MCPError:
            raise
        except (UnexpectedToolError, UnexpectedResourceError) as exc:
            raise UnexpectedToolError(f"Error executing tool {tool.name}: {exc}") from exc
        except (ToolError, ResourceError) as exc:
            raise ToolError(f"Error executing tool {tool.name}: {exc}") from exc
        except Exception as exc:
            raise UnexpectedToolError(f"Error executing tool {tool.name}") from exc

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


def _plain(params: Any) -> bool:
    """Params the kernel would only hand on: a string name, object arguments, at most a progress token."""
    if params is None or not (params.keys() <= _PLAIN_KEYS) or type(params.get("name")) is not str:
        return False
    arguments = params.get("arguments")
    if arguments is not None and type(arguments) is not dict:
        return False
    meta = params.get("_meta")
    return meta is None or (type(meta) is dict and meta.keys() <= {"progressToken"}
                            and type(meta.get("progressToken")) in (str, int))


def _tracing() -> bool:
    """Whether OpenTelemetry has a real tracer (the SDK's middleware then records a span per call)."""
    return type(trace.get_tracer_provider()) not in (trace.ProxyTracerProvider, trace.NoOpTracerProvider)
