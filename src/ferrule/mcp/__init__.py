"""ferrule.mcp: a neutral, fast MCP stdio server (MCP-CORE).

    from ferrule.mcp import Server, tool

    @tool
    def echo(text: str) -> str:
        "Echo the text back."
        return text

    Server("echo", "1.0", [echo]).run()

It knows nothing of the tools mounted on it. It builds only on
`ferrule.fastframe` (line framing) and `ferrule.capture` (the stderr guard and private stdio).
"""

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
from .progress import progress
from .schema import SchemaError
from .server import Server
from .tools import Tool, ToolSet
from .transport import ReplayTransport, StdioTransport, Transport

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
    "progress",
    "tool",
]
