"""What a tool run returns, and how a tool function's return value becomes one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from orjson import dumps

__all__ = ["ToolOutput", "as_output"]


@dataclass(slots=True)
class ToolOutput:
    """What a tool run returns: a report for the agent to read, whether it is a failure, and
    optionally a structured value (sent as `structuredContent` to clients whose revision has it)."""

    report: str
    is_error: bool = False
    structured: dict[str, Any] | None = None


def as_output(value: Any) -> ToolOutput:
    """A tool function's return value as a ToolOutput: a str is the report, a dict is structured
    content with its JSON as the report, None an empty report, any other JSON value its JSON."""
    if type(value) is str:
        return ToolOutput(value)
    if isinstance(value, ToolOutput):
        return value
    if value is None:
        return ToolOutput("")
    if isinstance(value, str):
        return ToolOutput(str(value))
    report = dumps(value).decode()  # TypeError for a value that is not JSON
    return ToolOutput(report, structured=value if type(value) is dict else None)
