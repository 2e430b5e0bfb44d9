"""What a compiled module and its pure-Python twin must agree on, defined once.

`NO_EXTENSIONS` selects the pure-Python twins: the choosers (`ferrule.fastframe`, `ferrule.capture`)
read it, and so does setup.py, which then compiles nothing. This module imports nothing of ferrule's,
so setup.py can run it on its own before the package is built.
"""

from __future__ import annotations

import os
import sys

#: `FERRULE_NO_EXTENSIONS` (any non-empty value), or a Python other than CPython.
NO_EXTENSIONS = bool(os.environ.get("FERRULE_NO_EXTENSIONS")) or sys.implementation.name != "cpython"

#: Longest line a `LineFramer` accepts unless told otherwise; the MCP transport and the relay use it.
DEFAULT_MAX_LINE = 64 * 1024 * 1024

#: Largest body an `LspFramer` accepts unless told otherwise.
DEFAULT_MAX_BODY = 256 * 1024 * 1024
