"""Protocol revisions and the two eras, served side by side on one stdio process.

Handshake era (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25): `initialize` negotiates a revision
for the process; a client asking for one of the four gets it echoed, anything else gets 2025-11-25.

Stateless era (2026-07-28): no handshake; every request carries `params._meta` with
`io.modelcontextprotocol/protocolVersion` and `io.modelcontextprotocol/clientCapabilities`, every
result carries `resultType` and the `serverInfo` stamp, and `server/discover` describes the server.

Era choice (docs/MCP.md §2.3): **each request is classified on its own**, which the 2026-07-28
revision allows, not locked per process as the official SDK does. A request other than `initialize`
whose `_meta` holds the protocol-version key is served statelessly; every other request is served in
the handshake era at the revision `initialize` negotiated (2025-11-25 until one did). Why: nothing
a client can send leaves the process stuck in the wrong era (a probe that timed out, a stray ping),
and the official client works in each of its modes: `legacy` (initialize), `auto` (an enveloped
`server/discover` answered with a DiscoverResult) and a pinned `2026-07-28` (enveloped requests
straight away). Because both eras really are served, `supportedVersions` and the -32022 `supported`
list name the handshake revisions too (the spec's own example does): a client that shares no
stateless revision with us learns it can fall back to `initialize`.
"""

from __future__ import annotations

from typing import Any

from .errors import InvalidParams, UnsupportedProtocolVersion

__all__ = [
    "CAPABILITIES_KEY",
    "HANDSHAKE_REVISIONS",
    "MODERN_METHODS",
    "MODERN_REVISIONS",
    "NEWEST_HANDSHAKE",
    "SERVER_INFO_KEY",
    "SUPPORTED_REVISIONS",
    "VERSION_KEY",
    "accepts_batches",
    "check_envelope",
    "has_progress_message",
    "has_structured_content",
    "is_stateless",
    "negotiate",
]

HANDSHAKE_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_REVISIONS = ("2026-07-28",)
NEWEST_HANDSHAKE = HANDSHAKE_REVISIONS[-1]
SUPPORTED_REVISIONS = [*reversed(MODERN_REVISIONS), *reversed(HANDSHAKE_REVISIONS)]  # newest first

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"

MODERN_METHODS = frozenset({"server/discover", "tools/list", "tools/call"})

_STRUCTURED = frozenset({"2025-06-18", "2025-11-25", *MODERN_REVISIONS})
_PROGRESS_MESSAGE = frozenset({"2025-03-26", *_STRUCTURED})


def negotiate(requested: Any) -> str:
    """The handshake answer: echo a revision we speak, else offer the newest handshake revision."""
    return requested if requested in HANDSHAKE_REVISIONS else NEWEST_HANDSHAKE


def is_stateless(method: str, params: Any) -> bool:
    """Whether this request is served in the 2026-07-28 era (the envelope key is present)."""
    if params is None or method == "initialize":
        return False
    meta = params.get("_meta")
    return type(meta) is dict and VERSION_KEY in meta


def check_envelope(params: dict[str, Any]) -> str:
    """Validate a stateless request's envelope in the order docs/MCP.md §2.3 gives; the revision."""
    meta = params["_meta"]
    missing = [key for key in (VERSION_KEY, CAPABILITIES_KEY) if key not in meta]
    if missing:
        keys = " and ".join(missing)
        raise InvalidParams(
            f"params._meta is missing the required envelope key(s): {', '.join(missing)}",
            fix=f"add {keys} to params._meta: every 2026-07-28 request carries both envelope keys "
                "(the capabilities an object, {} when the client offers nothing optional)")
    version = meta[VERSION_KEY]
    if type(version) is not str:
        raise InvalidParams("the protocol-version envelope value must be a string",
                            fix=f"send {VERSION_KEY} as a revision string such as {MODERN_REVISIONS[-1]!r}")
    if version not in MODERN_REVISIONS:
        raise UnsupportedProtocolVersion(SUPPORTED_REVISIONS, version)
    if type(meta[CAPABILITIES_KEY]) is not dict:
        raise InvalidParams(
            "the client-capabilities envelope value must be an object",
            fix=f"send {CAPABILITIES_KEY} as an object ({{}} when the client offers nothing optional)")
    return version


def accepts_batches(revision: str) -> bool:
    """JSON-RPC batches (arrays) are part of 2025-03-26 only: added there, removed in 2025-06-18."""
    return revision == "2025-03-26"


def has_structured_content(revision: str) -> bool:
    """`structuredContent` exists from 2025-06-18 on."""
    return revision in _STRUCTURED


def has_progress_message(revision: str) -> bool:
    """`notifications/progress` carries `message` from 2025-03-26 on."""
    return revision in _PROGRESS_MESSAGE
