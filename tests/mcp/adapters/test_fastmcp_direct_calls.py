"""Calls `ferrule run` answers straight from a fastmcp app's local tools: the answers match
fastmcp's own stdio run of the app for every shape of result and failure, in each handshake
revision; a change of what the session may call reaches later calls; an app with middleware of its
own, or error masking, keeps fastmcp's semantics.

Waits are on what the server says (an answer), never on the clock."""

from __future__ import annotations

import signal
import sys
import time
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

pytest.importorskip("fastmcp", reason="fastmcp is not installed (ferrule[sdk])")

TEXT_TOOLS = ("text", "text_untyped", "text_any", "text_upper", "text_unstructured")  # tools that return the text they are given, under differing annotations
APP = "fastmcp_sync_app"
CALLS = [
    ("shout", {"text": "hi"}),
    ("point", {"x": 1, "y": 2}),
    ("point", {"x": "1"}),  # a string that parses as an integer
    ("point", {"x": "one"}),
    ("point", {}),
    ("point", {"x": 1, "extra": "ignored"}),
    ("pair", {"left": "l", "right": "r"}),
    ("listing", {"count": 3}),
    ("listing", {"count": 9}),
    ("nothing", {}),
    ("untyped", {"value": {"nested": [1, 2]}}),
    ("mapping", {"items": ["a", "bb"]}),
    ("mapping", {"items": '["a", "bb"]'}),  # a JSON list sent as a string
    ("unstructured", {"items": ["a"]}),
    ("counted", {"count": 3}),
    ("raw_bytes", {}),
    ("picture", {}),
    ("blocks", {}),
    ("own_result", {"flag": True}),
    ("own_call_result", {"flag": True}),
    ("own_call_result", {"flag": False}),
    ("refuses", {"reason": "no"}),
    ("explodes", {}),
    ("body_validation", {}),
    ("missing", {}),
    ("wrong_output", {}),
    ("on_loop", {"text": "x"}),
    ("in_thread", {}),
    ("context_seen", {}),
    ("addressed", {}),
    ("marks", {}),
    ("marks", {}),  # what the first call set is not seen here
]


def session(peer: Peer, revision: str) -> dict[str, Any]:
    peer.ask(req(1, "initialize", {"protocolVersion": revision, "capabilities": {},
                                   "clientInfo": {"name": "direct", "version": "0"}}))
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    peer.ask(req(2, "tools/list"))
    for msg_id, (name, arguments) in enumerate(CALLS, 10):
        peer.ask(call(msg_id, name, arguments))
    peer.ask(req(60, "tools/call", {"name": "point", "arguments": {"x": 5}, "_meta": {"progressToken": 7}}))
    peer.ask(req(61, "tools/call", {"name": "point", "arguments": ["x"]}))  # malformed params: the kernel's answer
    peer.ask(req(62, "tools/call", {"name": "no_such_tool", "arguments": {}}))
    # what the session may call changes: later calls see it
    peer.ask(call(63, "hide", {"name": "shout"}))
    peer.ask(call(64, "shout", {"text": "hidden"}))
    peer.ask(call(65, "hide_everywhere", {"name": "pair"}))
    peer.ask(call(66, "pair", {"left": "l", "right": "r"}))
    for msg_id, (name, value) in enumerate(((name, value) for name in TEXT_TOOLS for value in TEXTS), 100):
        peer.ask(call(msg_id, name, {"value": value}))
    return transcript(peer)


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_direct_answers_match_fastmcp(revision):
    theirs = session(Peer(sdk_command(APP)), revision)
    ours = session(Peer(ferrule_command(f"{APP}.py")), revision)
    assert ours == theirs
    # key order too: what the client reads is fastmcp's answer byte for byte, up to the JSON encoder's spacing
    assert [orjson.dumps(ours["answers"][key]) for key in sorted(ours["answers"])] == \
        [orjson.dumps(theirs["answers"][key]) for key in sorted(ours["answers"])]
    answers = {key: answer.get("result") for key, answer in ours["answers"].items()}
    assert answers[10]["content"][0]["text"] == "HI"
    assert answers[13]["isError"] is True and "validation error" in answers[13]["content"][0]["text"]
    assert answers[32]["content"][0]["text"] == "Error calling tool 'explodes': boom"
    assert answers[36]["content"][0]["text"] == "x:True"  # on the read loop, as fastmcp runs it on its event loop
    assert answers[37]["content"][0]["text"] == "false"  # a worker thread, as under fastmcp
    assert [answers[n]["content"][0]["text"] for n in (40, 41)] == ["unset", "unset"]  # a context of its own per call
    assert answers[64]["isError"] is True and answers[64]["content"][0]["text"] == "Unknown tool: 'shout'"
    assert answers[66]["isError"] is True and answers[66]["content"][0]["text"] == "Unknown tool: 'pair'"
    if revision >= "2025-06-18":
        assert answers[11]["structuredContent"] == {"x": 1, "y_value": 2}  # fastmcp dumps by field name


def test_a_blocked_sync_tool_holds_nothing_up_and_a_cancelled_one_is_not_answered():
    theirs = blocked_sync_tool_session(Peer(sdk_command(APP)))
    ours = blocked_sync_tool_session(Peer(ferrule_command(f"{APP}.py")))
    assert ours == theirs
    assert 2 not in ours["answers"] and ours["answers"][6]["result"]["content"][0]["text"] == "released"


def test_a_blocked_sync_tool_holds_up_no_line_read_after_it_nor_the_call_that_releases_it():
    check_blocked_mid_read(APP)


def test_a_blocked_sync_tool_in_a_batch_holds_back_none_of_the_batchs_other_members():
    peer = Peer(ferrule_command(f"{APP}.py"))
    peer.ask(req(1, "initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                   "clientInfo": {"name": "direct", "version": "0"}}))
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    peer.send([req(2, "ping"), call(3, "wait_release", {}), req(4, "ping")])
    peer.ask(req(5, "ping"))  # handled after the batch: by now its members are answered
    members = {answer["id"] for note in peer.notifications if isinstance(note, list) for answer in note}
    assert {2, 4} <= members | set(peer.answers) and 3 not in peer.answers
    peer.ask(call(6, "release", {}))
    assert peer.wait_answer(3)["result"]["content"][0]["text"] == "released"
    status, _, _ = peer.close()
    assert status == 0


def test_ctrl_c_during_a_sync_tool_lets_its_answer_out_then_stops():
    peer = Peer(ferrule_command(f"{APP}.py"), ctrl_c=True)
    peer.ask(req(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "direct", "version": "0"}}))
    peer.send(call(2, "noted_nap", {}))
    deadline = time.monotonic() + 30
    while "napping" not in peer.stderr_so_far():  # the tool runs, on the thread that read its call
        assert time.monotonic() < deadline, "the tool never started"
        time.sleep(0.01)
    peer.proc.send_signal(signal.SIGINT)
    status, _, err = peer.close()
    assert status == -signal.SIGINT, err
    assert peer.answers[2]["result"]["content"][0]["text"] == "rested", "the call under way still answers"
    assert "Fatal Python error" not in err


def test_the_apps_stderr_reaches_the_log_while_it_runs():
    peer = Peer(ferrule_command(f"{APP}.py"))
    peer.ask(req(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "direct", "version": "0"}}))
    shouted = peer.ask(call(2, "shout", {"text": "sync"}))
    assert shouted["result"]["content"] == [{"type": "text", "text": "SYNC"}]
    assert "shouting sync" in peer.stderr_so_far()
    peer.ask(call(3, "point", {"x": "one"}))  # fastmcp's own log line for rejected arguments
    assert "Invalid arguments for tool" in peer.stderr_so_far()
    status, _, err = peer.close()
    assert status == 0 and err.count("shouting sync") == 1


WATCHED_APP = '''
from fastmcp import FastMCP
from fastmcp.server.middleware import Middleware

seen = []


class Watch(Middleware):
    async def on_call_tool(self, context, call_next):
        seen.append(context.message.name)
        return await call_next(context)


mcp = FastMCP("watched", middleware=[Watch()])


@mcp.tool
def echo(text: str) -> str:
    return text


@mcp.tool
def watched() -> list[str]:
    return seen
'''


def test_an_apps_own_middleware_still_sees_every_call(tmp_path):
    assert calls_seen_by_the_apps_middleware(WATCHED_APP, tmp_path) == ["echo", "echo", "watched"]


CONFIGURED_APP = '''
from fastmcp import FastMCP

mcp = FastMCP("configured", mask_error_details=True, strict_input_validation=True)


@mcp.tool
def explodes() -> str:
    raise RuntimeError("secret detail")


@mcp.tool
def double(x: int) -> int:
    return 2 * x


if __name__ == "__main__":
    mcp.run(show_banner=False)
'''


def configured_session(peer: Peer) -> dict[str, Any]:
    peer.ask(req(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "direct", "version": "0"}}))
    peer.ask(call(2, "explodes", {}))
    peer.ask(call(3, "double", {"x": "10"}))  # strict: no string for an integer
    peer.ask(call(4, "double", {"x": 10}))
    return transcript(peer)


def test_masking_and_strict_validation_hold(tmp_path):
    (tmp_path / "configured_app.py").write_text(CONFIGURED_APP)
    theirs = configured_session(Peer([sys.executable, str(tmp_path / "configured_app.py")], cwd=tmp_path))
    ours = configured_session(Peer(ferrule_command("configured_app.py"), cwd=tmp_path))
    assert ours == theirs
    answers = ours["answers"]
    assert answers[2]["result"]["content"][0]["text"] == "Error calling tool 'explodes'"
    assert answers[3]["result"]["isError"] is True and answers[4]["result"]["structuredContent"] == {"result": 20}
