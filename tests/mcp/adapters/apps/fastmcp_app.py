"""A fastmcp app using every feature `ferrule run` serves."""

from dropin_features import TOOLS, note, readme, review, wait_for_cancel
from fastmcp import Context, FastMCP

app = FastMCP("dropin-fastmcp", instructions="Features for the drop-in transcript.")
for function in TOOLS:
    app.tool(function)
app.resource("memo://readme")(readme)
app.resource("memo://notes/{topic}")(note)
app.prompt(review)


@app.tool
async def steps(ctx: Context, count: int = 3) -> str:
    """Progress and log notifications."""
    for i in range(count):
        await ctx.report_progress(i + 1, count, f"step {i + 1}")
        await ctx.info(f"did step {i + 1}")
    return "stepped"


@app.tool
async def hang(ctx: Context) -> str:
    """Says it started (progress), then waits until cancelled."""
    await ctx.report_progress(1, None, "started")
    return await wait_for_cancel()


@app.tool
async def roots(ctx: Context) -> list[str]:
    """Asks the client for its roots (a request from server to client)."""
    listed = await ctx.session.list_roots()
    return [str(root.uri) for root in listed.roots]


if __name__ == "__main__":
    app.run()
