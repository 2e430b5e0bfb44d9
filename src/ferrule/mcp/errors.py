"""Transport-level failure: one exception hierarchy (docs/MCP.md §1, the wire; §2.4, error codes).

Every class names the docs/MCP.md section whose rule it enforces and the fix a caller can apply. The protocol errors carry their JSON-RPC code and become the `error` member of a
response; `ChannelClosed` ends the loop instead (the only way out besides end of input).

Tool failures are not here on purpose: a tool that fails answers with an `isError` result
(docs/MCP.md §3.4), never with a protocol error.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ChannelClosed",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "InvalidTool",
    "LineTooLong",
    "McpError",
    "MethodNotFound",
    "ParseError",
    "ProtocolError",
    "UnsupportedProtocolVersion",
]


class McpError(Exception):
    """Base of every transport-level failure of `ferrule.mcp`."""

    section = "docs/MCP.md §1 (wire)"
    fix = ""

    def __str__(self) -> str:
        text = super().__str__()
        return f"{text} [{self.section}; fix: {self.fix}]" if self.fix else text


class ChannelClosed(McpError):
    """The protocol channel is dead (EPIPE, a closed or invalid descriptor): the loop ends, exit 0."""

    section = "docs/MCP.md §2.1 (lifecycle): the loop ends only at end of input or a dead channel"
    fix = "the host closed its end; restart the server from the host"


class InvalidTool(McpError, ValueError):
    """A tool whose descriptor breaks docs/MCP.md §3.1; raised when it is registered, not at call time."""

    section = "docs/MCP.md §3.1 (registry)"
    fix = "descriptor() must return {name: non-empty str, description: str, inputSchema: {type: 'object', ...}}"


class ProtocolError(McpError):
    """A JSON-RPC error answer. `code` and the wire `message` are fixed per class."""

    code = -32603
    title = "Internal error"
    section = "docs/MCP.md §2.4 (error codes); JSON-RPC 2.0 §5.1 (error object)"
    fix = "the message says what the request got wrong"

    def __init__(self, detail: str = "", *, data: Any = None, fix: str | None = None) -> None:
        super().__init__(f"{self.title}: {detail}" if detail else self.title)
        self.detail = detail
        self.data = data
        if fix is not None:  # the class's fix speaks of its commonest case; a raise site may know better
            self.fix = fix

    def to_error(self) -> dict[str, Any]:
        """The JSON-RPC `error` object: a one-sentence message, and the section and fix in `data`."""
        message = f"{self.title}: {self.detail}" if self.detail else self.title
        data = self.data if self.data is not None else {"section": self.section, "fix": self.fix}
        return {"code": self.code, "message": message, "data": data}


class ParseError(ProtocolError):
    """The line is not JSON (-32700, answered with id null)."""

    code = -32700
    title = "Parse error"
    section = "docs/MCP.md §1.3 (each line): a malformed line is answered and the loop goes on"
    fix = "send one UTF-8 JSON-RPC object per line, with no raw newline inside it"


class InvalidRequest(ProtocolError):
    """JSON, but not a JSON-RPC request or notification object (-32600)."""

    code = -32600
    title = "Invalid Request"
    section = "docs/MCP.md §1.3 (each line); JSON-RPC 2.0 §4 (request object), §5.1 (error object)"
    fix = 'send an object {"jsonrpc": "2.0", "method": str, "id"?: str | int, "params"?: object}'


class LineTooLong(InvalidRequest):
    """A line longer than the server's bound: refused (id null); the next line is still served."""

    section = "docs/MCP.md §1.2 (line bound)"
    fix = "send smaller messages, or start the server with a larger max_line"

    def __init__(self, limit: int) -> None:
        super().__init__(f"line longer than the limit of {limit} bytes")
        self.limit = limit


class MethodNotFound(ProtocolError):
    """A method this server does not serve (-32601), including an unknown tool name."""

    code = -32601
    title = "Method not found"
    section = "docs/MCP.md §2.2 (methods): anything else is method not found"
    fix = "call initialize, ping, tools/list or tools/call (server/discover, tools/list, tools/call on 2026-07-28)"


class InvalidParams(ProtocolError):
    """Params that break the method's grammar (-32602)."""

    code = -32602
    title = "Invalid params"
    section = "docs/MCP.md §2.2 (methods): params that break the method's grammar"
    fix = "params must be an object; tools/call needs a string `name` and an object `arguments`"


class UnsupportedProtocolVersion(ProtocolError):
    """A 2026-07-28 envelope naming a revision this server does not speak (-32022)."""

    code = -32022
    title = "Unsupported protocol version"
    section = "docs/MCP.md §2.3 (revisions): the 2026-07-28 envelope"
    fix = "retry with a version from data.supported (or send initialize for a handshake revision)"

    def __init__(self, supported: list[str], requested: Any) -> None:
        super().__init__(data={"supported": supported, "requested": requested})

    def to_error(self) -> dict[str, Any]:
        # data is exactly {supported, requested}: clients parse it to pick a version.
        return {"code": self.code, "message": self.title, "data": self.data}


class InternalError(ProtocolError):
    """The server itself failed while answering (-32603); the loop goes on."""

    section = "docs/MCP.md §2.4 (error codes)"
    fix = "a server bug: the server's stderr has the traceback"
