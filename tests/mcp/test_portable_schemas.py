"""Every inputSchema `@tool` builds is one that strict hosts take: valid under the JSON Schema Draft
2020-12 meta-schema, with no `type` arrays (OpenAPI-based hosts refuse `"type": ["string", "null"]`).
The argument check agrees with a reference validator (jsonschema) on those schemas."""

from __future__ import annotations

import copy
import json
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from ferrule.mcp import tool
from ferrule.mcp.validate import compile_arguments

SUB_SCHEMA_KEYS = ("items", "additionalProperties", "not", "if", "then", "else", "contains")
SUB_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
SUB_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")


def type_arrays(schema: Any, path: str = "#") -> list[str]:
    """Where a schema (at any depth) gives `type` as an array."""
    if type(schema) is not dict:
        return []
    found = [path] if type(schema.get("type")) is list else []
    for key in SUB_SCHEMA_KEYS:
        found += type_arrays(schema.get(key), f"{path}/{key}")
    for key in SUB_SCHEMA_LISTS:
        for index, sub in enumerate(schema.get(key) or ()):
            found += type_arrays(sub, f"{path}/{key}/{index}")
    for key in SUB_SCHEMA_MAPS:
        for name, sub in (schema.get(key) or {}).items():
            found += type_arrays(sub, f"{path}/{key}/{name}")
    return found


def assert_portable(schema: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)
    assert type_arrays(schema) == [], json.dumps(schema)


def test_the_rule_finds_type_arrays_at_any_depth():
    schema = {"type": "object", "properties": {"type": {"type": "array", "items": {"type": ["string", "null"]}}}}
    assert type_arrays(schema) == ["#/properties/type/items"]


def function_with(annotation: Any, default: Any = None, has_default: bool = False) -> Any:
    def fn(x):  # type: ignore[no-untyped-def]
        return ""

    fn.__annotations__ = {"x": annotation, "return": str}
    if has_default:
        fn.__defaults__ = (default,)
    return fn


LEAVES = [str, int, float, bool, list, dict, Any, type(None), Literal["a", "b"], Literal[1, 2], Literal["a", None],
          Literal[True]]


def annotations() -> st.SearchStrategy[Any]:
    return st.recursive(
        st.sampled_from(LEAVES),
        lambda inner: st.one_of(
            inner.map(lambda t: list[t]),  # type: ignore[valid-type]
            inner.map(lambda t: dict[str, t]),  # type: ignore[valid-type]
            inner.map(lambda t: Optional[t]),  # noqa: UP045
            st.sampled_from([str, int, float, bool, list, dict]).map(lambda t: t | None),
            st.lists(inner, min_size=2, max_size=3).map(lambda ts: Union[tuple(ts)]),  # noqa: UP007
            inner.map(lambda t: Annotated[t, "a note"]),
        ),
        max_leaves=6,
    )


@pytest.mark.parametrize(
    "annotation",
    [Optional[int], str | None, Union[int, str], Optional[Literal["fast", "slow"]], list[int | None],  # noqa: UP007, UP045
     dict[str, list[Optional[float]]], Annotated[Optional[bool], "a flag"], Optional[Any]],  # noqa: UP045
)
def test_optional_and_union_types_are_any_of(annotation):
    schema = tool(function_with(annotation, None, True)).descriptor()["inputSchema"]
    assert_portable(schema)
    assert "anyOf" in json.dumps(schema)


def test_every_schema_a_server_lists_is_portable(spawn, twin):
    child = spawn(twin)
    tools = child.ask({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["result"]["tools"]
    assert len(tools) > 5
    for descriptor in tools:
        assert_portable(descriptor["inputSchema"])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-3, 3, allow_nan=False) | st.sampled_from(
        [1.0, 2.0, 0.5, "a", "b", ""]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(["a", "b"]), children,
                                                                        max_size=2),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(annotations(), st.booleans(), st.lists(json_values, min_size=1, max_size=4))
def test_every_schema_tool_builds_is_portable_and_checked_as_jsonschema_does(annotation, optional, values):
    schema = tool(function_with(annotation, None, optional)).descriptor()["inputSchema"]
    assert_portable(schema)
    reference = Draft202012Validator(schema)
    check = compile_arguments(schema)
    for value in values:
        arguments = {"x": copy.deepcopy(value)}
        reason = check(arguments)
        assert (reason is None) == reference.is_valid({"x": value}), (annotation, value, reason)
        if reason is None:  # what the tool is given still fits, as the same JSON value
            assert reference.is_valid(arguments) and arguments == {"x": value}
