"""A minimal MCP server: copy this file, rename the tool, and point your MCP host at it.

    python examples/echo_server.py        # speaks MCP on stdin/stdout until the host closes it

Host configuration (Claude Code, Cursor, VS Code...): command `python`, args `["/path/to/echo_server.py"]`.
"""

from ferrule.mcp import Server, tool


@tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


if __name__ == "__main__":
    Server("echo", "1.0", [echo]).run()
