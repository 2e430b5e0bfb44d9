"""The compiled argument checks (validate.py built as ferrule.mcp._validate_c) against validate.py
itself: random schemas of every keyword the checks read, and random JSON values, checked by each;
the reasons and the values as the checks left them (integral floats made ints) compared."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ferrule.mcp import validate

pytestmark = pytest.mark.c_extension

names = st.sampled_from(["a", "b", "count", "tags"])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from([2.0, -1.0, 0.5, 1e300]) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=8,
)
types = st.sampled_from(["string", "integer", "number", "boolean", "object", "array", "null", "nonsense"])


def keywords(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.fixed_dictionaries({}, optional={
        "type": types | st.lists(types, min_size=1, max_size=3),
        "enum": st.lists(json_values, min_size=1, max_size=3),
        "const": json_values,
        "properties": st.dictionaries(names, inner, max_size=3),
        "required": st.lists(names | st.integers(0, 1), max_size=3),
        "additionalProperties": st.booleans() | inner,
        "items": inner,
        "anyOf": st.lists(inner, min_size=1, max_size=3),
        "oneOf": st.lists(inner, min_size=1, max_size=3),
        "allOf": st.lists(inner, min_size=1, max_size=2),
        "minimum": st.integers(-2, 2), "exclusiveMaximum": st.sampled_from([1, 2.5]),
        "minLength": st.integers(0, 2), "maxItems": st.integers(0, 2),
        "pattern": st.sampled_from(["^a", "[0-9]"]),
        "$ref": st.sampled_from(["#/$defs/thing", "#/$defs/missing", "#/definitions/x", "elsewhere"]),
        "description": st.just("annotated"),
    })


schemas = st.recursive(st.booleans() | st.just({}) | keywords(st.just({"type": "integer"})), keywords, max_leaves=6)
roots = st.tuples(schemas, schemas).map(
    lambda pair: {**pair[0], "$defs": {"thing": pair[1]}} if type(pair[0]) is dict else pair[0])


def outcome(module: object, schema: object, value: object) -> tuple[object, object]:
    value = copy.deepcopy(value)
    try:
        reason = module.compile_arguments(schema)(value)  # type: ignore[attr-defined]
    except Exception as exc:
        reason = (type(exc), str(exc))
    return reason, value  # the value as the check left it: integral floats replaced


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(roots, json_values)
def test_the_compiled_checks_answer_as_validate_py_does(schema, value):
    from ferrule.mcp import _validate_c  # here: _validate_c exists only where it was built

    compiled, python = outcome(_validate_c, schema, value), outcome(validate, schema, value)
    assert compiled == python


def test_the_registry_compiles_its_checks_with_the_compiled_twin():
    from ferrule.mcp import tools

    assert tools.compile_arguments.__module__ == "ferrule.mcp._validate_c"
