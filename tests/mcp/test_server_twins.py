"""The compiled server loop against its pure-Python twin (the same source): seeded random scripts of
lines (requests well and badly formed, batches, cancellations, over-long lines, sync, async, failing
and noisy tools, both eras) served by each, the answers compared."""

from __future__ import annotations

import contextlib
import io
import json
import random
import sys

import pytest

from ferrule.mcp import ReplayTransport, ToolOutput

pytestmark = pytest.mark.c_extension

SCRIPTS = 400
_IDS = [1, "x", 2**70, -1, None, True, 1.5, [1], {}]
ASYNC_MARK = "async answer: "
_METHODS = ["ping", "tools/call", "tools/list", "initialize", "server/discover", "nope", 5, None]


def echo(text: str, times: int = 1) -> str:
    """Echo the text."""
    return text * times


def shapes(kind: str) -> object:
    """Each kind of outcome a tool can have."""
    if kind == "raise":
        raise ValueError("boom")
    if kind == "exit":
        raise SystemExit(3)
    if kind == "dict":
        return {"a": 1}
    if kind == "error":
        return ToolOutput("bad", True)
    if kind == "object":
        return object()
    print("noise", file=sys.stderr)
    return kind


async def async_echo(text: str) -> str:
    """Echo the text, awaited (marked: its answer's place among the others is the lane's to decide)."""
    return ASYNC_MARK + text


class Scripts:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def params(self) -> object:
        rng = self.rng
        choice = rng.randrange(10)
        if choice == 0:
            return None
        if choice == 1:
            return [1]
        if choice == 2:
            return "s"
        if choice == 3:
            return {"protocolVersion": rng.choice(["2025-03-26", "2025-11-25", "2026-07-28", 5])}
        if choice == 4:
            return {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "progressToken": 1},
                    "name": "echo", "arguments": {"text": "a"}}
        if choice == 5:
            return {"cursor": rng.choice([1, "c", None])}
        params: dict[str, object] = {"name": rng.choice(["echo", "shapes", "async_echo", "none", 3])}
        if rng.random() < 0.8:
            params["arguments"] = rng.choice([
                {"text": "hi"}, {"text": 1}, {"kind": rng.choice(["raise", "exit", "dict", "error", "object", "x"])},
                [], "a", None, {"text": "q", "times": 2}])
        if rng.random() < 0.2:
            params["_meta"] = rng.choice([{"progressToken": 3}, None, [], {"progressToken": True}])
        return params

    def message(self) -> dict[str, object]:
        rng = self.rng
        if rng.random() < 0.05:
            return {"jsonrpc": "2.0", "id": 1, "result": {}}
        message: dict[str, object] = {"jsonrpc": rng.choice(["2.0", "2.0", "1.0"]), "method": rng.choice(_METHODS)}
        if rng.random() < 0.9:
            message["id"] = rng.choice(_IDS)
        params = self.params()
        if params is not None or rng.random() < 0.3:
            message["params"] = params
        return message

    def line(self) -> bytes:
        rng = self.rng
        choice = rng.randrange(12)
        if choice == 0:
            return b"not json"
        if choice == 1:
            return b"[]"
        if choice == 2:
            return _dumps([self.message() for _ in range(rng.randrange(3))])
        if choice == 3:
            return _dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": rng.choice(_IDS[:2])}})
        if choice == 4:
            return b"x" * 5000  # over the servers' max_line
        return _dumps(self.message())

    def script(self) -> list[object]:
        rng = self.rng
        reads: list[object] = []
        for _ in range(rng.randrange(1, 5)):
            reads.append(tuple(self.line() for _ in range(rng.randrange(2, 4))) if rng.random() < 0.4 else self.line())
        if rng.random() < 0.5:
            version = rng.choice(["2025-03-26", "2025-11-25"])
            reads.insert(0, _dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                    "params": {"protocolVersion": version}}))
        return reads


def _dumps(message: object) -> bytes:
    return json.dumps(message).encode()  # the standard library: an id beyond 64 bits stays an integer


def _serve(server_class: type, script: list[object]) -> list[bytes]:
    server = server_class("twins", "1", [echo, shapes, async_echo], max_line=4096)
    transport = ReplayTransport(script)
    with contextlib.redirect_stderr(io.StringIO()):
        server.run(transport)
    # every answer in the order written, but for an async call's, which may come before or after a
    # later line's: those are compared as a set
    in_order = [line for line in transport.output if ASYNC_MARK.encode() not in line]
    return [*in_order, *sorted(line for line in transport.output if ASYNC_MARK.encode() in line)]


def test_the_compiled_loop_answers_as_its_python_twin_does():
    from ferrule.mcp import _server_c, _server_py  # here: _server_c exists only where it was built

    seed = random.randrange(2**32)
    print(f"seed {seed}")  # shown on failure: Scripts(seed) makes the same scripts again
    scripts = Scripts(seed)
    for number in range(SCRIPTS):
        script = scripts.script()
        compiled, python = _serve(_server_c.Server, script), _serve(_server_py.Server, script)
        assert compiled == python, f"script {number} of seed {seed}: {script!r}"
