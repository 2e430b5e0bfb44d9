"""A fastmcp app using every feature `ferrule run` serves."""

import anyio
from fastmcp import Context, FastMCP
from pydantic import BaseModel

app = FastMCP("dropin-fastmcp", instructions="Features for the drop-in transcript.")
events: dict[str, anyio.Event] = {}
cancelled: list[str] = []


def _released() -> anyio.Event:
    return events.setdefault("released", anyio.Event())


class Weather(BaseModel):
    city: str
    temp_c: float


@app.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool
def weather(city: str) -> Weather:
    """Structured output."""
    return Weather(city=city, temp_c=21.5)


@app.tool
def explode() -> str:
    """Raises."""
    raise RuntimeError("the tool blew up")


@app.tool
async def steps(ctx: Context, count: int = 3) -> str:
    """Progress and log notifications."""
    for i in range(count):
        await ctx.report_progress(i + 1, count, f"step {i + 1}")
        await ctx.info(f"did step {i + 1}")
    return "stepped"


@app.tool
async def wait_release() -> str:
    """Runs until `release` is called."""
    await _released().wait()
    return "released"


@app.tool
async def release() -> str:
    """Lets `wait_release` finish."""
    _released().set()
    return "ok"


@app.tool
async def hang(ctx: Context) -> str:
    """Says it started (progress), then waits until cancelled."""
    await ctx.report_progress(1, None, "started")
    try:
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        cancelled.append("hang")
        raise
    return "never"


@app.tool
def was_cancelled() -> list[str]:
    """Which calls were cancelled so far."""
    return cancelled


@app.tool
async def roots(ctx: Context) -> list[str]:
    """Asks the client for its roots (a request from server to client)."""
    listed = await ctx.session.list_roots()
    return [str(root.uri) for root in listed.roots]


@app.resource("memo://readme")
def readme() -> str:
    """A static resource."""
    return "read me"


@app.resource("memo://notes/{topic}")
def note(topic: str) -> str:
    """A resource template."""
    return f"notes on {topic}"


@app.prompt
def review(code: str) -> str:
    """A prompt."""
    return f"Please review:\n{code}"


if __name__ == "__main__":
    app.run()
