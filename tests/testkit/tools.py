"""Helpers of the Rust MCP server's tests.

`scripted_link` builds the server's relay link over scripted sessions, for the fast unit tests; for
the live tests, `run_server` runs `ferrule mcp` behind the official MCP SDK client, and the process
helpers find the server and its analyzer in /proc.
"""

from __future__ import annotations

import contextvars
import os
import shutil
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from ferrule.tools.relay_link import SharedRelay


class ScriptedSession:
    """Answers its `init` with `first`, then each call with the next item of the script it shares with
    the sessions started after it: a dict is a result, an exception is raised, a callable is run."""

    def __init__(self, root, *, analyzer, on_progress, first, script):
        self.root, self.analyzer, self.on_progress = root, analyzer, on_progress
        self.first, self.script = first, script
        self.calls: list[tuple[str, dict]] = []
        self.closed = 0
        self.cancelled = threading.Event()  # set by `cancel`, from the closing thread
        self.analyzer_starts = 1  # its init's; a scripted callable may add respawns
        # The real session reads the analyzer's output in a task made as it starts, which keeps the
        # context of the call that started it: `from_reader` reports progress from there.
        self.reader = contextvars.copy_context()

    def call(self, op, params):
        self.calls.append((op, params))
        item = self.first if op == "init" else self.script.pop(0)
        if callable(item):
            item = item(self)
        if isinstance(item, Exception):
            raise item
        return item

    def from_reader(self, message, percentage=None):
        self.reader.run(self.on_progress, message, percentage)

    def cancel(self):
        self.cancelled.set()

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
    """The server's running analyzers; the short-lived `rust-analyzer --version` probe is not one."""
    found = []
    for pid in child_pids(server):
        command = command_line(pid)
        if alive(pid) and command and "rust-analyzer" in command[0] and "--version" not in command:
            found.append(pid)
    return found


def run_server(root: Path, env: dict[str, str], body: Callable[[ClientSession], Awaitable[Any]],
               *extra: str, errlog: Path) -> Any:
    """Start `ferrule mcp` on `root` through the SDK's stdio client, initialise, run `body`, close."""
    command, args = server_command(root, *extra)

    async def main() -> Any:
        params = StdioServerParameters(command=command, args=args, env=env, cwd=str(root))
        with errlog.open("w") as err:
            async with stdio_client(params, errlog=err) as (read, write):
                async with ClientSession(read, write) as session:
                    hello = await session.initialize()
                    assert hello.server_info.name == "ferrule"
                    assert "1-based" in (hello.instructions or "")
                    return await body(session)

    try:
        return anyio.run(main)
    except BaseException:
        print("--- server stderr ---\n" + errlog.read_text(errors="replace"))
        raise


def text_of(result: Any) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text


def locate(text: str, needle: str, offset: int = 0) -> tuple[int, int]:
    """(1-based line, 0-based UTF-8 byte column) of `needle` plus `offset` characters."""
    index = text.index(needle) + offset
    start = text.rfind("\n", 0, index) + 1
    return text.count("\n", 0, index) + 1, len(text[start:index].encode("utf-8"))
