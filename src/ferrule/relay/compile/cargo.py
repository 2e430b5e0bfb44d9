"""One `cargo check` in its own process group, bounded by a deadline: past it, cargo and everything it
started (rustc, build scripts) are killed together, so no compiler outlives the op."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ferrule._deadlines import timer_for

STDERR_TAIL = 4000  # characters of cargo's own complaint kept for the message
GROUP_EXIT_S = 2.0  # how long a killed group's compilers are waited for


class CargoMissing(Exception):
    pass


class CargoTimedOut(Exception):
    pass


@dataclass(frozen=True)
class CargoRun:
    returncode: int
    messages: list[dict[str, Any]]
    stderr: str


def cargo_binary() -> str:
    """`$CARGO` (as cargo sets it for its children), else `cargo` on PATH."""
    found = os.environ.get("CARGO") or shutil.which("cargo")
    if not found:
        raise CargoMissing("cargo is not on PATH")
    return found


def check_command(package: str | None) -> list[str]:
    command = [cargo_binary(), "check", "--message-format=json", "--all-targets"]
    return command + (["-p", package] if package else ["--workspace"])


async def run_cargo(command: Sequence[str], cwd: Path, target: Path, deadline: float) -> CargoRun:
    """Run `command` in `cwd` with `target` as its target directory, the rest of the environment (CARGO_HOME,
    offline set-up) as found; CargoTimedOut when `deadline` (monotonic) passes first. A panicking build
    script is said by its message, without a backtrace: the answer goes into a model's context."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(target), CARGO_TERM_COLOR="never", RUST_BACKTRACE="0")
    try:
        process = await asyncio.create_subprocess_exec(
            *command, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True)
    except FileNotFoundError as missing:
        raise CargoMissing(f"cargo could not be started: {missing}") from None
    try:
        out, err = await asyncio.wait_for(process.communicate(), timer_for(deadline - time.monotonic()))
    except asyncio.TimeoutError:
        raise CargoTimedOut from None
    finally:
        if process.returncode is None:  # timed out or cancelled: the whole group goes
            await _kill_group(process)
    messages = []
    for line in out.splitlines():
        if line.startswith(b"{"):
            try:
                messages.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue
    return CargoRun(process.returncode or 0, messages, err.decode("utf-8", "replace")[-STDERR_TAIL:])


async def _kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGKILL cargo's process group and return once none of it runs. Only cargo is our child: the
    compilers it started are reaped by init, so their end is polled for, briefly."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    await process.wait()
    give_up = time.monotonic() + GROUP_EXIT_S
    while time.monotonic() < give_up and group_running(process.pid):
        await asyncio.sleep(0.01)


def group_running(pgid: int) -> bool:
    """Whether a process of the group still runs. A killed compiler waiting for init to reap it
    holds nothing, and an init that reaps slowly (a container's first process) would otherwise keep
    the caller waiting for `GROUP_EXIT_S`: on Linux, such zombies do not count."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    if not os.path.isdir("/proc/self"):
        return True
    group = str(pgid).encode()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()  # the name before ")" may hold spaces
        except OSError:  # gone meanwhile
            continue
        if len(fields) > 2 and fields[2] == group and fields[0] != b"Z":
            return True
    return False


__all__ = ["CargoMissing", "CargoRun", "CargoTimedOut", "cargo_binary", "check_command", "run_cargo"]
