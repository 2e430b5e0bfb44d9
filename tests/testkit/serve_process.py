"""A `ferrule serve` process driven over real pipes, and the analyzer wrappers the fault tests use.

`ServeProcess` writes frames and collects the answers on a reader thread with their arrival times,
so a test can pipeline ops and time each answer. `plain_wrapper` makes RUST_ANALYZER a script that
logs the pid of every analyzer it starts and then becomes it (`exec`), so a test can signal the real
analyzer; `proxy_wrapper` puts ra_proxy.py between the relay and the analyzer, to corrupt its
output on demand.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import stat
import struct
import sys
import termios
import time
from pathlib import Path
from typing import Any

import orjson

from testkit.lines import LineProcess
from testkit.waiting import wait_for

HERE = Path(__file__).resolve().parent
CRATES = HERE.parent / "fixtures"
# A sysroot of empty stand-ins for the crates without std: the analyzer starts in about a second,
# and finds a sysroot, so it never asks rustup to install rust-src (which would go to the network).
SYSROOT_STUB = CRATES / "sysroot-stub" / "library"
REPO_EXAMPLE = HERE.parents[1] / "examples" / "echo_server.py"


def copy_crate(name: str, into: Path) -> Path:
    target = into / name
    shutil.copytree(CRATES / name, target, ignore=shutil.ignore_patterns("target"))
    return target


def write_script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def plain_wrapper(directory: Path, analyzer: str, *, no_std: bool = True) -> tuple[Path, Path]:
    """(wrapper, launch log): every start appends the analyzer's pid to the log, then execs it."""
    log = directory / "launches"
    log.touch()
    sysroot = f"export RUST_SRC_PATH={SYSROOT_STUB}\n" if no_std else ""
    wrapper = write_script(directory / "ra-plain", f"""{sysroot}
if [ "$1" != "--version" ]; then echo $$ >> {log}; fi
exec {analyzer} "$@"
""")
    return wrapper, log


def proxy_wrapper(directory: Path, analyzer: str) -> tuple[Path, Path, Path]:
    """(wrapper, launch log, control file): the analyzer behind ra_proxy.py; writing a fault name
    into the control file corrupts the next answer to a request of the method named with it."""
    log, control = directory / "launches", directory / "fault"
    log.touch()
    wrapper = write_script(directory / "ra-proxy", f"""export RUST_SRC_PATH={SYSROOT_STUB}
if [ "$1" = "--version" ]; then exec {analyzer} --version; fi
exec {sys.executable} {HERE / 'ra_proxy.py'} {analyzer} {log} {control}
""")
    return wrapper, log, control


def launches(log: Path) -> list[int]:
    return [int(line) for line in log.read_text().split()]


def pending_input(pid: int) -> int | None:
    """Bytes waiting unread in a process's stdin pipe (the relay's requests to a stopped analyzer);
    None when its stdin is not a pipe (uvloop gives children a socket, which /proc cannot open)."""
    if not os.readlink(f"/proc/{pid}/fd/0").startswith("pipe:"):
        return None
    fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
    try:
        return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    finally:
        os.close(fd)


def stopped(pid: int) -> bool:
    """Whether every thread of `pid` has stopped (kill() returns before the signal is handled)."""
    states = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/stat", "rb") as f:
                states.append(f.read().rsplit(b")", 1)[1].split()[0])
        except OSError:
            continue
    return bool(states) and all(state in (b"T", b"t") for state in states)


def stop(pid: int) -> None:
    """SIGSTOP, and wait until no thread of it can still read its input."""
    os.kill(pid, signal.SIGSTOP)
    wait_for(lambda: stopped(pid), what=f"analyzer {pid} to stop")


def kill_in_flight(pid: int, send, serve: ServeProcess) -> None:
    """Stop the analyzer, let `send()` put a request on its way to it, then SIGKILL it unread.

    Through a pipe the request is seen waiting in it; through a socket, a frame the relay answers
    itself is sent after it, and once that answer is back the relay has read the op's frame.
    """
    stop(pid)
    try:
        send()
        if pending_input(pid) is None:
            probe, _ = serve.send("no-such-op")
            serve.wait(probe, timeout=10)
            time.sleep(0.2)  # the op's task writes its request on the relay's next turns
        else:
            wait_for(lambda: bool(pending_input(pid)), what="the request to reach the analyzer's pipe")
            time.sleep(0.05)  # the op's request follows its didOpen in the same turn of the relay's loop
    finally:
        os.kill(pid, signal.SIGKILL)
        os.kill(pid, signal.SIGCONT)


class ServeProcess(LineProcess):
    """`ferrule serve --root ROOT`; answers are collected by id as they arrive, with their arrival time."""

    def __init__(self, root: Path, env: dict[str, str], stderr_path: Path, *extra: str) -> None:
        super().__init__([sys.executable, "-m", "ferrule", "serve", "--root", str(root), *extra], env, stderr_path)

    def _keep(self, line: bytes, message: Any) -> None:
        self._answered(message["id"], (time.monotonic(), message))

    def send(self, op: str, params: dict[str, Any] | None = None, request_id: Any = None) -> tuple[Any, float]:
        if request_id is None:
            self._next += 1
            request_id = f"r{self._next}"
        line = orjson.dumps({"proto": 1, "id": request_id, "op": op, "params": params or {}}) + b"\n"
        return request_id, self.send_raw(line)

    def wait(self, request_id: Any, timeout: float = 60.0) -> tuple[float, dict[str, Any]]:
        return self._wait(request_id, timeout)

    def call(self, op: str, params: dict[str, Any] | None = None, timeout: float = 60.0) -> dict[str, Any]:
        request_id, _ = self.send(op, params)
        return self.wait(request_id, timeout)[1]

    def timed(self, op: str, params: dict[str, Any] | None = None, timeout: float = 60.0) -> tuple[float, dict]:
        request_id, sent = self.send(op, params)
        arrived, answer = self.wait(request_id, timeout)
        return arrived - sent, answer


def ok(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["ok"] is True, answer
    return answer["result"]


def error(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["ok"] is False, answer
    return answer["error"]
