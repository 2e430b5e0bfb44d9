"""The twin plugin and the shared fixtures; each folder keeps its own fixtures in its own conftest.

Twins: every test that takes the `twin` fixture runs once on the compiled modules (`[c]`, marked
`c_extension`) and once on their pure-Python twins (`[python]`). `--no-c-extensions` deselects the
`c_extension` tests; it is the default when FERRULE_NO_EXTENSIONS is set or the interpreter is not
CPython, where the compiled modules are switched off.
"""

from __future__ import annotations

import argparse
import os
import sys

import pytest

from testkit.twins import PYTHON, C, Twin

pytest_plugins = ["testkit.live"]

C_EXTENSION = pytest.mark.c_extension


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--c-extensions", action=argparse.BooleanOptionalAction, default=None, dest="c_extensions",
                     help="run the tests of the compiled modules (default: on, unless FERRULE_NO_EXTENSIONS "
                          "is set or the interpreter is not CPython)")


def _extensions_switched_off() -> bool:
    # the rule of ferrule._twins, read here without importing ferrule before the options are known
    return bool(os.environ.get("FERRULE_NO_EXTENSIONS")) or sys.implementation.name != "cpython"


def c_extensions(config: pytest.Config) -> bool:
    wanted = config.getoption("c_extensions")
    return not _extensions_switched_off() if wanted is None else wanted


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("c_extensions") and _extensions_switched_off():
        raise pytest.UsageError("--c-extensions: the compiled modules are switched off here "
                                "(FERRULE_NO_EXTENSIONS is set, or the interpreter is not CPython)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if c_extensions(config):
        return
    kept = [item for item in items if item.get_closest_marker(C_EXTENSION.name) is None]
    config.hook.pytest_deselected(items=[item for item in items if item.get_closest_marker(C_EXTENSION.name)])
    items[:] = kept


@pytest.fixture(scope="session", params=[pytest.param(C, marks=C_EXTENSION, id="c"), pytest.param(PYTHON, id="python")])
def twin(request: pytest.FixtureRequest) -> Twin:
    """Each implementation of the compiled modules in turn (see the module's docstring)."""
    return request.param


@pytest.fixture(scope="session")
def all_twins(pytestconfig: pytest.Config) -> list[Twin]:
    """The twins this run tests, for the tests that hold one against the other."""
    return [C, PYTHON] if c_extensions(pytestconfig) else [PYTHON]


@pytest.fixture
def use_twin(twin: Twin, monkeypatch: pytest.MonkeyPatch) -> Twin:
    """In-process: ferrule.capture's guard and session, as a server uses them, come from the twin."""
    from ferrule import capture

    monkeypatch.setattr(capture, "capture_stderr", twin.capture.capture_stderr)
    monkeypatch.setattr(capture, "CaptureSession", twin.capture.CaptureSession)
    return twin


def pytest_report_header(config) -> list[str]:
    """Which rust-analyzer the live tests drive, so that a failure names the release it met."""
    from ferrule.relay.resolve import resolve_analyzer

    try:
        analyzer = resolve_analyzer()
    except Exception as missing:  # noqa: BLE001 - any failure to resolve is reported, not raised here
        return [f"rust-analyzer: none found ({getattr(missing, 'message', missing)})"]
    return [f"rust-analyzer: {analyzer.version} at {analyzer.path} ({analyzer.source})",
            f"RUST_SRC_PATH: {os.environ.get('RUST_SRC_PATH') or '(unset: the sysroot rust-analyzer finds)'}"]
