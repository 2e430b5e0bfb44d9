"""The official MCP Python SDK's low-level Server over stdio, serving the benchmark's echo tool."""

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

ECHO = types.Tool(
    name="echo",
    description="Echo the text back.",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
)


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[ECHO])


async def call_tool(ctx, params) -> types.CallToolResult:
    text = (params.arguments or {})["text"]
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("bench-echo", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
