"""ferrule.mcp serving the benchmark's echo tool (FERRULE_NO_EXTENSIONS=1 for the pure-Python twins)."""

from ferrule.mcp import Server, tool


@tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


if __name__ == "__main__":
    Server("bench-echo", "1.0", [echo]).run()
