"""fastmcp serving the benchmark's echo tool over stdio."""

from fastmcp import FastMCP

mcp = FastMCP("bench-echo")


@mcp.tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


if __name__ == "__main__":
    mcp.run(transport="stdio", show_banner=False)
