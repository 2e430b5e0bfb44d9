"""JSON Schema for a typed Python function: its signature and docstring become a tool's inputSchema.

Supported annotations: str, int, float, bool, list / list[T], dict / dict[str, T], Optional[T] and
`T | None`, Literal[...], Any (or none), and `Annotated[T, "description"]`. A default makes the
argument optional and is recorded as `default`. Parameter descriptions come from a Google-style
`Args:` section or `:param name:` lines of the docstring; the rest of the docstring describes the tool.

A union, `Optional[T]` included, is an `anyOf`, never a `type` array (`"type": ["string", "null"]`):
hosts that read schemas as OpenAPI 3.0 (and clients checking for them) refuse type arrays.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable
from typing import Any

__all__ = ["SchemaError", "function_schema", "schema_for", "split_docstring"]


class SchemaError(TypeError):
    """An annotation with no JSON Schema counterpart (the message names the parameter and the fix)."""


_SIMPLE: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    list: {"type": "array"},
    dict: {"type": "object"},
    type(None): {"type": "null"},
}
_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def schema_for(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of one annotation; raise SchemaError for a type JSON cannot carry."""
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}
    simple = _SIMPLE.get(annotation)
    if simple is not None:
        return dict(simple)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        schema = schema_for(args[0])
        notes = [a for a in args[1:] if isinstance(a, str)]
        if notes:
            schema["description"] = " ".join(notes)
        return schema
    if origin is typing.Union or origin is types.UnionType:
        return _union(args)
    if origin is typing.Literal:
        return _literal(args)
    if origin is list:
        return {"type": "array", "items": schema_for(args[0])} if args else {"type": "array"}
    if origin is dict:
        if args and args[0] is not str:
            raise SchemaError(f"dict keys must be str in JSON, not {args[0]!r}")
        return {"type": "object", "additionalProperties": schema_for(args[1])} if args else {"type": "object"}
    raise SchemaError(
        f"{annotation!r} has no JSON Schema here; use str, int, float, bool, list, dict, Optional or Literal"
    )


def _union(args: tuple[Any, ...]) -> dict[str, Any]:
    return {"anyOf": [schema_for(a) for a in args]}


def _literal(values: tuple[Any, ...]) -> dict[str, Any]:
    kinds = {_JSON_TYPES.get(type(v)) for v in values}
    if None in kinds:
        raise SchemaError(f"Literal values must be str, int, float, bool or None, got {values!r}")
    schema: dict[str, Any] = {"enum": list(values)}
    if len(kinds) == 1:
        schema["type"] = kinds.pop()
    return schema


_ARGS_HEADER = re.compile(r"^(Args|Arguments|Parameters|Params)\s*:\s*$")
_ARG_LINE = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_REST_PARAM = re.compile(r"^:param\s+(?:[\w\[\], |]+\s+)?(\w+)\s*:\s*(.*)$")


def split_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """(tool description, {parameter: description}) from a docstring.

    The `Args:` section and `:param:` lines move into the schema; everything else stays in the
    description."""
    if not doc:
        return "", {}
    body: list[str] = []
    params: dict[str, str] = {}
    current: str | None = None  # the parameter whose description continues on indented lines
    in_args = False
    arg_indent = -1
    for raw in inspect.cleandoc(doc).splitlines():
        line = raw.strip()
        indent = len(raw) - len(raw.lstrip())
        rest = _REST_PARAM.match(line)
        if rest and indent == 0:
            in_args, current = False, rest.group(1)
            params[current] = rest.group(2).strip()
            continue
        if _ARGS_HEADER.match(raw):
            in_args, current, arg_indent = True, None, -1
            continue
        if not line:
            current = None if not in_args else current
            if not in_args:
                body.append("")
            continue
        if in_args and indent > 0:
            arg = _ARG_LINE.match(line)
            if arg and (arg_indent < 0 or indent <= arg_indent):
                arg_indent = indent
                current = arg.group(1)
                params[current] = arg.group(2).strip()
            elif current is not None:
                params[current] = f"{params[current]} {line}".strip()
            continue
        if current is not None and indent > 0 and not in_args:
            params[current] = f"{params[current]} {line}".strip()
            continue
        in_args, current = False, None
        body.append(raw)
    return "\n".join(body).strip(), params


def function_schema(fn: Callable[..., Any], param_docs: dict[str, str]) -> dict[str, Any]:
    """The inputSchema of a function; raise SchemaError naming the parameter that cannot be an MCP
    argument."""
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as exc:
        raise SchemaError(f"cannot resolve the annotations of {fn.__qualname__}: {exc}") from exc
    properties: dict[str, Any] = {}
    required: list[str] = []
    extra_allowed = False
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind is param.VAR_KEYWORD:
            extra_allowed = True
            continue
        if param.kind in (param.POSITIONAL_ONLY, param.VAR_POSITIONAL):
            raise SchemaError(
                f"parameter {name!r} of {fn.__qualname__} cannot be passed by name; make it a normal parameter"
            )
        annotation = hints.get(name, inspect.Parameter.empty)
        try:
            schema = schema_for(annotation)
        except SchemaError as exc:
            raise SchemaError(f"parameter {name!r} of {fn.__qualname__}: {exc}") from None
        if name in param_docs and "description" not in schema:
            schema["description"] = param_docs[name]
        if param.default is param.empty:
            required.append(name)
        elif _is_json(param.default):
            schema["default"] = param.default
        properties[name] = schema
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    if not extra_allowed:
        result["additionalProperties"] = False
    return result


def _is_json(value: Any) -> bool:
    if value is None or type(value) in (str, int, float, bool):
        return True
    if type(value) in (list, tuple):
        return all(_is_json(v) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _is_json(v) for k, v in value.items())
    return False
