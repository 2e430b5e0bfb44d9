"""Line and LSP framing, position conversion and text spans: the compiled twin when it loads, else pure Python.

`FERRULE_NO_EXTENSIONS` (any non-empty value) or a Python other than CPython selects the Python
twin (`ferrule._twins.NO_EXTENSIONS`); `IMPLEMENTATION` says which one is in use ("c" or "python").
`DEFAULT_MAX_LINE` is the line limit every line-framed channel of ferrule uses by default.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._frame_errors import FrameError, FrameTooLarge
from ._twins import DEFAULT_MAX_BODY, DEFAULT_MAX_LINE, NO_EXTENSIONS, load_twin

if TYPE_CHECKING:
    from ._fastframe_py import LineFramer, LineIndex, LspFramer, changed_span, convert_column, encode_lsp

    IMPLEMENTATION = "python"
else:
    _twin, IMPLEMENTATION = load_twin("ferrule._fastframe", "ferrule._fastframe_py")
    LineFramer, LineIndex, LspFramer = _twin.LineFramer, _twin.LineIndex, _twin.LspFramer
    changed_span, convert_column, encode_lsp = _twin.changed_span, _twin.convert_column, _twin.encode_lsp

__all__ = [
    "DEFAULT_MAX_BODY",
    "DEFAULT_MAX_LINE",
    "IMPLEMENTATION",
    "NO_EXTENSIONS",
    "FrameError",
    "FrameTooLarge",
    "LineFramer",
    "LineIndex",
    "LspFramer",
    "changed_span",
    "convert_column",
    "encode_lsp",
]
