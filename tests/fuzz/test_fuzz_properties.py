"""Hypothesis-driven fuzzing through the same checks as the atheris harness (fuzz/targets.py).

Where the coverage-guided fuzzer mutates bytes, these build structured inputs: JSON-RPC messages of
every shape for the MCP loop, relay frames with every field of every type and paths that try to leave
the project, and byte streams for the framers checked against a model of the framing rules.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from testkit.lines import load_fuzz_targets

TARGETS = load_fuzz_targets()


def dumps(value) -> bytes:
    """JSON with integers of any size (orjson stops at 64 bits)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
ids = st.one_of(st.integers(min_value=-(2**70), max_value=2**70), st.text(max_size=6), st.none(),
                st.booleans(), st.floats(allow_nan=False, allow_infinity=False), st.lists(st.integers(), max_size=2))
methods = st.sampled_from(["ping", "initialize", "tools/list", "tools/call", "server/discover",
                           "notifications/cancelled", "notifications/initialized", "resources/list", ""])
envelope = st.fixed_dictionaries({
    "io.modelcontextprotocol/protocolVersion": st.sampled_from(["2026-07-28", "2025-06-18", "1999"]) | json_values,
    "io.modelcontextprotocol/clientCapabilities": st.just({}) | json_values,
})
arguments = st.one_of(
    st.fixed_dictionaries({"text": st.text(max_size=20) | json_values}),
    st.fixed_dictionaries({"a": st.integers() | json_values}, optional={"b": json_values, "scale": json_values}),
    st.dictionaries(st.text(max_size=6), json_values, max_size=3),
    json_values,
)
params = st.one_of(
    st.none(),
    st.fixed_dictionaries({}, optional={
        "name": st.sampled_from(["echo", "add", "fail", "refuse", "missing"]) | json_values,
        "arguments": arguments,
        "protocolVersion": st.sampled_from(["2024-11-05", "2025-03-26", "2025-11-25", "x"]) | json_values,
        "requestId": ids,
        "cursor": json_values,
        "_meta": st.one_of(envelope, st.fixed_dictionaries({"progressToken": ids}), json_values),
    }),
    json_values,
)
messages = st.fixed_dictionaries({}, optional={
    "jsonrpc": st.just("2.0") | json_values, "id": ids, "method": methods | json_values,
    "params": params, "result": json_values, "error": json_values,
})
lines = st.one_of(
    messages.map(dumps),
    st.lists(messages | json_values, max_size=4).map(dumps),  # JSON-RPC batches (served under 2025-03-26)
    json_values.map(dumps),
    st.binary(max_size=40).filter(lambda b: b"\n" not in b),
    st.just(b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}'),
    st.just(b'{"jsonrpc":"2.0","id":' + b"9" * 30 + b',"method":"ping"}'),
)


@FUZZ
@given(sizes=st.lists(st.integers(min_value=1, max_value=4), min_size=8, max_size=8),
       batch=st.lists(lines, max_size=24))
def test_mcp_loop_answers_every_request_once(sizes, batch):
    TARGETS.check_mcp_loop(bytes(sizes) + b"\n".join(batch))


SEGMENTS = ["src", "lib.rs", "..", ".", "", "out", "out.rs", "%2e%2e", "..%2f", "%2F", "\\", "..\\..",
            "C:", "\x00", "deep", "m.rs", "inner.rs", "loop", "secret.rs", "~", "\u2025", "a" * 300]
paths = st.one_of(
    st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=8).map("/".join),
    st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4).map(lambda p: "/" + "/".join(p)),
    st.text(max_size=30),
    json_values,
)
positions = st.one_of(
    st.fixed_dictionaries({"line": st.integers(min_value=-3, max_value=2**64),
                           "character": st.integers(min_value=-3, max_value=2**64)}),
    st.fixed_dictionaries({}, optional={"line": json_values, "character": json_values}),
    json_values,
)
relay_params = st.one_of(
    st.fixed_dictionaries({}, optional={
        "file": paths, "content": st.text(max_size=20) | json_values, "position": positions,
        "prefix": st.text(max_size=4) | json_values, "max": st.integers(min_value=-2, max_value=2**64) | json_values,
        "timeout_ms": st.integers(min_value=-2, max_value=2**64) | json_values, "unknown": json_values,
    }),
    json_values,
)
frames = st.fixed_dictionaries({}, optional={
    "proto": st.sampled_from([1, 1.0, True, "1", 2, None]),
    "id": ids,
    "op": st.sampled_from(["init", "update", "validate", "scope", "complete", "type", "definition", "shutdown", "x"])
    | json_values,
    "params": relay_params,
})


@FUZZ
@given(frame=frames)
def test_relay_frames_are_refused_as_protocol_or_stay_inside_the_root(frame):
    TARGETS.check_relay_envelope(dumps(frame))


@FUZZ
@given(batch=st.lists(frames.map(dumps) | st.binary(max_size=30), max_size=12))
def test_relay_loop_answers_every_frame_once(batch):
    TARGETS.check_relay_loop(b"\n".join(batch) + b"\n")


stream_pieces = st.one_of(st.binary(max_size=30), st.sampled_from([b"\n", b"\r\n", b"\r", b"\r\r\n"]))


@FUZZ
@given(limit=st.integers(min_value=1, max_value=48), marks=st.lists(st.integers(0, 255), max_size=8),
       pieces=st.lists(stream_pieces, max_size=20))
def test_line_framers_follow_the_model_on_any_bytes(limit, marks, pieces):
    TARGETS.check_line_framer(bytes([limit - 1, len(marks), *marks]) + b"".join(pieces))


lsp_pieces = st.one_of(
    st.binary(max_size=30),
    st.binary(max_size=70).map(lambda body: b"Content-Length: %d\r\n\r\n%b" % (len(body), body)),
    st.sampled_from([b"Content-Length: ", b"content-length:", b"\r\n\r\n", b"\r\n", b"Content-Type: a\r\n",
                     b"Content-Length: 99999999999999999999\r\n\r\n", b"Content-Length: -0\r\n\r\n"]),
)


@FUZZ
@given(mode=st.integers(0, 1), limit=st.integers(min_value=1, max_value=64),
       marks=st.lists(st.integers(0, 255), max_size=8), pieces=st.lists(lsp_pieces, max_size=12))
def test_lsp_framers_agree_and_stay_bounded_on_any_bytes(mode, limit, marks, pieces):
    TARGETS.check_lsp_framer(bytes([mode, limit - 1, len(marks), *marks]) + b"".join(pieces))
