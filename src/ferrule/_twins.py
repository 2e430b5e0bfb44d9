"""What a compiled module and its pure-Python twin must agree on, defined once.

`NO_EXTENSIONS` selects the pure-Python twins: the choosers (`ferrule.fastframe`, `ferrule.capture`,
`ferrule.mcp.server`) load their twin with `load_twin`, and setup.py, reading it too, then compiles
nothing. This module imports nothing of ferrule's, so setup.py can run it on its own before the
package is built.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

#: `FERRULE_NO_EXTENSIONS` (any non-empty value), or a Python other than CPython.
NO_EXTENSIONS = bool(os.environ.get("FERRULE_NO_EXTENSIONS")) or sys.implementation.name != "cpython"

#: Longest line a `LineFramer` accepts unless told otherwise; the MCP transport and the relay use it.
DEFAULT_MAX_LINE = 64 * 1024 * 1024

#: Largest body an `LspFramer` accepts unless told otherwise.
DEFAULT_MAX_BODY = 256 * 1024 * 1024


def load_twin(compiled: str, pure: str) -> tuple[ModuleType, str]:
    """The compiled module and "c"; the pure-Python one and "python" when the compiled ones are
    switched off or this one is not built (same API, slower)."""
    if not NO_EXTENSIONS:
        try:
            return importlib.import_module(compiled), "c"
        except ImportError:
            pass
    return importlib.import_module(pure), "python"
