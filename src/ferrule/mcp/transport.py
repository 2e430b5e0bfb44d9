"""The transport seam (docs/MCP.md §1.1; the private channel, §4.1): `read_line` / `write_line`, stdio for production and a
scripted replay for tests.

`Transport` is the base class the server serves: a subclass gives `read_line` and `write_line`, and
may override `read_batch()` (every complete line one read brought, or None at end of input) and
`write_lines(lines)` (one write for them all), which is what lets one read of many pipelined requests
be answered with one write. Either read may hand back a `LineTooLong` in place of a line that broke
the bound; the server answers it and goes on. Two flags tell the server about the process around it:
`stdin_is_private` (fd 0 is already away from tools) and `session_capture` (the transport owns the
process's stdio for the run, so one capture session can stay open for every call instead of a
capture per call). Any object with `read_line` and `write_line` (a `LineChannel`) is served through
`LineTransport`, which gives it the defaults.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from orjson import dumps, loads

from ferrule.capture import StdoutClaim
from ferrule.fastframe import DEFAULT_MAX_LINE

from .errors import ChannelClosed, LineTooLong

__all__ = [
    "DEFAULT_MAX_LINE", "LineChannel", "LineTransport", "ReplayTransport", "StdioTransport", "StdoutClaim", "Transport",
]
# A pipe holds 64 KiB, so a larger read rarely brings more; and a read buffer above malloc's mmap
# threshold (128 KiB) would cost an mmap, mremap and munmap on every read.
_READ_SIZE = 1 << 16


@runtime_checkable
class LineChannel(Protocol):
    """The least a transport needs: one line in, one line out."""

    def read_line(self) -> bytes | None:
        """The next line without its newline; None at end of input. May raise ChannelClosed."""

    def write_line(self, line: bytes) -> None:
        """Send one line (the newline is added). Raises ChannelClosed when the peer is gone."""


class Transport:
    """What the server serves. Subclasses give `read_line` and `write_line`; the rest has defaults."""

    #: fd 0 is already away from tools: the server need not point it at /dev/null around each call.
    stdin_is_private: bool = False
    #: The process's stdio is the server's for the run: one capture session serves every call.
    session_capture: bool = False

    def read_line(self) -> bytes | None:
        """The next line without its newline; None at end of input. May raise ChannelClosed."""
        raise NotImplementedError

    def write_line(self, line: bytes) -> None:
        """Send one line (the newline is added). Raises ChannelClosed when the peer is gone."""
        raise NotImplementedError

    def read_batch(self) -> list[Any] | None:
        """Every complete line one read brought (LineTooLong in place of an over-long one); None at EOF."""
        try:
            line = self.read_line()
        except LineTooLong as exc:
            return [exc]
        return None if line is None else [line]

    def write_lines(self, lines: list[bytes]) -> None:
        """Send the lines, in order (one write where the transport can)."""
        for line in lines:
            self.write_line(line)

    def close(self) -> None:
        """Give back what the transport took (called by the server only for a transport it made)."""


class LineTransport(Transport):
    """A `LineChannel` served as a Transport: its two methods, the defaults for the rest."""

    def __init__(self, channel: LineChannel) -> None:
        self._channel = channel
        self.stdin_is_private = bool(getattr(channel, "stdin_is_private", False))
        self.session_capture = bool(getattr(channel, "session_capture", False))

    def read_line(self) -> bytes | None:
        return self._channel.read_line()

    def write_line(self, line: bytes) -> None:
        self._channel.write_line(line)


class StdioTransport(Transport):
    """Frames on stdio: lines read from fd 0, answers written to a private duplicate of fd 1.

    At construction fd 1 is duplicated to a close-on-exec descriptor for frames and pointed at fd 2,
    so a stray `print()` or a child's stdout cannot corrupt the channel; likewise the input moves to
    a private close-on-exec descriptor and fd 0 is pointed at /dev/null while serving, so a tool
    (or its children) can neither prompt nor swallow protocol bytes. Both are claims (`StdoutClaim`
    for fd 1): one transport at a time holds them, and `close()` gives fd 0 and fd 1 back, so an
    embedder has its stdio again after a run.
    """

    # The server need not point fd 0 at /dev/null around each call: it already is.
    stdin_is_private = True
    # The process's stdio is the server's for the run: one capture session serves every call.
    session_capture = True

    def __init__(self, *, max_line: int = DEFAULT_MAX_LINE) -> None:
        from ferrule._pipes import widen_pipe
        from ferrule.capture import private_stdin, stdin_from_devnull
        from ferrule.fastframe import FrameTooLarge, LineFramer

        self._too_large = FrameTooLarge
        self._framer = LineFramer(max_line)
        self.max_line = max_line
        self._claim = StdoutClaim()
        self._out = self._claim.fd
        try:
            self._in = private_stdin()
        except BaseException:
            self._claim.release()
            raise
        widen_pipe(self._in)  # large arguments (a file's text) are handed over at once
        self._devnull: Any = stdin_from_devnull()
        self._devnull.__enter__()
        self._queue: list[Any] = []
        self._eof = False

    def read_batch(self) -> list[Any] | None:
        """Every complete line of one read (LineTooLong in place of an over-long one); None at EOF."""
        while True:
            if self._eof:
                return None
            try:
                data = os.read(self._in, _READ_SIZE)
            except OSError:  # EIO, EBADF: the channel is gone, which ends the loop like EOF
                data = b""
            if not data:
                self._eof = True
                # A last line without its newline is still a line.
                data = b"\n" if self._framer.pending else b""
                if not data:
                    return None
            try:
                lines = self._framer.feed(data)
            except self._too_large as exc:
                lines = self._over_long(exc)
            if lines:
                return lines

    def _over_long(self, first: Any) -> list[Any]:
        """The lines of a read that broke the bound: LineTooLong in place of each over-long line."""
        framer = self._framer
        lines: list[Any] = [*first.lines, LineTooLong(first.limit)]
        # Lines after the over-long one may already be buffered, or be over-long themselves.
        while True:
            try:
                lines += framer.feed(b"")
                return lines
            except self._too_large as exc:
                lines += [*exc.lines, LineTooLong(exc.limit)]

    def read_line(self) -> bytes | None:
        while not self._queue:
            batch = self.read_batch()
            if batch is None:
                return None
            self._queue = batch
        line = self._queue.pop(0)
        if isinstance(line, LineTooLong):
            raise line
        return line

    def write_lines(self, lines: list[bytes]) -> None:
        if len(lines) == 1:  # the common case: one answer per read
            data = lines[0] + b"\n"
        else:
            lines.append(b"")
            data = b"\n".join(lines)
        try:
            written = os.write(self._out, data)
        except OSError as exc:  # EPIPE: the host is gone
            raise _closed(exc) from exc
        if written < len(data):
            self._write(data[written:])

    def write_line(self, line: bytes) -> None:
        self._write(line + b"\n")

    def _write(self, data: bytes) -> None:
        fd = self._out
        try:
            written = os.write(fd, data)
            while written < len(data):  # a pipe takes a large write in pieces
                data = data[written:]
                written = os.write(fd, data)
        except OSError as exc:  # EPIPE: the host is gone
            raise _closed(exc) from exc

    def close(self) -> None:
        """Give fd 0 and fd 1 back (idempotent)."""
        if self._devnull is not None:
            self._devnull.__exit__(None, None, None)
            self._devnull = None
            os.close(self._in)
        self._claim.release()


class ReplayTransport(Transport):
    """Scripted input, recorded output: the whole loop under test with no host near.

    `script` items are lines (bytes, str, or a dict/list encoded as JSON), a `LineTooLong` to stand
    for an over-long line, or a tuple of such items that arrive together in one read (so the
    server can look ahead in them, as it does with a chunk read from a pipe). `close_after` makes
    the channel die (ChannelClosed) once that many lines were written. `session_capture=True` makes
    the server capture stderr as it does over stdio, through one session for the run.
    """

    session_capture = False

    def __init__(
        self, script: Iterable[Any], *, close_after: int | None = None, session_capture: bool | None = None
    ) -> None:
        if session_capture is not None:
            self.session_capture = session_capture
        self._batches = deque(list(map(_as_line, item)) if type(item) is tuple else [_as_line(item)] for item in script)
        self._queue: list[Any] = []
        self.output: list[bytes] = []
        self.writes = 0  # write calls: a batched write counts once
        self._close_after = close_after

    def read_batch(self) -> list[Any] | None:
        if self._queue:
            batch, self._queue = self._queue, []
            return batch
        return self._batches.popleft() if self._batches else None

    def read_line(self) -> bytes | None:
        while not self._queue:
            if not self._batches:
                return None
            self._queue = self._batches.popleft()
        line = self._queue.pop(0)
        if isinstance(line, LineTooLong):
            raise line
        return line

    def write_lines(self, lines: list[bytes]) -> None:
        self.writes += 1
        for line in lines:
            self._record(line)

    def write_line(self, line: bytes) -> None:
        self.writes += 1
        self._record(line)

    def _record(self, line: bytes) -> None:
        if self._close_after is not None and len(self.output) >= self._close_after:
            raise ChannelClosed("the replay channel was scripted to close")
        if b"\n" in line:
            raise AssertionError(f"a frame must be one line: {line!r}")
        self.output.append(line)

    def messages(self) -> list[Any]:
        """The recorded output, decoded."""
        return [loads(line) for line in self.output]


def _closed(exc: OSError) -> ChannelClosed:
    return ChannelClosed(f"the protocol channel is closed ({exc.strerror})")


def _as_line(item: Any) -> Any:
    if isinstance(item, (bytes, LineTooLong)):
        return item
    if isinstance(item, str):
        return item.encode()
    return dumps(item)
