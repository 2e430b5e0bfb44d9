"""ferrule.fastframe beside its peers: LSP framing, NDJSON framing and column conversion.

Every row of a group does the same work on the same bytes. Framing is framing only: no row decodes
JSON (pygls's loop calls json.loads on every body; its module's `json` is replaced by an identity
for the framing-only row, and a second row shows it with its real json.loads). Peers that read from
a stream get an io.BytesIO of the stream, which is the cheapest stream there is; ferrule is fed the
same bytes in 64 KiB chunks, and one more row reads those chunks from a BytesIO itself.
"""

from __future__ import annotations

import io
import json
import random
import threading
from importlib.metadata import version

import pygls.io_
import pytest
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec
from pylsp_jsonrpc.streams import JsonRpcStreamReader

from ferrule import _fastframe as ff_c  # a benchmark of the compiled twin needs it built: no fallback
from ferrule import _fastframe_py as ff_py

CHUNK = 64 * 1024
PYGLS = f"pygls {version('pygls')}"
PYLSP = f"python-lsp-jsonrpc {version('python-lsp-jsonrpc')}"


def messages(total: int = 1 << 20) -> list[bytes]:
    """JSON-RPC messages of 250-350 bytes (about 300), `total` bytes in all; the same every run."""
    rng = random.Random(7)
    out: list[bytes] = []
    size = 0
    while size < total:
        text = "".join(rng.choice("abcdefghij ;(){}") for _ in range(rng.randint(100, 200)))
        body = {"jsonrpc": "2.0", "id": len(out), "method": "textDocument/didChange",
                "params": {"textDocument": {"uri": "file:///w/src/lib.rs", "version": len(out)},
                           "contentChanges": [{"text": text}]}}
        encoded = json.dumps(body, separators=(",", ":")).encode()
        out.append(encoded)
        size += len(encoded)
    return out


MESSAGES = messages()
LSP_STREAM = b"".join(ff_c.encode_lsp(m) for m in MESSAGES)
NDJSON_STREAM = b"".join(m + b"\n" for m in MESSAGES)


def chunks(stream: bytes) -> list[bytes]:
    return [stream[i : i + CHUNK] for i in range(0, len(stream), CHUNK)]


LSP_CHUNKS = chunks(LSP_STREAM)
NDJSON_CHUNKS = chunks(NDJSON_STREAM)


def label(benchmark, group: str, impl: str, *, baseline: bool = False, target: str | None = None) -> None:
    benchmark.group = group
    benchmark.extra_info["impl"] = impl
    if baseline:
        benchmark.extra_info["baseline"] = True
    if target:
        benchmark.extra_info["target"] = target


# --- LSP framing ------------------------------------------------------------------------------

LSP_GROUP = f"fastframe: LSP framing, {len(MESSAGES)} messages of ~300 bytes, 64 KiB chunks"
LSP_TARGET = f"ferrule C >= 6x {PYGLS} sync reader (framing only)"


def feed_lsp(module) -> int:
    framer = module.LspFramer()
    return sum(len(framer.feed(chunk)) for chunk in LSP_CHUNKS)


def read_and_feed_lsp() -> int:
    framer = ff_c.LspFramer()
    stream = io.BytesIO(LSP_STREAM)
    count = 0
    while chunk := stream.read(CHUNK):
        count += len(framer.feed(chunk))
    return count


class _CountingProtocol:
    """What pygls's loop hands each message to; counts instead of dispatching."""

    def __init__(self) -> None:
        self.count = 0

    def structure_message(self, data):
        return data

    def handle_message(self, message) -> None:
        self.count += 1


class _IdentityJson:
    """Stands in for pygls.io_.json so that its loop frames without decoding."""

    @staticmethod
    def loads(body, object_hook=None):
        return body


def pygls_run() -> int:
    protocol = _CountingProtocol()
    pygls.io_.run(threading.Event(), io.BytesIO(LSP_STREAM), protocol)
    return protocol.count


def pylsp_read() -> int:
    reader = JsonRpcStreamReader(io.BytesIO(LSP_STREAM))
    count = 0
    while reader._read_message() is not None:  # its framing step; listen() would add json.loads
        count += 1
    return count


@pytest.mark.parametrize(
    ("impl", "run"),
    [
        ("ferrule C", lambda: feed_lsp(ff_c)),
        ("ferrule C, read from BytesIO", read_and_feed_lsp),
        ("ferrule Python", lambda: feed_lsp(ff_py)),
        (f"{PYLSP} JsonRpcStreamReader._read_message", pylsp_read),
    ],
)
def test_lsp_framing(benchmark, impl, run):
    label(benchmark, LSP_GROUP, impl, target=LSP_TARGET)
    assert benchmark(run) == len(MESSAGES)


def test_lsp_framing_pygls(benchmark, monkeypatch):
    label(benchmark, LSP_GROUP, f"{PYGLS} io_.run, sync reader (JSON decode stubbed)", baseline=True)
    monkeypatch.setattr(pygls.io_, "json", _IdentityJson)
    assert benchmark(pygls_run) == len(MESSAGES)


def test_lsp_framing_pygls_with_json(benchmark):
    label(benchmark, LSP_GROUP, f"{PYGLS} io_.run, sync reader, with its json.loads")
    assert benchmark(pygls_run) == len(MESSAGES)


# --- NDJSON framing ---------------------------------------------------------------------------

NDJSON_GROUP = f"fastframe: NDJSON framing, {len(MESSAGES)} lines of ~300 bytes, 64 KiB chunks"
NDJSON_TARGET = "ferrule C >= 1.5x the best pure-Python incremental framer"


class SplitFramer:
    """The usual pure-Python framer: prepend the remainder, split on LF, keep the tail."""

    def __init__(self) -> None:
        self._tail = b""

    def feed(self, data: bytes) -> list[bytes]:
        *lines, self._tail = (self._tail + data).split(b"\n")
        return lines


class FindFramer:
    """A bytearray buffer searched line by line with find(), as asyncio's StreamReader does."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        buf = self._buf
        buf += data
        lines = []
        start = 0
        while (end := buf.find(b"\n", start)) >= 0:
            lines.append(bytes(buf[start:end]))
            start = end + 1
        del buf[:start]
        return lines


def feed_lines(make) -> int:
    framer = make()
    return sum(len(framer.feed(chunk)) for chunk in NDJSON_CHUNKS)


@pytest.mark.parametrize(
    ("impl", "make", "baseline"),
    [
        ("ferrule C", ff_c.LineFramer, False),
        ("ferrule Python", ff_py.LineFramer, False),
        ("pure Python: split framer", SplitFramer, True),
        ("pure Python: bytearray + find framer", FindFramer, False),
    ],
)
def test_ndjson_framing(benchmark, impl, make, baseline):
    label(benchmark, NDJSON_GROUP, impl, baseline=baseline, target=NDJSON_TARGET)
    assert benchmark(feed_lines, make) == len(MESSAGES)


# --- columns ----------------------------------------------------------------------------------

ASCII_LINE = ("    let total = items.iter().map(|x| x.len()).sum::<usize>(); // " * 2)[:80]


def mixed_line(length: int = 10_000) -> str:
    """Code-like text with CJK comments and emoji: 1-, 3- and 4-byte characters, surrogate pairs."""
    rng = random.Random(11)
    pool = "abcdefghijklmnop (){};=." * 2 + "变量名称注释说明文档" + "😀🎉🚀🦀"
    return "".join(rng.choice(pool) for _ in range(length))


MIXED_LINE = mixed_line()
CODEC = PositionCodec(types.PositionEncodingKind.Utf16)


def utf16_length(line: str) -> int:
    return len(line.encode("utf-16-le")) // 2


def column_rows(line: str) -> list:
    end = utf16_length(line)
    position = types.Position(line=0, character=end)
    lines = [line]
    index_c = ff_c.LineIndex(line)
    return [
        ("ferrule C convert_column", ff_c.convert_column, (line, end, "utf-16", "utf-32"), False),
        ("ferrule C LineIndex.offset", index_c.offset, (0, end, "utf-16"), False),
        ("ferrule Python convert_column", ff_py.convert_column, (line, end, "utf-16", "utf-32"), False),
        (f"{PYGLS} PositionCodec.position_from_client_units", CODEC.position_from_client_units,
         (lines, position), True),
    ]


def check_same_answer(line: str) -> None:
    end = utf16_length(line)
    expected = CODEC.position_from_client_units([line], types.Position(line=0, character=end)).character
    assert ff_c.convert_column(line, end, "utf-16", "utf-32") == expected == len(line)
    assert ff_py.convert_column(line, end, "utf-16", "utf-32") == expected


@pytest.mark.parametrize("row", range(4), ids=["ferrule-c", "ferrule-c-index", "ferrule-py", "pygls"])
def test_column_ascii(benchmark, row):
    check_same_answer(ASCII_LINE)
    impl, function, args, baseline = column_rows(ASCII_LINE)[row]
    label(benchmark, "fastframe: UTF-16 column -> code points, end of an 80-character ASCII line", impl,
          baseline=baseline, target=f"ferrule C >= 150x {PYGLS} PositionCodec")
    benchmark(function, *args)


@pytest.mark.parametrize("row", range(4), ids=["ferrule-c", "ferrule-c-index", "ferrule-py", "pygls"])
def test_column_mixed(benchmark, row):
    check_same_answer(MIXED_LINE)
    impl, function, args, baseline = column_rows(MIXED_LINE)[row]
    label(benchmark, "fastframe: UTF-16 column -> code points, end of a 10,000-character mixed line "
          "(ASCII, CJK, emoji)", impl, baseline=baseline, target=f"ferrule C >= 100x {PYGLS} PositionCodec")
    benchmark(function, *args)


@pytest.mark.parametrize("row", range(3), ids=["ferrule-c", "ferrule-py", "pygls"])
def test_column_mixed_to_client(benchmark, row):
    position = types.Position(line=0, character=len(MIXED_LINE))
    assert ff_c.convert_column(MIXED_LINE, len(MIXED_LINE), "utf-32", "utf-16") == \
        CODEC.position_to_client_units([MIXED_LINE], position).character == utf16_length(MIXED_LINE)
    impl, function, args, baseline = [
        ("ferrule C convert_column", ff_c.convert_column, (MIXED_LINE, len(MIXED_LINE), "utf-32", "utf-16"), False),
        ("ferrule Python convert_column", ff_py.convert_column,
         (MIXED_LINE, len(MIXED_LINE), "utf-32", "utf-16"), False),
        (f"{PYGLS} PositionCodec.position_to_client_units", CODEC.position_to_client_units,
         ([MIXED_LINE], position), True),
    ][row]
    label(benchmark, "fastframe: code points -> UTF-16 column, end of a 10,000-character mixed line", impl,
          baseline=baseline)
    benchmark(function, *args)
