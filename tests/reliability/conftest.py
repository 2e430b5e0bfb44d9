"""Fixtures of the reliability tests: fuzz replays, analyzer faults, soak, capture stress, path safety.

The fuzz checks live in fuzz/targets.py (shared with the atheris harness) and are loaded from there.
Live tests drive the real rust-analyzer and fail, never skip, when none is found.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # helper modules beside the tests (prefixed rel_ to stay unique)
    sys.path.insert(0, str(HERE))

from rel_support import load_fuzz_targets  # noqa: E402


@pytest.fixture(scope="session")
def fuzz_targets():
    return load_fuzz_targets()


@pytest.fixture(scope="session")
def analyzer_env() -> dict[str, str]:
    """The environment a server needs to run the real rust-analyzer; fails (not skips) without one."""
    from ferrule.project import AnalyzerMissing
    from ferrule.relay.resolve import resolve_analyzer

    env = dict(os.environ)
    offline = Path("/opt/rust-offline/env.sh")
    if "RUST_ANALYZER" not in env and offline.is_file():
        for line in offline.read_text().splitlines():
            if line.startswith("export ") and "=" in line:
                name, value = line[len("export "):].split("=", 1)
                env[name.strip()] = value.strip().strip('"')
    try:
        found = resolve_analyzer(env=env)
    except AnalyzerMissing as missing:
        pytest.fail(f"the reliability live tests need rust-analyzer: {missing.message}; {missing.recipe} "
                    "(or `. /opt/rust-offline/env.sh`)")
    env["RUST_ANALYZER"] = found.path
    return env
