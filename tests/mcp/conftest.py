"""Fixtures for ferrule.mcp: server subprocesses on either twin of the modules it builds on (the root
conftest's `twin`), and the capture mode of an in-process server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.mcp import SAMPLE_SERVER, Child
from testkit.twins import Twin


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

    def start(twin: Twin, script: Path = SAMPLE_SERVER, **env: str) -> Child:
        child = Child(script, twin.env(**env), tmp_path / f"stderr-{len(children)}.txt")
        children.append(child)
        return child

    yield start
    for child in children:
        child.kill()
