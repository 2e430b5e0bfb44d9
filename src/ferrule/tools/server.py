"""The Rust MCP server assembled: the tools, their shared relay, and the `ferrule.mcp` Server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ferrule import __version__
from ferrule.mcp import Server, ToolSet
from ferrule.tools.descriptors import INSTRUCTIONS
from ferrule.tools.gate_tool import GateTool
from ferrule.tools.relay_link import SharedRelay
from ferrule.tools.relay_tools import relay_tools

SERVER_NAME = "ferrule"


def build_tools(
    root: Path, *, analyzer: str | None = None, relay: SharedRelay | None = None
) -> tuple[list[Any], SharedRelay]:
    """Every Rust tool for the project at `root`, and the one relay session the analyzer tools share."""
    relay = relay if relay is not None else SharedRelay(root, analyzer=analyzer)
    return [*relay_tools(relay), GateTool(root)], relay


class RustServer(Server):
    """The MCP server of the Rust tools: stopped from outside, it cancels the relay op under way
    instead of waiting for it (a call beside the reading may be minutes of indexing)."""

    #: Every Rust tool runs beside the reading, outside the capture guard: what the process writes to
    #: stderr (a tool's traceback) reaches the host's log at once instead of waiting for a sync call.
    session_capture = False

    def __init__(self, tools: list[Any], relay: SharedRelay) -> None:
        super().__init__(SERVER_NAME, __version__, ToolSet(tools), instructions=INSTRUCTIONS)
        self.relay = relay

    def interrupted(self) -> None:
        self.relay.close(final=True)


def build_server(root: Path, *, analyzer: str | None = None) -> tuple[Server, SharedRelay]:
    tools, relay = build_tools(root, analyzer=analyzer)
    return RustServer(tools, relay), relay


__all__ = ["SERVER_NAME", "RustServer", "build_server", "build_tools"]
