"""`ferrule serve` starts its analyzer itself; a host whose first frame is `init` joins that start
instead of waiting for a second one. Counted in analyzer spawns, through a wrapper that notes each
spawn and then runs the real rust-analyzer."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

import testkit.golden as golden
from testkit.relay import frame

pytestmark = pytest.mark.live
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def counted_analyzer(tmp_path, analyzer) -> tuple[str, Path]:
    """A rust-analyzer that appends a line to a file each time it is spawned as a server."""
    spawns = tmp_path / "spawns"
    spawns.touch()
    wrapper = tmp_path / "rust-analyzer"
    wrapper.write_text(f'#!/bin/sh\n[ "$1" = "--version" ] || echo spawn >> "{spawns}"\nexec "{analyzer.path}" "$@"\n',
                       encoding="utf-8")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return str(wrapper), spawns


def spawned(spawns: Path) -> int:
    return len(spawns.read_text(encoding="utf-8").splitlines())


def test_init_as_the_first_frame_joins_the_relay_s_own_start(tmp_path, counted_analyzer):
    analyzer, spawns = counted_analyzer
    crate = golden.copy_fixture(FIXTURES / "stdcrate", tmp_path / "stdcrate")
    served = golden.ServeProcess(crate, analyzer)
    try:
        (first,) = served.ask(frame("first", "init", {}), timeout=180)
        assert first["ok"] is True and first["result"]["quiescent"] is True
        assert spawned(spawns) == 1
        # once the host has had its answer, an `init` means a fresh analyzer again
        (again,) = served.ask(frame("again", "init", {}), timeout=180)
        assert again["ok"] is True and spawned(spawns) == 2
        assert served.close_input() == 0
    finally:
        served.kill()


def test_init_after_an_op_starts_afresh(tmp_path, counted_analyzer):
    analyzer, spawns = counted_analyzer
    crate = golden.copy_fixture(FIXTURES / "stdcrate", tmp_path / "stdcrate")
    served = golden.ServeProcess(crate, analyzer)
    try:
        (validated,) = served.ask(frame("validated", "validate", {"file": "src/lib.rs"}), timeout=180)
        assert validated["ok"] is True and spawned(spawns) == 1
        (init,) = served.ask(frame("init", "init", {}), timeout=180)
        assert init["ok"] is True and spawned(spawns) == 2
        assert served.close_input() == 0
    finally:
        served.kill()
