"""An official SDK 2.x MCPServer app using every feature `ferrule run` serves."""

from dropin_features import TOOLS, note, readme, review, wait_for_cancel
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import Completion, ResourceTemplateReference

mcp = MCPServer("dropin-mcpserver", instructions="Features for the drop-in transcript.")
for function in TOOLS:
    mcp.tool()(function)
mcp.resource("memo://readme")(readme)
mcp.resource("memo://notes/{topic}")(note)
mcp.prompt()(review)


@mcp.tool()
async def steps(ctx: Context, count: int = 3) -> str:
    """Progress and log notifications."""
    for i in range(count):
        await ctx.report_progress(i + 1, count, f"step {i + 1}")
        await ctx.info(f"did step {i + 1}")
    return "stepped"


@mcp.tool()
async def hang(ctx: Context) -> str:
    """Says it started (progress), then waits until cancelled."""
    await ctx.report_progress(1, None, "started")
    return await wait_for_cancel()


@mcp.tool()
async def roots(ctx: Context) -> list[str]:
    """Asks the client for its roots (a request from server to client)."""
    listed = await ctx.session.list_roots()
    return [str(root.uri) for root in listed.roots]


@mcp.completion()
async def complete(ref, argument, context):
    if isinstance(ref, ResourceTemplateReference) and argument.name == "topic":
        return Completion(values=[t for t in ("rust", "python", "mcp") if t.startswith(argument.value)])
    return None


if __name__ == "__main__":
    mcp.run()
