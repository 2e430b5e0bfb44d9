"""Fixtures for ferrule.mcp: both twins of the modules it builds on, and server subprocesses."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ferrule import capture
from testkit.mcp import SAMPLE_SERVER, Child, twin_env

TWINS = ["c", "python"]


@pytest.fixture(params=TWINS)
def twin(request: pytest.FixtureRequest) -> str:
    """Which twins (compiled or pure Python) of fastframe and capture the server runs on."""
    if request.param == "c" and capture.NO_EXTENSIONS:
        pytest.skip("compiled modules switched off (FERRULE_NO_EXTENSIONS or not CPython)")
    return request.param


@pytest.fixture
def use_twin(twin: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """In-process: the server's capture guard comes from the chosen twin."""
    module = importlib.import_module("ferrule._capture" if twin == "c" else "ferrule._capture_py")
    monkeypatch.setattr(capture, "capture_stderr", module.capture_stderr)
    monkeypatch.setattr(capture, "CaptureSession", module.CaptureSession)
    return twin


@pytest.fixture(params=["per-call", "session"])
def capture_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """In-process: the server captures around each call, or through one session for the run (as over
    stdio); ReplayTransports made in the test follow the choice."""
    from ferrule.mcp import ReplayTransport

    monkeypatch.setattr(ReplayTransport, "session_capture", request.param == "session")
    return request.param


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Any]:
    """spawn(twin, script=SAMPLE_SERVER, **env) -> a running Child, killed at teardown."""
    children: list[Child] = []

    def start(twin: str, script: Path = SAMPLE_SERVER, **env: str) -> Child:
        child = Child(script, twin_env(twin, **env), tmp_path / f"stderr-{len(children)}.txt")
        children.append(child)
        return child

    yield start
    for child in children:
        child.kill()
