"""LspFramer: bodies out of Content-Length header blocks; bad headers a typed error, then resync."""

from __future__ import annotations

import pytest

from ferrule.fastframe import FrameError, FrameTooLarge


def msg(body: bytes, *headers: bytes) -> bytes:
    return b"".join(headers) + b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_bodies_and_remainder(twin):
    framer = twin.fastframe.LspFramer()
    stream = msg(b'{"id":1}') + msg(b'{"id":2}')
    assert framer.feed(stream + b"Content-Len") == [b'{"id":1}', b'{"id":2}']
    assert framer.pending == len(b"Content-Len")
    assert framer.feed(b"gth: 2\r\n\r\n{}") == [b"{}"]
    assert framer.pending == 0


def test_header_names_case_insensitive_and_content_type_ignored(twin):
    framer = twin.fastframe.LspFramer()
    stream = (
        b"content-length: 2\r\n\r\n{}"
        b"CONTENT-TYPE: application/vscode-jsonrpc; charset=utf-8\r\ncOnTeNt-LeNgTh:3\r\n\r\n[1]"
        b"Content-Length:   4  \r\nContent-Type: x\r\n\r\nnull"
    )
    assert framer.feed(stream) == [b"{}", b"[1]", b"null"]


def test_empty_body(twin):
    assert twin.fastframe.LspFramer().feed(b"Content-Length: 0\r\n\r\n" + msg(b"x")) == [b"", b"x"]


def test_every_single_byte_split(twin):
    bodies = [b'{"m":"\xc3\xa9\xf0\x9f\x98\x80"}', b"", b"x" * 300]
    stream = b"".join(msg(b, b"Content-Type: application/json\r\n") for b in bodies)
    framer = twin.fastframe.LspFramer()
    got = [body for i in range(len(stream)) for body in framer.feed(stream[i : i + 1])]
    assert got == bodies
    assert framer.pending == 0


def test_large_body_in_many_pieces(twin):
    body = bytes(range(256)) * 4096
    stream = msg(body)
    framer = twin.fastframe.LspFramer()
    got = [b for i in range(0, len(stream), 1000) for b in framer.feed(stream[i : i + 1000])]
    assert got == [body]


@pytest.mark.parametrize(
    ("header", "says"),
    [
        (b"Content-Type: application/json\r\n", "no Content-Length"),
        (b"Content-Length: -5\r\n", "negative"),
        (b"Content-Length: 12abc\r\n", "not a number"),
        (b"Content-Length: \r\n", "not a number"),
        (b"Content-Length: +5\r\n", "not a number"),
        (b"Content-Length: 1001\r\n", "exceeds"),
        (b"Content-Length: 99999999999999999999999999\r\n", "exceeds"),
    ],
)
def test_bad_content_length_names_header_keeps_bodies_and_resyncs(twin, header, says):
    framer = twin.fastframe.LspFramer(max_body=1000)
    good = msg(b'{"ok":1}')
    with pytest.raises(FrameError) as info:
        framer.feed(good + header + b"\r\n" + b'{"lost":true}' + good + msg(b"[2]"))
    assert info.value.header == "Content-Length"
    assert says in str(info.value)
    assert info.value.bodies == [b'{"ok":1}']
    assert framer.feed(b"") == [b'{"ok":1}', b"[2]"]


def test_oversized_body_is_frame_too_large_with_limit(twin):
    with pytest.raises(FrameTooLarge) as info:
        twin.fastframe.LspFramer(max_body=10).feed(b"Content-Length: 11\r\n\r\n")
    assert info.value.limit == 10
    assert info.value.header == "Content-Length"


def test_resync_after_a_body_shorter_than_declared(twin, feed_all):
    # Content-Length says 3, the body is 5 bytes: the stray bytes prefix the next header name.
    stream = b"Content-Length: 3\r\n\r\nhello" + msg(b"next")
    events = feed_all(twin.fastframe.LspFramer(), [stream])
    assert events == [b"hel", ("error", "FrameError", "Content-Length"), b"next"]


def test_resync_needle_split_across_feeds(twin, feed_all):
    stream = b"Content-Length: x\r\n\r\ngarbage garbage " + msg(b"ok")
    for cut in range(1, len(stream)):
        events = feed_all(twin.fastframe.LspFramer(), [stream[:cut], stream[cut:]])
        assert events == [("error", "FrameError", "Content-Length"), b"ok"], cut


def test_header_block_without_end_is_bounded(twin, feed_all):
    garbage = b"X-Junk: " + b"j" * (70 * 1024)
    events = feed_all(twin.fastframe.LspFramer(), [garbage, msg(b"ok")])
    assert events == [("error", "FrameError", None), b"ok"]


def test_framer_usable_after_many_errors(twin, feed_all):
    stream = b"".join(msg(b"%d" % i) + b"Content-Length: bad\r\n\r\n" for i in range(5))
    events = feed_all(twin.fastframe.LspFramer(), [stream])
    assert [e for e in events if isinstance(e, bytes)] == [b"0", b"1", b"2", b"3", b"4"]
    assert len(events) == 10


def test_encode_round_trip(twin):
    body = '{"jsonrpc":"2.0","method":"é"}'.encode()
    framed = twin.fastframe.encode_lsp(body)
    assert framed == b"Content-Length: %d\r\n\r\n" % len(body) + body
    framer = twin.fastframe.LspFramer()
    assert framer.encode(body) == framed
    assert framer.feed(framed * 3) == [body] * 3


def test_input_buffer_released_even_after_an_error(twin):
    framer = twin.fastframe.LspFramer()
    data = bytearray(msg(b"{}") + b"Content-Length: nope\r\n\r\n")
    with pytest.raises(FrameError):
        framer.feed(data)
    data.extend(b"x")  # would raise BufferError if the framer still held it
    assert framer.feed(msg(b"[]")) == [b"[]"]
