"""The official SDK's client against `ferrule run` of an MCPServer app, in each of its modes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from testkit.dropin import APPS

MODES = {"legacy": "2025-11-25", "auto": "2026-07-28", "2026-07-28": "2026-07-28"}


@pytest.mark.parametrize("mode", list(MODES))
def test_the_official_client_uses_a_dropped_in_app(mode, tmp_path: Path):
    progress_seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress, total, message):
        progress_seen.append((progress, total, message))

    params = StdioServerParameters(command=sys.executable, args=["-m", "ferrule", "run", "mcpserver_app.py"],
                                   cwd=str(APPS), env={k: os.environ[k] for k in ("PATH", "HOME") if k in os.environ})

    async def main():
        with open(tmp_path / "stderr.txt", "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode=mode) as client:
                assert client.protocol_version == MODES[mode]
                names = {t.name for t in (await client.list_tools()).tools}
                assert {"add", "weather", "steps", "explode"} <= names
                assert (await client.call_tool("add", {"a": 1, "b": 2})).structured_content == {"result": 3}
                assert (await client.call_tool("explode", {})).is_error is True
                weather = await client.call_tool("weather", {"city": "Oslo"})
                assert weather.structured_content == {"city": "Oslo", "temp_c": 21.5}
                done = await client.call_tool("steps", {"count": 2}, progress_callback=on_progress)
                assert done.content[0].text == "stepped"
                read = await client.read_resource("memo://notes/mcp")
                assert read.contents[0].text == "notes on mcp"
                prompt = await client.get_prompt("review", {"code": "x = 1"})
                assert "Please review" in prompt.messages[0].content.text

    anyio.run(main)
    assert progress_seen == [(1, 2, "step 1"), (2, 2, "step 2")]
