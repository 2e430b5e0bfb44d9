"""The descriptors are what an agent reads: valid schemas, and the conventions said in every one."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from ferrule.tools.descriptors import DESCRIPTORS, INSTRUCTIONS, NAVIGATION_DESCRIPTORS

POSITIONAL = ("rust_type", "rust_complete", "rust_scope")


def test_the_tools():
    assert sorted(DESCRIPTORS) == ["rust_apply_fix", "rust_check", "rust_complete", "rust_definition", "rust_fixes",
                                   "rust_implementations", "rust_references", "rust_rename", "rust_scope",
                                   "rust_symbols", "rust_type", "rust_update",
                                   "rust_validate"]


@pytest.mark.parametrize("name", sorted(DESCRIPTORS))
def test_descriptor_is_a_valid_mcp_tool(name):
    descriptor = DESCRIPTORS[name]
    assert descriptor["name"] == name
    schema = descriptor["inputSchema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"
    assert set(schema["required"]) <= set(schema["properties"])
    assert len(descriptor["description"]) > 200, "an agent decides from the description alone"


def type_arrays(node: object, path: str = "#") -> list[str]:
    """Where a schema, at any depth, gives `type` as an array."""
    found: list[str] = []
    if isinstance(node, dict):
        if isinstance(node.get("type"), list):
            found.append(path)
        for key, value in node.items():
            found += type_arrays(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += type_arrays(value, f"{path}/{index}")
    return found


@pytest.mark.parametrize("name", sorted(DESCRIPTORS))
def test_input_schemas_are_portable(name):
    # strict hosts validate against Draft 2020-12, and OpenAPI-based ones refuse `type` arrays
    schema = DESCRIPTORS[name]["inputSchema"]
    jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA).validate(schema)
    assert type_arrays(schema) == []


def test_update_content_takes_a_string_or_null():
    validator = jsonschema.Draft202012Validator(DESCRIPTORS["rust_update"]["inputSchema"])
    assert validator.is_valid({"file": "src/lib.rs", "content": None})
    assert validator.is_valid({"file": "src/lib.rs", "content": "fn f() {}\n"})
    assert not validator.is_valid({"file": "src/lib.rs", "content": 3})


@pytest.mark.parametrize("name", POSITIONAL)
def test_positional_tools_state_the_position_convention(name):
    descriptor = DESCRIPTORS[name]
    assert "1-based" in descriptor["description"] and "0-based" in descriptor["description"]
    assert "UTF-8" in descriptor["description"]
    assert "1-based" in descriptor["inputSchema"]["properties"]["line"]["description"]
    assert "UTF-8" in descriptor["inputSchema"]["properties"]["character"]["description"]


@pytest.mark.parametrize("name", sorted(DESCRIPTORS))
def test_every_tool_says_paths_are_root_relative(name):
    assert "relative to the project root" in DESCRIPTORS[name]["description"]


def test_instructions_state_both_conventions():
    assert "1-based" in INSTRUCTIONS and "relative to the project root" in INSTRUCTIONS


def _types(schema):
    """Every `type` value anywhere in a schema."""
    if isinstance(schema, dict):
        if "type" in schema:
            yield schema["type"]
        for value in schema.values():
            yield from _types(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _types(value)


@pytest.mark.parametrize("descriptor", NAVIGATION_DESCRIPTORS, ids=lambda d: d["name"])
def test_navigation_tools_say_when_to_use_them_with_an_example_and_use_no_type_arrays(descriptor):
    assert "e.g. {" in descriptor["description"]
    assert all(isinstance(kind, str) for kind in _types(descriptor["inputSchema"]))
    if "symbol" in descriptor["inputSchema"]["properties"]:  # a place: a name, or file, line and character
        assert {"symbol", "file", "line", "character"} <= set(descriptor["inputSchema"]["properties"])
        assert not {"symbol", "file", "line"} & set(descriptor["inputSchema"]["required"])


def test_complete_says_the_unsafe_mark_is_a_heuristic():
    description = DESCRIPTORS["rust_complete"]["description"]
    assert "unsafe" in description and "heuristic" in description and "not a type check" in description


README = Path(__file__).resolve().parents[2] / "README.md"
PLACE = ("symbol", "file", "line", "character")  # "a place" in the README's table


@pytest.mark.skipif(not README.exists(), reason="needs the source checkout")
@pytest.mark.parametrize("name", sorted(DESCRIPTORS))
def test_the_readme_lists_each_tool_with_its_arguments(name):
    rows = [line for line in README.read_text(encoding="utf-8").splitlines() if line.startswith(f"| `{name}` |")]
    assert len(rows) == 1, f"the README's table of tools has no row (or several) for {name}"
    arguments = rows[0].split("|")[2]
    schema = DESCRIPTORS[name]["inputSchema"]
    for argument in schema["properties"]:
        if argument in PLACE and "a place" in arguments:
            continue
        assert f"`{argument}`" in arguments or f"`{argument}?`" in arguments, (name, argument, arguments)
        if argument in schema["required"]:
            assert f"`{argument}?`" not in arguments, f"{name}: {argument} is required"
