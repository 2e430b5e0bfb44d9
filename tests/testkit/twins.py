"""The two implementations of the compiled modules, as the tests choose them: the C extensions or
their pure-Python twins. The root conftest parametrizes the `twin` fixture over them."""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Twin:
    compiled: bool

    def __str__(self) -> str:  # the test id: `[c]` or `[python]`
        return "c" if self.compiled else "python"

    @property
    def fastframe(self) -> ModuleType:
        return self._module("fastframe")

    @property
    def capture(self) -> ModuleType:
        return self._module("capture")

    def _module(self, name: str) -> ModuleType:
        # A normal build must have the compiled twin: a failed import fails the test, it does not skip.
        return importlib.import_module(f"ferrule._{name}" if self.compiled else f"ferrule._{name}_py")

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a child process that is to run on this twin."""
        env = dict(os.environ, **extra)
        env.pop("FERRULE_NO_EXTENSIONS", None)
        if not self.compiled:
            env["FERRULE_NO_EXTENSIONS"] = "1"
        return env


C = Twin(compiled=True)
PYTHON = Twin(compiled=False)
