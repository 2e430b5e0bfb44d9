"""A `ferrule serve` process driven over real pipes, and the analyzer wrappers the fault tests use.

`ServeProcess` writes frames and collects the answers on a reader thread with their arrival times,
so a test can pipeline ops and time each answer. `plain_wrapper` makes RUST_ANALYZER a script that
logs the pid of every analyzer it starts and then becomes it (`exec`), so a test can signal the real
analyzer; `proxy_wrapper` puts rel_ra_proxy.py between the relay and the analyzer, to corrupt its
output on demand.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import stat
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
CRATES = HERE / "crates"
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
    """(wrapper, launch log, control file): the analyzer behind rel_ra_proxy.py; writing a fault name
    into the control file corrupts the next answer to a request of the method named with it."""
    log, control = directory / "launches", directory / "fault"
    log.touch()
    wrapper = write_script(directory / "ra-proxy", f"""export RUST_SRC_PATH={SYSROOT_STUB}
if [ "$1" = "--version" ]; then exec {analyzer} --version; fi
exec {sys.executable} {HERE / 'rel_ra_proxy.py'} {analyzer} {log} {control}
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


def wait_for(predicate, seconds: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds}s waiting for {what}")
        time.sleep(0.01)


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


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (from /proc; Linux)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != b"Z":
                children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


class ServeProcess:
    """`ferrule serve --root ROOT`; answers are collected by id as they arrive."""

    def __init__(self, root: Path, env: dict[str, str], stderr_path: Path, *extra: str) -> None:
        self.stderr_path = stderr_path
        self._stderr = open(stderr_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ferrule", "serve", "--root", str(root), *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env)
        self.pid = self.proc.pid
        self.answers: dict[Any, tuple[float, dict[str, Any]]] = {}
        self.count = 0  # every answer line, ids repeated or not
        self.duplicates: list[Any] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            answer = orjson.loads(line)
            with self._cond:
                self.count += 1
                if answer["id"] in self.answers:
                    self.duplicates.append(answer["id"])
                self.answers[answer["id"]] = (time.monotonic(), answer)
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def send_raw(self, data: bytes) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        return time.monotonic()

    def send(self, op: str, params: dict[str, Any] | None = None, request_id: Any = None) -> tuple[Any, float]:
        if request_id is None:
            self._next += 1
            request_id = f"r{self._next}"
        line = orjson.dumps({"proto": 1, "id": request_id, "op": op, "params": params or {}}) + b"\n"
        return request_id, self.send_raw(line)

    def wait(self, request_id: Any, timeout: float = 60.0) -> tuple[float, dict[str, Any]]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while request_id not in self.answers:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None and not self._reader.is_alive():
                    raise AssertionError(f"no answer to {request_id!r} within {timeout}s; stderr tail:\n"
                                         + self.stderr()[-3000:])
                self._cond.wait(min(left, 0.5))
            return self.answers[request_id]

    def call(self, op: str, params: dict[str, Any] | None = None, timeout: float = 60.0) -> dict[str, Any]:
        request_id, _ = self.send(op, params)
        return self.wait(request_id, timeout)[1]

    def timed(self, op: str, params: dict[str, Any] | None = None, timeout: float = 60.0) -> tuple[float, dict]:
        request_id, sent = self.send(op, params)
        arrived, answer = self.wait(request_id, timeout)
        return arrived - sent, answer

    def stderr(self) -> str:
        if not self._stderr.closed:
            self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")

    def close(self, timeout: float = 30.0) -> int:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            return self.proc.wait(timeout)
        finally:
            self._reader.join(5)
            self._stderr.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            for pid in descendants(self.pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.kill()
            self.proc.wait()
        self._stderr.close()


def ok(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["ok"] is True, answer
    return answer["result"]


def error(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["ok"] is False, answer
    return answer["error"]
