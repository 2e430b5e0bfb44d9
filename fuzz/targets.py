"""The fuzz targets: one `check(data: bytes)` per input surface, each with its own oracle.

Shared by the coverage-guided harness (`fuzz/harness.py`, atheris) and the test suite, which replays
every seed in `fuzz/corpus/<target>/` and every crash kept in `fuzz/regressions/<target>/`. A check
raises (AssertionError or anything unexpected) when the code under test misbehaves; returning means
the input was handled as specified. Inputs are decoded with `Reader`, not atheris's data provider, so
that a kept input replays the same way without atheris installed.

Targets:
- `line_framer`, `lsp_framer`: the C and Python twins see the same feeds split at the same points and
  must agree on every result, error and `pending`; lines must match an independent model of the
  framing rules; buffers stay bounded; draining after errors ends.
- `mcp_loop`: lines (grouped into reads) through `ferrule.mcp.Server`: every request gets exactly one
  answer with its exact id, notifications (any object without an id) and responses none, malformed
  lines the JSON-RPC error the rules name, a batch one array once 2025-03-26 is negotiated; -32603 (a
  fault of the server's) is never acceptable; a last `ping` is always served.
- `relay_envelope`: one frame through `ferrule.relay.envelope.parse_request` against a project root
  with symlinks leading out: a `protocol` refusal carrying the right id, or a request whose params fit
  the op's table and whose file stays inside the root.
- `relay_loop`: lines through the `ferrule serve` loop over an echoing session: every non-blank line
  is answered exactly once and the loop ends at end of input.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

import ferrule._fastframe_py as PY_FRAMING
from ferrule import _frame_errors

try:
    if os.environ.get("FERRULE_NO_EXTENSIONS"):
        raise ImportError("compiled twins switched off")
    import ferrule._fastframe as C_FRAMING
except ImportError:  # not built: the twins cannot be compared, the model still checks the Python one
    C_FRAMING = None

FrameError = _frame_errors.FrameError

# Reported defects the checks may be told to tolerate while their fix is pending, so that a fuzzing
# run goes on past them: FERRULE_FUZZ_TOLERATE=cancel-jsonrpc (comma-separated names).
TOLERATED = frozenset(filter(None, os.environ.get("FERRULE_FUZZ_TOLERATE", "").split(",")))


class Reader:
    """Takes small integers and byte runs off the front of a fuzz input; never fails on short input."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            return 0
        value = self.data[self.pos]
        self.pos += 1
        return value

    def int(self, low: int, high: int) -> int:
        return low + self.byte() % (high - low + 1)

    def take(self, size: int) -> bytes:
        chunk = self.data[self.pos:self.pos + size]
        self.pos += len(chunk)
        return chunk

    def rest(self) -> bytes:
        chunk = self.data[self.pos:]
        self.pos = len(self.data)
        return chunk


def cut(data: bytes, marks: list[int]) -> list[bytes]:
    points = sorted({m % (len(data) + 1) for m in marks})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


# --------------------------------------------------------------------------------------------------
# framers

ERROR = ("error",)


def trace(framer: Any, chunks: list[bytes]) -> list[Any]:
    """Everything a caller can observe after each feed: the lines or the error with all it carried."""
    out: list[Any] = []
    for chunk in [*chunks, b"", b""]:
        try:
            out.append(("ok", framer.feed(chunk)))
        except FrameError as exc:
            out.append((type(exc).__name__, str(exc), exc.header, exc.lines, exc.bodies, getattr(exc, "limit", None)))
        out.append(framer.pending)
    return out


def drained(framer: Any, chunks: list[bytes], bound: Callable[[Any], None] | None = None) -> list[Any]:
    """What a caller gets in total, draining with feed(b"") after each error; the drain must end."""
    events: list[Any] = []
    for chunk in chunks:
        total = framer.pending + len(chunk) + 2  # each error consumes at least one buffered byte
        for _ in range(total + 1):
            try:
                events.extend(framer.feed(chunk))
            except FrameError as exc:
                events.extend(exc.lines or exc.bodies)
                events.append(ERROR)
                chunk = b""
                continue
            if bound is not None:
                bound(framer)
            break
        else:
            raise AssertionError(f"draining a {total - 2}-byte feed did not end: every call raised")
    return events


def model_lines(stream: bytes, limit: int) -> tuple[list[Any], int]:
    """The framing rules, stated directly: (events, pending) for the whole stream fed at once."""
    *complete, last = stream.split(b"\n")
    events: list[Any] = []
    for raw in complete:
        line = raw[:-1] if raw.endswith(b"\r") else raw
        events.append(ERROR if len(line) > limit else line)
    if len(last) > limit and not (len(last) == limit + 1 and last.endswith(b"\r")):
        events.append(ERROR)  # an unfinished line already over the limit is refused at once
        return events, 0
    return events, len(last)


def check_line_framer(data: bytes) -> None:
    reader = Reader(data)
    limit = reader.int(1, 48)
    marks = [reader.byte() * 7 for _ in range(reader.int(0, 8))]
    stream = reader.rest()
    chunks = cut(stream, marks)
    if C_FRAMING is not None:
        c_trace = trace(C_FRAMING.LineFramer(limit), chunks)
        py_trace = trace(PY_FRAMING.LineFramer(limit), chunks)
        assert c_trace == py_trace, f"twins disagree\n C: {c_trace}\n Py: {py_trace}"
    expected, pending = model_lines(stream, limit)

    def bounded(framer: Any) -> None:
        # After a feed that did not raise, only the unfinished last line is buffered.
        assert framer.pending <= limit + 1, f"pending {framer.pending} > limit + 1 ({limit + 1})"

    for impl in (PY_FRAMING, C_FRAMING):
        if impl is None:
            continue
        framer = impl.LineFramer(limit)
        events = drained(framer, chunks, bounded)
        assert events == expected, f"{impl.__name__}: {events} != model {expected}"
        assert framer.pending == pending, f"{impl.__name__}: pending {framer.pending} != {pending}"
        for event in events:
            assert event is ERROR or (b"\n" not in event and len(event) <= limit)


def check_lsp_framer(data: bytes) -> None:
    reader = Reader(data)
    mode = reader.int(0, 1)
    limit = reader.int(1, 64)
    marks = [reader.byte() * 5 for _ in range(reader.int(0, 8))]
    payload = reader.rest()
    if mode == 0:  # raw bytes: headers, garbage, anything
        stream, bodies = payload, None
    else:  # well-formed messages only: the bodies come back exactly, whatever the split
        bodies = [body for body in payload.split(b"\x00") if len(body) <= limit]
        stream = b"".join(PY_FRAMING.encode_lsp(body) for body in bodies)
    chunks = cut(stream, marks)
    if C_FRAMING is not None:
        c_trace = trace(C_FRAMING.LspFramer(limit), chunks)
        py_trace = trace(PY_FRAMING.LspFramer(limit), chunks)
        assert c_trace == py_trace, f"twins disagree\n C: {c_trace}\n Py: {py_trace}"
        assert C_FRAMING.encode_lsp(payload) == PY_FRAMING.encode_lsp(payload)
    ceiling = max(_frame_errors.HEADER_BLOCK_LIMIT, limit)

    def bounded(framer: Any) -> None:
        assert framer.pending <= ceiling, f"pending {framer.pending} > {ceiling}"

    whole = None
    for impl in (PY_FRAMING, C_FRAMING):
        if impl is None:
            continue
        events = drained(impl.LspFramer(limit), chunks, bounded)
        for event in events:
            assert event is ERROR or len(event) <= limit, f"a body of {len(event)} bytes passed limit {limit}"
        if bodies is not None:
            assert events == bodies, f"{impl.__name__}: well-formed stream gave {events}, sent {bodies}"
        at_once = drained(impl.LspFramer(limit), [stream])
        assert events == at_once, f"{impl.__name__}: the split changed what came out"
        assert whole is None or whole == events
        whole = events


# --------------------------------------------------------------------------------------------------
# the MCP loop

_MCP_SERVER: Any = None
_MCP_MAX_LINE = 4096
_MCP_CODES = {-32700, -32600, -32601, -32602, -32022}  # -32603 is the server's own fault: never
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
_HANDSHAKE = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
_BATCHES = "2025-03-26"  # the one revision whose sessions are served JSON-RPC batches


def _mcp_tools() -> Any:
    from ferrule.mcp import ToolSet

    tools = ToolSet()

    @tools.tool
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @tools.tool
    def add(a: int, b: int = 0, scale: float | None = None) -> dict:
        """Adds; a structured result."""
        return {"sum": (a + b) * (scale if scale is not None else 1)}

    @tools.tool
    def fail(reason: str = "") -> str:
        """Raises."""
        raise RuntimeError(reason)

    @tools.tool
    def refuse() -> str:
        """A tool-level failure."""
        raise ValueError("refused")

    return tools


def _mcp_server() -> Any:
    global _MCP_SERVER
    if _MCP_SERVER is None:
        from ferrule.mcp import Server

        _MCP_SERVER = Server("fuzz", "0", _mcp_tools(), max_line=_MCP_MAX_LINE)
    return _MCP_SERVER


def _exact(line: bytes) -> Any:
    """How the rules read a line: JSON (invalid UTF-8 replaced), integers exact; ValueError if not JSON."""
    try:
        msg = orjson.loads(line)
    except orjson.JSONDecodeError:
        msg = orjson.loads(line.decode("utf-8", "replace"))  # raises JSONDecodeError (a ValueError)
    members = msg if type(msg) is list else [msg]
    if any(type(m) is dict and type(m.get("id")) is float for m in members):
        # orjson reads integers beyond 64 bits as floats; the id must be echoed exactly.
        def refuse(name: str) -> Any:
            raise ValueError(name)

        try:
            msg = json.loads(line.decode("utf-8", "replace"), parse_constant=refuse)
        except RecursionError as exc:
            raise ValueError("too deep") from exc
    return msg


def _is_id(value: Any) -> bool:
    return type(value) is str or type(value) is int


def _cancel_target(line: bytes) -> Any:
    """The request a line cancels: a valid `notifications/cancelled` naming a string or integer id."""
    try:
        msg = orjson.loads(line)
    except orjson.JSONDecodeError:
        try:
            msg = orjson.loads(line.decode("utf-8", "replace"))  # read as the rules read any line
        except orjson.JSONDecodeError:
            return None
    if type(msg) is not dict or msg.get("method") != "notifications/cancelled" or msg.get("id") is not None:
        return None
    if msg.get("jsonrpc") != "2.0" and "cancel-jsonrpc" not in TOLERATED:
        return None  # not a valid notification (it is absorbed): it must not act
    params = msg.get("params")
    target = params.get("requestId") if type(params) is dict else None
    return target if _is_id(target) else None


def expected_mcp(line: bytes, max_line: int, revision: str = "2025-11-25") -> tuple[str, Any, Any] | None:
    """None: no answer. ("error", id, code): that error. ("request", id, method): one answer for id.
    ("array", None, plans): a JSON-RPC batch's one array, an answer per plan (`revision` is the session's)."""
    if len(line) > max_line:
        return ("error", None, -32600)
    try:
        msg = _exact(line)
    except ValueError:
        return ("error", None, -32700)
    if type(msg) is list and revision == _BATCHES:
        if not msg:
            return ("error", None, -32600)
        plans = [plan for plan in map(_expected_member, msg) if plan is not None]
        return ("array", None, plans) if plans else None
    return _expected_message(msg)


def _expected_member(msg: Any) -> tuple[str, Any, Any] | None:
    if type(msg) is list:
        return ("error", None, -32600)
    if type(msg) is dict and msg.get("method") == "initialize" and _is_id(msg.get("id")):
        return ("error", msg["id"], -32600)  # initialize is never part of a batch
    return _expected_message(msg)


def _expected_message(msg: Any) -> tuple[str, Any, Any] | None:
    if type(msg) is not dict:
        return ("error", None, -32600)
    method, msg_id = msg.get("method"), msg.get("id")
    if msg_id is None:
        return None  # a notification, absorbed whatever else is wrong with it
    readable = msg_id if _is_id(msg_id) else None
    if method is None:
        return None if ("result" in msg or "error" in msg) else ("error", readable, -32600)
    if type(method) is not str or msg.get("jsonrpc") != "2.0":
        return ("error", readable, -32600)
    if readable is None:
        return ("error", None, -32600)
    params = msg.get("params")
    if params is not None and type(params) is not dict:
        return ("error", msg_id, -32602)
    return ("request", msg_id, (method, params))


def _same_id(got: Any, want: Any) -> bool:
    return type(got) is type(want) and got == want


def _check_request_answer(answer: dict[str, Any], method: str, params: Any) -> None:
    stateless = type(params) is dict and method != "initialize" and type(params.get("_meta")) is dict \
        and VERSION_KEY in params["_meta"]
    if "error" in answer:
        code = answer["error"]["code"]
        assert code in (-32601, -32602, -32022), f"{method}: a valid request answered {answer['error']}"
        if code == -32022:
            assert stateless
        return
    result = answer["result"]
    assert type(result) is dict, answer
    if method == "ping" and not stateless:
        assert result == {}, answer
    elif method == "tools/call":
        assert type(result.get("isError")) is bool and type(result.get("content")) is list, answer
        assert all(item.get("type") == "text" and type(item.get("text")) is str for item in result["content"])
    elif method == "tools/list":
        assert [tool["name"] for tool in result["tools"]] == ["add", "echo", "fail", "refuse"]
    if stateless:
        assert result.get("resultType") == "complete", answer
    else:
        assert method in ("ping", "tools/call", "tools/list", "initialize"), f"{method} answered {answer}"


def _check_answer(answer: Any, plan: tuple[str, Any, Any]) -> None:
    kind, msg_id, detail = plan
    assert type(answer) is dict and answer.get("jsonrpc") == "2.0", answer
    assert _same_id(answer["id"], msg_id) or (msg_id is None and answer["id"] is None), \
        f"answer id {answer['id']!r} where {msg_id!r} was due"
    assert ("result" in answer) != ("error" in answer), answer
    if "error" in answer:
        error = answer["error"]
        assert error["code"] in _MCP_CODES, f"server fault or unknown code: {error}"
        assert type(error["message"]) is str and error["message"], error
    if kind == "error":
        assert answer.get("error", {}).get("code") == detail, f"wanted {detail}, got {answer}"
    else:
        _check_request_answer(answer, *detail)


def check_mcp_loop(data: bytes) -> None:
    from ferrule.mcp import ReplayTransport

    server = _mcp_server()
    reader = Reader(data)
    sizes = [reader.int(1, 4) for _ in range(8)]
    lines = reader.rest().split(b"\n")
    if len(lines) > 64:
        lines = lines[:64]
    lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    batches: list[list[bytes]] = []
    while lines:
        size = sizes[len(batches) % len(sizes)]
        batches.append(lines[:size])
        lines = lines[size:]
    final = b'{"jsonrpc":"2.0","id":"final-ping","method":"ping"}'
    batches.append([final])

    expected: list[tuple[Any, Any, Any]] = []
    revision = server.revision  # the server is shared: a session earlier inputs negotiated
    for batch in batches:
        plans = []
        for line in batch:
            plan = expected_mcp(line, _MCP_MAX_LINE, revision)
            plans.append(plan)
            if plan is not None and plan[0] == "request" and plan[2][0] == "initialize":
                params = plan[2][1]
                asked = params.get("protocolVersion") if type(params) is dict else None
                if type(asked) is str:
                    revision = asked if asked in _HANDSHAKE else _HANDSHAKE[-1]
        targets = [_cancel_target(line) if len(batch) > 1 and len(line) <= _MCP_MAX_LINE else None
                   for line in batch]
        for index, plan in enumerate(plans):
            if plan is None:
                continue
            kind, msg_id, detail = plan
            if kind == "request" and detail[0] != "initialize" and any(
                    _same_id(target, msg_id) for target in targets[index + 1:] if target is not None):
                continue  # cancelled while still queued in the same read: neither run nor answered
            expected.append(plan)

    script = [tuple(batch) if len(batch) > 1 else batch[0] for batch in batches]
    transport = ReplayTransport(script)
    with contextlib.redirect_stderr(io.StringIO()):  # the tracebacks of the tool that raises
        server.run(transport)
    answers: list[Any] = []
    for raw in transport.output:
        assert b"\n" not in raw
        message = json.loads(raw)  # exact integers, as the ids were sent
        if type(message) is not list:
            assert message.get("jsonrpc") == "2.0", raw
            if "id" not in message:
                assert message.get("method") == "notifications/progress", raw
                continue
        answers.append(message)
    got = [("array", len(a)) if type(a) is list else (a["id"], a.get("error", {}).get("code")) for a in answers]
    assert len(answers) == len(expected), f"{len(answers)} answers for {len(expected)} expected\n" \
        f" got: {got}\n want: {[(e[1], e[0]) for e in expected]}"
    for answer, plan in zip(answers, expected, strict=True):
        if plan[0] == "array":
            assert type(answer) is list and len(answer) == len(plan[2]), f"wanted an array for {plan}, got {answer}"
            for member, member_plan in zip(answer, plan[2], strict=True):
                _check_answer(member, member_plan)
        else:
            _check_answer(answer, plan)
    assert answers[-1]["id"] == "final-ping" and answers[-1]["result"] == {}


# --------------------------------------------------------------------------------------------------
# the relay's envelope and loop

_RELAY_ROOT: Any = None


def relay_project() -> tuple[Any, Path, Path]:
    """(ProjectRoot, outside dir, outside sentinel file): a project whose symlinks lead out of it."""
    global _RELAY_ROOT
    if _RELAY_ROOT is None:
        from ferrule.project import ProjectRoot

        base = Path(tempfile.mkdtemp(prefix="ferrule-fuzz-"))
        outside = base / "outside"
        outside.mkdir()
        sentinel = outside / "secret.rs"
        sentinel.write_text("// SENTINEL-OUTSIDE-THE-ROOT\n")
        root = base / "project"
        (root / "src" / "deep").mkdir(parents=True)
        (root / "Cargo.toml").write_text('[package]\nname = "p"\nversion = "0.1.0"\n')
        (root / "src" / "lib.rs").write_text("pub fn f() {}\n")
        (root / "src" / "deep" / "m.rs").write_text("pub fn g() {}\n")
        (root / "src" / "inner.rs").symlink_to(root / "src" / "lib.rs")
        (root / "out").symlink_to(outside)
        (root / "src" / "out.rs").symlink_to(sentinel)
        (root / "src" / "loop").symlink_to("loop")
        _RELAY_ROOT = (ProjectRoot(root), outside, sentinel)
    return _RELAY_ROOT


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) is bool:
        return "boolean"
    if type(value) in (int, float):
        return "number"
    return {str: "string", list: "array", dict: "object"}[type(value)]


def check_relay_envelope(data: bytes) -> None:
    from ferrule.relay.envelope import FrameRejected, encode_error, encode_result, parse_request
    from ferrule.relay.ops import OPS
    from ferrule.relay.params import TargetParams, fields_of

    root, outside, sentinel = relay_project()
    try:
        frame = orjson.loads(data)
    except orjson.JSONDecodeError:
        frame = None
    try:
        request = parse_request(data, root)
    except FrameRejected as rejected:
        assert rejected.error.kind == "protocol", rejected.error
        assert rejected.error.message and rejected.error.recipe
        frame_id = frame.get("id") if type(frame) is dict else None
        if type(frame_id) in (str, int, float) and rejected.id is not None:
            assert rejected.id == frame_id and type(rejected.id) is type(frame_id)
        answer = orjson.loads(encode_error(rejected.id, rejected.error))
        assert answer["ok"] is False and answer["error"]["kind"] == "protocol"
        assert "SENTINEL" not in answer["error"]["message"]
        return
    assert type(frame) is dict, "a request came out of a frame that is not a JSON object"
    assert frame.get("proto") == 1 and type(frame.get("proto")) is not bool  # 1.0 is 1 in JSON
    assert type(request.id) in (str, int, float) and request.id == frame["id"]
    assert request.op in OPS and request.op == frame["op"]
    declared = fields_of(OPS[request.op].params)
    params = request.params.to_json()
    assert set(params) <= {name for name, _ in declared}, params
    for name, spec in declared:
        if spec.required:
            assert name in params, f"{request.op} accepted without {name}"
    for name, value in params.items():
        if name in ("timeout_ms", "max"):
            assert type(value) is int and value >= (1 if name == "timeout_ms" else 0), (name, value)
        elif name == "position":
            assert type(value) is dict and type(value.get("line")) is int and type(value.get("character")) is int
            assert value["line"] >= 1 and value["character"] >= 0
        elif name == "content" and request.op == "update":
            assert value is None or type(value) is str
        else:
            assert type(value) is str, (name, _json_type(value))
    file = params.get("file")
    if request.op in ("init", "shutdown") or (file is None and issubclass(OPS[request.op].params, TargetParams)):
        # no file: the lifecycle, or an op named by `symbol` (its handler refuses a missing place)
        assert file is None and request.file is None
        return
    assert type(file) is str and file == request.file
    assert not file.startswith("/") and ".." not in file.split("/") and "\\" not in file and "\x00" not in file
    real = os.path.realpath(root.path / file)
    assert real == str(root.path / file), f"{file!r} is not canonical: {real}"
    assert real.startswith(str(root.path) + os.sep), f"{file!r} resolves outside the root: {real}"
    assert not real.startswith(str(outside)) and real != str(sentinel)
    orjson.loads(encode_result(request.id, {"file": file}))


class EchoSession:
    """Answers every op at once with what it was given (init and shutdown with {})."""

    def __init__(self, root: Any, *, analyzer: Any = None, on_progress: Any = None) -> None:
        self.calls = 0

    async def run(self, op: str, params: Any) -> dict[str, Any]:
        self.calls += 1
        if op == "shutdown":
            await asyncio.sleep(0.002)  # an analyzer takes a while to shut down: input ends meanwhile
        await asyncio.sleep(0)
        return {} if op in ("init", "shutdown") else {"op": op, "file": getattr(params, "file", None)}


def check_relay_loop(data: bytes) -> None:
    from ferrule.relay.serve import serve_async

    root, _, _ = relay_project()
    data = data[:32 * 1024]  # one read of the loop's intake: frames after a `shutdown` are answered too
    if b"shutdown" in data and not data.endswith(b"\n"):
        data += b"\n"  # the loop ends with `shutdown`: an unfinished last line is never read as a frame
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    due = sum(1 for line in lines if line.strip())
    out = io.BytesIO()

    async def main() -> int:
        return await asyncio.wait_for(
            serve_async(root.path, io.BytesIO(data), out, session_factory=EchoSession), 20)

    with contextlib.redirect_stderr(io.StringIO()):  # the loop logs its own start on stderr
        assert asyncio.run(main()) == 0
    answers = [orjson.loads(line) for line in out.getvalue().splitlines()]
    assert len(answers) == due, f"{len(answers)} answers for {due} frames"
    for answer in answers:
        assert answer["proto"] == 1 and type(answer["ok"]) is bool
        if not answer["ok"]:
            # a refusal of the input, or a budget the input set (`timeout_ms`) run out on a busy machine
            assert answer["error"]["kind"] in ("protocol", "timeout"), answer


# --------------------------------------------------------------------------------------------------
# seeds and dictionaries: where the fuzzer starts (fuzz/run.py writes them into its working corpus)

_ENVELOPE = {VERSION_KEY: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def _lines(*messages: Any) -> bytes:
    return b"\n".join(m if isinstance(m, bytes) else orjson.dumps(m) for m in messages)


def _rpc(msg_id: Any, method: str, params: Any = None, **extra: Any) -> dict[str, Any]:
    msg = {"jsonrpc": "2.0", "id": msg_id, "method": method, **extra}
    if params is not None:
        msg["params"] = params
    return msg


def _frame(msg_id: Any, op: str, params: Any) -> bytes:
    return orjson.dumps({"proto": 1, "id": msg_id, "op": op, "params": params})


_POS = {"line": 1, "character": 0}
_RELAY_FRAMES = [
    _frame(1, "init", {}),
    _frame("a", "validate", {"file": "src/lib.rs"}),
    _frame(2, "validate", {"file": "src/lib.rs", "content": "fn x() {}", "timeout_ms": 10}),
    _frame(3, "type", {"file": "src/deep/m.rs", "position": _POS}),
    _frame(4, "complete", {"file": "./src//lib.rs", "position": _POS, "prefix": "a", "max": 3}),
    _frame(5, "scope", {"file": "src/inner.rs"}),
    _frame(6, "update", {"file": "src/new.rs", "content": None}),
    _frame(7, "update", {"file": "out/secret.rs", "content": "x"}),
    _frame(8, "validate", {"file": "src/../../outside/secret.rs"}),
    _frame(9, "validate", {"file": "/etc/passwd"}),
    _frame(10, "validate", {"file": "src\\lib.rs"}),
    _frame(11, "validate", {"file": "src/out.rs"}),
    _frame(12.5, "type", {"file": "src/lib.rs", "position": {"line": 0, "character": -1}}),
    _frame(13, "shutdown", {}),
    b'{"proto":true,"id":1,"op":"init"}',
    b'{"proto":1,"id":[1],"op":"init"}',
    b'[{"proto":1}]',
]

SEEDS: dict[str, list[bytes]] = {
    "line_framer": [
        bytes([4, 2, 3, 9]) + b"ab\ncd\r\nefgh\nijklmnop\r\nq",
        bytes([1, 0]) + b"\r\n\r\r\n\n",
        bytes([8, 3, 1, 2, 3]) + b"x" * 20 + b"\ny\n",
    ],
    "lsp_framer": [
        bytes([0, 16, 2, 3, 40]) + b"Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]",
        bytes([0, 8, 0]) + b"content-length:  4 \r\nContent-Type: x\r\n\r\nabcdGARBAGE\r\n\r\nContent-Length: 1\r\n\r\nz",
        bytes([0, 4, 0]) + b"Content-Length: -1\r\n\r\nContent-Length: 99\r\n\r\nContent-Length: x\r\n\r\n",
        bytes([1, 32, 3, 1, 2, 9]) + b"first\x00second\x00\x00third",
    ],
    "mcp_loop": [
        bytes([1, 2, 3, 4, 1, 2, 3, 4]) + _lines(
            _rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}),
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            _rpc(2, "ping"), _rpc("x", "tools/list"),
            _rpc(3, "tools/call", {"name": "echo", "arguments": {"text": "hi"}}),
            _rpc(4, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2.0}}),
            _rpc(5, "tools/call", {"name": "fail", "arguments": {}}),
            _rpc(6, "tools/call", {"name": "nope"}),
        ),
        bytes([3, 3, 3, 3, 3, 3, 3, 3]) + _lines(
            _rpc(7, "tools/call", {"name": "echo", "arguments": {"text": 1}}),
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}},
            {"method": "notifications/cancelled", "params": {"requestId": 8}},
            _rpc(9, "tools/list", {"_meta": _ENVELOPE}),
            _rpc(10, "server/discover", {"_meta": {**_ENVELOPE, VERSION_KEY: "2099-01-01"}}),
            _rpc(11, "tools/call", {"name": "echo", "arguments": {"text": "t"}, "_meta": {"progressToken": 1}}),
        ),
        bytes([2] * 8) + _lines(
            b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}',
            b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
            b'{"jsonrpc":"2.0","id":null,"method":"ping"}', b'{"jsonrpc":"2.0","id":1,"result":{}}',
            b'[1,2]', b'{"jsonrpc":"1.0","id":1,"method":"ping"}', b'{"id":1,"method":7}', b"not json",
            b'{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}', b"\xff\xfe{}", b"", b"x" * 5000,
        ),
        bytes([1, 2, 1, 1, 2, 1, 1, 1]) + _lines(
            _rpc(1, "initialize", {"protocolVersion": "2025-03-26", "capabilities": {}}),
            b'[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},5,[],'
            b'{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18"}},'
            b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/list"}]',
            b'[{"jsonrpc":"2.0","method":"notifications/initialized"}]', b"[]", b'{"method":"ping"}',
            _rpc(4, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}), b'[{"id":5}]',
        ),
    ],
    "relay_envelope": _RELAY_FRAMES,
    "relay_loop": [b"\n".join(_RELAY_FRAMES[:8]) + b"\n\n  \n" + b"\n".join(_RELAY_FRAMES[8:])],
}

DICTIONARIES: dict[str, list[bytes]] = {
    "line_framer": [b"\r\n", b"\n", b"\r"],
    "lsp_framer": [b"Content-Length: ", b"content-length:", b"\r\n\r\n", b"Content-Type: ", b"\r\n"],
    "mcp_loop": [b'"jsonrpc":"2.0"', b'"id":', b'"method":', b'"params":', b'"tools/call"', b'"ping"',
                 b'"initialize"', b'"tools/list"', b'"server/discover"', b'"notifications/cancelled"',
                 b'"requestId":', b'"_meta":', b'"arguments":', b'"name":"echo"', b'"protocolVersion":',
                 b'"progressToken":', b'"' + VERSION_KEY.encode() + b'":"2026-07-28"', b"null", b"true"],
    "relay_envelope": [b'"proto":1', b'"id":', b'"op":', b'"params":', b'"file":', b'"position":',
                       b'"line":', b'"character":', b'"content":', b'"timeout_ms":', b'"max":', b'"prefix":',
                       b"..", b"/", b"\\\\", b"%2e%2e", b"%2f", b"\\u0000", b"C:", b"out/", b"src/out.rs",
                       b'"validate"', b'"update"', b'"complete"', b'"scope"', b'"type"', b'"init"', b'"shutdown"'],
}
DICTIONARIES["relay_loop"] = DICTIONARIES["relay_envelope"] + [b"\n"]

TARGETS: dict[str, Callable[[bytes], None]] = {
    "line_framer": check_line_framer,
    "lsp_framer": check_lsp_framer,
    "mcp_loop": check_mcp_loop,
    "relay_envelope": check_relay_envelope,
    "relay_loop": check_relay_loop,
}

__all__ = ["DICTIONARIES", "SEEDS", "TARGETS", "Reader", "cut", "expected_mcp", "model_lines", "relay_project"]
