"""Helpers shared by the reliability tests (prefixed rel_ so that the module name stays unique)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FUZZ = REPO / "fuzz"


def load_fuzz_targets() -> ModuleType:
    """fuzz/targets.py, the checks the atheris harness and these tests share."""
    module = sys.modules.get("ferrule_fuzz_targets")
    if module is None:
        spec = importlib.util.spec_from_file_location("ferrule_fuzz_targets", FUZZ / "targets.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module
