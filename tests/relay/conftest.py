"""Fixtures of the relay shell's tests: the serve loop, the envelope, the one-shot CLI, the goldens.

Unit tests drive the loop in-process with a scripted Session (relay_stub) or end to end through the
recorded-transcript analyzer double (double/); the `live` tests drive the real rust-analyzer through
one shared `ferrule serve` process and fail, not skip, when no analyzer is found.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # helper modules beside the tests (names prefixed relay_ to stay unique)
    sys.path.insert(0, str(HERE))
