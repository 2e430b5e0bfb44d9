"""Live fixtures: real rust-analyzer sessions over copies of the fixture crates.

rust-analyzer with std takes seconds to become quiescent and hundreds of MB, so one session per crate
is shared by every test that leaves it as it found it (`stdcrate_session`). The root conftest loads
this module as a plugin, so every folder sees these fixtures.
A test that needs the analyzer fails (never skips) when none can be found.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ferrule.project import AnalyzerMissing
from ferrule.relay.resolve import resolve_analyzer
from ferrule.relay.sync import SyncSession

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def copy_crate(name: str, into: Path) -> Path:
    """A private copy of a fixture crate (no target/), so tests may write to it freely."""
    target = into / name
    shutil.copytree(FIXTURES / name, target, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    return target


_OFFLINE_ENV = Path("/opt/rust-offline/env.sh")


def _offline_exports() -> dict[str, str]:
    """The variables the offline set-up script exports (what `make test` sources before pytest)."""
    found = {}
    if _OFFLINE_ENV.is_file():
        for line in _OFFLINE_ENV.read_text().splitlines():
            if line.startswith("export ") and "=" in line:
                name, value = line[len("export "):].split("=", 1)
                found[name.strip()] = value.strip().strip('"')
    return found


@dataclass(frozen=True)
class Analyzer:
    path: str  # the rust-analyzer binary the live tests drive
    env: dict[str, str]  # a child's environment: this one, that analyzer, and a cache folder of the run's own
    version: str  # its `--version` line, e.g. "rust-analyzer 1.85.0 (4d91de4e 2025-02-17)"

    @property
    def release(self) -> tuple[int, int]:
        """(major, minor) of the Rust release it came with; (0, 0) for a build without one."""
        found = re.search(r"\b(\d+)\.(\d+)\.\d+", self.version)
        return (int(found[1]), int(found[2])) if found else (0, 0)


@pytest.fixture(scope="session")
def analyzer(tmp_path_factory) -> Analyzer:
    """The real rust-analyzer, found once for the run; a clear failure (never a skip) without one."""
    env = dict(os.environ) if "RUST_ANALYZER" in os.environ else {**_offline_exports(), **os.environ}
    try:
        found = resolve_analyzer(env=env)
    except AnalyzerMissing as missing:
        pytest.fail(f"the live tests need rust-analyzer: {missing.message}\n{missing.recipe}\n"
                    "(source scripts/rust-env.sh, or /opt/rust-offline/env.sh on the offline machines)")
    # compile mirrors and the analyzer's build output of the children stay out of the user's cache
    env.update(RUST_ANALYZER=found.path, XDG_CACHE_HOME=str(tmp_path_factory.mktemp("cache")))
    return Analyzer(found.path, env, found.version)


@contextlib.contextmanager
def live_session(root: Path, *, env: dict[str, str] | None = None, **kwargs) -> Iterator[SyncSession]:
    """An initialised SyncSession; `env` is set only while the analyzer starts."""
    saved = {key: os.environ.get(key) for key in env or {}}
    os.environ.update(env or {})
    try:
        session = SyncSession(root, **kwargs)
        try:
            session.init_result = session.call("init", {})  # type: ignore[attr-defined]
        except BaseException:
            session.close()
            raise
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    try:
        yield session
    finally:
        session.close()


@pytest.fixture(scope="module")
def private_cache(tmp_path_factory) -> Iterator[Path]:
    """XDG_CACHE_HOME pointed at a folder of the module's own: its compile mirrors and the analyzer's
    build-script output neither share nor pollute the user's cache."""
    folder = tmp_path_factory.mktemp("cache")
    saved = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    yield folder
    if saved is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = saved


@pytest.fixture(scope="session")
def stdcrate(tmp_path_factory, analyzer) -> Path:
    return copy_crate("stdcrate", tmp_path_factory.mktemp("shared"))


@pytest.fixture(scope="session")
def stdcrate_session(stdcrate) -> Iterator[SyncSession]:
    """One warm analyzer over the std fixture crate, shared: tests must undo the overlays they set."""
    with live_session(stdcrate) as session:
        yield session


def position_of(text: str, needle: str, *, after: bool = False, nth: int = 0) -> dict[str, int]:
    """The protocol position (1-based line, UTF-8 byte column) of `needle` in `text` (its end if `after`)."""
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    if after:
        index += len(needle)
    line_start = text.rfind("\n", 0, index) + 1
    return {"line": text.count("\n", 0, index) + 1, "character": len(text[line_start:index].encode("utf-8"))}


@pytest.fixture(scope="session")
def at():
    return position_of


@pytest.fixture(scope="module")
def utf16_session(stdcrate) -> Iterator[SyncSession]:
    """The same crate with only UTF-16 offered: every column goes through the line's text."""
    with live_session(stdcrate, env={"FERRULE_POSITION_ENCODING": "utf-16"}) as session:
        yield session


@pytest.fixture(scope="module")
def push_session(stdcrate) -> Iterator[SyncSession]:
    """The same crate without pull-diagnostics support: validate waits for the versioned push."""
    with live_session(stdcrate, env={"FERRULE_DIAGNOSTICS": "push"}) as session:
        yield session

