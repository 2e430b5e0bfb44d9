"""The chooser: the compiled twin in a normal build, the Python twin when switched off."""

from __future__ import annotations

import os
import subprocess
import sys

from ferrule import capture
from ferrule._twins import NO_EXTENSIONS


def test_the_compiled_twin_loads_unless_switched_off():
    if NO_EXTENSIONS:
        assert capture.IMPLEMENTATION == "python"
    else:
        assert capture.IMPLEMENTATION == "c", "ferrule._capture did not load: run `make build`"
        assert capture.capture_stderr.__module__ == "ferrule._capture"


def test_the_switch_selects_the_python_twin():
    env = dict(os.environ, FERRULE_NO_EXTENSIONS="1")
    code = "from ferrule import capture; print(capture.IMPLEMENTATION, capture.capture_stderr.__module__)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["python", "ferrule._capture_py"]


def test_both_twins_share_the_public_types(all_twins):
    for twin in all_twins:
        with twin.capture.capture_stderr() as seen:
            pass
        assert type(seen) is capture.Captured
