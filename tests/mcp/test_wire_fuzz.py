"""Whatever arrives, the loop answers at most once per line, only with well-formed responses, and
keeps serving: a ping sent after the noise is always answered."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_helpers import call, request

from ferrule.mcp import ReplayTransport, Server, tool


@tool
def echo(text: str, times: int = 1) -> str:
    """Echo the text back."""
    return text * times


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
                  "protocolVersion": st.sampled_from(["2024-11-05", "2026-07-28", "x"])})},
)


def to_line(value: object) -> bytes:
    return json.dumps(value).encode()  # the standard library writes integers of any size


lines = st.one_of(
    frames.map(to_line),
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
    for msg in out:
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
