"""The official TypeScript clients against ferrule.mcp servers and `ferrule run` over stdio: SDK v1
(@modelcontextprotocol/sdk, the 2025 handshake), SDK v2 (@modelcontextprotocol/client) in each mode it
offers (the handshake; server/discover, then the 2026-07-28 era here; a pinned 2026-07-28), and the MCP
Inspector's CLI. Both clients check `structuredContent` against a tool's `outputSchema` themselves.

Progress is checked on calls that go on after it: both clients drop a notification that arrives in the
same read as its call's response (they handle the response first; typescript-sdk issue 2580), which
no server can prevent."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from testkit.mcp import SAMPLE_SERVER
from testkit.node_clients import inspector, run_client
from testkit.twins import Twin
from testkit.waiting import wait_for

REPO = Path(__file__).resolve().parents[2]
DROPIN_APP = REPO / "examples" / "sdk_server_dropin.py"
CLIENTS = {  # id: (sdk, mode, the revision it must end up speaking)
    "v1": ("v1", "legacy", "2025-11-25"),
    "v2-legacy": ("v2", "legacy", "2025-11-25"),
    "v2-auto": ("v2", "auto", "2026-07-28"),
    "v2-2026-07-28": ("v2", "2026-07-28", "2026-07-28"),
}


def server_env(twin: Twin | None) -> dict[str, str]:
    env = twin.env() if twin else dict(os.environ)
    return {k: env[k] for k in ("PATH", "HOME", "FERRULE_NO_EXTENSIONS", "PYTHONPATH") if k in env}


def ferrule_command() -> str:
    found = shutil.which("ferrule", path=str(Path(sys.executable).parent))
    assert found, "the ferrule command is installed beside the interpreter"
    return found


@pytest.mark.parametrize("client", list(CLIENTS))
def test_typescript_client_in_each_mode(twin, client, tmp_path):
    sdk, mode, revision = CLIENTS[client]
    marker = str(tmp_path / "hold")
    steps = [
        {"list": True},
        {"call": "echo", "arguments": {"text": "hi there"}},
        {"call": "echo", "arguments": {"text": 5}},
        {"call": "explode"},
        {"call": "weather", "arguments": {"city": "Oslo"}},
        {"call": "hold", "arguments": {"marker": marker}, "cancel_on_progress": True},
        {"call": "echo", "arguments": {"text": "after the cancel"}},
    ]
    if revision != "2026-07-28":
        steps.append({"ping": True})  # the 2026-07-28 era has no ping: its client refuses to send one
    connected, listed, echoed, wrong, exploded, weather, held, after, *pinged = run_client(
        sdk, mode, [sys.executable, str(SAMPLE_SERVER)], steps, server_env(twin))

    assert connected["server"] == {"name": "sample", "version": "0.1"}
    assert connected["instructions"] == "A server for tests."
    if sdk == "v2":
        assert (connected["version"], connected["era"]) == (revision, "modern" if revision == "2026-07-28" else "legacy")
    names = [tool["name"] for tool in listed["tools"]]
    assert names == sorted(names) and {"echo", "explode", "steps", "weather", "hold"} <= set(names)
    assert next(t for t in listed["tools"] if t["name"] == "echo")["inputSchema"]["properties"] == {
        "text": {"type": "string"}}

    assert echoed["result"]["content"] == [{"type": "text", "text": "hi there"}]
    assert echoed["result"].get("isError") is False
    assert wrong["result"]["isError"] is True
    assert "argument 'text': expected string, got integer" in wrong["result"]["content"][0]["text"]
    assert exploded["result"]["isError"] is True
    assert "RuntimeError: the tool blew up" in exploded["result"]["content"][0]["text"]
    assert weather["result"]["structuredContent"] == {"city": "Oslo", "tempC": 21.5}

    assert [(p["progress"], p.get("message")) for p in held["progress"]] == [(1, "holding")]
    assert held["cancelled"] is True  # the client gave up on the call at its first progress...
    wait_for(lambda: os.path.exists(marker + ".cancelled"), what="the server to cancel the held call")  # ...told it
    assert after["result"]["content"] == [{"type": "text", "text": "after the cancel"}]
    assert pinged == ([] if revision == "2026-07-28" else [{"ping": "ok"}])


@pytest.mark.parametrize("client", ["v1", "v2-auto"])
def test_an_sdk_app_answers_the_typescript_client_alike_under_ferrule_run_and_its_own_stdio(client):
    sdk, mode, revision = CLIENTS[client]
    steps = [
        {"list": True},
        {"call": "remember", "arguments": {"key": "a", "text": "x"}},
        {"call": "recall_slowly", "arguments": {"key": "a"}, "progress": True},
        {"call": "remember", "arguments": {"key": 1}},
    ]
    if revision != "2026-07-28":
        steps.append({"ping": True})
    env = server_env(None)
    own = run_client(sdk, mode, [sys.executable, str(DROPIN_APP)], steps, env)
    ours = run_client(sdk, mode, [ferrule_command(), "run", str(DROPIN_APP)], steps, env)
    assert ours == own
    assert [p["message"] for p in ours[3]["progress"]] == ["looking (1/3)", "looking (2/3)", "looking (3/3)"]
    assert ours[3]["result"]["content"] == [{"type": "text", "text": "x"}]
    assert ours[4]["result"]["isError"] is True


def test_the_inspector_cli_lists_and_calls_tools(twin, tmp_path):
    server = [sys.executable, str(SAMPLE_SERVER)]
    env = server_env(twin)
    listed = inspector(server, "--method", "tools/list", env=env, scratch=tmp_path)
    assert {"echo", "weather", "hold"} <= {tool["name"] for tool in listed["tools"]}
    called = inspector(server, "--method", "tools/call", "--tool-name", "weather", "--tool-arg", "city=Oslo",
                       env=env, scratch=tmp_path)
    assert called["structuredContent"] == {"city": "Oslo", "tempC": 21.5}
    assert called["isError"] is False


def test_the_inspector_cli_sees_an_sdk_app_alike_under_ferrule_run_and_its_own_stdio(tmp_path):
    env = server_env(None)
    request = ("--method", "tools/call", "--tool-name", "remember", "--tool-arg", "key=a", "text=x")
    own = inspector([sys.executable, str(DROPIN_APP)], *request, env=env, scratch=tmp_path)
    ours = inspector([ferrule_command(), "run", str(DROPIN_APP)], *request, env=env, scratch=tmp_path)
    assert ours == own and ours["content"] == [{"type": "text", "text": "noted a"}]
