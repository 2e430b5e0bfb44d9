"""The official MCP Python SDK client (mcp 2.3.0) against ferrule.mcp servers over stdio, in each
mode the client offers: `legacy` (initialize handshake), `auto` (server/discover, then the
2026-07-28 era here) and a pinned `2026-07-28` (stateless requests straight away)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from mcp import ClientSession
from testkit.mcp import EXAMPLE_SERVER, SAMPLE_SERVER, child_env
from testkit.twins import Twin

MODES = {"legacy": "2025-11-25", "auto": "2026-07-28", "2026-07-28": "2026-07-28"}


def server_params(twin: Twin | None, script: Path = SAMPLE_SERVER) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(script)], env=child_env(twin))


def run_session(twin: Twin | None, mode: str, body, tmp_path: Path, script: Path = SAMPLE_SERVER):
    async def main():
        with open(tmp_path / "server-stderr.txt", "w") as errlog:
            async with Client(stdio_client(server_params(twin, script), errlog=errlog), mode=mode) as client:
                return await body(client)

    return anyio.run(main)


@pytest.mark.parametrize("mode", list(MODES))
def test_official_client_in_each_mode(twin, mode, tmp_path):
    progress_seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress, total, message):
        progress_seen.append((progress, total, message))

    async def body(client):
        assert client.protocol_version == MODES[mode]
        if mode != "2026-07-28":  # a pinned client never asks, so it never learns the server's name
            assert client.server_info.name == "sample" and client.server_info.version == "0.1"
        listed = await client.list_tools()
        names = [t.name for t in listed.tools]
        assert names == sorted(names) and {"echo", "explode", "child_output", "steps"} <= set(names)
        echo = next(t for t in listed.tools if t.name == "echo")
        assert echo.input_schema["properties"] == {"text": {"type": "string"}}

        result = await client.call_tool("echo", {"text": "hi there"})
        assert (result.is_error, result.content[0].text) == (False, "hi there")

        failed = await client.call_tool("explode", {})
        assert failed.is_error is True
        assert "RuntimeError: the tool blew up" in failed.content[0].text

        refused = await client.call_tool("refuse", {"reason": "policy"})
        assert refused.is_error is True and refused.content[0].text == "refused: policy"

        bad = await client.call_tool("echo", {"text": 12})
        assert bad.is_error is True and "argument 'text'" in bad.content[0].text

        both = await client.call_tool("child_output", {"marker": "sdk"})
        assert both.is_error is False
        assert both.content[0].text.startswith("ran sdk")
        assert "child-err sdk" in both.content[0].text and "child-out sdk" in both.content[0].text

        after = await client.call_tool("echo", {"text": "the channel survived"})
        assert after.content[0].text == "the channel survived"

        weather = await client.call_tool("weather", {"city": "Oslo"})
        assert weather.structured_content == {"city": "Oslo", "tempC": 21.5}

        stepped = await client.call_tool("steps", {"count": 3}, progress_callback=on_progress)
        assert stepped.content[0].text == "done"

        with pytest.raises(MCPError) as unknown:
            await client.call_tool("no_such_tool", {})
        assert unknown.value.error.code == -32601

    run_session(twin, mode, body, tmp_path)
    assert progress_seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


def test_client_session_over_stdio_client_handshake(twin, tmp_path):
    """The lower-level pieces a host wires by hand: stdio_client and ClientSession."""

    async def main():
        with open(tmp_path / "server-stderr.txt", "w") as errlog:
            async with stdio_client(server_params(twin), errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    assert init.protocol_version == "2025-11-25"
                    assert init.capabilities.tools is not None
                    await session.send_ping()
                    result = await session.call_tool("echo", {"text": "session"})
                    return result.content[0].text

    assert anyio.run(main) == "session"


@pytest.mark.parametrize("mode", list(MODES))
def test_the_example_server_works_with_the_official_client(mode, tmp_path):
    async def body(client):
        listed = await client.list_tools()
        assert [t.name for t in listed.tools] == ["echo"]
        return (await client.call_tool("echo", {"text": "copied"})).content[0].text

    assert run_session(None, mode, body, tmp_path, EXAMPLE_SERVER) == "copied"
