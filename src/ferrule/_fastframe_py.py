"""Line and LSP framing, and UTF-8/16/32 column conversion: the pure-Python twin.

Same API and behaviour as the compiled `_fastframe`; `ferrule.fastframe` picks one. Every framer
gives the same results however the input is split across `feed` calls.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from ._frame_errors import (
    HEADER_BLOCK_LIMIT,
    FrameError,
    FrameTooLarge,
    content_length_error,
    header_block_too_large,
    line_too_large,
)
from ._twins import DEFAULT_MAX_BODY, DEFAULT_MAX_LINE
from .textspan import changed_span

__all__ = [
    "FrameError",
    "FrameTooLarge",
    "LineFramer",
    "LspFramer",
    "LineIndex",
    "changed_span",
    "convert_column",
    "encode_lsp",
]



def _check_limit(name: str, value: int) -> int:
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return value


def _too_long(line: bytes | bytearray, limit: int) -> bool:
    """A line (or an unfinished one) is too long once it exceeds `limit` without its trailing CR."""
    size = len(line)
    return size > limit and (size - 1 > limit or line[-1] != 13)


class LineFramer:
    """Splits a byte stream into lines (LF or CRLF); lines longer than `max_line` raise FrameTooLarge."""

    __slots__ = ("_limit", "_partial", "_backlog", "_discarding")

    def __init__(self, max_line: int = DEFAULT_MAX_LINE) -> None:
        self._limit = _check_limit("max_line", max_line)
        self._partial = bytearray()  # the unfinished last line
        self._backlog = b""  # bytes not yet scanned because a raise cut the feed short
        self._discarding = False  # inside an over-long line, dropping bytes up to its newline

    @property
    def max_line(self) -> int:
        return self._limit

    @property
    def pending(self) -> int:
        """Bytes buffered and not yet returned as lines."""
        return len(self._partial) + len(self._backlog)

    def feed(self, data: bytes) -> list[bytes]:
        if type(data) is not bytes:
            data = bytes(data)
        if self._backlog:
            data = self._backlog + data
            self._backlog = b""
        if self._discarding:
            end = data.find(b"\n")
            if end < 0:
                return []
            self._discarding = False
            data = data[end + 1 :]
        partial = self._partial
        if b"\n" not in data:
            partial += data
            if _too_long(partial, self._limit):
                self._start_discarding()
                raise line_too_large(self._limit, [])
            return []
        raw = data.split(b"\n")
        size = len(partial) + len(data)
        if partial:
            raw[0] = b"".join((partial, raw[0]))
        tail = raw.pop()
        self._partial = bytearray(tail)
        # Only the first line can take its CR from earlier data; any other CR is in `data` (memchr).
        if b"\r" in data or raw[0][-1:] == b"\r":
            lines = [line[:-1] if line[-1:] == b"\r" else line for line in raw]
        else:
            lines = raw
        if size > self._limit and max(map(len, lines)) > self._limit:
            self._raise_at_long_line(raw, lines, tail)
        if _too_long(tail, self._limit):
            self._start_discarding()
            raise line_too_large(self._limit, lines)
        return lines

    def _start_discarding(self) -> None:
        self._partial = bytearray()
        self._discarding = True

    def _raise_at_long_line(self, raw: list[bytes], lines: list[bytes], tail: bytes) -> None:
        first = next(i for i, line in enumerate(lines) if len(line) > self._limit)
        # The long line ended in this feed: what follows it is kept, unscanned, for the next feed.
        self._backlog = b"\n".join([*raw[first + 1 :], tail])
        self._partial = bytearray()
        raise line_too_large(self._limit, lines[:first])


def encode_lsp(body: bytes) -> bytes:
    """One LSP message: the Content-Length header block, then `body`."""
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


_HEADER, _BODY, _RESYNC = 0, 1, 2
_RESYNC_NEEDLE = b"content-length"
_BLOCK_END = b"\r\n\r\n"


def _content_length(block: bytes, max_body: int) -> int | bytes | None:
    """The declared body length, or the offending raw value (None: no Content-Length header)."""
    if block[:16] == b"Content-Length: ":  # the usual block: one header, as encode_lsp writes it
        usual = block[16:]
        if usual.isdigit() and len(usual) <= 18 and int(usual) <= max_body:
            return int(usual)
    value: bytes | None = None
    for line in block.split(b"\r\n"):
        name, colon, raw = line.partition(b":")
        if colon and name.strip(b" \t").lower() == b"content-length":
            value = raw.strip(b" \t")
            if not value.isdigit() or len(value) > 18 or int(value) > max_body:
                return value
    if value is None:
        return None
    return int(value)


class LspFramer:
    """Splits an LSP byte stream (Content-Length header blocks) into message bodies."""

    __slots__ = ("_max_body", "_buf", "_state", "_need")

    def __init__(self, max_body: int = DEFAULT_MAX_BODY) -> None:
        self._max_body = _check_limit("max_body", max_body)
        self._buf = bytearray()  # unconsumed input, starting at the current header, body or scan point
        self._state = _HEADER
        self._need = 0  # body length while in _BODY

    @property
    def max_body(self) -> int:
        return self._max_body

    @property
    def pending(self) -> int:
        return len(self._buf)

    @staticmethod
    def encode(body: bytes) -> bytes:
        return encode_lsp(body)

    def feed(self, data: bytes) -> list[bytes]:
        if type(data) is not bytes:
            data = bytes(data)
        buf = self._buf
        if self._state == _BODY and len(buf) + len(data) < self._need:
            buf += data  # a large body arriving in pieces: no rescans, no quadratic copies
            return []
        work = b"".join((buf, data)) if buf else data
        bodies: list[bytes] = []
        pos = 0
        error: FrameError | None = None
        end_of_work = len(work)
        while True:
            state = self._state
            if state == _BODY:
                end = pos + self._need
                if end > end_of_work:
                    break
                bodies.append(work[pos:end])
                pos = end
                self._state = _HEADER
            elif state == _HEADER:
                end = work.find(_BLOCK_END, pos, pos + HEADER_BLOCK_LIMIT)
                if end < 0:
                    if end_of_work - pos < HEADER_BLOCK_LIMIT:
                        break
                    error = header_block_too_large(bodies)
                else:
                    length = _content_length(work[pos:end], self._max_body)
                    if isinstance(length, int):
                        self._need = length
                        self._state = _BODY
                        pos = end + 4
                        continue
                    error = content_length_error(length, self._max_body, bodies)
                # Resynchronise: look for the next header block after this one's first byte.
                self._state = _RESYNC
                pos += 1
                break
            else:
                found = work[pos:].lower().find(_RESYNC_NEEDLE)
                if found < 0:
                    # Keep just enough to recognise a needle split across feeds.
                    pos = max(pos, end_of_work - len(_RESYNC_NEEDLE) + 1)
                    break
                pos += found
                self._state = _HEADER
        self._buf = bytearray(work[pos:])
        if error is not None:
            raise error
        return bodies


_UNITS = {"utf-8": 1, "utf-16": 2, "utf-32": 4}


def _unit(encoding: str) -> int:
    try:
        return _UNITS[encoding]
    except (KeyError, TypeError):
        raise ValueError(f"unknown position encoding {encoding!r}; use 'utf-8', 'utf-16' or 'utf-32'") from None


def _width(char: str, unit: int) -> int:
    code = ord(char)
    if unit == 2:
        return 2 if code > 0xFFFF else 1
    return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4


def _to_code_points_slow(line: str, column: int, unit: int) -> int:
    """Per character, for lines holding lone surrogates (which strict codecs refuse)."""
    seen = 0
    for index, char in enumerate(line):
        seen += _width(char, unit)
        if seen > column:
            return index
    return len(line)


def _to_code_points(line: str, column: int, unit: int) -> int:
    """The code-point column of `column` (in `unit`-sized code units), rounded down, clamped."""
    if unit == 4 or line.isascii():
        return min(column, len(line))
    try:
        if unit == 2:
            encoded = line.encode("utf-16-le")
            if column * 2 >= len(encoded):
                return len(line)
            cut = column * 2
            if cut and 0xD8 <= encoded[cut - 1] <= 0xDB:  # inside a surrogate pair
                cut -= 2
            return len(encoded[:cut].decode("utf-16-le"))
        encoded = line.encode("utf-8")
    except UnicodeEncodeError:
        return _to_code_points_slow(line, column, unit)
    if column >= len(encoded):
        return len(line)
    while column and encoded[column] & 0xC0 == 0x80:  # inside a multi-byte character
        column -= 1
    return len(encoded[:column].decode("utf-8"))


def _from_code_points(line: str, column: int, unit: int) -> int:
    if unit == 4 or line.isascii():
        return column
    prefix = line[:column]
    if unit == 2:
        return len(prefix.encode("utf-16-le", "surrogatepass")) // 2
    return len(prefix.encode("utf-8", "surrogatepass"))


def _check_column(column: int) -> None:
    if column < 0:
        raise ValueError(f"column must be >= 0, got {column}")


def convert_column(line: str, column: int, src: str, dst: str) -> int:
    """Convert a column within `line` from `src` to `dst` code units.

    Encodings are "utf-8", "utf-16" and "utf-32" (code points). A column past the end clamps to
    the line's end; a column inside a character rounds down to that character's start.
    """
    src_unit = _unit(src)
    dst_unit = _unit(dst)
    _check_column(column)
    return _from_code_points(line, _to_code_points(line, column, src_unit), dst_unit)


class LineIndex:
    """Maps (line, column) to code-point offsets in a text and back; lines end at LF or CRLF."""

    __slots__ = ("_text", "_starts")

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts = [0, *accumulate(len(piece) + 1 for piece in text.split("\n")[:-1])]

    def edited(self, text: str, start: int, old_end: int, new_end: int) -> LineIndex:
        """The index of `text`: this index's text with [start, old_end) become text[start:new_end], as
        `changed_span` gives them. The lines before the change are copied, those after it shifted by
        the change in length, and only the inserted characters are scanned."""
        old_length = len(self._text)
        if not (0 <= start <= old_end <= old_length and start <= new_end <= len(text)
                and len(text) - new_end == old_length - old_end):
            raise ValueError(f"not an edit of this text: ({start}, {old_end}, {new_end}) between "
                             f"{old_length} and {len(text)} characters")
        starts = self._starts
        kept, tail = bisect_right(starts, start), bisect_right(starts, old_end)
        inserted = []
        found = text.find("\n", start, new_end)
        while found >= 0:
            inserted.append(found + 1)
            found = text.find("\n", found + 1, new_end)
        delta = new_end - old_end
        index = LineIndex.__new__(LineIndex)
        index._text = text
        index._starts = [*starts[:kept], *inserted, *(offset + delta for offset in starts[tail:])]
        return index

    @property
    def line_count(self) -> int:
        return len(self._starts)

    @property
    def text(self) -> str:
        return self._text

    def _bounds(self, line: int) -> tuple[int, int]:
        """Start and end (before LF or CRLF) of a line that exists."""
        start = self._starts[line]
        if line + 1 == len(self._starts):
            return start, len(self._text)
        end = self._starts[line + 1] - 1
        if end > start and self._text[end - 1] == "\r":
            end -= 1
        return start, end

    def line(self, n: int) -> str:
        if not 0 <= n < len(self._starts):
            raise IndexError(f"line {n} out of range (0..{len(self._starts) - 1})")
        start, end = self._bounds(n)
        return self._text[start:end]

    def offset(self, line: int, column: int, encoding: str = "utf-32") -> int:
        """Code-point offset of (line, column); past the last line: the end of the text."""
        unit = _unit(encoding)
        _check_column(column)
        if line < 0:
            raise ValueError(f"line must be >= 0, got {line}")
        if line >= len(self._starts):
            return len(self._text)
        start, end = self._bounds(line)
        if unit == 4:
            return start + min(column, end - start)
        return start + _to_code_points(self._text[start:end], column, unit)

    def position(self, offset: int, encoding: str = "utf-32") -> tuple[int, int]:
        """(line, column) of a code-point offset, clamped to the text; a CR or LF maps to its line's end."""
        unit = _unit(encoding)
        if offset < 0:
            raise ValueError(f"offset must be >= 0, got {offset}")
        offset = min(offset, len(self._text))
        line = bisect_right(self._starts, offset) - 1
        start, end = self._bounds(line)
        column = min(offset, end) - start
        if unit == 4:
            return line, column
        return line, _from_code_points(self._text[start:end], column, unit)
