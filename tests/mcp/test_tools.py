"""Tools (docs/MCP.md §3): the protocol, the registry, and `@tool` schemas from typed functions."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal, Optional

import pytest

from ferrule.mcp import FunctionTool, InvalidTool, SchemaError, Server, Tool, ToolOutput, ToolSet, tool
from ferrule.mcp.validate import compile_arguments
from testkit.mcp import call, replay


def test_a_three_line_tool():
    @tool
    def shout(text: str) -> str:
        """Shout the text."""
        return text.upper()

    assert shout.descriptor() == {
        "name": "shout",
        "description": "Shout the text.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": False,
        },
    }
    assert shout("hi") == "HI"  # still the function
    assert shout.run({"text": "hi"}) == ToolOutput("HI")
    assert isinstance(shout, Tool)


def test_schema_from_every_supported_annotation():
    @tool
    def everything(
        s: str,
        i: int,
        f: float,
        b: bool,
        items: list,
        names: list[str],
        mapping: dict,
        counts: dict[str, int],
        maybe: Optional[int],  # noqa: UP045 - Optional is one of the spellings users write
        either: str | None = None,
        mode: Literal["fast", "slow"] = "fast",
        level: Literal[1, 2, 3] = 1,
        note: Annotated[str, "a note for the reader"] = "",
        anything: Any = None,
        untyped=3,
    ) -> str:
        """Takes everything."""
        return ""

    props = everything.descriptor()["inputSchema"]["properties"]
    assert props["s"] == {"type": "string"}
    assert props["i"] == {"type": "integer"}
    assert props["f"] == {"type": "number"}
    assert props["b"] == {"type": "boolean"}
    assert props["items"] == {"type": "array"}
    assert props["names"] == {"type": "array", "items": {"type": "string"}}
    assert props["mapping"] == {"type": "object"}
    assert props["counts"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert props["maybe"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert props["either"] == {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
    assert props["mode"] == {"type": "string", "enum": ["fast", "slow"], "default": "fast"}
    assert props["level"] == {"type": "integer", "enum": [1, 2, 3], "default": 1}
    assert props["note"] == {"type": "string", "description": "a note for the reader", "default": ""}
    assert props["anything"] == {"default": None}
    assert props["untyped"] == {"default": 3}
    assert everything.descriptor()["inputSchema"]["required"] == ["s", "i", "f", "b", "items", "names", "mapping",
                                                                  "counts", "maybe"]


def test_docstring_gives_the_description_and_the_argument_descriptions():
    @tool(name="grep_files")
    def search(pattern: str, limit: int = 10) -> str:
        """Search the files for a pattern.

        Matches are returned one per line.

        Args:
            pattern: a regular expression,
                matched per line.
            limit (int): at most this many matches.

        Returns:
            The matches.
        """
        return ""

    descriptor = search.descriptor()
    assert descriptor["name"] == "grep_files"
    assert descriptor["description"] == (
        "Search the files for a pattern.\n\nMatches are returned one per line.\n\nReturns:\n    The matches."
    )
    props = descriptor["inputSchema"]["properties"]
    assert props["pattern"]["description"] == "a regular expression, matched per line."
    assert props["limit"] == {"type": "integer", "description": "at most this many matches.", "default": 10}


def test_rest_style_param_docs_and_an_explicit_description():
    @tool(description="Adds numbers.")
    def add(a: int, b: int) -> int:
        """Ignored summary.

        :param a: the first
        :param int b: the second
        """
        return a + b

    descriptor = add.descriptor()
    assert descriptor["description"] == "Adds numbers."
    assert descriptor["inputSchema"]["properties"]["b"]["description"] == "the second"


@pytest.mark.parametrize(
    ("source", "needle"),
    [
        ("def f(x: set) -> str: ...", "parameter 'x'"),
        ("def f(x: tuple[int, int]) -> str: ...", "parameter 'x'"),
        ("def f(x: dict[int, str]) -> str: ...", "dict keys must be str"),
        ("def f(x, /) -> str: ...", "cannot be passed by name"),
        ("def f(*xs) -> str: ...", "cannot be passed by name"),
    ],
)
def test_annotations_json_cannot_carry_are_refused_naming_the_parameter(source, needle):
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    with pytest.raises(SchemaError, match=needle):
        tool(namespace["f"])


def test_kwargs_allow_extra_arguments():
    @tool
    def loose(a: str, **rest: Any) -> dict:
        """Keeps everything."""
        return {"a": a, **rest}

    schema = loose.descriptor()["inputSchema"]
    assert "additionalProperties" not in schema
    assert compile_arguments(schema)({"a": "x", "b": 1}) is None


def test_an_unexpected_argument_names_what_the_object_takes_at_its_own_level():
    check = compile_arguments({
        "type": "object",
        "properties": {"file": {"type": "string"}, "at": {
            "type": "object", "properties": {"line": {"type": "integer"}}, "additionalProperties": False}},
        "additionalProperties": False,
    })
    assert check({"file": "a.rs", "column": 3}) == "unexpected argument 'column'; takes file, at"
    assert check({"at": {"column": 3}}) == "argument 'at': unexpected argument 'column'; takes line"
    many = {f"p{n}": {"type": "string"} for n in range(25)}
    check_many = compile_arguments({"type": "object", "properties": many, "additionalProperties": False})
    reason = check_many({"q": "x"})
    assert reason.endswith("p18, p19 and 5 more")
    assert compile_arguments({"type": "object", "additionalProperties": False})({"a": 1}) == \
        "unexpected argument 'a'; takes no arguments"


def test_return_values_become_outputs():
    @tool
    def give(kind: str) -> Any:
        """Returns a value of the given kind."""
        return {"dict": {"k": [1, 2]}, "none": None, "list": [1, "a"], "number": 2.5,
                "output": ToolOutput("made", is_error=True)}[kind]

    assert give.run({"kind": "dict"}) == ToolOutput('{"k":[1,2]}', structured={"k": [1, 2]})
    assert give.run({"kind": "none"}) == ToolOutput("")
    assert give.run({"kind": "list"}) == ToolOutput('[1,"a"]')
    assert give.run({"kind": "number"}) == ToolOutput("2.5")
    assert give.run({"kind": "output"}) == ToolOutput("made", is_error=True)


@tool
def kinds(n: int, m: Optional[int] = None, xs: list[int] | None = None,  # noqa: UP045
          counts: dict[str, int] | None = None, ratio: float = 0.5, anything: Any = None) -> str:
    """Shows what it was given, with the Python types."""
    return repr((n, m, xs, counts, ratio, anything))


class Locate:
    """A protocol tool with a hand-written schema, as a relay's position tools are."""

    def descriptor(self) -> dict[str, Any]:
        return {"name": "locate", "description": "Shows a position.", "inputSchema": {
            "type": "object", "required": ["line"],
            "properties": {"line": {"type": "integer", "minimum": 1},
                           "marks": {"type": "array", "items": {"type": ["integer", "null"]}},
                           "span": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}}}

    def run(self, args: dict[str, Any]) -> ToolOutput:
        return ToolOutput(repr(args))


def test_json_integers_written_as_floats_reach_integer_arguments_as_ints(use_twin):
    out = replay(
        Server("ints", "1", [kinds, Locate()]),
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"kinds","arguments":'
        b'{"n":17.0,"m":4.0,"xs":[1.0,2,3e0],"counts":{"a":5.0},"ratio":2.0,"anything":6.0}}}',
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"locate","arguments":'
        b'{"line":17.0,"marks":[2.0,null],"span":9.0}}}',
        b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"kinds","arguments":{"n":17}}}',
    )
    texts = [m["result"]["content"][0]["text"] for m in out]
    # A float stays a float where the schema takes any number (float, Any).
    assert texts[0] == "(17, 4, [1, 2, 3], {'a': 5}, 2.0, 6.0)"
    assert texts[1] == "{'line': 17, 'marks': [2, None], 'span': 9}"
    assert texts[2] == "(17, None, None, None, 0.5, None)"


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        ('{"n":17.5}', "argument 'n': expected integer, got number"),
        ('{"n":1,"m":4.5}', "argument 'm': expected integer or null, got number"),
        ('{"n":1,"xs":[1,2.5]}', "argument 'xs[1]': expected integer, got number"),
        ('{"n":1,"counts":{"a":0.1}}', "argument 'counts.a': expected integer, got number"),
    ],
)
def test_a_float_with_a_fraction_is_refused_naming_the_argument(use_twin, arguments, needle):
    line = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"kinds","arguments":%s}}'
    out = replay(Server("ints", "1", [kinds]), line % arguments.encode())
    assert out[0]["result"]["isError"] is True
    assert needle in out[0]["result"]["content"][0]["text"]


def test_async_functions_are_tools_too():
    @tool
    async def later(text: str) -> str:
        """Awaits, then echoes."""
        await asyncio.sleep(0)
        return f"later {text}"

    assert later.run({"text": "x"}) == ToolOutput("later x")


def test_registry_last_registration_wins_and_descriptors_are_sorted():
    @tool(name="same")
    def first() -> str:
        """First."""
        return "first"

    @tool(name="same")
    def second() -> str:
        """Second."""
        return "second"

    @tool
    def alpha() -> str:
        """Alpha."""
        return "a"

    tools = ToolSet([first, alpha])
    tools.add(second)
    assert len(tools) == 2 and "same" in tools
    assert tools.get("same") is second
    assert [d["name"] for d in tools.descriptors()] == ["alpha", "same"]
    assert [t.descriptor()["name"] for t in tools] == ["alpha", "same"]
    out = replay(Server("reg", "1", tools), call(1, "same"))
    assert out[0]["result"]["content"][0]["text"] == "second"


def test_plain_functions_are_wrapped_and_the_decorator_registers():
    def plain(word: str) -> str:
        """A plain function."""
        return word * 2

    tools = ToolSet([plain])
    assert isinstance(tools.get("plain"), FunctionTool)

    @tools.tool
    def extra() -> str:
        """Registered by decorator."""
        return "x"

    server = Server("reg", "1", tools)

    @server.tool(name="third")
    def three() -> str:
        """On the server."""
        return "3"

    assert tools.names() == ["extra", "plain", "third"]


class Counter:
    """A tool written against the protocol, with a hand-written schema."""

    def descriptor(self) -> dict[str, Any]:
        return {
            "name": "counter",
            "description": "Counts things.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer",
                              "minimum": 0}}, "required": ["n"]}, "maxItems": 3},
                    "mode": {"enum": ["sum", "max"]},
                    "label": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$"},
                    "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                    "node": {"$ref": "#/$defs/node"},
                },
                "required": ["items"],
                "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"},
                                                                     "v": {"type": "string"}}}},
            },
        }

    def run(self, args: dict[str, Any]) -> ToolOutput:
        return ToolOutput(str(sum(item["n"] for item in args["items"])))


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"items": [{"n": 1}, {"n": 2}]}, None),
        ({"items": [], "extra": 1}, None),  # the hand-written schema allows extra properties
        ({}, "missing required argument 'items'"),
        ({"items": "x"}, "argument 'items': expected array, got string"),
        ({"items": [{"n": 1}, {"n": -1}]}, "argument 'items[1].n': must be at least 0"),
        ({"items": [{"m": 1}]}, "argument 'items[0]': missing required argument 'n'"),
        ({"items": [{"n": True}]}, "argument 'items[0].n': expected integer, got boolean"),
        ({"items": [{"n": 1}] * 4}, "argument 'items': must have at most 3 items"),
        ({"items": [], "mode": "avg"}, "argument 'mode': must be one of 'sum', 'max', got 'avg'"),
        ({"items": [], "label": ""}, "argument 'label': must have at least 1 characters"),
        ({"items": [], "label": "A1"}, "argument 'label': must match the pattern '^[a-z]+$'"),
        ({"items": [], "limit": "ten"}, "argument 'limit': expected integer or null, got string"),
        ({"items": [], "node": {"next": {"next": {"v": 3}}}}, "argument 'node.next.next.v': expected string"),
        ({"items": [], "limit": {"anyOf": 1}}, "argument 'limit': expected integer or null, got object"),
    ],
)
def test_hand_written_schemas_are_checked(arguments, reason):
    check = compile_arguments(Counter().descriptor()["inputSchema"])
    found = check(arguments)
    if reason is None:
        assert found is None
    else:
        assert found is not None and found.startswith(reason), found


def test_a_protocol_tool_is_served_with_its_arguments_checked():
    out = replay(Server("proto", "1", [Counter()]), call(1, "counter", {"items": [{"n": 2}, {"n": 3}]}),
                 call(2, "counter", {"items": [{"n": "2"}]}))
    assert out[0]["result"] == {"content": [{"type": "text", "text": "5"}], "isError": False}
    assert out[1]["result"]["isError"] is True
    assert "argument 'items[0].n'" in out[1]["result"]["content"][0]["text"]


class Looping:
    """A schema whose refs loop without reaching a value: `a` is `b`, `b` is `a` or a string."""

    def descriptor(self) -> dict[str, Any]:
        return {"name": "looping", "inputSchema": {
            "type": "object", "properties": {"x": {"$ref": "#/$defs/a"}, "tree": {"$ref": "#/$defs/tree"}},
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]},
                      "tree": {"allOf": [{"$ref": "#/$defs/tree"}, {"type": "object", "properties": {
                          "kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}, "v": {"type": "integer"}}}]}},
        }}

    def run(self, args: dict[str, Any]) -> ToolOutput:
        return ToolOutput("ran")


def test_a_loop_of_refs_that_reaches_no_value_is_checked_and_answered():
    # each check ends (no recursion error, no crash of the compiled checks); a ref back to the schema
    # at hand adds nothing, and a ref inside a value still checks that value
    out = replay(Server("loops", "1", [Looping()]), call(1, "looping", {"x": 5}),
                 call(2, "looping", {"tree": {"kids": [{"kids": [{"v": "deep"}]}]}}),
                 call(3, "looping", {"tree": {"kids": [{"v": 1}]}}))
    assert out[0]["result"] == {"content": [{"type": "text", "text": "ran"}], "isError": False}
    assert out[1]["result"]["isError"] is True
    assert "argument 'tree.kids[0].kids[0].v': expected integer" in out[1]["result"]["content"][0]["text"]
    assert out[2]["result"] == {"content": [{"type": "text", "text": "ran"}], "isError": False}


@pytest.mark.parametrize(
    "descriptor",
    [
        {"description": "no name", "inputSchema": {"type": "object"}},
        {"name": "", "inputSchema": {"type": "object"}},
        {"name": "x", "inputSchema": {"type": "string"}},
        {"name": "x"},
        {"name": "x", "description": 5, "inputSchema": {"type": "object"}},
        ["not", "a", "dict"],
    ],
)
def test_bad_descriptors_are_refused_at_registration(descriptor):
    class Bad:
        def descriptor(self):
            return descriptor

        def run(self, args):
            return ToolOutput("")

    with pytest.raises(InvalidTool, match="docs/MCP.md §3"):
        ToolSet([Bad()])


def test_something_that_is_not_a_tool_is_refused():
    with pytest.raises(InvalidTool):
        ToolSet([42])


def test_defaults_fill_in_omitted_arguments_when_served():
    @tool
    def greet(name: str, greeting: str = "hello", times: int = 1) -> str:
        """Greets."""
        return " ".join([f"{greeting} {name}"] * times)

    out = replay(Server("defaults", "1", [greet]), call(1, "greet", {"name": "ada"}),
                 call(2, "greet", {"name": "bo", "greeting": "hi", "times": 2}))
    assert [m["result"]["content"][0]["text"] for m in out] == ["hello ada", "hi bo hi bo"]
