"""`@tool`: a typed Python function becomes a Tool, its schema taken from the signature.

    @tool
    def echo(text: str) -> str:
        "Echo the text back."
        return text

A function may return a str (the report), a ToolOutput, a dict (sent as structured content, with its
JSON as the report), None (an empty report) or any other JSON value (its JSON is the report). What it
raises becomes an `isError` result carrying the exception's text. `async def` functions work too: the
server runs them concurrently on its event loop (`awaitable(args)`), outside the capture guard. A sync
function whose work waits outside the process and may run on several threads at once says
`@tool(concurrent=True)`; `ordered=True` as well runs such calls one at a time in the order they
were read (docs/MCP.md section 4.4).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from .output import ToolOutput, as_output
from .schema import function_schema, split_docstring

__all__ = ["FunctionTool", "as_output", "tool"]


class FunctionTool:
    """A Tool made from a function; calling it still calls the function."""

    def __init__(
        self, fn: Callable[..., Any], *, name: str | None = None, description: str | None = None,
        concurrent: bool | None = None, ordered: bool | None = None,
    ) -> None:
        summary, param_docs = split_docstring(fn.__doc__)
        schema = function_schema(fn, param_docs)
        self.fn = fn
        self.name = name or fn.__name__
        self._descriptor = {
            "name": self.name,
            "description": summary if description is None else description,
            "inputSchema": schema,
        }
        self.is_async = inspect.iscoroutinefunction(fn)
        if concurrent is not None:  # else a subclass's class attribute, if any, says it
            if type(concurrent) is not bool:
                raise TypeError(f"tool {self.name!r}: `concurrent` is True or False, got {concurrent!r}")
            if concurrent and self.is_async:
                raise TypeError(f"tool {self.name!r}: `concurrent` is for blocking functions; an async one "
                                "runs concurrently on the server's loop already")
            self.concurrent = concurrent
        if ordered is not None:
            if type(ordered) is not bool:
                raise TypeError(f"tool {self.name!r}: `ordered` is True or False, got {ordered!r}")
            self.ordered = ordered  # without `concurrent`, refused when registered (tools.Entry)
        functools.update_wrapper(self, fn)

    def descriptor(self) -> dict[str, Any]:
        return self._descriptor

    def run(self, args: dict[str, Any]) -> ToolOutput:
        return as_output(self.invoke(args))

    def direct(self) -> Callable[..., Any] | None:
        """The function, when `invoke(args)` is exactly `fn(**args)` (sync); else None."""
        if self.is_async or type(self).invoke is not FunctionTool.invoke:
            return None
        return self.fn

    def invoke(self, args: dict[str, Any]) -> Any:
        """The function's own return value (the server turns it into a result without a ToolOutput).

        `args` are as the server's argument check left them: an integral float sent for an `int`
        is already an int there (validate.py)."""
        if self.is_async:  # outside a server's loop: run to completion here
            import asyncio

            return asyncio.run(self.fn(**args))
        return self.fn(**args)

    def awaitable(self, args: dict[str, Any]) -> Any:
        """For an async function: the coroutine of one call, for the server's loop to await."""
        return self.fn(**args)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<tool {self.name!r} from {self.fn.__qualname__}>"


def tool(
    fn: Callable[..., Any] | None = None, *, name: str | None = None, description: str | None = None,
    concurrent: bool | None = None, ordered: bool | None = None,
) -> Any:
    """Make a Tool of a typed function: `@tool` or `@tool(name=..., description=..., concurrent=...,
    ordered=...)`."""
    if fn is not None:
        return FunctionTool(fn, name=name, description=description, concurrent=concurrent, ordered=ordered)
    return lambda f: FunctionTool(f, name=name, description=description, concurrent=concurrent, ordered=ordered)
