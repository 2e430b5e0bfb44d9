"""The ranged content change: applied the way the analyzer applies it, it gives the new text."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from ferrule.relay.text_change import ranged_change
from ferrule.textspan import changed_span


def applied(old: str, change: dict, encoding: str) -> str:
    """`change` applied to `old` as rust-analyzer applies one: lines split at LF, columns in `encoding`."""
    starts = [0] + [i + 1 for i, c in enumerate(old) if c == "\n"]

    def offset(position: dict) -> int:
        line_start = starts[position["line"]]
        units, at = 0, line_start
        while units < position["character"]:
            char = old[at]
            units += len(char.encode("utf-8")) if encoding == "utf-8" else (
                2 if encoding == "utf-16" and ord(char) > 0xFFFF else 1)
            at += 1
        assert units == position["character"], "a column inside a character"
        return at

    start, end = offset(change["range"]["start"]), offset(change["range"]["end"])
    return old[:start] + change["text"] + old[end:]


def edits(seed: int) -> Iterator[tuple[str, str]]:
    """2,000 (text, edited text) pairs: a random cut replaced by a few random characters."""
    rng = random.Random(seed)
    alphabet = "ab\n é👋"
    for _ in range(2000):
        old = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        cut, keep = rng.randint(0, len(old)), rng.randint(0, len(old))
        yield old, old[:cut] + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4))) + old[keep:]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_random_edits_round_trip(encoding):
    for old, new in edits(7):
        change = ranged_change(old, new, encoding)
        assert applied(old, change, encoding) == new


def test_a_one_line_change_in_a_large_text_sends_that_line_only():
    lines = [f"    let value_{n} = {n};" for n in range(6000)]
    old = "\n".join(lines)
    end_of_line = len(lines[4000])
    lines[4000] += " // changed"
    change = ranged_change(old, "\n".join(lines), "utf-8")
    at = {"line": 4000, "character": end_of_line}
    assert change == {"range": {"start": at, "end": at}, "text": " // changed"}


def test_a_carriage_return_before_the_change_or_in_it_sends_the_whole_text():
    assert ranged_change("a\r\nb", "a\r\nc", "utf-8") is None
    assert ranged_change("a\nb", "a\r\nb", "utf-8") is None
    assert ranged_change("a\rb\nc", "a\rb\nd", "utf-8") is None  # a lone CR: a line end to some servers


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_carriage_returns_after_the_change_move_none_of_its_positions(encoding):
    for old, new in edits(13):
        if old == new:
            continue  # nothing changed: the span would sit at the very end, after the CRs
        tail = "\r\nx\ry\r\n"
        change = ranged_change(old + tail, new + tail, encoding)
        assert change == ranged_change(old, new, encoding)
        assert applied(old + tail, change, encoding) == new + tail


def test_the_restore_reuses_the_shows_span_turned_round():
    for before, shown in edits(11):
        span = changed_span(before, shown)
        line = before.count("\n", 0, span[0])
        assert ranged_change(before, shown, "utf-8", span, line) == ranged_change(before, shown, "utf-8")
        back = ranged_change(shown, before, "utf-8", (span[0], span[2], span[1]), line)
        assert applied(shown, back, "utf-8") == before
