"""`scope` without a position asks at a neutral top-level place: inside a probe function appended to
the file for the one op. The position must land in the probe's body whatever the file's ending."""

from __future__ import annotations

import pytest

from ferrule.relay.ops.completion import PROBE_NAME, with_probe


@pytest.mark.parametrize("text", ["", "fn a() {}\n", "fn a() {}", "é\n\n// last line without newline"])
def test_the_neutral_position_is_the_end_of_the_probes_body_line(text):
    shown, position = with_probe(text)
    assert with_probe(text, text.count("\n")) == (shown, position)  # the count a line index knows
    assert shown.startswith(text) and shown.endswith("}\n")
    lines = shown.split("\n")
    assert lines[position.line - 2] == f"fn {PROBE_NAME}() {{"
    assert lines[position.line - 1] == " " * position.character
    assert lines[position.line] == "}"


def test_an_unchanged_text_is_probed_once():
    """`scope` on a file whose text has not changed reuses the probed copy (a large file's copy costs
    more than the rest of the op's own work on it)."""
    text = "pub fn f() {}\n" * 1000
    first, position = with_probe(text, text.count("\n"))
    again, same = with_probe(text, text.count("\n"))
    assert again is first and same == position
    changed, _ = with_probe(text + "pub fn g() {}\n", text.count("\n") + 1)
    assert changed is not first and changed.startswith(text + "pub fn g() {}\n")
