"""Line and LSP framing and position conversion: the compiled twin when it loads, else pure Python.

`FERRULE_NO_EXTENSIONS` (any non-empty value) or a Python other than CPython selects the Python
twin; `IMPLEMENTATION` says which one is in use ("c" or "python").
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ._frame_errors import FrameError, FrameTooLarge

NO_EXTENSIONS = bool(os.environ.get("FERRULE_NO_EXTENSIONS")) or sys.implementation.name != "cpython"

if TYPE_CHECKING or NO_EXTENSIONS:
    from ._fastframe_py import LineFramer, LineIndex, LspFramer, convert_column, encode_lsp

    IMPLEMENTATION = "python"
else:
    try:
        from ._fastframe import LineFramer, LineIndex, LspFramer, convert_column, encode_lsp

        IMPLEMENTATION = "c"
    except ImportError:  # not built: same API, slower
        from ._fastframe_py import LineFramer, LineIndex, LspFramer, convert_column, encode_lsp

        IMPLEMENTATION = "python"

__all__ = [
    "IMPLEMENTATION",
    "FrameError",
    "FrameTooLarge",
    "LineFramer",
    "LineIndex",
    "LspFramer",
    "convert_column",
    "encode_lsp",
]
