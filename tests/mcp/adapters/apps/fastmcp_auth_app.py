"""A fastmcp app with components gated by `auth=` (fastmcp skips those checks on stdio) and tools
that answer the transport their context names."""

from fastmcp import Context, FastMCP
from fastmcp.server.dependencies import get_context
from fastmcp.utilities.authorization import require_scopes

app = FastMCP("dropin-fastmcp-auth")


@app.tool(auth=require_scopes("admin"))
def purge(confirm: bool = False) -> str:
    """Admin only."""
    return "purged" if confirm else "dry run"


@app.resource("admin://secrets", auth=require_scopes("admin"))
def secrets() -> str:
    """Admin only."""
    return "s3cr3t"


@app.tool
def transport_plain() -> str:
    """A sync tool without a Context parameter."""
    return str(get_context().transport)


@app.tool
def transport_sync(ctx: Context) -> str:
    """A sync tool taking the Context."""
    return str(ctx.transport)


@app.tool
async def transport_async(ctx: Context) -> str:
    """An async tool taking the Context."""
    return str(ctx.transport)


if __name__ == "__main__":
    app.run(show_banner=False)
