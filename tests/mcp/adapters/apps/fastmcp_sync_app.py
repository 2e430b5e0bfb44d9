"""A fastmcp app of sync tools in every shape fastmcp converts (what `ferrule run` answers straight
from the app's local tools must match fastmcp's own answers), with the failures it masks, tools
that read the request's context, and tools that change what the session may call."""

import sys
import threading
import time
from contextvars import ContextVar
from typing import Annotated, Any

from fastmcp import Context, FastMCP
from fastmcp.exceptions import NotFoundError, ToolError
from fastmcp.server.dependencies import get_context
from fastmcp.tools import ToolResult
from fastmcp.utilities.types import Image
from mcp_types import CallToolResult, TextContent
from pydantic import AfterValidator, BaseModel, Field
from typing_extensions import TypedDict

mcp = FastMCP("dropin-fastmcp-sync")


class Point(BaseModel):
    x: int
    y_value: int = Field(alias="yValue")


class Pair(TypedDict):
    left: str
    right: str


@mcp.tool
def shout(text: str) -> str:
    """Writes to stderr, then answers."""
    print(f"shouting {text}", file=sys.stderr, flush=True)
    return text.upper()


@mcp.tool
def point(x: int, y: int = 0) -> Point:
    """A model with an alias."""
    return Point(x=x, yValue=y)


@mcp.tool
def pair(left: str, right: str) -> Pair:
    """A TypedDict."""
    return {"left": left, "right": right}


@mcp.tool
def listing(count: Annotated[int, Field(ge=0, le=5)]) -> list[int]:
    """A constrained argument and a wrapped list."""
    return list(range(count))


@mcp.tool
def nothing() -> None:
    """Returns None."""


@mcp.tool
def untyped(value):  # noqa: ANN001, ANN201 - no annotations at all
    """No annotations."""
    return value


@mcp.tool
def mapping(items: list[str]) -> dict[str, int]:
    """A dict (an object schema: no wrapping)."""
    return {item: len(item) for item in items}


@mcp.tool(output_schema=None)
def unstructured(items: list[str]) -> list[str]:
    """No output schema."""
    return items


@mcp.tool
def counted(count: int):  # noqa: ANN201 - a generator, consumed into a list
    """A generator."""
    yield from range(count)


@mcp.tool
def raw_bytes() -> bytes:
    """Bytes: content only."""
    return b"\x00\x01"


@mcp.tool
def picture() -> Image:
    """An image content block."""
    return Image(data=b"\x89PNG", format="png")


@mcp.tool
def blocks() -> list:
    """Content blocks as they are."""
    return [TextContent(type="text", text="a"), TextContent(type="text", text="b")]


@mcp.tool
def own_result(flag: bool) -> ToolResult:
    """A ToolResult of its own."""
    return ToolResult(content=[TextContent(type="text", text=f"flag={flag}")], structured_content={"flag": flag})


@mcp.tool
def own_call_result(flag: bool) -> CallToolResult:
    """A CallToolResult of its own."""
    return CallToolResult(content=[TextContent(type="text", text=f"flag={flag}")], is_error=flag)


@mcp.tool
def refuses(reason: str) -> str:
    """A deliberate ToolError."""
    raise ToolError(f"refused: {reason}")


@mcp.tool
def explodes() -> str:
    """An unexpected exception."""
    raise RuntimeError("boom")


@mcp.tool
def body_validation() -> Point:
    """A pydantic error from the body, not from the arguments."""
    return Point.model_validate({"x": "not a number", "yValue": 0})


@mcp.tool
def missing() -> str:
    """A NotFoundError from the body."""
    raise NotFoundError("gone")


@mcp.tool
def wrong_output() -> int:
    """Returns what its annotation does not allow."""
    return "not a number"  # type: ignore[return-value]


@mcp.tool(run_in_thread=False)
def on_loop(text: str) -> str:
    """A sync tool fastmcp runs on its event loop."""
    return f"{text}:{threading.current_thread() is threading.main_thread()}"


@mcp.tool
def in_thread() -> bool:
    """Whether it runs on the main thread (fastmcp hands it to a worker thread)."""
    return threading.current_thread() is threading.main_thread()


@mcp.tool
def addressed() -> dict:
    """A payload naming tools by identity, which fastmcp re-addresses to the names it lists."""
    return {"_meta": {"fastmcp": {"toolNames": {"__abc_shout": "__abc_shout"}}}, "action": "__abc_shout"}


released = threading.Event()


@mcp.tool
def wait_release() -> str:
    """Blocks its worker thread until `release` is called."""
    released.wait()
    return "released"


@mcp.tool
def noted_nap() -> str:
    """Says on stderr that it started, then sleeps a little: a call under way when a signal comes."""
    print("napping", file=sys.stderr, flush=True)
    time.sleep(0.3)
    return "rested"


@mcp.tool
def release() -> str:
    """Lets `wait_release` return."""
    released.set()
    return "releasing"


@mcp.tool
def context_seen() -> dict:
    """What a body reads of the request through get_context()."""
    ctx = get_context()
    return {"request_id": ctx.request_id, "has_request": ctx.request_context is not None,
            "server": ctx.fastmcp.name, "transport": ctx.transport, "session": bool(ctx.session_id)}


_MARK: ContextVar[str] = ContextVar("mark", default="unset")


@mcp.tool
def marks() -> str:
    """A context variable as the call finds it, then set: each call runs in a context of its own,
    so no call sees what an earlier one set."""
    found = _MARK.get()
    _MARK.set("set by a call")
    return found


@mcp.tool
async def hide(name: str, ctx: Context) -> str:
    """Disables a tool for this session (takes fastmcp's own path: it takes Context)."""
    await ctx.disable_components(names={name})
    return f"hid {name}"


@mcp.tool
def hide_everywhere(name: str) -> str:
    """Disables a tool for every session, from a sync body."""
    mcp.disable(names={name})
    return f"hid {name} everywhere"


@mcp.tool
def text(value: str) -> str:
    """A text as it came: what is spliced into a laid-out answer must be exactly what fastmcp answers."""
    return value


@mcp.tool
def text_untyped(value: str):  # noqa: ANN201 - no return annotation
    """A text with no return annotation."""
    return value


@mcp.tool
def text_any(value: str) -> Any:
    """A text under an open return annotation."""
    return value


@mcp.tool
def text_upper(value: str) -> Annotated[str, AfterValidator(str.upper)]:
    """A text under an annotation with a validator."""
    return value


@mcp.tool(output_schema=None)
def text_unstructured(value: str) -> str:
    """A text with no output schema."""
    return value


if __name__ == "__main__":
    mcp.run(show_banner=False)
