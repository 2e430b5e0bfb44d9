"""Calls `ferrule run` answers straight from an MCPServer app's tool registry: the answers match the
SDK's own run of the app for every shape of result and failure, in each handshake revision; the
app's stderr reaches the host's log while the run goes on; a 2025-03-26 session may send batches.

Waits are on what the server says (an answer), never on the clock."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from testkit.dropin import (
    TEXTS,
    Peer,
    blocked_sync_tool_session,
    call,
    calls_seen_by_the_apps_middleware,
    check_blocked_mid_read,
    ferrule_command,
    req,
    sdk_command,
    transcript,
)

TEXT_TOOLS = ("text", "text_any", "text_short", "text_upper", "text_or_none")  # tools that return the text they are given, under differing annotations
APP = "sync_tools_app"
CALLS = [
    ("shout", {"text": "hi"}),
    ("point", {"x": 1, "y": 2}),
    ("point", {"x": "1"}),  # a string that parses as an integer
    ("point", {"x": "one"}),
    ("point", {}),
    ("pair", {"left": "l", "right": "r"}),
    ("listing", {"count": 3}),
    ("listing", {"count": 9}),
    ("nothing", {}),
    ("unstructured", {"items": ["a", "bb"]}),
    ("unstructured", {"items": '["a", "bb"]'}),  # a JSON list sent as a string: the SDK parses it
    ("untyped", {"value": {"nested": [1, 2]}}),
    ("refuses", {"reason": "no"}),
    ("wrong_output", {}),
    ("blocks", {}),
    ("own_result", {"flag": True}),
    ("own_result", {"flag": False}),
    ("point", {"x": 1, "extra": "ignored"}),
    ("aliased", {"firstName": "Ada", "tags": '["x", "y"]'}),
    ("aliased", {"first_name": "Ada", "tags": "not json"}),
    ("aliased", {"firstName": "Ada", "tags": "3"}),
]


def session(peer: Peer, revision: str) -> dict[str, Any]:
    peer.ask(req(1, "initialize", {"protocolVersion": revision, "capabilities": {},
                                   "clientInfo": {"name": "direct", "version": "0"}}))
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    peer.ask(req(2, "tools/list"))
    for msg_id, (name, arguments) in enumerate(CALLS, 10):
        peer.ask(call(msg_id, name, arguments))
    peer.ask(req(50, "tools/call", {"name": "point", "arguments": {"x": 5}, "_meta": {"progressToken": 7}}))
    peer.ask(req(51, "tools/call", {"name": "point", "arguments": ["x"]}))  # malformed params: the kernel's answer
    peer.ask(req(52, "tools/call", {"name": "no_such_tool", "arguments": {}}))
    for msg_id, (name, value) in enumerate(((name, value) for name in TEXT_TOOLS for value in TEXTS), 100):
        peer.ask(call(msg_id, name, {"value": value}))
    return transcript(peer)


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_direct_answers_match_the_sdk(revision):
    theirs = session(Peer(sdk_command(APP)), revision)
    ours = session(Peer(ferrule_command(f"{APP}.py")), revision)
    assert ours == theirs
    # key order too: what the client reads is the SDK's answer byte for byte, up to the JSON encoder's spacing
    assert [orjson.dumps(ours["answers"][key]) for key in sorted(ours["answers"])] == \
        [orjson.dumps(theirs["answers"][key]) for key in sorted(ours["answers"])]
    answers = ours["answers"]
    assert answers[10]["result"]["content"][0]["text"] == "HI"
    assert answers[13]["result"]["isError"] is True and "validation error" in answers[13]["result"]["content"][0]["text"]
    if revision >= "2025-06-18":
        assert answers[11]["result"]["structuredContent"] == {"x": 1, "yValue": 2}


def test_a_blocked_sync_tool_holds_nothing_up_and_a_cancelled_one_is_not_answered():
    theirs = blocked_sync_tool_session(Peer(sdk_command(APP)))
    ours = blocked_sync_tool_session(Peer(ferrule_command(f"{APP}.py")))
    assert ours == theirs
    assert 2 not in ours["answers"] and ours["answers"][6]["result"]["content"][0]["text"] == "released"


def test_a_blocked_sync_tool_holds_up_no_line_read_after_it_nor_the_call_that_releases_it():
    check_blocked_mid_read(APP)


def test_the_apps_stderr_reaches_the_log_while_it_runs():
    peer = Peer(ferrule_command(f"{APP}.py"))
    peer.ask(req(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "direct", "version": "0"}}))
    shouted = peer.ask(call(2, "shout", {"text": "sync"}))
    assert shouted["result"]["content"] == [{"type": "text", "text": "SYNC"}]  # the report is the SDK's, no stderr in it
    assert "shouting sync" in peer.stderr_so_far()
    whispered = peer.ask(call(3, "whisper", {"text": "ASYNC"}))
    assert whispered["result"]["content"] == [{"type": "text", "text": "async"}]
    assert "whispering ASYNC" in peer.stderr_so_far()
    peer.ask(call(4, "point", {"x": "one"}))  # the SDK's own log line for rejected arguments
    assert "rejected arguments" in peer.stderr_so_far()
    status, _, err = peer.close()
    assert status == 0 and err.count("shouting sync") == 1


def test_a_2025_03_26_session_may_send_batches():
    peer = Peer(ferrule_command(f"{APP}.py"))
    peer.ask(req(1, "initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                   "clientInfo": {"name": "direct", "version": "0"}}))
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"},
              [call(2, "point", {"x": 1}), call(3, "listing", {"count": 9}),
               {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": 1}}])
    answers = peer.batch_answers({2, 3})  # sync tools run off the read loop, as the SDK's worker threads
    assert answers[2]["result"]["content"][0]["text"] == '{\n  "x": 1,\n  "yValue": 0\n}'
    assert answers[3]["result"]["isError"] is True
    peer.close()


def test_other_revisions_refuse_a_batch():
    peer = Peer(ferrule_command(f"{APP}.py"))
    peer.ask(req(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                   "clientInfo": {"name": "direct", "version": "0"}}))
    peer.send([call(2, "point", {"x": 1})])
    refusal = peer.wait_answer(None)
    assert refusal["error"]["code"] == -32600
    peer.close()


WATCHED_APP = '''
from mcp.server.mcpserver import MCPServer

seen = []


async def watch(ctx, call_next):
    if ctx.method == "tools/call":
        seen.append(ctx.params["name"])
    return await call_next(ctx)


mcp = MCPServer("watched", middleware=[watch])


@mcp.tool()
def echo(text: str) -> str:
    return text


@mcp.tool()
def watched() -> list[str]:
    return seen
'''


def test_an_apps_own_middleware_still_sees_every_call(tmp_path):
    assert calls_seen_by_the_apps_middleware(WATCHED_APP, tmp_path) == ["echo", "echo", "watched"]
