"""Random payloads, valid and invalid UTF-8, come back identically through both twins."""

from __future__ import annotations

import os
import re

from hypothesis import given, settings
from hypothesis import strategies as st

NOTE = re.compile(r"^\[stderr truncated: the first (\d+) bytes were cut\]\n")


def _through(twin, pieces: list[bytes], limit: int | None):
    with twin.capture.capture_stderr(limit=limit) as seen:
        for piece in pieces:
            os.write(2, piece)
    return seen


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.binary(max_size=300), max_size=8))
def test_bytes_round_trip(all_twins, pieces):
    payload = b"".join(pieces)
    for twin in all_twins:
        seen = _through(twin, pieces, None)
        assert seen.text == payload.decode("utf-8", "replace")
        assert (seen.size, seen.truncated) == (len(payload), False)


@settings(max_examples=300, deadline=None)
@given(payload=st.binary(max_size=400), limit=st.integers(0, 450))
def test_the_twins_cut_invalid_utf8_alike(all_twins, payload, limit):
    results = [(s.text, s.size, s.truncated) for s in (_through(t, [payload], limit) for t in all_twins)]
    assert all(result == results[0] for result in results)
    text, size, truncated = results[0]
    assert size == len(payload) and truncated == (len(payload) > limit)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200), limit=st.integers(0, 300))
def test_a_cut_keeps_a_whole_character_tail(all_twins, text, limit):
    payload = text.encode()
    for twin in all_twins:
        seen = _through(twin, [payload], limit)
        if len(payload) <= limit:
            assert seen.text == text and not seen.truncated
            continue
        note = NOTE.match(seen.text)
        assert note and seen.truncated
        kept = seen.text[note.end():]
        assert text.endswith(kept)
        assert limit - 4 < len(kept.encode()) <= limit
        assert int(note.group(1)) == len(payload) - len(kept.encode())
