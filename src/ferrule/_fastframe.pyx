# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Line and LSP framing, and UTF-8/16/32 column conversion: the compiled twin.

Same API and behaviour as `_fastframe_py` (the reference); `ferrule.fastframe` picks one. Lines are
found with memchr and bodies are sliced straight out of the caller's buffer; only an unfinished
line or message is copied into the framer. Columns are counted on the str's own storage (1, 2 or
4 bytes a character), with an O(1) answer for ASCII.
"""

from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from libc.stdint cimport uint64_t
from libc.string cimport memchr, memcmp, memcpy, memmove

from ferrule._frame_errors import (
    HEADER_BLOCK_LIMIT as _PY_HEADER_BLOCK_LIMIT,
    FrameError,
    FrameTooLarge,
    content_length_error,
    header_block_too_large,
    line_too_large,
)
from ferrule._twins import DEFAULT_MAX_BODY, DEFAULT_MAX_LINE

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


cdef extern from "Python.h":
    ctypedef unsigned char Py_UCS1
    ctypedef unsigned short Py_UCS2
    enum:
        PyUnicode_1BYTE_KIND
        PyUnicode_2BYTE_KIND
    int PyUnicode_KIND(object s)
    void* PyUnicode_DATA(object s)
    Py_ssize_t PyUnicode_GET_LENGTH(object s)
    bint PyUnicode_IS_ASCII(object s)
    Py_UCS4 PyUnicode_READ(int kind, const void* data, Py_ssize_t index)


cdef extern from *:
    """
    /* Strings made by the deprecated wstr APIs need readying before kind/data are valid (< 3.12). */
    static CYTHON_INLINE int ferrule_unicode_ready(PyObject *s) {
    #if PY_VERSION_HEX < 0x030C0000
        return PyUnicode_READY(s);
    #else
        (void)s;
        return 0;
    #endif
    }
    """
    int ferrule_unicode_ready(object s) except -1


cdef Py_ssize_t HEADER_BLOCK_LIMIT = _PY_HEADER_BLOCK_LIMIT
cdef Py_ssize_t SHRINK_ABOVE = 1 << 20  # an emptied buffer bigger than this goes back to the allocator


# ---------------------------------------------------------------------------------------------
# A growable byte buffer with a consumed prefix, so that taking bytes off the front is O(1).

cdef struct ByteBuf:
    char* data
    Py_ssize_t start  # first unconsumed byte
    Py_ssize_t end  # one past the last byte
    Py_ssize_t cap


cdef inline Py_ssize_t buf_size(const ByteBuf* b) noexcept nogil:
    return b.end - b.start


cdef int buf_append(ByteBuf* b, const char* src, Py_ssize_t n) except -1:
    cdef Py_ssize_t size = b.end - b.start
    cdef Py_ssize_t cap
    cdef char* grown
    if n <= 0:
        return 0
    if b.end + n > b.cap and b.start:
        memmove(b.data, b.data + b.start, size)
        b.start = 0
        b.end = size
    if b.end + n > b.cap:
        cap = max(b.cap * 2, b.end + n, 256)
        grown = <char*>PyMem_Realloc(b.data, cap)
        if grown == NULL:
            raise MemoryError()
        b.data = grown
        b.cap = cap
    memcpy(b.data + b.end, src, n)
    b.end += n
    return 0


cdef inline void buf_consume(ByteBuf* b, Py_ssize_t n) noexcept:
    b.start += n
    if b.start >= b.end:
        b.start = 0
        b.end = 0
        if b.cap > SHRINK_ABOVE:
            PyMem_Free(b.data)
            b.data = NULL
            b.cap = 0


cdef inline void buf_clear(ByteBuf* b) noexcept:
    buf_consume(b, b.end - b.start)


cdef inline void buf_free(ByteBuf* b) noexcept:
    PyMem_Free(b.data)
    b.data = NULL
    b.start = b.end = b.cap = 0


cdef inline bint too_long(const char* line, Py_ssize_t size, Py_ssize_t limit) noexcept nogil:
    """Over the limit even without a trailing CR (which belongs to a CRLF ending)."""
    return size > limit and (size - 1 > limit or line[size - 1] != b'\r')


cdef Py_ssize_t check_limit(str name, Py_ssize_t value) except -1:
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return value


# ---------------------------------------------------------------------------------------------

cdef class LineFramer:
    """Splits a byte stream into lines (LF or CRLF); lines longer than `max_line` raise FrameTooLarge."""

    cdef ByteBuf _partial  # the unfinished last line
    cdef Py_ssize_t _limit
    cdef bytes _backlog  # bytes not yet scanned because a raise cut the feed short
    cdef bint _discarding  # inside an over-long line, dropping bytes up to its newline

    def __cinit__(self):
        self._backlog = b""

    def __init__(self, Py_ssize_t max_line=DEFAULT_MAX_LINE):
        self._limit = check_limit("max_line", max_line)

    def __dealloc__(self):
        buf_free(&self._partial)

    @property
    def max_line(self):
        return self._limit

    @property
    def pending(self):
        """Bytes buffered and not yet returned as lines."""
        return buf_size(&self._partial) + len(self._backlog)

    def feed(self, data):
        cdef Py_buffer view
        if self._backlog:
            data = b"".join((self._backlog, data))
            self._backlog = b""
        PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
        try:
            return self._scan(<const char*>view.buf, view.len)
        finally:
            PyBuffer_Release(&view)

    cdef list _scan(self, const char* p, Py_ssize_t n):
        cdef list lines = []
        cdef const char* end = p + n
        cdef const char* nl
        cdef Py_ssize_t size
        cdef ByteBuf* partial = &self._partial
        if self._discarding:
            nl = <const char*>memchr(p, b'\n', n)
            if nl == NULL:
                return lines
            self._discarding = False
            p = nl + 1
        if buf_size(partial):
            nl = <const char*>memchr(p, b'\n', end - p)
            if nl == NULL:
                buf_append(partial, p, end - p)
                if too_long(partial.data + partial.start, buf_size(partial), self._limit):
                    self._start_discarding()
                    raise line_too_large(self._limit, lines)
                return lines
            buf_append(partial, p, nl - p)
            size = buf_size(partial)
            if size and partial.data[partial.end - 1] == b'\r':
                size -= 1
            p = nl + 1
            if size > self._limit:
                buf_clear(partial)
                self._backlog = PyBytes_FromStringAndSize(p, end - p)
                raise line_too_large(self._limit, lines)
            lines.append(PyBytes_FromStringAndSize(partial.data + partial.start, size))
            buf_clear(partial)
        while True:
            nl = <const char*>memchr(p, b'\n', end - p)
            if nl == NULL:
                break
            size = nl - p
            if size and (nl - 1)[0] == b'\r':
                size -= 1
            if size > self._limit:
                # The long line ended here: what follows is kept, unscanned, for the next feed.
                self._backlog = PyBytes_FromStringAndSize(nl + 1, end - nl - 1)
                raise line_too_large(self._limit, lines)
            lines.append(PyBytes_FromStringAndSize(p, size))
            p = nl + 1
        if p < end:
            if too_long(p, end - p, self._limit):
                self._start_discarding()
                raise line_too_large(self._limit, lines)
            buf_append(partial, p, end - p)
        return lines

    cdef void _start_discarding(self) noexcept:
        buf_clear(&self._partial)
        self._discarding = True


# ---------------------------------------------------------------------------------------------

def encode_lsp(body):
    """One LSP message: the Content-Length header block, then `body`."""
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


cdef enum LspState:
    HEADER = 0
    BODY = 1
    RESYNC = 2

cdef enum LengthResult:
    LENGTH_OK = 0
    LENGTH_MISSING = 1
    LENGTH_BAD = 2

cdef const char* NEEDLE = b"content-length"  # lower case; the resync target and the header name
cdef Py_ssize_t NEEDLE_LEN = 14


cdef inline unsigned char ascii_lower(unsigned char c) noexcept nogil:
    return c + 32 if b'A' <= c <= b'Z' else c


cdef inline bint is_needle(const char* s) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(NEEDLE_LEN):
        if ascii_lower(<unsigned char>s[i]) != <unsigned char>NEEDLE[i]:
            return False
    return True


cdef Py_ssize_t find_needle(const char* w, Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    """First case-insensitive "content-length" in w[start:stop], or -1."""
    cdef Py_ssize_t i
    for i in range(start, stop - NEEDLE_LEN + 1):
        if (w[i] == b'c' or w[i] == b'C') and is_needle(w + i):
            return i
    return -1


cdef Py_ssize_t find_block_end(const char* w, Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    """Index of the first CRLFCRLF lying wholly within w[start:stop], or -1."""
    cdef Py_ssize_t j = start + 3
    cdef const char* nl
    while j < stop:
        nl = <const char*>memchr(w + j, b'\n', stop - j)
        if nl == NULL:
            return -1
        j = nl - w
        if w[j - 1] == b'\r' and w[j - 2] == b'\n' and w[j - 3] == b'\r':
            return j - 3
        j += 1
    return -1


cdef inline bint is_blank(char c) noexcept nogil:
    return c == b' ' or c == b'\t'


cdef LengthResult parse_length(const char* block, Py_ssize_t size, Py_ssize_t max_body,
                               Py_ssize_t* length, Py_ssize_t* value_at,
                               Py_ssize_t* value_size) noexcept nogil:
    """Content-Length of a header block (no terminator), the last one winning; unknown lines ignored."""
    cdef Py_ssize_t line = 0, line_end, colon, a, b, i, digits
    cdef Py_ssize_t found = 0, number
    cdef const char* nl
    cdef const char* c
    while line <= size:
        # The line runs to the next CRLF (a lone LF or CR is part of it).
        line_end = size
        i = line + 1
        while i < size:
            nl = <const char*>memchr(block + i, b'\n', size - i)
            if nl == NULL:
                break
            if (nl - 1)[0] == b'\r':
                line_end = nl - 1 - block
                break
            i = nl - block + 1
        c = <const char*>memchr(block + line, b':', line_end - line)
        if c != NULL:
            colon = c - block
            a = line
            b = colon
            while a < b and is_blank(block[a]):
                a += 1
            while b > a and is_blank(block[b - 1]):
                b -= 1
            if b - a == NEEDLE_LEN and is_needle(block + a):
                a = colon + 1
                b = line_end
                while a < b and is_blank(block[a]):
                    a += 1
                while b > a and is_blank(block[b - 1]):
                    b -= 1
                value_at[0] = a
                value_size[0] = b - a
                digits = b - a
                if digits == 0 or digits > 18:
                    return LENGTH_BAD
                number = 0
                for i in range(a, b):
                    if not (c'0' <= block[i] <= c'9'):
                        return LENGTH_BAD
                    number = number * 10 + (block[i] - c'0')
                if number > max_body:
                    return LENGTH_BAD
                length[0] = number
                found = 1
        line = line_end + 2
    return LENGTH_OK if found else LENGTH_MISSING


cdef class LspFramer:
    """Splits an LSP byte stream (Content-Length header blocks) into message bodies."""

    cdef ByteBuf _buf  # unconsumed input, starting at the current header, body or scan point
    cdef Py_ssize_t _max_body
    cdef Py_ssize_t _need  # body length while in BODY
    cdef LspState _state
    cdef object _error  # set by _run, raised by feed once the buffer is consistent

    def __init__(self, Py_ssize_t max_body=DEFAULT_MAX_BODY):
        self._max_body = check_limit("max_body", max_body)
        self._state = HEADER

    def __dealloc__(self):
        buf_free(&self._buf)

    @property
    def max_body(self):
        return self._max_body

    @property
    def pending(self):
        return buf_size(&self._buf)

    @staticmethod
    def encode(body):
        return encode_lsp(body)

    def feed(self, data):
        cdef Py_buffer view
        PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
        try:
            return self._feed(<const char*>view.buf, view.len)
        finally:
            PyBuffer_Release(&view)

    cdef list _feed(self, const char* p, Py_ssize_t n):
        cdef list bodies = []
        cdef Py_ssize_t used
        cdef ByteBuf* buf = &self._buf
        if buf_size(buf):
            if self._state == BODY and buf_size(buf) + n < self._need:
                buf_append(buf, p, n)  # a large body arriving in pieces: no rescans
                return bodies
            buf_append(buf, p, n)
            used = self._run(buf.data + buf.start, buf_size(buf), bodies)
            buf_consume(buf, used)
        else:
            used = self._run(p, n, bodies)
            buf_append(buf, p + used, n - used)
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return bodies

    cdef Py_ssize_t _run(self, const char* w, Py_ssize_t n, list bodies) except -1:
        """Take bodies out of w[:n]; return how many bytes are done with."""
        cdef Py_ssize_t pos = 0, end, length = 0, value_at = 0, value_size = 0
        cdef LengthResult result
        while True:
            if self._state == BODY:
                if n - pos < self._need:
                    return pos
                bodies.append(PyBytes_FromStringAndSize(w + pos, self._need))
                pos += self._need
                self._state = HEADER
            elif self._state == HEADER:
                end = find_block_end(w, pos, min(n, pos + HEADER_BLOCK_LIMIT))
                if end < 0:
                    if n - pos < HEADER_BLOCK_LIMIT:
                        return pos
                    self._error = header_block_too_large(bodies)
                else:
                    result = parse_length(w + pos, end - pos, self._max_body, &length, &value_at,
                                          &value_size)
                    if result == LENGTH_OK:
                        self._need = length
                        self._state = BODY
                        pos = end + 4
                        continue
                    self._error = content_length_error(
                        None if result == LENGTH_MISSING
                        else PyBytes_FromStringAndSize(w + pos + value_at, value_size),
                        self._max_body, bodies)
                # Resynchronise: look for the next header block after this one's first byte.
                self._state = RESYNC
                return pos + 1
            else:
                end = find_needle(w, pos, n)
                if end < 0:
                    # Keep just enough to recognise a needle split across feeds.
                    return max(pos, n - NEEDLE_LEN + 1)
                pos = end
                self._state = HEADER


# ---------------------------------------------------------------------------------------------
# Columns. A unit is the code-unit size: 1 (UTF-8), 2 (UTF-16), 4 (UTF-32, code points).

cdef int unit_of(object encoding) except -1:
    cdef str name
    if type(encoding) is str:
        name = <str>encoding
        if name == "utf-16":
            return 2
        if name == "utf-8":
            return 1
        if name == "utf-32":
            return 4
    raise ValueError(f"unknown position encoding {encoding!r}; use 'utf-8', 'utf-16' or 'utf-32'")


ctypedef fused ucs:  # the three storage widths of a CPython str
    Py_UCS1
    Py_UCS2
    Py_UCS4

cdef enum:
    BLOCK = 64  # characters summed at once, without early exit, so the compiler can vectorise


cdef inline Py_ssize_t count_units(const ucs* s, Py_ssize_t n, int unit) noexcept nogil:
    """Code units that s[:n] takes in UTF-8 (unit 1) or UTF-16 (unit 2)."""
    cdef Py_ssize_t i, extra = 0
    if unit == 2:
        for i in range(n):
            extra += s[i] > 0xFFFF
    else:
        for i in range(n):
            extra += (s[i] >= 0x80) + (s[i] >= 0x800) + (s[i] >= 0x10000)
    return n + extra


cdef Py_ssize_t points_before(const ucs* s, Py_ssize_t n, Py_ssize_t column, int unit) noexcept nogil:
    """Characters of s[:n] that end at or before `column` units (a split character rounds down)."""
    cdef Py_ssize_t i = 0, seen = 0, block
    while i + BLOCK <= n:
        block = count_units(s + i, BLOCK, unit)
        if seen + block > column:
            break
        seen += block
        i += BLOCK
    while i < n:
        seen += count_units(s + i, 1, unit)
        if seen > column:
            return i
        i += 1
    return n


cdef Py_ssize_t to_code_points(int kind, const void* data, Py_ssize_t start, Py_ssize_t end,
                               Py_ssize_t column, int unit, bint ascii) noexcept nogil:
    """Code points of data[start:end] before `column` units; a split character rounds down."""
    if unit == 4 or ascii or (unit == 2 and kind != 4) or column == 0:
        return min(column, end - start)  # one unit per character
    if kind == PyUnicode_1BYTE_KIND:
        return points_before(<const Py_UCS1*>data + start, end - start, column, unit)
    if kind == PyUnicode_2BYTE_KIND:
        return points_before(<const Py_UCS2*>data + start, end - start, column, unit)
    return points_before(<const Py_UCS4*>data + start, end - start, column, unit)


cdef Py_ssize_t from_code_points(int kind, const void* data, Py_ssize_t start, Py_ssize_t count,
                                 int unit, bint ascii) noexcept nogil:
    """Units taken by the `count` code points at data[start:]."""
    if unit == 4 or ascii or (unit == 2 and kind != 4):
        return count
    if kind == PyUnicode_1BYTE_KIND:
        return count_units(<const Py_UCS1*>data + start, count, unit)
    if kind == PyUnicode_2BYTE_KIND:
        return count_units(<const Py_UCS2*>data + start, count, unit)
    return count_units(<const Py_UCS4*>data + start, count, unit)


cdef inline int check_column(Py_ssize_t column) except -1:
    if column < 0:
        raise ValueError(f"column must be >= 0, got {column}")
    return 0


def convert_column(str line not None, Py_ssize_t column, src, dst):
    """Convert a column within `line` from `src` to `dst` code units.

    Encodings are "utf-8", "utf-16" and "utf-32" (code points). A column past the end clamps to
    the line's end; a column inside a character rounds down to that character's start.
    """
    cdef int src_unit = unit_of(src)
    cdef int dst_unit = unit_of(dst)
    cdef int kind
    cdef const void* data
    cdef Py_ssize_t points
    check_column(column)
    ferrule_unicode_ready(line)
    if PyUnicode_IS_ASCII(line):
        return min(column, PyUnicode_GET_LENGTH(line))
    kind = PyUnicode_KIND(line)
    data = PyUnicode_DATA(line)
    points = to_code_points(kind, data, 0, PyUnicode_GET_LENGTH(line), column, src_unit, False)
    return from_code_points(kind, data, 0, points, dst_unit, False)


cdef Py_ssize_t wide_newlines(const char* p, Py_ssize_t n, int kind, Py_ssize_t* starts) noexcept nogil:
    """The LFs of a str stored `kind` bytes a character (2 or 4), n characters at p: found with memchr
    on its bytes (many times faster than a loop over characters), each byte kept when the whole
    character holding it is LF. With `starts`, the offset after each goes into starts[1:]."""
    cdef const char* at = p
    cdef const char* end = p + n * kind
    cdef const char* found
    cdef Py_ssize_t count = 0, unit
    while at < end:
        found = <const char*>memchr(at, 10, end - at)
        if found == NULL:
            break
        unit = (found - p) // kind
        if (kind == 2 and (<const Py_UCS2*>p)[unit] == 10) or (kind == 4 and (<const Py_UCS4*>p)[unit] == 10):
            count += 1
            if starts != NULL:
                starts[count] = unit + 1
        at = p + (unit + 1) * kind  # on past this character
    return count


cdef Py_ssize_t newlines_in(const void* data, int kind, Py_ssize_t a, Py_ssize_t b,
                            Py_ssize_t* starts) noexcept nogil:
    """The LFs among characters [a, b) of a str's data; with `starts`, the offset after each goes into
    starts[1:] in order."""
    cdef const char* p = <const char*>data
    cdef const char* nl
    cdef Py_ssize_t count = 0, i
    if kind == 1:
        nl = <const char*>memchr(p + a, 10, b - a)
        while nl != NULL:
            count += 1
            if starts != NULL:
                starts[count] = nl + 1 - p
            nl = <const char*>memchr(nl + 1, 10, b - (nl + 1 - p))
        return count
    count = wide_newlines(p + a * kind, b - a, kind, starts)
    if starts != NULL and a:
        for i in range(1, count + 1):
            starts[i] += a
    return count


cdef object _BARE = object()  # LineIndex.edited's own construction: the starts are filled by it


cdef class LineIndex:
    """Maps (line, column) to code-point offsets in a text and back; lines end at LF or CRLF."""

    cdef str _text
    cdef Py_ssize_t* _starts  # code-point offset of each line's first character
    cdef Py_ssize_t _count
    cdef Py_ssize_t _length
    cdef int _kind
    cdef const void* _data
    cdef bint _ascii

    def __cinit__(self, str text not None, _token=None):
        ferrule_unicode_ready(text)
        self._text = text
        self._kind = PyUnicode_KIND(text)
        self._data = PyUnicode_DATA(text)
        self._length = PyUnicode_GET_LENGTH(text)
        self._ascii = PyUnicode_IS_ASCII(text)
        if _token is _BARE:
            return
        cdef Py_ssize_t count = 1 + newlines_in(self._data, self._kind, 0, self._length, NULL)
        self._allocate(count)
        newlines_in(self._data, self._kind, 0, self._length, self._starts)

    cdef _allocate(self, Py_ssize_t count):
        self._starts = <Py_ssize_t*>PyMem_Malloc(count * sizeof(Py_ssize_t))
        if self._starts == NULL:
            raise MemoryError()
        self._count = count
        self._starts[0] = 0

    def edited(self, str text not None, Py_ssize_t start, Py_ssize_t old_end, Py_ssize_t new_end):
        """The index of `text`: this index's text with [start, old_end) become text[start:new_end], as
        `changed_span` gives them. The lines before the change are copied, those after it shifted by
        the change in length, and only the inserted characters are scanned."""
        cdef LineIndex index = LineIndex(text, _BARE)
        if not (0 <= start <= old_end <= self._length and start <= new_end <= index._length
                and index._length - new_end == self._length - old_end):
            raise ValueError(f"not an edit of this text: ({start}, {old_end}, {new_end}) between "
                             f"{self._length} and {index._length} characters")
        cdef Py_ssize_t kept = self._after(start), tail = self._after(old_end), i
        cdef Py_ssize_t inserted = newlines_in(index._data, index._kind, start, new_end, NULL)
        cdef Py_ssize_t delta = new_end - old_end
        index._allocate(kept + inserted + self._count - tail)
        memcpy(index._starts, self._starts, kept * sizeof(Py_ssize_t))
        newlines_in(index._data, index._kind, start, new_end, index._starts + kept - 1)
        for i in range(tail, self._count):
            index._starts[kept + inserted + i - tail] = self._starts[i] + delta
        return index

    cdef Py_ssize_t _after(self, Py_ssize_t offset) noexcept:
        """How many line starts are at or before `offset` (the starts ascend, the first is 0)."""
        cdef Py_ssize_t low = 0, high = self._count, middle
        while low < high:
            middle = (low + high) // 2
            if self._starts[middle] <= offset:
                low = middle + 1
            else:
                high = middle
        return low

    def __dealloc__(self):
        PyMem_Free(self._starts)

    @property
    def line_count(self):
        return self._count

    @property
    def text(self):
        return self._text

    cdef inline Py_ssize_t _end(self, Py_ssize_t line) noexcept:
        """End of a line that exists, before its LF or CRLF."""
        cdef Py_ssize_t start = self._starts[line], end
        if line + 1 == self._count:
            return self._length
        end = self._starts[line + 1] - 1
        if end > start and PyUnicode_READ(self._kind, self._data, end - 1) == 13:
            end -= 1
        return end

    def line(self, Py_ssize_t n):
        if not 0 <= n < self._count:
            raise IndexError(f"line {n} out of range (0..{self._count - 1})")
        return self._text[self._starts[n]:self._end(n)]

    def offset(self, Py_ssize_t line, Py_ssize_t column, encoding="utf-32"):
        """Code-point offset of (line, column); past the last line: the end of the text."""
        cdef int unit = unit_of(encoding)
        cdef Py_ssize_t start
        check_column(column)
        if line < 0:
            raise ValueError(f"line must be >= 0, got {line}")
        if line >= self._count:
            return self._length
        start = self._starts[line]
        return start + to_code_points(self._kind, self._data, start, self._end(line), column, unit,
                                      self._ascii)

    def position(self, Py_ssize_t offset, encoding="utf-32"):
        """(line, column) of a code-point offset, clamped to the text; a CR or LF maps to its line's end."""
        cdef int unit = unit_of(encoding)
        cdef Py_ssize_t low = 0, high = self._count - 1, middle, start
        if offset < 0:
            raise ValueError(f"offset must be >= 0, got {offset}")
        offset = min(offset, self._length)
        while low < high:  # the last line starting at or before offset
            middle = (low + high + 1) >> 1
            if self._starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        start = self._starts[low]
        return low, from_code_points(self._kind, self._data, start, min(offset, self._end(low)) - start,
                                     unit, self._ascii)


cdef enum:
    SPAN_BLOCK = 4096  # bytes compared by memcmp (vectorised) before the search narrows


cdef Py_ssize_t same_from_start(const char* a, const char* b, Py_ssize_t n) noexcept nogil:
    """How many bytes a[:n] and b[:n] share from their start: whole blocks, then words, then bytes."""
    cdef Py_ssize_t i = 0
    cdef uint64_t x, y
    while i + SPAN_BLOCK <= n and memcmp(a + i, b + i, SPAN_BLOCK) == 0:
        i += SPAN_BLOCK
    while i + 8 <= n:
        memcpy(&x, a + i, 8)
        memcpy(&y, b + i, 8)
        if x != y:
            break
        i += 8
    while i < n and a[i] == b[i]:
        i += 1
    return i


cdef Py_ssize_t same_from_end(const char* a_end, const char* b_end, Py_ssize_t n) noexcept nogil:
    """How many bytes the n before a_end and the n before b_end share from their end."""
    cdef Py_ssize_t i = 0
    cdef uint64_t x, y
    while i + SPAN_BLOCK <= n and memcmp(a_end - i - SPAN_BLOCK, b_end - i - SPAN_BLOCK, SPAN_BLOCK) == 0:
        i += SPAN_BLOCK
    while i + 8 <= n:
        memcpy(&x, a_end - i - 8, 8)
        memcpy(&y, b_end - i - 8, 8)
        if x != y:
            break
        i += 8
    while i < n and a_end[-i - 1] == b_end[-i - 1]:
        i += 1
    return i


def changed_span(str old not None, str new not None):
    """(start, old_end, new_end): `old[start:old_end]` became `new[start:new_end]`, the rest is shared
    (the common prefix, then the common suffix that does not reach back into it)."""
    ferrule_unicode_ready(old)
    ferrule_unicode_ready(new)
    cdef Py_ssize_t n_old = PyUnicode_GET_LENGTH(old), n_new = PyUnicode_GET_LENGTH(new)
    cdef Py_ssize_t limit = min(n_old, n_new), start = 0, back = 0
    cdef int kind = PyUnicode_KIND(old), other = PyUnicode_KIND(new)
    cdef const char* a = <const char*>PyUnicode_DATA(old)
    cdef const char* b = <const char*>PyUnicode_DATA(new)
    if kind == other:  # the same storage width: compared as bytes
        start = same_from_start(a, b, limit * kind) // kind
        back = same_from_end(a + n_old * kind, b + n_new * kind, (limit - start) * kind) // kind
    else:  # they differ somewhere; read character by character
        while start < limit and PyUnicode_READ(kind, a, start) == PyUnicode_READ(other, b, start):
            start += 1
        while back < limit - start and (PyUnicode_READ(kind, a, n_old - 1 - back)
                                        == PyUnicode_READ(other, b, n_new - 1 - back)):
            back += 1
    return start, n_old - back, n_new - back
