"""Tools and the registry (docs/MCP.md §3).

A tool is `descriptor()` (name, description, inputSchema) plus `run(args) -> ToolOutput`. A tool
object whose `run` blocks on work outside the process (a language server, a build) and may be called
from several threads at once says `concurrent = True` (a function: `@tool(concurrent=True)`): the
server then runs it beside the reading (docs/MCP.md §4.4) instead of one call at a time inside the
capture guard. One that also says `ordered = True` (`@tool(concurrent=True, ordered=True)`) has
the calls of all such tools run one at a time, in the order they were read. The registry maps
name -> tool; the last registration of a name wins; `descriptors()`
are sorted by name. Each descriptor is read and checked once, when the tool is registered, and its
inputSchema compiled into the argument check the server runs before every call. `entry(name)` gives
the server what it needs per call (`Entry`), computed once per registration.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, runtime_checkable

from .._twins import load_twin
from .errors import InvalidTool
from .function import FunctionTool
from .output import ToolOutput
from .validate import Check

# The argument check every call runs: validate.py's compiled build unless the twins are switched off.
compile_arguments = load_twin("ferrule.mcp._validate_c", "ferrule.mcp.validate")[0].compile_arguments

__all__ = ["Entry", "Tool", "ToolOutput", "ToolSet"]  # ToolOutput re-exported for tools written against this module


@runtime_checkable
class Tool(Protocol):
    def descriptor(self) -> dict[str, Any]: ...

    def run(self, args: dict[str, Any]) -> ToolOutput: ...


class Entry:
    """A registered tool with what a server needs per call, computed once. Read-only for servers."""

    __slots__ = ("tool", "descriptor", "check", "run", "direct", "awaitable", "concurrent", "ordered")

    def __init__(self, tool: Tool, descriptor: dict[str, Any], check: Check) -> None:
        self.tool = tool
        self.descriptor = descriptor
        self.check = check
        # A function tool hands back its function's own value; the server converts it (as_output).
        self.run = tool.invoke if isinstance(tool, FunctionTool) else tool.run
        # The function itself, when calling it with the arguments as keywords is all `invoke` does.
        self.direct = tool.direct() if isinstance(tool, FunctionTool) else None
        # args -> coroutine, for a tool whose work is async (an `async def` function, or an async `run`):
        # the server awaits it on its loop, concurrently with other calls.
        self.awaitable: Callable[[dict[str, Any]], Any] | None = None
        if isinstance(tool, FunctionTool):
            self.awaitable = tool.awaitable if tool.is_async else None
        elif inspect.iscoroutinefunction(tool.run):
            self.awaitable = tool.run
        # args -> output, for a blocking tool that may run beside the reading (`concurrent = True`).
        self.concurrent: Callable[[dict[str, Any]], Any] | None = (
            self.run if self.awaitable is None and getattr(tool, "concurrent", False) is True else None)
        # a concurrent tool whose calls run one at a time in the order read (`ordered = True`: order.py)
        self.ordered = getattr(tool, "ordered", False) is True
        if self.ordered and self.concurrent is None:
            raise InvalidTool(f"tool {descriptor.get('name')!r}: `ordered = True` orders the calls of a "
                              "concurrent tool, a blocking `run` that says `concurrent = True` too")


def _checked_descriptor(tool: Any) -> dict[str, Any]:
    try:
        descriptor = tool.descriptor()
    except Exception as exc:
        raise InvalidTool(f"{tool!r}.descriptor() raised {exc!r}") from exc
    if type(descriptor) is not dict:
        raise InvalidTool(f"{tool!r}.descriptor() returned {type(descriptor).__name__}, not a dict")
    name = descriptor.get("name")
    if type(name) is not str or not name:
        raise InvalidTool(f"tool descriptor needs a non-empty string `name`, got {name!r}")
    description = descriptor.get("description")
    if description is not None and type(description) is not str:
        raise InvalidTool(f"tool {name!r}: `description` must be a string")
    schema = descriptor.get("inputSchema")
    if type(schema) is not dict or schema.get("type") != "object":
        raise InvalidTool(f'tool {name!r}: `inputSchema` must be a JSON Schema object with "type": "object"')
    return descriptor


class ToolSet:
    """name -> tool; the last registration of a name wins."""

    def __init__(self, tools: Iterable[Any] = ()) -> None:
        self._entries: dict[str, Entry] = {}
        self.revision = 0  # bumped on every change, so a cached tools/list answer knows it is stale
        for tool in tools:
            self.add(tool)

    def add(self, tool: Any) -> Any:
        """Register a Tool (or a plain typed function, wrapped with @tool); returns it."""
        if not (callable(getattr(tool, "descriptor", None)) and callable(getattr(tool, "run", None))):
            if not callable(tool):
                raise InvalidTool(f"{tool!r} is neither a Tool (descriptor() and run()) nor a function")
            tool = FunctionTool(tool)
        descriptor = _checked_descriptor(tool)
        self._entries[descriptor["name"]] = Entry(tool, descriptor, compile_arguments(descriptor["inputSchema"]))
        self.revision += 1
        return tool

    def tool(self, fn: Callable[..., Any] | None = None, **options: Any) -> Any:
        """Decorator: `@tools.tool` registers a typed function (options as for `@tool`)."""
        def register(f: Callable[..., Any]) -> Any:
            return self.add(FunctionTool(f, **options))

        return register(fn) if fn is not None else register

    def entry(self, name: str) -> Entry | None:
        """What a server needs to call the tool of this name; None when there is none."""
        return self._entries.get(name)

    def get(self, name: str) -> Tool | None:
        entry = self._entries.get(name)
        return entry.tool if entry is not None else None

    def descriptors(self) -> list[dict[str, Any]]:
        return [self._entries[name].descriptor for name in sorted(self._entries)]

    def names(self) -> list[str]:
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Tool]:
        return (self._entries[name].tool for name in sorted(self._entries))

    def __repr__(self) -> str:
        return f"ToolSet({self.names()!r})"
