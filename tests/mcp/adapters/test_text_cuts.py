"""A tool's text result laid out once per revision: the splice gives the full conversion's bytes
for any text UTF-8 carries, and a layout the probes do not reproduce is never used."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("mcp", reason="the official SDK is not installed (ferrule[sdk])")

from ferrule.mcp.adapters.direct import TextCuts  # noqa: E402


def wrapped(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": False, "structuredContent": {"result": text}}


@given(st.text())
def test_the_splice_is_the_full_conversion(text):
    cuts = TextCuts()
    answer = cuts.answer("2025-06-18", text, wrapped)
    try:
        expected = orjson.dumps(wrapped(text))
    except orjson.JSONEncodeError:  # a lone surrogate: the full way takes it
        assert answer is None
    else:
        assert answer == expected


def test_each_revision_is_laid_out_once():
    seen = []

    def convert(text: str) -> dict:
        seen.append(text)
        return wrapped(text)

    cuts = TextCuts()
    for text in ("a", "b", "c"):
        cuts.answer("2025-06-18", text, convert)
    cuts.answer("2024-11-05", "d", convert)
    assert seen == [*TextCuts.PROBES, *TextCuts.PROBES]  # the probes only: no text is converted


@pytest.mark.parametrize("convert", [
    lambda text: {"text": text.upper()},  # a conversion that changes the text
    lambda text: {"text": text[:5]},  # or cuts it
    lambda text: {"text": "fixed"},  # or drops it
    lambda text: None,  # a result that is no plain layout
    lambda text: 1 / 0,  # a conversion that fails
])
def test_a_layout_the_probes_do_not_reproduce_is_never_used(convert):
    cuts = TextCuts()
    assert cuts.answer("2025-06-18", "hello", convert) is None
    assert cuts.answer("2025-06-18", "again", convert) is None
