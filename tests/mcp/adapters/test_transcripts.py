"""The same scripted session against an app under its SDK's own stdio run and under `ferrule run`:
the answers must match as JSON, after normalising only what may legitimately differ (the order of
unordered lists, and the code of an uncaught handler fault, which the SDK sends as 0 and JSON-RPC
names -32603).

Waits are on what the server says (an answer, a progress notification), never on the clock."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from testkit.dropin import Peer, call, ferrule_command, req, sdk_command, transcript

APPS = {"mcpserver_app": "mcp.server.mcpserver", "fastmcp_app": "fastmcp", "lowlevel_app": "mcp.server.lowlevel"}


def handshake_session(peer: Peer, app: str) -> dict[str, Any]:
    """Every feature in the handshake era; the transcript: answers by id, notifications by kind."""
    peer.ask(req(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
                                   "clientInfo": {"name": "transcript", "version": "0"}}))
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    peer.ask(req(2, "tools/list"))
    peer.ask(call(3, "add", {"a": 2, "b": 3}))
    peer.ask(call(4, "add", {"a": "two", "b": 3}))
    peer.ask(call(5, "explode", {}))
    peer.ask(req(6, "no/such/method"))
    peer.ask(call(7, "no_such_tool", {}))
    if app == "lowlevel_app":
        return transcript(peer)
    peer.ask(call(8, "weather", {"city": "Oslo"}))
    peer.ask(req(9, "tools/call", {"name": "steps", "arguments": {"count": 3}, "_meta": {"progressToken": "p9"}}))
    peer.ask(req(10, "resources/list"))
    peer.ask(req(11, "resources/templates/list"))
    peer.ask(req(12, "resources/read", {"uri": "memo://readme"}))
    peer.ask(req(13, "resources/read", {"uri": "memo://notes/rust"}))
    peer.ask(req(14, "prompts/list"))
    peer.ask(req(15, "prompts/get", {"name": "review", "arguments": {"code": "fn main() {}"}}))
    peer.ask(req(16, "completion/complete", {"ref": {"type": "ref/resource", "uri": "memo://notes/{topic}"},
                                             "argument": {"name": "topic", "value": "py"}}))
    # a ping is answered while a call runs: the call ends only when a later call releases it
    peer.send(call(17, "wait_release", {}))
    peer.ask(req(18, "ping"))
    peer.ask(call(19, "release", {}))
    peer.wait_answer(17)
    # a running call is cancelled: it said it started (progress); after the cancel it is never answered
    peer.send(req(20, "tools/call", {"name": "hang", "arguments": {}, "_meta": {"progressToken": "h20"}}))
    peer.wait_notification(lambda n: n.get("params", {}).get("progressToken") == "h20")
    peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 20, "reason": "test"}})
    peer.ask(req(21, "ping"))
    peer.ask(call(22, "was_cancelled", {}))
    # a request from server to client: the client's answer reaches the tool that asked
    peer.send(call(23, "roots", {}))
    asked = peer.wait_notification(lambda n: n.get("method") == "roots/list")
    peer.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": [{"uri": "file:///work", "name": "work"}]}})
    peer.wait_answer(23)
    return transcript(peer)


def stateless_session(peer: Peer, app: str) -> dict[str, Any]:
    """The 2026-07-28 era from the first request (a process of its own: the SDK locks its era)."""
    peer.ask(req(1, "server/discover", stateless=True))
    peer.ask(req(2, "tools/list", stateless=True))
    peer.ask(req(3, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}, stateless=True))
    peer.ask(req(4, "tools/call", {"name": "explode", "arguments": {}}, stateless=True))
    peer.ask(req(5, "ping", stateless=True))
    peer.ask(req(6, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2027-01-01"}},
                 stateless=True))
    if app != "lowlevel_app":
        peer.ask(req(7, "resources/read", {"uri": "memo://readme"}, stateless=True))
        peer.ask(req(8, "tools/call", {"name": "roots", "arguments": {}}, stateless=True))  # no back-channel in 2026
    return transcript(peer)


def both(app: str, session: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    pytest.importorskip(APPS[app])
    theirs = session(Peer(sdk_command(app)), app)
    ours = session(Peer(ferrule_command(f"{app}.py")), app)
    return theirs, ours


@pytest.mark.parametrize("app", list(APPS))
def test_the_handshake_session_answers_as_the_sdk_does(app):
    theirs, ours = both(app, handshake_session)
    assert ours == theirs
    if app != "lowlevel_app":  # the session did what it meant to
        assert 20 not in ours["answers"] and ours["answers"][22]["result"]["structuredContent"] == {"result": ["hang"]}
        assert ours["answers"][18]["result"] == {} and ours["answers"][17]["result"]["content"][0]["text"] == "released"
        assert [p["progress"] for p in ours["progress"]["p9"]] == [1, 2, 3]
        assert ours["answers"][23]["result"]["structuredContent"] == {"result": ["file:///work"]}
        assert [f"did step {i}" in str(entry["data"]) for i, entry in enumerate(ours["logs"], 1)] == [True] * 3


@pytest.mark.parametrize("app", list(APPS))
def test_the_stateless_session_answers_as_the_sdk_does(app):
    theirs, ours = both(app, stateless_session)
    assert ours == theirs
    assert ours["answers"][3]["result"]["resultType"] == "complete"


def auth_session(peer: Peer) -> dict[str, Any]:
    """A fastmcp app's `auth=` checks and its Context's transport, which its stdio run names "stdio"."""
    peer.ask(req(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "transcript", "version": "0"}}))
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    peer.ask(req(2, "tools/list"))
    peer.ask(call(3, "purge", {"confirm": True}))
    peer.ask(req(4, "resources/list"))
    peer.ask(req(5, "resources/read", {"uri": "admin://secrets"}))
    for msg_id, name in enumerate(("transport_plain", "transport_sync", "transport_async"), 6):
        peer.ask(call(msg_id, name, {}))
    return transcript(peer)


def test_a_fastmcp_app_sees_the_stdio_transport_in_every_handler():
    pytest.importorskip("fastmcp")
    theirs = auth_session(Peer(sdk_command("fastmcp_auth_app")))
    ours = auth_session(Peer(ferrule_command("fastmcp_auth_app.py")))
    assert ours == theirs
    answers = ours["answers"]
    assert "purge" in {tool["name"] for tool in answers[2]["result"]["tools"]}
    assert answers[3]["result"]["content"][0]["text"] == "purged"
    assert answers[5]["result"]["contents"][0]["text"] == "s3cr3t"
    assert [answers[i]["result"]["content"][0]["text"] for i in (6, 7, 8)] == ["stdio"] * 3


def options_session(peer: Peer) -> dict[str, Any]:
    """A low-level app's own capabilities, and the notification it sends when its tool list changes."""
    peer.ask(req(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "transcript", "version": "0"}}))
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    peer.ask(call(2, "changed", {}))
    seen = transcript(peer)
    seen["changed"] = [n for n in peer.notifications if n.get("method") == "notifications/tools/list_changed"]
    return seen


IN_CODE = ("from lowlevel_options_app import server, options\nimport ferrule.mcp\n"
           "ferrule.mcp.serve(server, initialization_options=options())\n")


def test_a_low_level_app_served_in_code_keeps_its_initialization_options():
    pytest.importorskip("mcp.server.lowlevel")
    theirs = options_session(Peer(sdk_command("lowlevel_options_app")))
    ours = options_session(Peer([sys.executable, "-c", IN_CODE]))
    assert ours == theirs
    capabilities = ours["answers"][1]["result"]["capabilities"]
    assert capabilities["tools"] == {"listChanged": True}
    assert capabilities["experimental"] == {"weather/alerts": {"enabled": True}}
    assert ours["changed"] == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]
