"""Fixtures of the Rust MCP server's tests.

`scripted_link` builds the server's relay link over scripted sessions, for the fast unit tests; the
live tests (marked `live`) run the real rust-analyzer behind the real MCP SDK client.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from ferrule.tools.relay_link import SharedRelay


class ScriptedSession:
    """Answers its `init` with `first`, then each call with the next item of the script it shares with
    the sessions started after it: a dict is a result, an exception is raised, a callable is run."""

    def __init__(self, root, *, analyzer, on_progress, first, script):
        self.root, self.analyzer, self.on_progress = root, analyzer, on_progress
        self.first, self.script = first, script
        self.calls: list[tuple[str, dict]] = []
        self.closed = 0
        self.analyzer_starts = 1  # its init's; a scripted callable may add respawns

    def call(self, op, params):
        self.calls.append((op, params))
        item = self.first if op == "init" else self.script.pop(0)
        if callable(item):
            item = item(self)
        if isinstance(item, Exception):
            raise item
        return item

    def close(self):
        self.closed += 1


INIT = {"ra_version": "rust-analyzer 1.85.0", "position_encoding": "utf-8", "pull_diagnostics": True,
        "quiescent": True}


def scripted_link(tmp_path, *script, starts=None):
    """A link over scripted sessions: every session answers `init` first, then the script, shared.

    `starts` scripts the `init` answers of successive sessions instead (an exception fails that start).
    """
    sessions: list[ScriptedSession] = []
    remaining = list(script)
    inits = list(starts) if starts is not None else None

    def factory(root, *, analyzer, on_progress):
        first = inits.pop(0) if inits is not None else INIT
        session = ScriptedSession(root, analyzer=analyzer, on_progress=on_progress, first=first, script=remaining)
        sessions.append(session)
        return session

    return SharedRelay(tmp_path, analyzer="/opt/ra", session_factory=factory), sessions




# ---- the live chain: the real server process, the real analyzer, the official MCP client ---------

REPO = Path(__file__).resolve().parents[2]
DEMO_CRATE = REPO / "examples" / "demo-crate"
STD_CRATE = REPO / "tests" / "fixtures" / "stdcrate"
_OFFLINE_ENV = Path("/opt/rust-offline/env.sh")
_ANALYZER_VARS = ("RUST_ANALYZER", "RUST_SRC_PATH", "CARGO_HOME", "RUSTUP_HOME", "RUST_OFFLINE_CRATES")


def _offline_exports() -> dict[str, str]:
    """The variables the offline set-up script exports (what `make test` sources before pytest)."""
    found = {}
    if _OFFLINE_ENV.is_file():
        for line in _OFFLINE_ENV.read_text().splitlines():
            if line.startswith("export ") and "=" in line:
                name, value = line[len("export "):].split("=", 1)
                found[name.strip()] = value.strip().strip('"')
    return found


@pytest.fixture(scope="session")
def analyzer_env(tmp_path_factory) -> dict[str, str]:
    """The environment a server needs to find and run rust-analyzer, with a cache folder of its own
    (compile mirrors, the analyzer's build output); fails (not skips) without an analyzer."""
    from ferrule.project import AnalyzerMissing
    from ferrule.relay.resolve import resolve_analyzer

    env = {name: os.environ[name] for name in _ANALYZER_VARS if os.environ.get(name)}
    if "RUST_ANALYZER" not in env:
        env = {**_offline_exports(), **env}
    try:
        resolve_analyzer(env={**os.environ, **env})
    except AnalyzerMissing as missing:
        pytest.fail(f"the live tests need rust-analyzer: {missing.message}; {missing.recipe} "
                    "(or `. /opt/rust-offline/env.sh`)")
    return {**env, "XDG_CACHE_HOME": str(tmp_path_factory.mktemp("cache"))}


def copy_crate(source: Path, into: Path) -> Path:
    """A private copy, so that nothing the analyzer or cargo writes lands in the repository."""
    target = into / source.name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("target"))
    return target


def server_command(root: Path, *extra: str) -> tuple[str, list[str]]:
    return sys.executable, ["-m", "ferrule", "mcp", "--root", str(root), *extra]


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc; Linux)."""
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.append(int(entry))
    return children


def command_line(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return [part.decode(errors="replace") for part in cmdline.read().split(b"\0") if part]
    except OSError:
        return []


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def server_pid() -> int:
    """The `ferrule mcp` process this test started (a child of the test process)."""
    servers = [pid for pid in child_pids(os.getpid()) if "mcp" in command_line(pid)[:5] and alive(pid)]
    assert len(servers) == 1, f"expected one ferrule mcp child, found {servers}"
    return servers[0]


def analyzer_pids(server: int) -> list[int]:
    return [pid for pid in child_pids(server)
            if alive(pid) and any("rust-analyzer" in part for part in command_line(pid)[:1])]
