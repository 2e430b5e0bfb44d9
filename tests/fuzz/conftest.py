"""Fixtures of the fuzz replays: the checks live in fuzz/targets.py (shared with the atheris harness)
and are loaded from there."""

from __future__ import annotations

import pytest

from testkit.lines import load_fuzz_targets


@pytest.fixture(scope="session")
def fuzz_targets():
    return load_fuzz_targets()
