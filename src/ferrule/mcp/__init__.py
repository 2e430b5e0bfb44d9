"""ferrule.mcp: a neutral, fast MCP stdio server (docs/MCP.md).

    from ferrule.mcp import Server, tool

    @tool
    def echo(text: str) -> str:
        "Echo the text back."
        return text

    Server("echo", "1.0", [echo]).run()

`serve(app)` serves an existing app of the official SDK (2.x `MCPServer` or low-level `Server`) or of
fastmcp on the same transport (`ferrule run server.py` from a shell); the SDKs are imported only then.

It knows nothing of the tools mounted on it. It builds only on
`ferrule.fastframe` (line framing) and `ferrule.capture` (the stderr guard and private stdio).
"""

from typing import Any

from .errors import (
    ChannelClosed,
    InternalError,
    InvalidParams,
    InvalidRequest,
    InvalidTool,
    LineTooLong,
    McpError,
    MethodNotFound,
    ParseError,
    ProtocolError,
    UnsupportedProtocolVersion,
)
from .function import FunctionTool, tool
from .output import ToolOutput
from .progress import bound_progress, progress
from .schema import SchemaError
from .server import Server
from .tools import Tool, ToolSet
from .transport import ReplayTransport, StdioTransport, Transport


def serve(app: Any, transport: Any = None, *, initialization_options: Any = None) -> None:
    """Serve `app` (an official-SDK or fastmcp app, or a ferrule Server) over stdio until end of input;
    an SDK app's `initialization_options` (what its `create_initialization_options(...)` makes) answer
    `initialize`."""
    from .adapters import serve as serve_app

    serve_app(app, transport, initialization_options=initialization_options)


__all__ = [
    "ChannelClosed",
    "FunctionTool",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "InvalidTool",
    "LineTooLong",
    "McpError",
    "MethodNotFound",
    "ParseError",
    "ProtocolError",
    "ReplayTransport",
    "SchemaError",
    "Server",
    "StdioTransport",
    "Tool",
    "ToolOutput",
    "ToolSet",
    "Transport",
    "UnsupportedProtocolVersion",
    "bound_progress",
    "progress",
    "serve",
    "tool",
]
