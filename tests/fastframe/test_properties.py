"""Properties: the twins agree on any input split anywhere, conversions round-trip, the index is exact."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ferrule._fastframe_py as py
from testkit.twins import C

# `twin` (either twin, from the root conftest) holds no state between examples.
PROPERTY = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def c():
    """The compiled framers, for the tests (marked c_extension) that hold them against the Python ones."""
    return C.fastframe


def cut(data: bytes, points: list[int]) -> list[bytes]:
    marks = sorted({p % (len(data) + 1) for p in points})
    return [data[a:b] for a, b in zip([0, *marks], [*marks, len(data)], strict=True)]


def trace(framer, chunks: list[bytes]) -> list:
    """Everything observable after each feed: the result or the error and all it carried, and pending."""
    out: list = []
    for chunk in [*chunks, b"", b""]:
        try:
            out.append(("ok", framer.feed(chunk)))
        except py.FrameError as exc:
            out.append((type(exc).__name__, str(exc), exc.header, exc.lines, exc.bodies,
                        getattr(exc, "limit", None)))
        out.append(framer.pending)
    return out


def flat(framer, chunks: list[bytes]) -> list:
    """What a caller gets in total (errors in place, drained after each): independent of the split."""
    events: list = []
    for chunk in chunks:
        while True:
            try:
                events.extend(framer.feed(chunk))
                break
            except py.FrameError as exc:
                events.extend(exc.lines or exc.bodies)
                events.append((type(exc).__name__, exc.header))
                chunk = b""
    return events


splits = st.lists(st.integers(min_value=0, max_value=10_000), max_size=12)

line_streams = st.lists(
    st.sampled_from([b"\n", b"\r", b"\r\n", b"a", b"bc", b"{\"k\":1}", "é😀".encode(), b"x" * 7]), max_size=60
).map(b"".join)


@pytest.mark.c_extension
@PROPERTY
@given(data=line_streams, points=splits, limit=st.integers(min_value=1, max_value=12))
def test_line_framers_agree(c, data, points, limit):
    chunks = cut(data, points)
    assert trace(c.LineFramer(max_line=limit), chunks) == trace(py.LineFramer(max_line=limit), chunks)


@PROPERTY
@given(data=line_streams, points=splits, limit=st.integers(min_value=1, max_value=12))
def test_line_framing_independent_of_split(twin, data, points, limit):
    whole = flat(twin.fastframe.LineFramer(max_line=limit), [data])
    assert flat(twin.fastframe.LineFramer(max_line=limit), cut(data, points)) == whole


def lsp_message(body: bytes, headers: list[bytes]) -> bytes:
    return b"".join(headers) + b"Content-Length: %d\r\n\r\n" % len(body) + body


header_lines = st.sampled_from([
    b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n",
    b"content-length: 3\r\n",
    b"X-Other: 1\r\n",
    b"no colon here\r\n",
    b" Content-Length :\t2 \r\n",
])
pieces = st.one_of(
    st.builds(lsp_message, st.binary(max_size=40), st.lists(header_lines, max_size=2)),
    st.sampled_from([
        b"Content-Length: -4\r\n\r\n", b"Content-Length: 1e3\r\n\r\n", b"Content-Length: \r\n\r\n",
        b"Content-Length: 99999999999999999999\r\n\r\n", b"Content-Length: 41\r\n\r\n",
        b"Content-Type: text\r\n\r\n", b"CONTENT-LENGTH", b"Content-Len", b"\r\n\r\n", b"\r\n", b"\n",
        b"Content-Length: 2\r\n", b"\r\n\r\n{}",
    ]),
    st.binary(max_size=20),
)
lsp_streams = st.lists(pieces, max_size=12).map(b"".join)


@pytest.mark.c_extension
@PROPERTY
@given(data=lsp_streams, points=splits, limit=st.integers(min_value=1, max_value=40))
def test_lsp_framers_agree(c, data, points, limit):
    chunks = cut(data, points)
    assert trace(c.LspFramer(max_body=limit), chunks) == trace(py.LspFramer(max_body=limit), chunks)


@PROPERTY
@given(data=lsp_streams, points=splits, limit=st.integers(min_value=1, max_value=40))
def test_lsp_framing_independent_of_split(twin, data, points, limit):
    whole = flat(twin.fastframe.LspFramer(max_body=limit), [data])
    assert flat(twin.fastframe.LspFramer(max_body=limit), cut(data, points)) == whole


@PROPERTY
@given(bodies=st.lists(st.binary(max_size=300), max_size=10), points=splits)
def test_lsp_encode_then_frame_gives_the_bodies(twin, bodies, points):
    stream = b"".join(map(twin.fastframe.encode_lsp, bodies))
    assert flat(twin.fastframe.LspFramer(), cut(stream, points)) == bodies


# --- positions -------------------------------------------------------------------------------

ENCODINGS = ["utf-8", "utf-16", "utf-32"]
chars = st.one_of(
    st.characters(codec="utf-8"),  # any scalar value, astral included
    st.sampled_from(["a", "é", "中", "😀", "\u0301", "\U0010ffff", "\x80", "\u07ff", "\u0800"]),
    st.sampled_from(["\ud800", "\udfff"]),  # lone surrogates a str can hold
)
lines = st.lists(chars, max_size=40).map("".join)


def width(char: str, encoding: str) -> int:
    if encoding == "utf-32":
        return 1
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    return len(char.encode("utf-8", "surrogatepass"))


def boundaries(line: str, encoding: str) -> list[int]:
    """The column, in `encoding`, of every character start and of the end."""
    out = [0]
    for char in line:
        out.append(out[-1] + width(char, encoding))
    return out


@PROPERTY
@given(line=lines)
def test_conversions_match_reference(twin, line):
    # Every column, in every direction: character starts, insides (rounded down) and past the end.
    for src in ENCODINGS:
        starts = boundaries(line, src)
        for column in range(starts[-1] + 3):
            index = max(i for i, start in enumerate(starts) if start <= column)
            for dst in ENCODINGS:
                expected = boundaries(line, dst)[index]
                assert twin.fastframe.convert_column(line, column, src, dst) == expected, (src, column, dst)


@PROPERTY
@given(line=lines)
def test_conversions_round_trip_at_every_character(twin, line):
    for point in range(len(line) + 1):
        for enc in ENCODINGS:
            units = twin.fastframe.convert_column(line, point, "utf-32", enc)
            assert twin.fastframe.convert_column(line, units, enc, "utf-32") == point
            for other in ENCODINGS:
                there = twin.fastframe.convert_column(line, units, enc, other)
                assert twin.fastframe.convert_column(line, there, other, enc) == units


texts = st.lists(st.one_of(chars, st.sampled_from(["\n", "\r\n", "\r", "\n\n"])), max_size=60).map("".join)


class NaiveIndex:
    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.starts = [0]
        for line in self.lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.lines = [line[:-1] if line.endswith("\r") and i < len(self.lines) - 1 else line
                      for i, line in enumerate(self.lines)]
        self.size = len(text)

    def offset(self, line: int, column: int, enc: str) -> int:
        if line >= len(self.lines):
            return self.size
        starts = boundaries(self.lines[line], enc)
        return self.starts[line] + max(i for i, start in enumerate(starts) if start <= column)

    def position(self, offset: int, enc: str) -> tuple[int, int]:
        offset = min(offset, self.size)
        line = max(i for i, start in enumerate(self.starts) if start <= offset)
        points = min(offset - self.starts[line], len(self.lines[line]))
        return line, boundaries(self.lines[line], enc)[points]


@PROPERTY
@given(text=texts, data=st.data())
def test_line_index_matches_naive_reference(twin, text, data):
    naive = NaiveIndex(text)
    index = twin.fastframe.LineIndex(text)
    assert index.line_count == len(naive.lines)
    assert [index.line(n) for n in range(index.line_count)] == naive.lines
    queries = data.draw(st.lists(st.tuples(st.integers(0, len(naive.lines) + 1), st.integers(0, 50),
                                           st.integers(0, len(text) + 3), st.sampled_from(ENCODINGS)),
                                 max_size=20))
    for line, column, offset, enc in queries:
        assert index.offset(line, column, enc) == naive.offset(line, column, enc)
        assert index.position(offset, enc) == naive.position(offset, enc)


# one width against another: an edit may widen a str (an emoji into ASCII) or narrow it
span_texts = st.text(alphabet=st.sampled_from(["a", "b", "\n", "é", "中", "😀", "\u0a0a", "\u010a"]), max_size=40)


@PROPERTY
@given(old=span_texts, new=span_texts)
def test_changed_span_is_the_one_part_that_differs(twin, old, new):
    start, old_end, new_end = twin.fastframe.changed_span(old, new)
    assert old[:start] == new[:start] and old[old_end:] == new[new_end:]
    assert start <= old_end and start <= new_end
    if start < min(len(old), len(new)):  # the prefix is the longest
        assert old[start] != new[start]
    if old_end > start and new_end > start:  # and so is the suffix that does not reach into it
        assert old[old_end - 1] != new[new_end - 1]


@pytest.mark.c_extension
@PROPERTY
@given(old=span_texts, new=span_texts)
def test_changed_span_twins_agree(c, old, new):
    assert c.changed_span(old, new) == py.changed_span(old, new)


@pytest.mark.parametrize("width", ["a", "é", "中", "😀"])  # stored 1, 1, 2 and 4 bytes a character
@pytest.mark.parametrize("at", [0, 1, 2047, 2048, 4095, 4096, 4097, 8191, 12_000, 19_999])
def test_changed_span_finds_one_change_in_a_long_text(twin, width, at):
    old = (width + "b" * 9) * 2000  # 20,000 characters: several blocks of every storage width
    new = old[:at] + "X" + old[at + 1:]
    assert twin.fastframe.changed_span(old, new) == (at, at + 1, at + 1)
    assert twin.fastframe.changed_span(old, old[:at] + old[at:]) == (20_000, 20_000, 20_000)


@PROPERTY
@given(old=texts, new=texts, data=st.data())
def test_an_edited_line_index_is_the_index_of_the_new_text(twin, old, new, data):
    """`edited` copies the lines before the change and shifts those after it: every answer must be what
    an index built from the new text gives, CR and CRLF at the change's edges included."""
    if data.draw(st.booleans()):  # most edits keep most of the text
        cut = data.draw(st.integers(0, len(old)))
        new = old[:cut] + new + old[data.draw(st.integers(cut, len(old))):]
    LineIndex = twin.fastframe.LineIndex
    edited = LineIndex(old).edited(new, *twin.fastframe.changed_span(old, new))
    fresh = LineIndex(new)
    assert edited.text is new and edited.line_count == fresh.line_count
    assert [edited.line(n) for n in range(edited.line_count)] == [fresh.line(n) for n in range(fresh.line_count)]
    for offset in range(len(new) + 1):
        assert edited.position(offset, "utf-16") == fresh.position(offset, "utf-16")


def test_an_edit_that_does_not_fit_the_text_is_refused(twin):
    index = twin.fastframe.LineIndex("one\ntwo\n")
    for span, new in (((0, 9, 9), "one\ntwo\nX"), ((2, 1, 2), "one\ntwo\n"), ((0, 3, 1), "one\ntwo\n")):
        with pytest.raises(ValueError, match="not an edit of this text"):
            index.edited(new, *span)
