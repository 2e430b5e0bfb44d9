"""Fixtures of the relay shell's tests: the serve loop, the envelope, the one-shot CLI, the goldens.

Unit tests drive the loop in-process with a scripted Session (testkit.relay_stub) or end to end through the
recorded-transcript analyzer double (double/); the `live` tests drive the real rust-analyzer through
one shared `ferrule serve` process and fail, not skip, when no analyzer is found (the `analyzer`
fixture of testkit.live).
"""

from __future__ import annotations
