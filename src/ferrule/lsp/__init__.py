"""A fast LSP client: child process, Content-Length framing, request correlation, position codec.

It knows nothing of MCP or of the relay above it.
"""

from ferrule.lsp.client import LspClient, Progress
from ferrule.lsp.errors import (
    CONTENT_MODIFIED,
    REQUEST_CANCELLED,
    SERVER_CANCELLED,
    LspError,
    RequestTimeout,
    ResponseError,
    ServerExited,
)
from ferrule.lsp.positions import PositionCodec
from ferrule.lsp.uri import path_to_uri, uri_to_path

__all__ = [
    "CONTENT_MODIFIED",
    "REQUEST_CANCELLED",
    "SERVER_CANCELLED",
    "LspClient",
    "LspError",
    "PositionCodec",
    "Progress",
    "RequestTimeout",
    "ResponseError",
    "ServerExited",
    "path_to_uri",
    "uri_to_path",
]
