"""The official SDK 2.x MCPServer serving the benchmark's echo tool over stdio."""

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("bench-echo")


@mcp.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


if __name__ == "__main__":
    mcp.run()
