# cython: annotation_typing=False
"""Arguments checked against a tool's inputSchema, compiled once per tool into plain closures.

The subset of JSON Schema that tool schemas use: type, enum, const, properties, required,
additionalProperties, items, anyOf / oneOf / allOf, minimum / maximum (and the exclusive forms),
minLength / maxLength, pattern, minItems / maxItems, and local `$ref`s into `$defs` / `definitions`.
Other keywords are accepted without checking. A failure is a sentence naming the argument (its path
for nested values), which the server returns as an `isError` result.

JSON has one number type: a client may send 17 as `17.0`, and JSON Schema counts it as an integer.
Where a value is accepted only as an `integer`, the check hands back `INTEGRAL` instead of None and
the object or array holding the value replaces it with the int, so a tool is never given `17.0` for
an integer argument (at any depth, whatever kind of tool it is). A float with a fraction stays a
failure.

setup.py compiles this source as `ferrule.mcp._validate_c` too (untyped: its closures, compiled,
run in about a third of the instructions); the registry (tools.py) compiles its tools' schemas with
that module unless the compiled twins are switched off.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["INTEGRAL", "Check", "compile_arguments", "json_type"]

# A check returns None when the value fits, else the reason (without the argument's name), or
# INTEGRAL when the value fits as an integer only (an integral float, to be replaced by its int).
Check = Callable[[Any], "str | None"]


class _Integral(str):
    """The type of INTEGRAL: a str, so that a caller that only tests `is None` still sees a verdict."""


INTEGRAL = _Integral("an integral number, taken as an integer")


def json_type(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return "string"
    if kind is bool:
        return "boolean"
    if kind is int:
        return "integer"
    if kind is float:
        return "number"
    if kind is dict:
        return "object"
    if kind is list:
        return "array"
    if value is None:
        return "null"
    return kind.__name__


def _is_string(v: Any) -> bool:
    return type(v) is str


def _is_integer(v: Any) -> bool:
    return type(v) is int  # an integral float is told apart by _type_check (INTEGRAL)


def _is_number(v: Any) -> bool:
    return type(v) is int or type(v) is float


_TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "string": _is_string,
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda v: type(v) is bool,
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "null": lambda v: v is None,
}


def _accept(value: Any) -> None:
    return None


class _Compiler:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}
        # the refs being compiled for the value at hand (none yet for the values inside it): a ref back
        # to one of them never reaches a value of its own, so it would only call itself at check time
        self.open: set[str] = set()

    def compile(self, schema: Any) -> Check:
        if schema is True or schema == {}:
            return _accept
        if schema is False:
            return lambda v: "no value is allowed here"
        if type(schema) is not dict:
            return _accept
        checks: list[Check] = []
        if "$ref" in schema:
            checks.append(self._ref(schema["$ref"]))
        is_object = "properties" in schema or "required" in schema or "additionalProperties" in schema
        # {"type": "object", "properties": ...}: one check tests both (the common root of a tool schema)
        if "type" in schema and not (is_object and schema["type"] == "object"):
            checks.append(_type_check(schema["type"]))
        if "enum" in schema:
            checks.append(_enum_check(schema["enum"]))
        if "const" in schema:
            const = schema["const"]
            checks.append(lambda v: None if _json_equal(v, const) else f"must be {const!r}")
        checks += _bounds(schema)
        if is_object:
            checks.append(self._object(schema, schema.get("type") == "object"))
        if "items" in schema and type(schema["items"]) is dict:
            checks.append(self._items(self._inner(schema["items"])))
        for keyword in ("anyOf", "oneOf"):
            if type(schema.get(keyword)) is list:
                checks.append(self._alternatives(keyword, [self.compile(s) for s in schema[keyword]]))
        if type(schema.get("allOf")) is list:
            checks += [self.compile(s) for s in schema["allOf"]]
        if not checks:
            return _accept
        if len(checks) == 1:
            return checks[0]

        def all_of(value: Any) -> str | None:
            integral = None
            for check in checks:
                reason = check(value)
                if reason is not None:
                    if reason is not INTEGRAL:
                        return reason
                    integral = reason  # the other checks still have their say
            return integral

        return all_of

    def _ref(self, ref: Any) -> Check:
        if type(ref) is not str or not ref.startswith("#/"):
            return _accept
        if ref in self.open:  # a loop of refs that no value breaks constrains nothing more
            return _accept
        if ref not in self.refs:
            self.refs[ref] = _accept  # a recursive schema refers to itself while it compiles
            target: Any = self.root
            for part in ref[2:].split("/"):
                target = target.get(part.replace("~1", "/").replace("~0", "~")) if type(target) is dict else None
            self.open.add(ref)
            try:
                self.refs[ref] = self.compile(target) if target is not None else _accept
            finally:
                self.open.discard(ref)
        refs = self.refs
        return lambda v: refs[ref](v)

    def _inner(self, schema: Any) -> Check:
        """The check of a value inside the one at hand (a property's, an item's)."""
        outer, self.open = self.open, set()
        try:
            return self.compile(schema)
        finally:
            self.open = outer

    def _object(self, schema: dict[str, Any], must_be_object: bool) -> Check:
        props: dict[str, Any] = schema["properties"] if type(schema.get("properties")) is dict else {}
        checks = {name: self._inner(sub) for name, sub in props.items()}
        required = [r for r in schema.get("required", ()) if type(r) is str]
        extra = schema.get("additionalProperties", True)
        extra_check = None if extra is False else self._inner(extra)
        # Properties that only constrain the type are settled by one `type(item) in kinds` test.
        plain = {name: kinds for name, sub in props.items() if (kinds := _plain_kinds(sub)) is not None}
        taken = _taken(props)

        def check_object(value: Any) -> str | None:
            if type(value) is not dict:
                return f"expected object, got {json_type(value)}" if must_be_object else None
            for name in required:
                if name not in value:
                    return f"missing required argument {name!r}"
            for name, item in value.items():
                kinds = plain.get(name)
                if kinds is not None and type(item) in kinds:
                    continue
                check = checks.get(name, extra_check)
                if check is None:
                    return f"unexpected argument {name!r}; {taken}"
                reason = check(item)
                if reason is not None:
                    if reason is not INTEGRAL:
                        return _name(name, reason)
                    value[name] = int(item)  # replaces a value, never adds a key: safe while iterating
            return None

        return check_object

    def _items(self, item_check: Check) -> Check:
        def check_items(value: Any) -> str | None:
            if type(value) is not list:
                return None
            for index, item in enumerate(value):
                reason = item_check(item)
                if reason is not None:
                    if reason is not INTEGRAL:
                        return _name(f"[{index}]", reason)
                    value[index] = int(item)
            return None

        return check_items

    @staticmethod
    def _alternatives(keyword: str, options: list[Check]) -> Check:
        if keyword == "anyOf":
            def any_of(value: Any) -> str | None:
                # The first option that fits decides; INTEGRAL only when no option takes the value as it is.
                integral = None
                for check in options:
                    reason = check(value)
                    if reason is None:
                        return None
                    if reason is INTEGRAL:
                        integral = reason
                if integral is not None:
                    return integral
                return _either([check(value) for check in options])  # only on failure: the reasons again

            return any_of

        def one_of(value: Any) -> str | None:
            reasons = [check(value) for check in options]
            fits = [reason for reason in reasons if reason is None or reason is INTEGRAL]
            if len(fits) == 1:
                return fits[0]
            if fits:
                return "matches more than one of the allowed shapes"
            return _either(reasons)

        return one_of


def _either(reasons: list[Any]) -> str:
    """One sentence for a value no alternative accepts: 'expected integer or null, got string'."""
    # One alternative of the value's own type, the others refusing the type: that one's reason says
    # what is wrong ('xs[1]: expected integer' for list[int] | None), not the list of shapes.
    fitting = [reason for reason in reasons if not (reason.startswith("expected ") and ", got " in reason)]
    if len(fitting) == 1:
        return fitting[0]
    wanted, got = [], set()
    for reason in reasons:
        expected, sep, found = reason.partition(", got ")
        if not expected.startswith("expected ") or not sep:
            return "matches none of the allowed shapes: " + "; ".join(dict.fromkeys(reasons))
        wanted.append(expected[len("expected "):])
        got.add(found)
    if len(got) == 1:
        return f"expected {' or '.join(dict.fromkeys(wanted))}, got {got.pop()}"
    return "matches none of the allowed shapes: " + "; ".join(dict.fromkeys(reasons))


_TAKEN_SHOWN = 20  # the names an unexpected argument's reason lists: a caller who guessed one sees the right one


def _taken(props: dict[str, Any]) -> str:
    """What an object takes, for the caller who sent a name it does not: 'takes file, line, character'."""
    if not props:
        return "takes no arguments"
    names = list(props)
    more = f" and {len(names) - _TAKEN_SHOWN} more" if len(names) > _TAKEN_SHOWN else ""
    return "takes " + ", ".join(names[:_TAKEN_SHOWN]) + more


def _name(name: str, reason: str) -> str:
    """Prefix a nested reason with the key or index it concerns: 'argument 'a.b[2]': ...'."""
    if reason.startswith("argument '"):
        inner = reason[len("argument '"):]
        joiner = "" if inner.startswith("[") else "."
        return f"argument '{name}{joiner}{inner}"
    if reason.startswith(("missing required argument '", "unexpected argument '")):
        head, _, key = reason.partition("'")
        return f"argument '{name}': {head}'{key}"
    return f"argument '{name}': {reason}"


_KINDS: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,), "object": (dict,),
    "array": (list,), "null": (type(None),),
}
_ANNOTATIONS = {"type", "description", "title", "default", "examples", "deprecated"}


def _plain_kinds(schema: Any) -> tuple[type, ...] | None:
    """The Python types a schema accepts when it says nothing but its type, else None: a `type`, or
    an `anyOf` of such schemas (what `Optional[int]` becomes).

    Falls through to the full check for what the types miss (3.0 is an integer in JSON)."""
    if type(schema) is not dict:
        return None
    if "anyOf" in schema and "type" not in schema:
        options = schema["anyOf"]
        if type(options) is not list or not options or not schema.keys() - {"anyOf"} <= _ANNOTATIONS:
            return None
        kinds: list[type] = []
        for option in options:
            option_kinds = _plain_kinds(option)
            if option_kinds is None:
                return None
            kinds += option_kinds
        return tuple(kinds)
    if "type" not in schema or not schema.keys() <= _ANNOTATIONS:
        return None
    names = [schema["type"]] if type(schema["type"]) is str else schema["type"]
    if type(names) is not list or not all(type(n) is str and n in _KINDS for n in names):
        return None
    return tuple(kind for n in names for kind in _KINDS[n])


def _type_check(expected: Any) -> Check:
    names = [expected] if type(expected) is str else [t for t in expected if type(t) is str]
    tests = [_TYPE_TESTS[t] for t in names if t in _TYPE_TESTS]
    if not tests:
        return _accept
    wanted = " or ".join(names)
    if "integer" in names and "number" not in names:  # 17.0 fits, as the integer 17
        others = [_TYPE_TESTS[t] for t in names if t in _TYPE_TESTS and t != "integer"]

        def integer(v: Any) -> str | None:
            if type(v) is int or (others and any(t(v) for t in others)):
                return None
            if type(v) is float and v.is_integer():
                return INTEGRAL
            return f"expected {wanted}, got {json_type(v)}"

        return integer
    if len(tests) == 1:
        test = tests[0]
        return lambda v: None if test(v) else f"expected {wanted}, got {json_type(v)}"
    return lambda v: None if any(t(v) for t in tests) else f"expected {wanted}, got {json_type(v)}"


def _json_equal(a: Any, b: Any) -> bool:
    # JSON has no bool/int overlap: True is not 1.
    return a == b and (type(a) is bool) == (type(b) is bool)


def _enum_check(options: Any) -> Check:
    options = list(options) if isinstance(options, (list, tuple)) else [options]

    def check_enum(value: Any) -> str | None:
        if any(_json_equal(value, option) for option in options):
            return None
        return f"must be one of {', '.join(map(repr, options))}, got {value!r}"

    return check_enum


_NUMBER_BOUNDS = (
    ("minimum", lambda v, m: v >= m, "at least"),
    ("maximum", lambda v, m: v <= m, "at most"),
    ("exclusiveMinimum", lambda v, m: v > m, "greater than"),
    ("exclusiveMaximum", lambda v, m: v < m, "less than"),
)
_SIZE_BOUNDS = (
    ("minLength", str, lambda n, m: n >= m, "at least", "characters"),
    ("maxLength", str, lambda n, m: n <= m, "at most", "characters"),
    ("minItems", list, lambda n, m: n >= m, "at least", "items"),
    ("maxItems", list, lambda n, m: n <= m, "at most", "items"),
)


def _bounds(schema: dict[str, Any]) -> list[Check]:
    checks: list[Check] = []
    for keyword, ok, words in _NUMBER_BOUNDS:
        limit = schema.get(keyword)
        if _is_number(limit):
            checks.append(_number_bound(limit, ok, f"must be {words} {limit}"))
    for keyword, kind, ok, words, unit in _SIZE_BOUNDS:
        limit = schema.get(keyword)
        if type(limit) is int:
            checks.append(_size_bound(kind, limit, ok, f"must have {words} {limit} {unit}"))
    pattern = schema.get("pattern")
    if type(pattern) is str:
        regex = re.compile(pattern)
        checks.append(
            lambda v: None if type(v) is not str or regex.search(v) else f"must match the pattern {pattern!r}"
        )
    return checks


def _number_bound(limit: Any, ok: Callable[[Any, Any], bool], reason: str) -> Check:
    return lambda v: None if not _is_number(v) or ok(v, limit) else reason


def _size_bound(kind: type, limit: int, ok: Callable[[int, int], bool], reason: str) -> Check:
    return lambda v: None if type(v) is not kind or ok(len(v), limit) else reason  # type: ignore[arg-type]


def compile_arguments(schema: dict[str, Any]) -> Check:
    """The check for a tool's whole `arguments` object; its reasons name the argument."""
    return _Compiler(schema).compile(schema)
