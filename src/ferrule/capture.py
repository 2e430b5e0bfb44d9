"""The stderr capture guard and the process's other raw-descriptor work (docs/MCP.md §4).

`capture_stderr()` redirects fd 2 around one block; `CaptureSession` redirects it once for a whole
run and reads each call's text from a window of the same file (one `lseek` per edge). Both refuse
to nest. `private_stdout()` and `private_stdin()` keep the protocol channel away from tools;
`StdoutClaim` holds fd 1 for frames until released (`private_stdout()` holds one for good).

Chooses the compiled twin (`ferrule._capture`) unless `FERRULE_NO_EXTENSIONS` is set or this is not
CPython, and falls back to the pure-Python twin (`ferrule._capture_py`) when it is not built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._capture_shared import (
    CaptureBusy,
    Captured,
    StdoutClaim,
    private_stdin,
    private_stdout,
    stdin_from_devnull,
)
from ._twins import NO_EXTENSIONS, load_twin

if TYPE_CHECKING:
    from ._capture_py import CaptureSession, StderrCapture, capture_stderr

    IMPLEMENTATION = "python"
else:
    _twin, IMPLEMENTATION = load_twin("ferrule._capture", "ferrule._capture_py")
    CaptureSession, StderrCapture, capture_stderr = _twin.CaptureSession, _twin.StderrCapture, _twin.capture_stderr

__all__ = [
    "IMPLEMENTATION",
    "NO_EXTENSIONS",
    "CaptureBusy",
    "CaptureSession",
    "Captured",
    "StderrCapture",
    "StdoutClaim",
    "capture_stderr",
    "private_stdin",
    "private_stdout",
    "stdin_from_devnull",
]
