"""The methods of both eras (docs/MCP.md §2), every result checked
against the official wire types of the revision it was answered in."""

from __future__ import annotations

import pytest
from mcp_types import methods as wire_types

from ferrule.mcp import Server, ToolOutput, ToolSet, tool
from testkit.mcp import ENVELOPE, call, modern, notification, replay, request

HANDSHAKE = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]


@tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@tool
def weather(city: str) -> dict:
    """Structured weather."""
    return {"city": city, "tempC": 21.5}


@tool
def refuse() -> ToolOutput:
    """Always refuses."""
    return ToolOutput("refused: nothing to do", is_error=True)


@tool
def explode(code: int = 0) -> str:
    """Raises, or exits when given a code."""
    if code:
        raise SystemExit(code)
    raise ValueError("boom: the widget is missing")


@pytest.fixture
def server(use_twin: str) -> Server:
    return Server("methods", "2.5.0", [weather, echo, refuse, explode], instructions="Tools for tests.")


def initialize(msg_id, version="2025-11-25"):
    return request(msg_id, "initialize",
                   {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}})


def valid(method: str, version: str, result: dict) -> dict:
    wire_types.validate_server_result(method, version, result)
    return result


@pytest.mark.parametrize("version", HANDSHAKE)
def test_initialize_echoes_each_handshake_revision(server, version):
    out = replay(server, initialize(1, version))
    result = valid("initialize", version, out[0]["result"])
    assert result == {
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": "methods", "version": "2.5.0"},
        "instructions": "Tools for tests.",
    }


@pytest.mark.parametrize("asked", ["2099-01-01", "2026-07-28", "1.0", ""])
def test_initialize_offers_the_newest_handshake_revision_otherwise(server, asked):
    out = replay(server, initialize(1, asked))
    assert out[0]["result"]["protocolVersion"] == "2025-11-25"


@pytest.mark.parametrize("params", [None, {}, {"protocolVersion": 20241105}])
def test_initialize_without_a_version_is_invalid_params(server, params):
    out = replay(server, request(1, "initialize", params))
    assert out[0]["error"]["code"] == -32602


def test_initialize_renegotiates_and_initialized_is_absorbed(server):
    out = replay(server, initialize(1, "2025-11-25"), notification("notifications/initialized"),
                 initialize(2, "2025-03-26"))
    assert [m["result"]["protocolVersion"] for m in out] == ["2025-11-25", "2025-03-26"]
    assert server.revision == "2025-03-26"


@pytest.mark.parametrize("version", HANDSHAKE)
def test_ping_and_tools_list(server, version):
    out = replay(server, initialize(1, version), request(2, "ping"), request(3, "tools/list"),
                 request(4, "tools/list", {"cursor": "anything"}))
    assert valid("ping", version, out[1]["result"]) == {}
    listed = valid("tools/list", version, out[2]["result"])
    assert [t["name"] for t in listed["tools"]] == ["echo", "explode", "refuse", "weather"]
    assert "nextCursor" not in listed
    assert out[3]["result"] == listed  # a cursor is accepted; one page holds every tool


def test_tools_list_with_a_bad_cursor_is_invalid_params(server):
    out = replay(server, request(1, "tools/list", {"cursor": 5}))
    assert out[0]["error"]["code"] == -32602


def test_tools_list_follows_changes_to_the_toolset(use_twin):
    tools = ToolSet([echo])
    server = Server("methods", "1", tools)
    first = replay(server, request(1, "tools/list"))
    tools.add(weather)
    second = replay(server, request(2, "tools/list"))
    assert [t["name"] for t in first[0]["result"]["tools"]] == ["echo"]
    assert [t["name"] for t in second[0]["result"]["tools"]] == ["echo", "weather"]


@pytest.mark.parametrize("version", HANDSHAKE)
def test_tools_call_results(server, version):
    out = replay(server, initialize(1, version), call(2, "echo", {"text": "hi"}), call(3, "refuse"),
                 call(4, "weather", {"city": "Oslo"}))
    echoed, refused, structured = (valid("tools/call", version, m["result"]) for m in out[1:])
    assert echoed == {"content": [{"type": "text", "text": "hi"}], "isError": False}
    assert refused["isError"] is True and refused["content"][0]["text"] == "refused: nothing to do"
    assert structured["content"][0]["text"] == '{"city":"Oslo","tempC":21.5}'
    if version in ("2024-11-05", "2025-03-26"):
        assert "structuredContent" not in structured  # the revision has no such field
    else:
        assert structured["structuredContent"] == {"city": "Oslo", "tempC": 21.5}


def test_tools_call_grammar_errors(server):
    out = replay(
        server,
        request(1, "tools/call"),
        request(2, "tools/call", {"arguments": {}}),
        request(3, "tools/call", {"name": 7}),
        call(4, "nope", {}),
        call(5, "echo") | {"params": {"name": "echo", "arguments": ["hi"]}},
    )
    codes = [(m["id"], m["error"]["code"]) for m in out]
    assert codes == [(1, -32602), (2, -32602), (3, -32602), (4, -32601), (5, -32602)]
    assert "nope" in out[3]["error"]["message"]


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        ({}, "missing required argument 'text'"),
        (None, "missing required argument 'text'"),  # no `arguments` at all
        ({"text": 5}, "argument 'text': expected string, got integer"),
        ({"text": None}, "argument 'text': expected string, got null"),
        ({"text": "x", "loud": True}, "unexpected argument 'loud'; takes text"),  # the names it takes
    ],
)
def test_arguments_that_break_the_schema_are_an_error_result_naming_the_argument(server, arguments, needle):
    out = replay(server, call(1, "echo", arguments))
    result = out[0]["result"]
    assert result["isError"] is True
    assert needle in result["content"][0]["text"]


def test_a_tool_that_raises_is_an_error_result_with_the_exception_text(server):
    out = replay(server, call(1, "explode"), call(2, "explode", {"code": 3}), call(3, "echo", {"text": "after"}))
    raised, exited, after = (m["result"] for m in out)
    assert raised["isError"] is True
    assert "ValueError: boom: the widget is missing" in raised["content"][0]["text"]
    assert exited["isError"] is True and "exited with status 3" in exited["content"][0]["text"]
    assert after["content"][0]["text"] == "after"


def test_anything_else_is_method_not_found(server):
    out = replay(server, request(1, "resources/list"), request(2, "prompts/list"), request(3, "server/discover"),
                 request(4, "notifications/initialized"), request(5, "logging/setLevel", {"level": "info"}))
    assert [m["error"]["code"] for m in out] == [-32601] * 5


# -- the stateless era (2026-07-28) -------------------------------------------------------------------

STAMP = {"io.modelcontextprotocol/serverInfo": {"name": "methods", "version": "2.5.0"}}


def test_server_discover(server):
    out = replay(server, modern(request(1, "server/discover")))
    result = valid("server/discover", "2026-07-28", out[0]["result"])
    assert result["supportedVersions"][0] == "2026-07-28"
    assert set(HANDSHAKE) <= set(result["supportedVersions"])  # both eras really are served
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["resultType"] == "complete" and result["ttlMs"] == 0 and result["cacheScope"] == "private"
    assert result["_meta"] == STAMP
    assert result["instructions"] == "Tools for tests."


def test_stateless_tools_list_and_call(server):
    out = replay(server, modern(request(1, "tools/list")), modern(call(2, "weather", {"city": "Rome"})),
                 modern(call(3, "explode")))
    listed = valid("tools/list", "2026-07-28", out[0]["result"])
    assert [t["name"] for t in listed["tools"]] == ["echo", "explode", "refuse", "weather"]
    assert (listed["resultType"], listed["ttlMs"], listed["cacheScope"], listed["_meta"]) == (
        "complete", 0, "private", STAMP)
    called = valid("tools/call", "2026-07-28", out[1]["result"])
    assert called["structuredContent"] == {"city": "Rome", "tempC": 21.5}
    assert called["resultType"] == "complete" and called["_meta"] == STAMP
    failed = valid("tools/call", "2026-07-28", out[2]["result"])
    assert failed["isError"] is True and failed["resultType"] == "complete"


def test_envelope_validation_order(server):
    no_caps = {k: v for k, v in ENVELOPE.items() if "Capabilities" not in k}
    out = replay(
        server,
        request(1, "tools/list", {"_meta": no_caps}),
        request(2, "tools/list", {"_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": 2026}}),
        request(3, "tools/list", {"_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2027-01-01"}}),
        modern(request(4, "ping")),
        request(5, "tools/list", {"_meta": {**ENVELOPE, "io.modelcontextprotocol/clientCapabilities": "x"}}),
    )
    errors = [m["error"] for m in out]
    assert [e["code"] for e in errors] == [-32602, -32602, -32022, -32601, -32602]
    assert "io.modelcontextprotocol/clientCapabilities" in errors[0]["message"]
    assert errors[2]["data"] == {"supported": errors[2]["data"]["supported"], "requested": "2027-01-01"}
    assert errors[2]["data"]["supported"][0] == "2026-07-28"
    assert all("resultType" not in m for m in out)


def test_each_invalid_params_error_hints_at_what_that_request_got_wrong(server):
    no_caps = {k: v for k, v in ENVELOPE.items() if "Capabilities" not in k}
    out = replay(
        server,
        call(1, "echo", {"text": "x"}, _meta=no_caps),
        request(2, "tools/list", {"_meta": no_caps}),
        request(3, "tools/call", {"name": "echo", "_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": 7}}),
        request(4, "tools/call", {"name": "echo", "_meta": {**ENVELOPE, "io.modelcontextprotocol/clientCapabilities": []}}),
        request(5, "initialize", {"capabilities": {}}),
        request(6, "tools/list", {"cursor": 3}),
        request(7, "ping", ["not", "an", "object"]),
        request(8, "tools/call", {"arguments": {}}),
    )
    hints = {m["id"]: m["error"]["data"]["fix"] for m in out}
    assert all(m["error"]["code"] == -32602 for m in out)
    for msg_id in (1, 2, 4):
        assert "io.modelcontextprotocol/clientCapabilities" in hints[msg_id]
    assert "io.modelcontextprotocol/protocolVersion" in hints[3]
    assert "protocolVersion" in hints[5]
    assert "cursor" in hints[6]
    assert "params" in hints[7]
    assert "tools/call" in hints[8]  # the only one that is about tools/call
    assert not any("tools/call" in hints[msg_id] for msg_id in range(1, 8))


def test_unsupported_version_lets_the_official_client_fall_back(server):
    """The -32022 `supported` list names handshake revisions, which the SDK's probe reads as 'use
    initialize' instead of 'incompatible'."""
    from mcp_types import UnsupportedProtocolVersionErrorData
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    out = replay(server, modern(request(1, "server/discover"),
                                **{"io.modelcontextprotocol/protocolVersion": "2030-01-01"}))
    data = UnsupportedProtocolVersionErrorData.model_validate(out[0]["error"]["data"])
    assert any(v in HANDSHAKE_PROTOCOL_VERSIONS for v in data.supported)


def test_both_eras_on_one_process(server):
    out = replay(
        server,
        initialize(1, "2024-11-05"),
        modern(call(2, "weather", {"city": "Oslo"})),
        call(3, "weather", {"city": "Oslo"}),
        modern(initialize(4, "2025-06-18")),  # initialize is always the handshake, envelope or not
        call(5, "weather", {"city": "Oslo"}),
    )
    assert out[1]["result"]["structuredContent"] == {"city": "Oslo", "tempC": 21.5}
    assert "structuredContent" not in out[2]["result"]  # the handshake era stays at 2024-11-05
    assert "resultType" not in out[2]["result"]
    assert out[3]["result"]["protocolVersion"] == "2025-06-18"
    assert out[4]["result"]["structuredContent"] == {"city": "Oslo", "tempC": 21.5}
