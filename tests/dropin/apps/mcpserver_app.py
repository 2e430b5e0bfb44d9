"""An official SDK 2.x MCPServer app using every feature `ferrule run` serves."""

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import Completion, ResourceTemplateReference
from pydantic import BaseModel

mcp = MCPServer("dropin-mcpserver", instructions="Features for the drop-in transcript.")
events: dict[str, anyio.Event] = {}  # made on the serving loop, at first use
cancelled: list[str] = []


def _release_event() -> anyio.Event:
    return events.setdefault("released", anyio.Event())


class Weather(BaseModel):
    city: str
    temp_c: float


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
def weather(city: str) -> Weather:
    """Structured output."""
    return Weather(city=city, temp_c=21.5)


@mcp.tool()
def explode() -> str:
    """Raises."""
    raise RuntimeError("the tool blew up")


@mcp.tool()
async def steps(ctx: Context, count: int = 3) -> str:
    """Progress and log notifications."""
    for i in range(count):
        await ctx.report_progress(i + 1, count, f"step {i + 1}")
        await ctx.info(f"did step {i + 1}")
    return "stepped"


@mcp.tool()
async def wait_release() -> str:
    """Runs until `release` is called."""
    await _release_event().wait()
    return "released"


@mcp.tool()
async def release() -> str:
    """Lets `wait_release` finish."""
    _release_event().set()
    return "ok"


@mcp.tool()
async def hang(ctx: Context) -> str:
    """Says it started (progress), then waits until cancelled."""
    await ctx.report_progress(1, None, "started")
    try:
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        cancelled.append("hang")
        raise
    return "never"


@mcp.tool()
def was_cancelled() -> list[str]:
    """Which calls were cancelled so far."""
    return cancelled


@mcp.tool()
async def roots(ctx: Context) -> list[str]:
    """Asks the client for its roots (a request from server to client)."""
    listed = await ctx.session.list_roots()
    return [str(root.uri) for root in listed.roots]


@mcp.resource("memo://readme")
def readme() -> str:
    """A static resource."""
    return "read me"


@mcp.resource("memo://notes/{topic}")
def note(topic: str) -> str:
    """A resource template."""
    return f"notes on {topic}"


@mcp.prompt()
def review(code: str) -> str:
    """A prompt."""
    return f"Please review:\n{code}"


@mcp.completion()
async def complete(ref, argument, context):
    if isinstance(ref, ResourceTemplateReference) and argument.name == "topic":
        return Completion(values=[t for t in ("rust", "python", "mcp") if t.startswith(argument.value)])
    return None


if __name__ == "__main__":
    mcp.run()
