"""The framing errors, defined once so `except FrameError` works whichever twin is loaded."""

from __future__ import annotations


class FrameError(ValueError):
    """Malformed framing input. The framer that raised it stays usable.

    `header` names the offending header (None when the fault is not one header), `bodies` and
    `lines` carry what the same `feed` call completed before the fault, so nothing is lost.
    """

    def __init__(
        self,
        message: str,
        *,
        header: str | None = None,
        bodies: list[bytes] | None = None,
        lines: list[bytes] | None = None,
    ) -> None:
        super().__init__(message)
        self.header = header
        self.bodies: list[bytes] = [] if bodies is None else bodies
        self.lines: list[bytes] = [] if lines is None else lines


class FrameTooLarge(FrameError):
    """A line or body longer than the framer's limit (`limit`, in bytes)."""

    def __init__(
        self,
        message: str,
        *,
        limit: int,
        header: str | None = None,
        bodies: list[bytes] | None = None,
        lines: list[bytes] | None = None,
    ) -> None:
        super().__init__(message, header=header, bodies=bodies, lines=lines)
        self.limit = limit


# Message builders shared by both twins, so that C and Python raise identical errors.

HEADER_BLOCK_LIMIT = 64 * 1024
"""Longest header block (terminating blank line included) an LSP framer waits for."""


def _show(value: bytes) -> str:
    text = value[:40].decode("latin-1")
    return repr(text + "..." if len(value) > 40 else text)


def line_too_large(limit: int, lines: list[bytes]) -> FrameTooLarge:
    return FrameTooLarge(
        f"line longer than {limit} bytes; it was discarded up to its newline", limit=limit, lines=lines
    )


def content_length_error(value: bytes | None, max_body: int, bodies: list[bytes]) -> FrameError:
    """The error for a bad Content-Length value; None means the header block had none."""
    if value is None:
        return FrameError("header block has no Content-Length", header="Content-Length", bodies=bodies)
    if value[:1] == b"-" and value[1:].isdigit():
        return FrameError(f"Content-Length is negative: {_show(value)}", header="Content-Length", bodies=bodies)
    if not value.isdigit():
        return FrameError(f"Content-Length is not a number: {_show(value)}", header="Content-Length",
                          bodies=bodies)
    return FrameTooLarge(f"Content-Length {_show(value)} exceeds the limit of {max_body} bytes",
                         limit=max_body, header="Content-Length", bodies=bodies)


def header_block_too_large(bodies: list[bytes]) -> FrameError:
    return FrameError(f"no end of header block (blank line) within {HEADER_BLOCK_LIMIT} bytes", bodies=bodies)
