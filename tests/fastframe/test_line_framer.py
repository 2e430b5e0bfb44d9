"""LineFramer: lines without their LF or CRLF, the remainder kept, over-long lines refused once."""

from __future__ import annotations

import pytest

from ferrule.fastframe import FrameError, FrameTooLarge


def test_complete_lines_and_remainder(twin):
    framer = twin.fastframe.LineFramer()
    assert framer.feed(b'{"a":1}\n{"b":2}\n{"c"') == [b'{"a":1}', b'{"b":2}']
    assert framer.pending == 4
    assert framer.feed(b":3}\n") == [b'{"c":3}']
    assert framer.pending == 0


def test_crlf_stripped_once_and_lone_cr_kept(twin):
    framer = twin.fastframe.LineFramer()
    assert framer.feed(b"a\r\nb\r\r\nc\rd\n\r\n") == [b"a", b"b\r", b"c\rd", b""]


def test_empty_lines_are_lines(twin):
    assert twin.fastframe.LineFramer().feed(b"\n\nx\n") == [b"", b"", b"x"]


def test_cr_and_lf_split_across_feeds(twin):
    framer = twin.fastframe.LineFramer()
    assert framer.feed(b"abc\r") == []
    assert framer.feed(b"\n") == [b"abc"]


def test_every_single_byte_split(twin):
    data = "héllo wörld 😀\r\n{}\nlast\r\n".encode()
    framer = twin.fastframe.LineFramer()
    got = [line for i in range(len(data)) for line in framer.feed(data[i : i + 1])]
    assert got == ["héllo wörld 😀".encode(), b"{}", b"last"]
    assert framer.pending == 0


def test_accepts_bytearray_and_memoryview(twin):
    framer = twin.fastframe.LineFramer()
    assert framer.feed(bytearray(b"a\nb")) == [b"a"]
    assert framer.feed(memoryview(b"c\n")) == [b"bc"]


def test_line_at_the_limit_passes_and_its_cr_does_not_count(twin):
    framer = twin.fastframe.LineFramer(max_line=5)
    assert framer.feed(b"12345\n12345\r\n") == [b"12345", b"12345"]
    assert framer.feed(b"12345\r") == []
    assert framer.feed(b"\n") == [b"12345"]


def test_long_line_raises_once_keeps_preceding_lines_and_what_follows(twin):
    framer = twin.fastframe.LineFramer(max_line=5)
    with pytest.raises(FrameTooLarge) as info:
        framer.feed(b"ok\nthis line is too long\nafter\nmore")
    assert info.value.lines == [b"ok"]
    assert info.value.limit == 5
    assert isinstance(info.value, FrameError) and isinstance(info.value, ValueError)
    assert "5 bytes" in str(info.value)
    assert framer.feed(b"") == [b"after"]
    assert framer.feed(b"\n") == [b"more"]


def test_long_unfinished_line_raises_early_then_discards_to_newline(twin):
    framer = twin.fastframe.LineFramer(max_line=8)
    with pytest.raises(FrameTooLarge) as info:
        framer.feed(b"one\n" + b"x" * 9)
    assert info.value.lines == [b"one"]
    assert framer.pending == 0
    # The rest of that line goes, without a second error; the framer is usable after it.
    assert framer.feed(b"x" * 100) == []
    assert framer.pending == 0
    assert framer.feed(b"xx\ntwo\n") == [b"two"]


def test_long_line_split_at_every_point_gives_one_error(twin, feed_all):
    data = b"a\n" + b"z" * 20 + b"\r\nb\nc\r\n"
    for cut in range(1, len(data)):
        events = feed_all(twin.fastframe.LineFramer(max_line=10), [data[:cut], data[cut:]])
        assert events == [b"a", ("error", "FrameTooLarge", None), b"b", b"c"], cut


def test_two_long_lines_in_one_feed(twin, feed_all):
    events = feed_all(twin.fastframe.LineFramer(max_line=3), [b"aaaa\nbbbb\nc\n"])
    assert events == [("error", "FrameTooLarge", None), ("error", "FrameTooLarge", None), b"c"]


def test_bad_limit(twin):
    with pytest.raises(ValueError):
        twin.fastframe.LineFramer(max_line=0)
    assert twin.fastframe.LineFramer().max_line == 64 * 1024 * 1024


def test_input_buffer_released_even_after_an_error(twin):
    # A bytearray cannot grow while something still holds its buffer.
    framer = twin.fastframe.LineFramer(max_line=4)
    first = bytearray(b"a\nbc")
    assert framer.feed(first) == [b"a"]
    first.extend(b"x")
    second = bytearray(b"defg")
    with pytest.raises(FrameTooLarge):
        framer.feed(second)
    second.extend(b"x")
    assert framer.feed(b"xx\nok\n") == [b"ok"]


def test_multi_megabyte_line_in_pieces(twin):
    framer = twin.fastframe.LineFramer()
    piece = bytes(range(11, 256)) * 256
    for _ in range(60):
        assert framer.feed(piece) == []
    assert framer.pending == 60 * len(piece)
    assert framer.feed(b"\r\nnext") == [piece * 60]
    assert framer.pending == 4
