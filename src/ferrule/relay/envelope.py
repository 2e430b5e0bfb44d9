"""The outer hop's envelope: parse and check request frames, encode response frames.

A request is `{"proto": 1, "id": ..., "op": ..., "params": {...}}` on one line; a response is
`{"proto": 1, "id": ..., "ok": true, "result": {...}}` or `{..., "ok": false, "error": {kind, message,
recipe}}`. Everything a frame can get wrong is caught here, before the Session sees it, and answered as
a `protocol` error naming what was wrong; a frame whose id cannot be read is answered with `"id": null`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import orjson

from ferrule.project import BadRequest, FerruleError, OracleCrashed, ProjectRoot
from ferrule.relay.ops import OP_NAMES, OPS
from ferrule.relay.params import OpParams, parse_params, shown, type_name
from ferrule.relay.results import OpResult

ORACLE_PROTOCOL = 1

# What a caller chooses to correlate answers with: a string or a number (JSON gives no more).
RequestId = str | int | float | None

_FRAME_RECIPE = (
    f'one JSON object per line: {{"proto": {ORACLE_PROTOCOL}, "id": <string or number>, '
    '"op": <op>, "params": {...}}'
)


@dataclass(slots=True)
class Request:
    """A checked request, read-only by convention (as the typed params it holds, which do not hash).
    `file` is the canonical root-relative file the op touches (its ordering key)."""

    id: RequestId
    op: str
    params: OpParams
    file: str | None

    @property
    def only_reads(self) -> bool:
        """Whether the op only reads the analyzer's view of its file, changing nothing even for a moment
        (the op table says when); such ops on one file may overlap one another."""
        return bool(OPS[self.op].only_reads(self.params))


class FrameRejected(Exception):
    """A frame that must be answered with an error before reaching the Session."""

    def __init__(self, request_id: RequestId, error: FerruleError) -> None:
        super().__init__(error.message)
        self.id = request_id
        self.error = error


# ---------------------------------------------------------------------------------------------------
# frames


def _lenient_loads(line: bytes | str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    try:
        return json.loads(line, parse_constant=refuse)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def _encodable(frame: Any) -> bool:
    try:
        orjson.dumps(frame)
    except TypeError:
        return False
    return True


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
    """Parse and check one frame, params included; raise FrameRejected carrying the id to echo (None
    when unreadable). With `root`, the file a request names is checked against the sandbox."""
    lenient = False
    try:
        frame = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        lenient = True
        frame = _lenient_loads(line)  # valid JSON orjson cannot hold (1e400): still has an id to echo
        if frame is None:
            raise FrameRejected(None, BadRequest(f"unparseable frame: {exc}", _FRAME_RECIPE)) from None
    if not isinstance(frame, dict):
        raise FrameRejected(None, BadRequest(
            f"unparseable frame: expected a JSON object, got {type_name(frame)}", _FRAME_RECIPE))
    request_id = frame.get("id")
    if lenient and not _encodable(frame):  # orjson refuses lone surrogates; json.loads lets them through
        raise FrameRejected(request_id if _valid_id(request_id) else None, BadRequest(
            "frame holds a string that is not Unicode text (a lone surrogate escape such as \\ud800)",
            "send UTF-8 text: escape only whole characters (a pair of surrogates for one beyond U+FFFF)"))
    if not _valid_id(request_id):
        got = "no `id`" if "id" not in frame else f"`id` {shown(request_id)}"
        raise FrameRejected(None, BadRequest(
            f"frame has {got}: the id must be a string or a number, chosen by the caller", _FRAME_RECIPE))
    proto = frame.get("proto")
    if proto != ORACLE_PROTOCOL or isinstance(proto, bool):
        said = "no `proto`" if "proto" not in frame else f"proto {shown(proto)}"
        raise FrameRejected(request_id, BadRequest(
            f"proto mismatch: the frame says {said}, this relay speaks proto {ORACLE_PROTOCOL}",
            f"version note: send \"proto\": {ORACLE_PROTOCOL} on every frame, or use a relay that speaks "
            f"the client's protocol (a breaking change bumps the constant)"))
    op = frame.get("op")
    spec = OPS.get(op) if isinstance(op, str) else None
    if spec is None:
        said = "no `op`" if "op" not in frame else f"unknown op {shown(op)}"
        raise FrameRejected(request_id, BadRequest.unknown_op(said, OP_NAMES))
    try:
        params = parse_params(spec.name, spec.params, frame.get("params"), root)
    except BadRequest as error:
        raise FrameRejected(request_id, error) from None
    # an op whose changes reach other files holds the others as init and shutdown do
    return Request(request_id, spec.name, params, None if spec.spans_files(params) else getattr(params, "file", None))


def encode_result(request_id: RequestId, result: OpResult) -> bytes:
    """One response line; a result that cannot be encoded becomes an error frame (nothing is lost)."""
    try:
        return orjson.dumps({"proto": ORACLE_PROTOCOL, "id": request_id, "ok": True, "result": result}) + b"\n"
    except TypeError as exc:
        return encode_error(request_id, OracleCrashed(
            f"the relay could not encode its answer: {exc}", "this is a relay bug; the session is still usable"))


def encode_error(request_id: RequestId, error: FerruleError) -> bytes:
    return orjson.dumps(
        {"proto": ORACLE_PROTOCOL, "id": request_id, "ok": False, "error": error.to_json()}) + b"\n"


def encode_request(request_id: RequestId, op: str, params: dict[str, Any] | None = None) -> bytes:
    """A request line, for clients (tests, the benchmark, the one-shot CLI's own checks)."""
    return orjson.dumps(
        {"proto": ORACLE_PROTOCOL, "id": request_id, "op": op, "params": {} if params is None else params}) + b"\n"


__all__ = [
    "ORACLE_PROTOCOL",
    "FrameRejected",
    "Request",
    "RequestId",
    "encode_error",
    "encode_request",
    "encode_result",
    "parse_request",
]
