"""Arguments checked against a tool's input schema before anything runs.

Only the schema subset the descriptors use: object properties with `type` (one name or a list),
`minimum`, `items`, `required` and `additionalProperties: false`. A bad argument is the agent's to fix,
so the answer names the argument, what came and what was expected.
"""

from __future__ import annotations

from typing import Any

_CHECKS = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


class ArgumentError(ValueError):
    """An argument that breaks the tool's input schema."""


def check_arguments(schema: dict[str, Any], args: object) -> dict[str, Any]:
    """Return `args` when it satisfies `schema`; raise ArgumentError naming the first problem."""
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ArgumentError(f"arguments must be an object, got {_kind(args)}")
    properties: dict[str, Any] = schema.get("properties", {})
    missing = [name for name in schema.get("required", []) if name not in args]
    if missing:
        raise ArgumentError(f"missing required argument{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
    for name, value in args.items():
        spec = properties.get(name)
        if spec is None:
            if schema.get("additionalProperties", True) is False:
                known = ", ".join(properties) or "none"
                raise ArgumentError(f"unknown argument {name!r}; this tool takes: {known}")
            continue
        _check_value(name, spec, value)
    return args


def _check_value(name: str, spec: dict[str, Any], value: object) -> None:
    types = spec.get("type")
    if types is not None:
        allowed = [types] if isinstance(types, str) else list(types)
        if not any(_CHECKS[t](value) for t in allowed):
            raise ArgumentError(f"argument {name!r} must be {' or '.join(allowed)}, got {_kind(value)}")
    minimum = spec.get("minimum")
    if minimum is not None and isinstance(value, (int, float)) and not isinstance(value, bool) and value < minimum:
        raise ArgumentError(f"argument {name!r} must be at least {minimum}, got {value}")
    items = spec.get("items")
    if items is not None and isinstance(value, list):
        for index, item in enumerate(value):
            _check_value(f"{name}[{index}]", items, item)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {value!r}".lower()
    if isinstance(value, (int, float)):
        return f"number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"string {shown!r}"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


__all__ = ["ArgumentError", "check_arguments"]
