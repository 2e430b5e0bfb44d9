"""Whatever arrives, the loop answers at most once per line, only with well-formed responses, and
keeps serving: a ping sent after the noise is always answered. The short path for common calls
answers byte for byte as the general dispatch does."""

from __future__ import annotations

import contextlib
import io
import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ferrule.mcp import ReplayTransport, Server, ToolOutput, tool
from testkit.mcp import call, request


@tool
def echo(text: str, times: int = 1) -> str:
    """Echo the text back."""
    return text * times


@tool
def shapes(kind: str = "text", count: int = 0) -> object:
    """Returns each kind of value a tool may return, and says something on stderr."""
    os.write(2, b"shapes says %d\n" % count)
    if kind == "dict":
        return {"count": count}
    if kind == "error":
        return ToolOutput(f"refused {count}", is_error=True)
    if kind == "raise":
        raise ValueError(f"no {count}")
    if kind == "surrogate":
        return "\ud800"
    return "x" * count


SERVER = Server("fuzz", "1", [echo], max_line=4096)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
ids = st.none() | st.integers() | st.text(max_size=6) | st.floats(allow_nan=False) | st.booleans()
methods = st.sampled_from(["initialize", "ping", "tools/list", "tools/call", "server/discover",
                           "notifications/cancelled", "notifications/initialized", "nope"]) | st.text(max_size=10)
frames = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "2.0", "1.0"]), "method": methods},
    optional={"id": ids, "params": json_values | st.fixed_dictionaries(
        {"name": st.sampled_from(["echo", "nope"]) | json_values},
        optional={"arguments": json_values, "_meta": json_values, "cursor": json_values,
                  "protocolVersion": st.sampled_from(["2024-11-05", "2025-03-26", "2026-07-28", "x"])})},
)


def to_line(value: object) -> bytes:
    return json.dumps(value).encode()  # the standard library writes integers of any size


lines = st.one_of(
    frames.map(to_line),
    st.lists(frames | json_values, max_size=4).map(to_line),  # batches, served once 2025-03-26 is negotiated
    json_values.map(to_line),
    st.binary(max_size=64),
    st.text(max_size=64).map(str.encode),
    st.integers(4097, 6000).map(lambda n: b"x" * n),  # over the server's bound
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(lines, min_size=1, max_size=5).map(tuple), max_size=6))
def test_any_input_gets_well_formed_answers_and_the_loop_survives(batches):
    transport = ReplayTransport([*batches, request("final", "ping"), call("last", "echo", {"text": "ok"})])
    SERVER.run(transport)
    out = transport.messages()
    sent = sum(len(b) for b in batches)
    assert len(out) <= sent + 2
    answers = []
    for msg in out:  # a batch's answers arrive as one non-empty array
        assert msg != []
        answers += msg if type(msg) is list else [msg]
    for msg in answers:
        assert msg["jsonrpc"] == "2.0"
        if "method" in msg:
            assert msg["method"] == "notifications/progress"
            continue
        assert "id" in msg
        assert ("result" in msg) != ("error" in msg)
        if "error" in msg:
            assert type(msg["error"]["code"]) is int and type(msg["error"]["message"]) is str
            assert msg["error"]["code"] != -32603, msg  # no input makes the server itself fail
    assert out[-2] == {"jsonrpc": "2.0", "id": "final", "result": {}}
    assert out[-1]["result"]["content"][0]["text"] == "ok"


calls = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "2.0", "2.0", "1.0"]), "method": st.sampled_from(["tools/call"] * 3 + ["ping"])},
    optional={"id": ids, "params": st.fixed_dictionaries(
        {"name": st.sampled_from(["echo", "shapes", "shapes", "nope"])},
        optional={"arguments": st.fixed_dictionaries({}, optional={
            "text": st.text(max_size=5) | json_values, "times": st.integers(-1, 3) | st.floats(0, 3),
            "kind": st.sampled_from(["text", "dict", "error", "raise", "surrogate", "other"]),
            "count": st.integers(0, 3) | st.text(max_size=2)}) | json_values,
            "_meta": st.fixed_dictionaries({}, optional={"progressToken": st.integers(0, 9)})})},
)


def answers(server: Server, script: list) -> list[bytes]:
    transport = ReplayTransport(script)
    with contextlib.redirect_stderr(io.StringIO()):  # the tracebacks of the tool that raises
        server.run(transport)
    return transport.output


class Undecided(Server):
    """The route with no cache of its decisions: every call resolves its tool afresh."""

    planned = 0

    def _plan(self, name):
        self.planned += 1
        self._plans_of = -1  # the cache is stale when asked...
        plan = super()._plan(name)
        self._plans_of = -1  # ...and again for the next call, which comes here too
        return plan


def test_the_uncached_route_resolves_every_call():
    server = Undecided("s", "1", [echo, shapes])
    answers(server, [call(i, "echo", {"text": "x"}) for i in range(3)])
    assert server.planned == 3


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(calls.map(to_line), min_size=1, max_size=4), st.sampled_from(["2025-11-25", "2025-03-26"]))
def test_the_cached_route_answers_as_the_uncached_route_does(lines, revision):
    handshake = request(0, "initialize", {"protocolVersion": revision})
    script = [handshake, *lines, tuple(lines)]  # each call on its own read, then all in one read
    cached, uncached = Server("s", "1", [echo, shapes]), Undecided("s", "1", [echo, shapes])
    assert answers(cached, script) == answers(uncached, script)
