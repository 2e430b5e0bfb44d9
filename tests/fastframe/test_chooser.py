"""The chooser: the compiled twin in a normal build, the Python one when switched off; one error class."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import ferrule._fastframe_py
import ferrule.fastframe
from ferrule import _frame_errors


@pytest.mark.c_extension
def test_compiled_twin_loaded():
    # Fails when the extension was not built or does not import: the build is broken, not slow.
    assert ferrule.fastframe.IMPLEMENTATION == "c"
    assert ferrule.fastframe.LineFramer.__module__ == "ferrule._fastframe"


def test_switch_selects_python_twin():
    code = "import ferrule.fastframe as f; print(f.IMPLEMENTATION, f.LspFramer.__module__)"
    env = {**os.environ, "FERRULE_NO_EXTENSIONS": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["python", "ferrule._fastframe_py"]


def test_one_error_class_for_both_twins(twin):
    assert twin.fastframe.FrameError is _frame_errors.FrameError is ferrule.fastframe.FrameError
    assert twin.fastframe.FrameTooLarge is _frame_errors.FrameTooLarge is ferrule.fastframe.FrameTooLarge
    assert issubclass(twin.fastframe.FrameTooLarge, twin.fastframe.FrameError)
    assert issubclass(twin.fastframe.FrameError, ValueError)


def test_same_public_names(twin):
    names = {"FrameError", "FrameTooLarge", "LineFramer", "LspFramer", "LineIndex", "changed_span",
             "convert_column", "encode_lsp"}
    assert names <= set(dir(twin.fastframe))
    assert names <= set(ferrule.fastframe.__all__)
    assert set(ferrule._fastframe_py.__all__) == names
