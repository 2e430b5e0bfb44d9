"""Fixtures of the relay shell's tests: the serve loop, the envelope, the one-shot CLI, the goldens.

Unit tests drive the loop in-process with a scripted Session (testkit.relay_stub) or end to end through the
recorded-transcript analyzer double (double/); the `live` tests drive the real rust-analyzer through
one shared `ferrule serve` process and fail, not skip, when no analyzer is found.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest


@pytest.fixture(scope="session")
def rust_analyzer() -> str:
    """The real analyzer for the live tests; a clear failure (not a skip) when there is none."""
    candidate = os.environ.get("RUST_ANALYZER") or shutil.which("rust-analyzer")
    if candidate:
        try:
            done = subprocess.run([candidate, "--version"], capture_output=True, timeout=30)
        except OSError:
            done = None
        if done is not None and done.returncode == 0:
            return candidate
    pytest.fail("no working rust-analyzer: `. /opt/rust-offline/env.sh` (or `rustup component add "
                "rust-analyzer rust-src`) before running the live tests")
