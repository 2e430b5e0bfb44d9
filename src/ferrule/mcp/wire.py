# cython: annotation_typing=False
"""The wire codec: one JSON-RPC 2.0 object per line, decoded and encoded with orjson.

Classification follows docs/MCP.md §1.3: a frame with a present, non-null `id` is a request and is
answered; an object without one (absent or null) is a notification and is never answered, whatever
else is wrong with it (no `jsonrpc`, no `method`): an answer would need an id the client never gave,
and a client that sends no id waits for none. A line that is not JSON is a parse error (-32700, id
null); JSON that is not an object, or an object with an id that is not a valid request, is an invalid
request (-32600): JSON-RPC 2.0 (§4, §5.1) names -32600 for any object that is not a valid request,
so a client can tell "not JSON" from "not a request". An object with `result` or `error` and no `method` is a response from
the client (we never send requests) and is dropped.

Ids are echoed exactly, never through floats: orjson reads integers beyond 64 bits as floats, so a
float id makes the line be read again with the standard library, which keeps integers exact.
Invalid UTF-8 inside a line is replaced with U+FFFD, as the official SDK does, rather than refused.

setup.py compiles this source as `ferrule.mcp._wire_c` too, typed by `_wire_c.pxd`: the compiled
server loop calls its functions on a line's route in C. Everything else imports this module.
"""

from __future__ import annotations

import json
from typing import Any

from orjson import JSONDecodeError, dumps, loads

from .errors import InvalidParams, InvalidRequest, ParseError

__all__ = [
    "NOTIFICATION",
    "REQUEST",
    "RESPONSE",
    "classify",
    "decode",
    "decode_exact",
    "encode",
    "error_line",
    "notification_line",
    "raw_result_line",
    "result_line",
]

REQUEST = 0
NOTIFICATION = 1
RESPONSE = 2


def decode(line: bytes) -> Any:
    """Parse one line; raise ParseError when it is not JSON."""
    try:
        return loads(line)
    except JSONDecodeError as exc:
        reason = str(exc)
    try:
        return loads(line.decode("utf-8", "replace"))
    except JSONDecodeError:
        raise ParseError(f"the line is not JSON ({reason})") from None


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode_exact(line: bytes) -> Any:
    """Parse a line keeping every integer exact (slow path, for lines with non-64-bit integers)."""
    try:
        return json.loads(line.decode("utf-8", "replace"), parse_constant=_no_constants)
    except (ValueError, RecursionError) as exc:
        raise ParseError(f"the line is not JSON ({exc})") from None


def encode(obj: Any) -> bytes:
    """Serialise one message. Integers beyond 64 bits (ids read exactly) and lone surrogates take
    the standard library's path; anything else that is not JSON raises TypeError."""
    try:
        return dumps(obj)
    except TypeError:
        return json.dumps(obj, separators=(",", ":"), allow_nan=False).encode()


def compact(line: bytes) -> bytes:
    """A line to hold a while, in bytes of its own size: orjson's bytes keep its 4 KiB buffer, and
    many such buffers held at once (a pipelined read's answers) cost several times the encoding."""
    return bytes(memoryview(line))


def _valid_id(value: Any) -> bool:
    kind = type(value)
    return kind is str or kind is int


def classify(msg: Any) -> tuple[int, Any, str, Any]:
    """(kind, id, method, params) of a decoded message.

    Raises InvalidRequest for an object that is not a valid request, and InvalidParams for a
    request whose params are not an object; either has `.id`, the id to answer under (None when
    unreadable).
    A float id must be resolved by the caller first (see `decode_exact`).
    """
    if type(msg) is dict:
        return _classify_object(msg)
    kind = type(msg).__name__
    if type(msg) is list:
        kind = "an array (batches are served to 2025-03-26 sessions only)"
    raise _invalid(f"a message must be a JSON object, got {kind}", None)


def _classify_object(msg: dict[str, Any]) -> tuple[int, Any, str, Any]:
    # apart from `classify` so that the compiled twin knows `msg` is a dict (C lookups, no method calls)
    msg_id = msg.get("id")
    method = msg.get("method")
    params = msg.get("params")
    # the common case first: a well-formed request passes this one test
    if ((type(msg_id) is int or type(msg_id) is str) and type(method) is str
            and (params is None or type(params) is dict) and msg.get("jsonrpc") == "2.0"):
        return REQUEST, msg_id, method, params
    if msg_id is None:  # docs/MCP.md §1.3: absent or null id, a notification; absorbed even when malformed
        return NOTIFICATION, None, method if type(method) is str else "", msg.get("params")
    readable_id = msg_id if _valid_id(msg_id) else None
    if method is None:
        if "result" in msg or "error" in msg:
            return RESPONSE, readable_id, "", None
        raise _invalid("the object has no `method`", readable_id)
    if type(method) is not str:
        raise _invalid("`method` must be a string", readable_id)
    if msg.get("jsonrpc") != "2.0":
        raise _invalid('`jsonrpc` must be "2.0"', readable_id)
    if readable_id is None:
        raise _invalid("`id` must be a string or an integer", None)
    if params is not None and type(params) is not dict:
        exc = InvalidParams("`params` must be an object", fix="send params as a JSON object, or leave it out")
        exc.id = msg_id  # type: ignore[attr-defined]
        raise exc
    return REQUEST, msg_id, method, params


def _invalid(detail: str, msg_id: Any) -> InvalidRequest:
    exc = InvalidRequest(detail)
    exc.id = msg_id  # type: ignore[attr-defined]
    return exc


def result_line(msg_id: Any, result: Any) -> bytes:
    return encode({"jsonrpc": "2.0", "id": msg_id, "result": result})


def raw_result_line(msg_id: Any, raw_result: bytes) -> bytes:
    """A response whose result is already serialised (the precomputed tools/list answer)."""
    return b'{"jsonrpc":"2.0","id":' + encode(msg_id) + b',"result":' + raw_result + b"}"


def error_line(msg_id: Any, error: dict[str, Any]) -> bytes:
    return encode({"jsonrpc": "2.0", "id": msg_id, "error": error})


def notification_line(method: str, params: dict[str, Any]) -> bytes:
    return encode({"jsonrpc": "2.0", "method": method, "params": params})
