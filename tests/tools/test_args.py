"""Arguments are checked against each tool's schema, and the message names what to fix."""

from __future__ import annotations

import pytest

from ferrule.tools.args import ArgumentError, check_arguments
from ferrule.tools.descriptors import DESCRIPTORS

TYPE_SCHEMA = DESCRIPTORS["rust_type"]["inputSchema"]


def test_good_arguments_pass_through():
    args = {"file": "src/lib.rs", "line": 3, "character": 0}
    assert check_arguments(TYPE_SCHEMA, args) is args
    assert check_arguments(DESCRIPTORS["rust_check"]["inputSchema"], None) == {}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"file": "a.rs", "line": 1}, "missing required argument: character"),
        ({"line": 1}, "missing required arguments: file, character"),
        ({"file": "a.rs", "line": "3", "character": 0}, "argument 'line' must be integer, got string '3'"),
        ({"file": "a.rs", "line": True, "character": 0}, "argument 'line' must be integer, got boolean true"),
        ({"file": "a.rs", "line": 0, "character": 0}, "argument 'line' must be at least 1, got 0"),
        ({"file": "a.rs", "line": 1, "character": -1}, "argument 'character' must be at least 0, got -1"),
        ({"file": "a.rs", "line": 1, "character": 0, "col": 2}, "unknown argument 'col'"),
        ([1, 2], "arguments must be an object, got array"),
    ],
)
def test_bad_arguments_are_named(args, message):
    with pytest.raises(ArgumentError) as caught:
        check_arguments(TYPE_SCHEMA, args)
    assert message in str(caught.value)


def test_null_is_allowed_only_where_the_schema_says():
    update = DESCRIPTORS["rust_update"]["inputSchema"]
    assert check_arguments(update, {"file": "a.rs", "content": None})["content"] is None
    with pytest.raises(ArgumentError, match="'content' must be string, got null"):
        check_arguments(DESCRIPTORS["rust_validate"]["inputSchema"], {"file": "a.rs", "content": None})


def test_array_items_are_checked():
    check = DESCRIPTORS["rust_check"]["inputSchema"]
    with pytest.raises(ArgumentError, match=r"'paths\[1\]' must be string, got number 3"):
        check_arguments(check, {"paths": ["src", 3]})
