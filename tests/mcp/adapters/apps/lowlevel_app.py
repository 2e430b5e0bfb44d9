"""An official SDK 2.x low-level Server app: tools by hand-written handlers."""

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOLS = [
    types.Tool(name="add", description="Add two integers.",
               input_schema={"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                             "required": ["a", "b"]}),
    types.Tool(name="explode", description="Raises.", input_schema={"type": "object"}),
]


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    if params.name == "add":
        args = params.arguments or {}
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(args["a"] + args["b"]))])
    if params.name == "explode":
        raise RuntimeError("the tool blew up")
    raise types.MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}") if hasattr(
        types, "MCPError") else ValueError(params.name)


server = Server("dropin-lowlevel", version="1.0", instructions="A low-level app.",
                on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
