"""Columns in UTF-8, UTF-16 and code points; the line index."""

from __future__ import annotations

import pytest

LINE = "a é 中 😀 e\u0301!"  # ASCII, 2-byte, 3-byte, astral (surrogate pair in UTF-16), combining mark
# (code point, utf-8, utf-16) at the start of every character, and at the end.
STARTS = [(0, 0, 0), (1, 1, 1), (2, 2, 2), (3, 4, 3), (4, 5, 4), (5, 8, 5), (6, 9, 6), (7, 13, 8),
          (8, 14, 9), (9, 15, 10), (10, 17, 11), (11, 18, 12)]
ENC = {"utf-32": 0, "utf-8": 1, "utf-16": 2}


@pytest.mark.parametrize("src", ENC)
@pytest.mark.parametrize("dst", ENC)
def test_all_six_directions_at_character_starts(twin, src, dst):
    for point in STARTS:
        assert twin.fastframe.convert_column(LINE, point[ENC[src]], src, dst) == point[ENC[dst]], point


def test_inside_a_character_rounds_down(twin):
    # The astral character: UTF-8 bytes 9..12, UTF-16 units 6..7.
    for column in (10, 11, 12):
        assert twin.fastframe.convert_column(LINE, column, "utf-8", "utf-32") == 6
        assert twin.fastframe.convert_column(LINE, column, "utf-8", "utf-16") == 6
    assert twin.fastframe.convert_column(LINE, 7, "utf-16", "utf-32") == 6
    assert twin.fastframe.convert_column(LINE, 7, "utf-16", "utf-8") == 9
    assert twin.fastframe.convert_column(LINE, 6, "utf-8", "utf-16") == 4  # inside 中 (bytes 5..7)


def test_past_the_end_clamps(twin):
    assert twin.fastframe.convert_column(LINE, 1000, "utf-16", "utf-8") == 18
    assert twin.fastframe.convert_column(LINE, 1000, "utf-8", "utf-32") == 11
    assert twin.fastframe.convert_column(LINE, 1000, "utf-32", "utf-16") == 12
    assert twin.fastframe.convert_column("", 5, "utf-8", "utf-16") == 0
    assert twin.fastframe.convert_column("abc", 7, "utf-16", "utf-8") == 3


@pytest.mark.parametrize("line", ["x" * 80, "\xe9" * 30, "中文" * 10, "😀" * 10])
def test_each_string_width(twin, line):
    # CPython stores these as 1-byte (ASCII and latin-1), 2-byte and 4-byte strings.
    n = len(line)
    assert twin.fastframe.convert_column(line, n, "utf-32", "utf-8") == len(line.encode())
    assert twin.fastframe.convert_column(line, n, "utf-32", "utf-16") == len(line.encode("utf-16-le")) // 2
    assert twin.fastframe.convert_column(line, len(line.encode()), "utf-8", "utf-16") == len(line.encode("utf-16-le")) // 2


def test_lone_surrogates_count_as_one_code_point(twin):
    line = "a\ud800b\udc00c"
    assert twin.fastframe.convert_column(line, 5, "utf-32", "utf-16") == 5
    assert twin.fastframe.convert_column(line, 5, "utf-32", "utf-8") == 9
    assert twin.fastframe.convert_column(line, 4, "utf-8", "utf-32") == 2
    assert twin.fastframe.convert_column(line, 3, "utf-8", "utf-32") == 1  # inside the 3-byte surrogate


def test_bad_arguments(twin):
    with pytest.raises(ValueError, match="utf-7"):
        twin.fastframe.convert_column("abc", 1, "utf-7", "utf-8")
    with pytest.raises(ValueError):
        twin.fastframe.convert_column("abc", 1, "utf-8", "UTF8")
    with pytest.raises(ValueError):
        twin.fastframe.convert_column("abc", -1, "utf-8", "utf-16")


TEXT = "fn main() {\r\n    let s = \"😀é\";\n}\n\nlast"


def test_line_index_lines(twin):
    index = twin.fastframe.LineIndex(TEXT)
    assert index.line_count == 5
    assert [index.line(n) for n in range(5)] == ["fn main() {", '    let s = "😀é";', "}", "", "last"]
    with pytest.raises(IndexError):
        index.line(5)
    assert twin.fastframe.LineIndex("").line_count == 1
    assert twin.fastframe.LineIndex("a\n").line_count == 2
    assert twin.fastframe.LineIndex("a\r").line(0) == "a\r"  # a lone CR is not a line end


def test_line_index_offset_and_position(twin):
    index = twin.fastframe.LineIndex(TEXT)
    quote = TEXT.index('"😀') + 1  # code-point offset of 😀
    assert index.offset(1, 13) == quote
    assert index.offset(1, 13, "utf-16") == quote
    assert index.offset(1, 15, "utf-16") == quote + 1  # after the surrogate pair
    assert index.offset(1, 14, "utf-16") == quote  # inside it: rounded down
    assert index.offset(1, 17, "utf-8") == quote + 1
    assert index.position(quote + 1) == (1, 14)
    assert index.position(quote + 1, "utf-16") == (1, 15)
    assert index.position(quote + 1, "utf-8") == (1, 17)
    assert index.position(quote + 2, "utf-8") == (1, 19)


def test_line_index_clamps(twin):
    index = twin.fastframe.LineIndex(TEXT)
    assert index.offset(0, 500) == 11  # to the end of the line, before CRLF
    assert index.offset(99, 0) == len(TEXT)
    assert index.position(10_000) == (4, 4)
    assert index.position(11) == (0, 11)
    assert index.position(12) == (0, 11)  # between CR and LF: the line's end
    assert index.position(13) == (1, 0)
    with pytest.raises(ValueError):
        index.offset(-1, 0)
    with pytest.raises(ValueError):
        index.position(-1)
    with pytest.raises(ValueError):
        index.offset(0, 0, "utf-7")


def test_line_index_large_text(twin):
    lines = [f"line {n} é😀" for n in range(20_000)]
    text = "\r\n".join(lines)
    index = twin.fastframe.LineIndex(text)
    assert index.line_count == 20_000
    start = text.index("line 12345 ")
    assert index.offset(12345, 0) == start
    assert index.position(start + 11) == (12345, 11)
    assert index.position(start + 13, "utf-16") == (12345, 14)
