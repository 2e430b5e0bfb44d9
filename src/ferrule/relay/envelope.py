"""The outer hop's envelope: parse and check request frames, encode response frames.

A request is `{"proto": 1, "id": ..., "op": ..., "params": {...}}` on one line; a response is
`{"proto": 1, "id": ..., "ok": true, "result": {...}}` or `{..., "ok": false, "error": {kind, message,
recipe}}`. Everything a frame can get wrong is caught here, before the Session sees it, and answered as
a `protocol` error naming what was wrong; a frame whose id cannot be read is answered with `"id": null`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from ferrule.relay import OPS
from ferrule.relay.errors import ORACLE_PROTOCOL, OracleCrashed, ProtocolError, RelayError
from ferrule.relay.paths import ProjectRoot

_FRAME_RECIPE = (
    f'one JSON object per line: {{"proto": {ORACLE_PROTOCOL}, "id": <string or number>, '
    '"op": <op>, "params": {...}}'
)
_PARAMS_RECIPE = "see TCG-PROTOCOL-RUST section 2 for each op's params"


@dataclass(frozen=True, slots=True)
class Request:
    """A checked request. `file` is the canonical root-relative file the op touches (its ordering key)."""

    id: Any
    op: str
    params: dict[str, Any]
    file: str | None


class FrameRejected(Exception):
    """A frame that must be answered with an error before reaching the Session."""

    def __init__(self, request_id: Any, error: RelayError) -> None:
        super().__init__(error.message)
        self.id = request_id
        self.error = error


# ---------------------------------------------------------------------------------------------------
# params checking: one small checker per field shape, a table per op

Check = Callable[[Any], str | None]  # returns a complaint, or None when the value is acceptable


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _string(value: Any) -> str | None:
    return None if isinstance(value, str) else f"must be a string, got {_type_name(value)}"


def _string_or_null(value: Any) -> str | None:
    return None if value is None or isinstance(value, str) else (
        f"must be a string or null, got {_type_name(value)}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# LSP carries positions and counts as `uinteger`: at most 2**31 - 1. Larger values are refused here,
# named, rather than failing somewhere inside the inner hop.
UINTEGER_MAX = 2**31 - 1


def _shown(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # JSON has no spelling for it; orjson would print null
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return repr(value)


def _positive_int(value: Any) -> str | None:
    if _is_int(value) and 1 <= value <= UINTEGER_MAX:
        return None
    return f"must be an integer from 1 to {UINTEGER_MAX}, got {_shown(value)}"


def _count(value: Any) -> str | None:
    if _is_int(value) and 0 <= value <= UINTEGER_MAX:
        return None
    return f"must be an integer from 0 to {UINTEGER_MAX}, got {_shown(value)}"


def _position(value: Any) -> str | None:
    """Complaints are whole phrases (`position.line` ...), so the caller does not prefix them."""
    if not isinstance(value, dict):
        return f"`position` must be an object {{line, character}}, got {_type_name(value)}"
    problems = []
    for key, low, high, meaning in (("line", 1, UINTEGER_MAX + 1, "1-based"),
                                    ("character", 0, UINTEGER_MAX, "0-based, in UTF-8 bytes")):
        if key not in value:
            problems.append(f"missing `position.{key}`")
        elif not (_is_int(value[key]) and low <= value[key] <= high):
            problems.append(f"`position.{key}` must be an integer from {low} to {high} ({meaning}), "
                            f"got {_shown(value[key])}")
    return "; ".join(problems) or None


@dataclass(frozen=True, slots=True)
class Field:
    check: Check
    required: bool = False
    nullable_meaning: bool = False  # null carries meaning (update's content clears), so it is kept


_COMMON = {"timeout_ms": Field(_positive_int)}
_FILE = Field(_string, required=True)

PARAMS: dict[str, dict[str, Field]] = {
    "init": {},
    "update": {"file": _FILE, "content": Field(_string_or_null, required=True, nullable_meaning=True)},
    "validate": {"file": _FILE, "content": Field(_string)},
    "scope": {"file": _FILE, "position": Field(_position)},
    "complete": {
        "file": _FILE,
        "position": Field(_position, required=True),
        "content": Field(_string),
        "prefix": Field(_string),
        "max": Field(_count),
    },
    "type": {"file": _FILE, "position": Field(_position, required=True), "content": Field(_string)},
    "shutdown": {},
}
assert set(PARAMS) == set(OPS)


def only_reads(request: Request) -> bool:
    """Whether the op only reads the analyzer's view of its file, changing nothing even for a moment.

    `type` and `complete` without `content`, and `scope` at a position without `content`, qualify;
    `update`, any op that shows `content`, `scope` without a position (it shows a probe appended to
    the file) and `validate` (its diagnostics wait on the file's version) do not.
    """
    params = request.params
    if "content" in params:
        return False
    return request.op in ("type", "complete") or (request.op == "scope" and "position" in params)


def check_params(op: str, params: Any, root: ProjectRoot | None) -> tuple[dict[str, Any], str | None]:
    """The params the Session gets, and the canonical file they touch; ProtocolError naming every fault.

    Unknown params are dropped (a newer client may send optional params this relay does not know:
    additive evolution), and so is an optional param sent as null.
    """
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ProtocolError(f"{op}: `params` must be an object, got {_type_name(params)}", _PARAMS_RECIPE)
    fields = PARAMS[op]
    checked: dict[str, Any] = {}
    problems: list[str] = []
    for name, field in (*fields.items(), *_COMMON.items()):
        if name not in params:
            if field.required:
                problems.append(f"missing `{name}`")
            continue
        value = params[name]
        if value is None and not field.required and not field.nullable_meaning:
            continue
        complaint = field.check(value)
        if complaint:
            problems.append(complaint if complaint.startswith(("`", "missing")) else f"`{name}` {complaint}")
        else:
            checked[name] = value
    if problems:
        raise ProtocolError(f"{op}: bad params: " + "; ".join(problems), _PARAMS_RECIPE)
    file = checked.get("file")
    if file is not None and root is not None:
        file = root.file(file).rel  # ProtocolError for a path that leaves the root
        checked["file"] = file
    return checked, file


# ---------------------------------------------------------------------------------------------------
# frames


def _lenient_loads(line: bytes | str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    try:
        return json.loads(line, parse_constant=refuse)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def _valid_id(value: Any) -> bool:
    """A string, or a number the answer can carry back exactly."""
    if isinstance(value, str):
        return True
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -(2**63) <= value < 2**64
    return isinstance(value, float) and math.isfinite(value)


def parse_request(line: bytes | str, root: ProjectRoot | None = None) -> Request:
    """Parse and check one frame; raise FrameRejected carrying the id to echo (None when unreadable)."""
    try:
        frame = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        frame = _lenient_loads(line)  # valid JSON orjson cannot hold (1e400): still has an id to echo
        if frame is None:
            raise FrameRejected(None, ProtocolError(f"unparseable frame: {exc}", _FRAME_RECIPE)) from None
    if not isinstance(frame, dict):
        raise FrameRejected(None, ProtocolError(
            f"unparseable frame: expected a JSON object, got {_type_name(frame)}", _FRAME_RECIPE))
    request_id = frame.get("id")
    if not _valid_id(request_id):
        got = "no `id`" if "id" not in frame else f"`id` {_shown(request_id)}"
        raise FrameRejected(None, ProtocolError(
            f"frame has {got}: the id must be a string or a number, chosen by the caller", _FRAME_RECIPE))
    proto = frame.get("proto")
    if proto != ORACLE_PROTOCOL or isinstance(proto, bool):
        said = "no `proto`" if "proto" not in frame else f"proto {_shown(proto)}"
        raise FrameRejected(request_id, ProtocolError(
            f"proto mismatch: the frame says {said}, this relay speaks proto {ORACLE_PROTOCOL}",
            f"version note: send \"proto\": {ORACLE_PROTOCOL} on every frame, or use a relay that speaks "
            f"the client's protocol (a breaking change bumps the constant)"))
    op = frame.get("op")
    if not isinstance(op, str) or op not in PARAMS:
        known = ", ".join(OPS)
        said = "no `op`" if "op" not in frame else f"unknown op {_shown(op)}"
        raise FrameRejected(request_id, ProtocolError(f"{said}; known ops: {known}", f"known ops: {known}"))
    try:
        params, file = check_params(op, frame.get("params"), root)
    except ProtocolError as error:
        raise FrameRejected(request_id, error) from None
    return Request(request_id, op, params, file)


def encode_result(request_id: Any, result: Any) -> bytes:
    """One response line; a result that cannot be encoded becomes an error frame (nothing is lost)."""
    try:
        return orjson.dumps({"proto": ORACLE_PROTOCOL, "id": request_id, "ok": True, "result": result}) + b"\n"
    except TypeError as exc:
        return encode_error(request_id, OracleCrashed(
            f"the relay could not encode its answer: {exc}", "this is a relay bug; the session is still usable"))


def encode_error(request_id: Any, error: RelayError) -> bytes:
    return orjson.dumps(
        {"proto": ORACLE_PROTOCOL, "id": request_id, "ok": False, "error": error.to_json()}) + b"\n"


def encode_request(request_id: Any, op: str, params: dict[str, Any] | None = None) -> bytes:
    """A request line, for clients (tests, the benchmark, the one-shot CLI's own checks)."""
    return orjson.dumps(
        {"proto": ORACLE_PROTOCOL, "id": request_id, "op": op, "params": {} if params is None else params}) + b"\n"


__all__ = [
    "PARAMS",
    "FrameRejected",
    "Request",
    "check_params",
    "encode_error",
    "encode_request",
    "encode_result",
    "only_reads",
    "parse_request",
]
