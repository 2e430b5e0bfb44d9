"""An official-SDK server that runs unchanged under ferrule's transport.

    python examples/sdk_server_dropin.py        # the SDK's own stdio
    ferrule run examples/sdk_server_dropin.py   # the same app on ferrule's transport

Async tools run concurrently under `ferrule run`; `ctx.report_progress` and `ctx.info` reach the host.
"""

import anyio
from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("notes", instructions="Keeps short notes.")
NOTES: dict[str, str] = {}


@mcp.tool()
def remember(key: str, text: str) -> str:
    """Store a note under a key."""
    NOTES[key] = text
    return f"noted {key}"


@mcp.tool()
async def recall_slowly(ctx: Context, key: str) -> str:
    """Read a note back, reporting progress on the way."""
    for step in range(3):
        await ctx.report_progress(step + 1, 3, f"looking ({step + 1}/3)")
        await anyio.sleep(0.1)
    await ctx.info(f"recalled {key}")
    return NOTES.get(key, "no such note")


@mcp.resource("notes://{key}")
def note(key: str) -> str:
    """A note as a resource."""
    return NOTES.get(key, "")


if __name__ == "__main__":
    mcp.run()
