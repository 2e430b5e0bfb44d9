"""The compiled wire (wire.py built as ferrule.mcp._wire_c) against wire.py itself: seeded random
messages classified by each, the kinds, ids, methods and params or the refusals (class, text, id)
compared; and the encoders on the values that take the standard library's path."""

from __future__ import annotations

import random

import pytest

from ferrule.mcp import wire

pytestmark = pytest.mark.c_extension

MESSAGES = 3000
_IDS = [1, 0, -7, "x", "", 2**70, None, True, False, 1.5, [1], {"a": 1}]
_METHODS = ["ping", "tools/call", "notifications/cancelled", "", 5, None, ["ping"]]
_PARAMS = [None, {}, {"name": "echo"}, [1], "p", 3]
_VERSIONS = ["2.0", "1.0", 2.0, None]
_MISSING = object()


def message(rng: random.Random) -> object:
    if rng.randrange(12) == 0:
        return rng.choice([[], [{"jsonrpc": "2.0"}], "text", 5, None, 1.5])  # not an object
    msg: dict[str, object] = {}
    for key, values in (("jsonrpc", _VERSIONS), ("id", _IDS), ("method", _METHODS), ("params", _PARAMS)):
        value = rng.choice([*values, _MISSING])
        if value is not _MISSING:
            msg[key] = value
    if rng.randrange(4) == 0:
        msg[rng.choice(["result", "error"])] = {}
    return msg


def outcome(module: object, msg: object) -> object:
    try:
        return module.classify(msg)  # type: ignore[attr-defined]
    except Exception as exc:  # the refusal the loop answers: its class, its text, the id it names
        return type(exc), str(exc), getattr(exc, "id", "no id")


def test_the_compiled_wire_classifies_as_wire_py_does():
    from ferrule.mcp import _wire_c  # here: _wire_c exists only where it was built

    seed = random.randrange(2**32)
    print(f"seed {seed}")  # shown on failure: the same seed makes the same messages
    rng = random.Random(seed)
    kinds = set()
    for number in range(MESSAGES):
        msg = message(rng)
        compiled, python = outcome(_wire_c, msg), outcome(wire, msg)
        assert compiled == python, f"message {number} of seed {seed}: {msg!r}"
        kinds.add(python[0] if type(python[0]) is int else python[0].__name__)
    # every branch was met: requests, notifications, responses, and both kinds of refusal
    assert kinds == {wire.REQUEST, wire.NOTIFICATION, wire.RESPONSE, "InvalidRequest", "InvalidParams"}


@pytest.mark.parametrize("value", [
    {"id": 2**70}, {"text": "lone \ud800 surrogate"}, {"id": 1, "result": {"content": []}}, [1, "a", None],
])
def test_the_compiled_encoders_write_what_wire_py_writes(value):
    from ferrule.mcp import _wire_c

    assert _wire_c.encode(value) == wire.encode(value)
    assert _wire_c.result_line(2**70, value) == wire.result_line(2**70, value)
    assert _wire_c.error_line("x", {"code": -1, "data": value}) == wire.error_line("x", {"code": -1, "data": value})
    assert _wire_c.compact(wire.encode(value)) == wire.encode(value)


def test_the_compiled_encoder_refuses_what_is_not_json_as_wire_py_does():
    from ferrule.mcp import _wire_c

    for module in (_wire_c, wire):
        with pytest.raises(TypeError):
            module.encode({"x": object()})
