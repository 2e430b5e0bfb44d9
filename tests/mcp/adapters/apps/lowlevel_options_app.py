"""An official SDK 2.x low-level Server app that passes options of its own to
`create_initialization_options(...)` in its main, and announces a change of its tool list."""

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server

TOOLS = [types.Tool(name="changed", description="Announces a tool list change.", input_schema={"type": "object"})]


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    await ctx.session.send_tool_list_changed()
    return types.CallToolResult(content=[types.TextContent(type="text", text="announced")])


server = Server("dropin-lowlevel-options", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)


def options():
    return server.create_initialization_options(notification_options=NotificationOptions(tools_changed=True),
                                                experimental_capabilities={"weather/alerts": {"enabled": True}})


async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, options())


if __name__ == "__main__":
    anyio.run(main)
