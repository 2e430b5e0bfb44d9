"""Existing Python MCP servers on ferrule's transport: `serve(app)` and `adapt(app)`.

Supported: the official SDK 2.x `MCPServer` and low-level `Server`, and fastmcp's `FastMCP`; a
native `ferrule.mcp.Server` is served as it is. The SDKs are optional (`pip install ferrule[sdk]`)
and imported only here, only when an app of theirs is served.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from ..server import Server

__all__ = ["UnknownApp", "adapt", "describe", "is_server", "run_notes", "serve"]


class UnknownApp(TypeError):
    """The object is no server type ferrule can serve."""


def _kind(app: Any) -> str | None:
    """Which family `app` belongs to, by its classes' modules (no SDK import needed to tell)."""
    if isinstance(app, Server):
        return "ferrule"
    for cls in type(app).__mro__:
        module, name = cls.__module__, cls.__qualname__
        if module.startswith("fastmcp.") and name == "FastMCP":
            return "fastmcp"
        if module == "mcp.server.mcpserver.server" and name == "MCPServer":
            return "mcpserver"
        if module == "mcp.server.lowlevel.server" and name == "Server":
            return "lowlevel"
        if module.startswith("mcp.server.fastmcp") and name == "FastMCP":
            return "fastmcp-1"
    return None


def is_server(app: Any) -> bool:
    """Whether `app` is an instance of a server type ferrule knows (served or not)."""
    return not isinstance(app, type) and _kind(app) is not None


def describe(app: Any) -> str:
    names = {"ferrule": "ferrule.mcp.Server", "fastmcp": "fastmcp.FastMCP", "mcpserver": "mcp MCPServer",
             "lowlevel": "mcp low-level Server", "fastmcp-1": "mcp 1.x FastMCP"}
    return names.get(_kind(app) or "", type(app).__qualname__)


def adapt(app: Any, *, label: str = "ferrule run", initialization_options: Any = None) -> Server:
    """A ferrule Server serving `app` with the app's own registries and validation.
    `initialization_options` (an SDK app's, as its `create_initialization_options(...)` makes them)
    answer `initialize` in place of those made with no arguments."""
    kind = _kind(app)
    if kind == "ferrule":
        if initialization_options is not None:
            raise TypeError("initialization_options are for an SDK or fastmcp app; a ferrule.mcp.Server has its own")
        return app  # type: ignore[no-any-return]
    if kind == "fastmcp-1":
        raise UnknownApp("a FastMCP of the mcp 1.x SDK: ferrule serves apps of mcp 2.x (MCPServer, the low-level "
                         "Server) and fastmcp; mcp 2.x no longer ships mcp.server.fastmcp")
    if kind is None:
        raise UnknownApp(f"{type(app).__module__}.{type(app).__qualname__} is not a server ferrule can serve "
                         "(mcp 2.x MCPServer or low-level Server, fastmcp.FastMCP, ferrule.mcp.Server)")
    from .sdk import SdkServer

    if kind == "mcpserver":
        from .direct import DirectTools

        return SdkServer(app._lowlevel_server, [], label=label, direct=DirectTools(app),
                         init_options=initialization_options)
    if kind == "lowlevel":
        return SdkServer(app, [], label=label, init_options=initialization_options)
    from .fastdirect import FastTools

    return SdkServer(app._mcp_server, [lambda: _fastmcp_stdio(app)], label=label, fast=FastTools(app),
                     init_options=initialization_options)


def serve(app: Any, transport: Any = None, *, initialization_options: Any = None) -> None:
    """Serve `app` (an SDK app, a fastmcp app or a ferrule Server) over stdio (or `transport`)
    until end of input; `initialization_options` as `adapt` takes them."""
    adapt(app, initialization_options=initialization_options).run(transport)


def run_notes(app: Any) -> list[str]:
    """What `ferrule run` says at start-up of what the app's own run would do that it cannot."""
    if _kind(app) == "lowlevel":  # its options are made in its main block, which does not run
        return ["a low-level Server advertises the capabilities of create_initialization_options() with no "
                "arguments; to keep options of its own (list_changed flags, experimental capabilities), serve "
                "it in code: ferrule.mcp.serve(server, initialization_options=server.create_initialization_options(...))"]
    return []


@asynccontextmanager
async def _fastmcp_stdio(app: Any) -> AsyncIterator[None]:
    """What fastmcp's own stdio run sets up around its low-level server: the transport name its
    Context reports, and the app's lifespan."""
    from fastmcp.server.context import reset_transport, set_transport

    token = set_transport("stdio")
    try:
        async with app._lifespan_manager():
            yield
    finally:
        reset_transport(token)


def warn(label: str, text: str) -> None:
    print(f"{label}: {text}", file=sys.stderr)
