"""The wire rules (docs/MCP.md §1) over the replay transport: what a host sees for each line."""

from __future__ import annotations

import json

import orjson
import pytest

from ferrule.mcp import LineTooLong, ReplayTransport, Server, ToolOutput, tool
from testkit.mcp import call, notification, replay, request


@tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@pytest.fixture
def server(use_twin: str) -> Server:
    return Server("wire", "1.0", [echo])


def test_request_is_answered_and_notifications_never(server):
    out = replay(
        server,
        notification("notifications/initialized"),
        notification("notifications/whatever", {"x": 1}),
        {"jsonrpc": "2.0", "id": None, "method": "ping"},  # a null id is a notification
        request(1, "ping"),
    )
    assert out == [{"jsonrpc": "2.0", "id": 1, "result": {}}]


def test_non_json_line_is_a_parse_error_and_the_loop_goes_on(server):
    out = replay(server, b"this is not json", b"{\"jsonrpc\": \"2.0\", \"id\": 1,", request(2, "ping"))
    assert [m["id"] for m in out] == [None, None, 2]
    assert [m["error"]["code"] for m in out[:2]] == [-32700, -32700]
    assert out[2]["result"] == {}


@pytest.mark.parametrize(
    ("line", "answer_id"),
    [
        (b"[1, 2]", None),  # not an object (a batch)
        (b"[]", None),
        (b"42", None),
        (b'"text"', None),
        (b"null", None),
        (b'{"jsonrpc": "2.0", "id": 7}', 7),  # no method
        (b'{"jsonrpc": "2.0", "id": "s"}', "s"),
        (b'{"jsonrpc": "2.0", "method": 5, "id": 3}', 3),  # method not a string
        (b'{"id": 4, "method": "ping"}', 4),  # no jsonrpc member
        (b'{"jsonrpc": "1.0", "id": 5, "method": "ping"}', 5),
        (b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', None),  # ids are strings or integers
        (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', None),
        (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', None),
        (b'{"jsonrpc": "2.0", "id": [1], "method": "ping"}', None),
    ],
)
def test_invalid_request_objects_get_32600(server, line, answer_id):
    out = replay(server, line, request("next", "ping"))
    assert out[0]["error"]["code"] == -32600
    assert out[0]["id"] == answer_id
    assert "id" in out[0]
    assert out[1] == {"jsonrpc": "2.0", "id": "next", "result": {}}


@pytest.mark.parametrize(
    "line",
    [
        b'{"method": "notifications/initialized"}',  # no jsonrpc member
        b'{"jsonrpc": "1.0", "method": "notifications/initialized"}',
        b'{"jsonrpc": "2.0", "method": 5}',
        b'{"jsonrpc": "2.0", "id": null, "method": 5}',
        b'{"jsonrpc": "2.0", "method": "ping", "params": [1, 2]}',
        b'{"jsonrpc": "2.0"}',
        b'{"id": null}',
        b"{}",
    ],
)
def test_a_frame_without_an_id_is_absorbed_whatever_else_is_wrong(server, line):
    transport = ReplayTransport([line, request("next", "ping")])
    server.run(transport)
    assert transport.output == [b'{"jsonrpc":"2.0","id":"next","result":{}}']


def test_params_that_are_not_an_object_are_invalid_params(server):
    out = replay(server, request(1, "ping") | {"params": [1, 2]}, request(2, "tools/list") | {"params": "x"})
    assert [(m["id"], m["error"]["code"]) for m in out] == [(1, -32602), (2, -32602)]


def test_responses_from_the_client_are_dropped(server):
    out = replay(server, {"jsonrpc": "2.0", "id": 99, "result": {}},
                 {"jsonrpc": "2.0", "id": 98, "error": {"code": 1, "message": "x"}}, request(1, "ping"))
    assert out == [{"jsonrpc": "2.0", "id": 1, "result": {}}]


@pytest.mark.parametrize(
    "raw_id",
    [b"0", b"-5", b'"7"', b'""', b"9007199254740993", b"18446744073709551615", b"18446744073709551616",
     b"-9223372036854775809", b"123456789012345678901234567890", b'"\xc3\xa9\xe2\x82\xac"'],
)
def test_ids_are_echoed_exactly(server, raw_id):
    line = b'{"jsonrpc":"2.0","id":' + raw_id + b',"method":"ping"}'
    transport = ReplayTransport([line])
    server.run(transport)
    assert transport.output == [b'{"jsonrpc":"2.0","id":' + raw_id + b',"result":{}}']


def test_exact_big_id_on_tools_call(server):
    line = b'{"jsonrpc":"2.0","id":18446744073709551617,"method":"tools/call","params":{"name":"echo","arguments":{"text":"big"}}}'
    transport = ReplayTransport([line])
    server.run(transport)
    assert transport.output[0].startswith(b'{"jsonrpc":"2.0","id":18446744073709551617,')
    assert transport.messages()[0]["result"]["content"][0]["text"] == "big"


def test_invalid_utf8_is_replaced_not_refused(server):
    line = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\xffb"}}}'
    out = replay(server, line)
    assert out[0]["result"]["content"][0]["text"] == "a\ufffdb"


def test_a_line_over_the_bound_is_refused_and_the_next_one_served(use_twin):
    server = Server("wire", "1.0", [echo], max_line=200)
    long_call = call(1, "echo", {"text": "x" * 500})
    out = replay(server, long_call, call(2, "echo", {"text": "short"}))
    assert out[0]["id"] is None
    assert out[0]["error"]["code"] == -32600
    assert "200 bytes" in out[0]["error"]["message"]
    assert out[1]["result"]["content"][0]["text"] == "short"


def test_a_transport_reported_long_line_is_answered_too(server):
    out = replay(server, LineTooLong(1024), request(1, "ping"))
    assert out[0]["error"]["code"] == -32600 and out[0]["id"] is None
    assert out[1]["result"] == {}


def test_error_data_names_the_section_and_the_fix(server):
    out = replay(server, b"{", request(1, "nope/nope"))
    parse, unknown = out[0]["error"], out[1]["error"]
    assert parse["data"]["section"].startswith("docs/MCP.md §1")
    assert parse["data"]["fix"]
    assert unknown["code"] == -32601 and "nope/nope" in unknown["message"]


def test_loop_ends_at_end_of_input(server):
    transport = ReplayTransport([])
    assert server.run(transport) is None
    assert transport.output == []


def test_loop_ends_when_the_channel_dies(use_twin):
    runs = []

    @tool
    def count() -> str:
        """Counts runs."""
        runs.append(1)
        return str(len(runs))

    server = Server("wire", "1.0", [count])
    transport = ReplayTransport([call(i, "count") for i in range(1, 6)], close_after=2)
    server.run(transport)  # returns quietly: a dead channel is not an error of the server
    assert [m["id"] for m in transport.messages()] == [1, 2]
    assert len(runs) == 3  # the third call ran, its answer found the channel dead, and the loop stopped


def test_frames_are_single_lines(server):
    out_transport = ReplayTransport([call(1, "echo", {"text": "line one\nline two\r\n"})])
    server.run(out_transport)  # ReplayTransport refuses a frame with a raw newline
    assert out_transport.messages()[0]["result"]["content"][0]["text"] == "line one\nline two\r\n"


def test_a_tool_output_that_is_not_json_is_an_error_result(use_twin):
    class Odd:
        def descriptor(self):
            return {"name": "odd", "description": "", "inputSchema": {"type": "object"}}

        def run(self, args):
            return ToolOutput("fine", structured={"when": object()})

    out = replay(Server("wire", "1.0", [Odd()]), call(1, "odd"))
    result = out[0]["result"]
    assert result["isError"] is True
    assert "not JSON" in result["content"][0]["text"]


def initialize(msg_id, version):
    return request(msg_id, "initialize",
                   {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}})


def batch(*members) -> bytes:
    return b"[" + b",".join(m if isinstance(m, bytes) else orjson.dumps(m) for m in members) + b"]"


def test_a_2025_03_26_session_is_answered_a_batch_with_an_array(server):
    transport = ReplayTransport([
        initialize(0, "2025-03-26"),
        batch(request(1, "ping"), notification("notifications/initialized"), call("two", "echo", {"text": "hi"}),
              request(3, "nope"), b"5", b"[]", b'{"method":"notifications/x"}', {"jsonrpc": "2.0", "id": 9, "result": {}},
              b'{"jsonrpc":"2.0","id":18446744073709551617,"method":"ping"}', initialize(4, "2025-06-18")),
        batch(notification("notifications/initialized"), notification("notifications/cancelled", {"requestId": 1})),
        b"[]",
        b" [ ] ",
        request("after", "ping"),
    ])
    server.run(transport)
    lines = transport.output[1:]
    assert len(lines) == 4  # the notification-only batch is not answered at all
    answers = json.loads(lines[0])  # the standard library keeps the big id exact
    assert [(a.get("id"), a.get("error", {}).get("code")) for a in answers] == [
        (1, None), ("two", None), (3, -32601), (None, -32600), (None, -32600), (18446744073709551617, None),
        (4, -32600)]
    assert answers[1]["result"]["content"][0]["text"] == "hi"
    assert b'"id":18446744073709551617,' in lines[0]  # echoed exactly
    assert "initialize" in answers[6]["error"]["message"]
    assert server.revision == "2025-03-26"  # the refused initialize renegotiated nothing
    for empty in lines[1:3]:  # an empty batch: one error object, not an array
        assert orjson.loads(empty)["error"]["code"] == -32600 and orjson.loads(empty)["id"] is None
    assert orjson.loads(lines[3]) == {"jsonrpc": "2.0", "id": "after", "result": {}}


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25", None])
def test_other_sessions_refuse_a_batch_with_one_error(server, version):
    script = [] if version is None else [initialize(0, version)]
    transport = ReplayTransport([*script, batch(request(1, "ping"), request(2, "ping")), request(3, "ping")])
    server.run(transport)
    refusal, after = transport.messages()[len(script):]
    assert refusal["id"] is None and refusal["error"]["code"] == -32600
    assert "2025-03-26" in refusal["error"]["message"]
    assert after == {"jsonrpc": "2.0", "id": 3, "result": {}}
