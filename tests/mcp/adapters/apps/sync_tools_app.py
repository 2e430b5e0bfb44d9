"""An MCPServer app of sync tools in every shape the SDK converts (what `ferrule run` answers
straight from the tool registry must match the SDK's own answers), and an async tool that writes to
stderr."""

import sys
import threading
from typing import Annotated, Any, TypedDict

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, ImageContent, TextContent
from pydantic import AfterValidator, BaseModel, Field

mcp = MCPServer("dropin-sync-tools")


class Point(BaseModel):
    x: int
    y_value: int = Field(alias="yValue")


class Pair(TypedDict):
    left: str
    right: str


@mcp.tool()
def shout(text: str) -> str:
    """Writes to stderr, then answers."""
    print(f"shouting {text}", file=sys.stderr, flush=True)
    return text.upper()


@mcp.tool()
async def whisper(text: str) -> str:
    """Writes to stderr from the event loop, then answers."""
    print(f"whispering {text}", file=sys.stderr, flush=True)
    return text.lower()


@mcp.tool()
def point(x: int, y: int = 0) -> Point:
    """A model with an alias."""
    return Point(x=x, yValue=y)


@mcp.tool()
def pair(left: str, right: str) -> Pair:
    """A TypedDict."""
    return {"left": left, "right": right}


@mcp.tool()
def listing(count: Annotated[int, Field(ge=0, le=5)]) -> list[int]:
    """A constrained argument and a wrapped list."""
    return list(range(count))


@mcp.tool()
def aliased(first_name: Annotated[str, Field(alias="firstName")], tags: list[str] | None = None) -> str:
    """An argument with an alias, and a list that may come as JSON in a string."""
    return f"{first_name}:{','.join(tags or [])}"


@mcp.tool()
def nothing() -> None:
    """Returns None."""


@mcp.tool(structured_output=False)
def unstructured(items: list[str]) -> dict[str, int]:
    """No output schema: content only."""
    return {item: len(item) for item in items}


@mcp.tool()
def untyped(value):  # noqa: ANN001, ANN201 - no annotations at all
    """No annotations."""
    return value


@mcp.tool()
def refuses(reason: str) -> str:
    """A deliberate ToolError."""
    raise ToolError(f"refused: {reason}")


@mcp.tool()
def wrong_output() -> int:
    """Returns what its annotation does not allow."""
    return "not a number"  # type: ignore[return-value]


@mcp.tool()
def blocks() -> list[TextContent | ImageContent]:
    """Content blocks as they are."""
    return [TextContent(type="text", text="a"), ImageContent(type="image", data="AAAA", mime_type="image/png")]


@mcp.tool()
def own_result(flag: bool) -> CallToolResult:
    """A CallToolResult of its own."""
    return CallToolResult(content=[TextContent(type="text", text=f"flag={flag}")], is_error=flag)


@mcp.tool()
def text(value: str) -> str:
    """A text as it came: what is spliced into a laid-out answer must be exactly what the SDK answers."""
    return value


@mcp.tool()
def text_any(value: str) -> Any:
    """A text under an open return annotation."""
    return value


@mcp.tool()
def text_short(value: str) -> Annotated[str, Field(max_length=5)]:
    """A constrained text: one that breaks the constraint fails its output validation."""
    return value


@mcp.tool()
def text_upper(value: str) -> Annotated[str, AfterValidator(str.upper)]:
    """A text the output validator changes."""
    return value


@mcp.tool()
def text_or_none(value: str) -> str | None:
    """A text under a union."""
    return value or None


released = threading.Event()


@mcp.tool()
def wait_release() -> str:
    """Blocks until `release` is called (the SDK runs it on a worker thread)."""
    released.wait()
    return "released"


@mcp.tool()
def release() -> str:
    """Lets `wait_release` return."""
    released.set()
    return "releasing"


if __name__ == "__main__":
    mcp.run()
