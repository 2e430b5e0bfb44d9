"""Soak both servers: a million MCP requests and a hundred thousand relay ops, pipelined and mixed.

    python bench/soak.py            # 1,000,000 MCP requests, 100,000 relay ops (make soak)
    python bench/soak.py --quick    # 50,000 and 5,000
    python bench/soak.py --mcp 20000 --relay 0

MCP: the example echo server (examples/echo_server.py) over its stdio pipes, fed ping, tools/list,
tools/call (valid, invalid arguments, unknown tool), unknown methods, both eras, notifications and
malformed lines, written as fast as the pipe takes them while a reader tallies the answers.
Relay: `ferrule serve` over the fault fixture crate with the real rust-analyzer, fed validate
(with and without content), type, complete, scope, update (set and drop) and refused frames (bad JSON,
unknown ops, escaping paths), with up to --window ops in flight.

For each server: RSS, open descriptors and child processes measured after a warm-up and at the end
(before input is closed), and a check that every request was answered exactly once (a malformed line
is answered once with id null; a notification never). Target: RSS growth under 5 MB, no descriptor or
process growth (the server's own children: the analyzer's short-lived helpers come and go on their own). Exit status 1 when any check fails.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from _report import print_table  # noqa: E402

ECHO_SERVER = REPO / "examples" / "echo_server.py"
CRATE = REPO / "tests" / "fixtures" / "faultcrate"
SYSROOT_STUB = REPO / "tests" / "fixtures" / "sysroot-stub" / "library"
RSS_TARGET_KIB = 5 * 1024
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}


# ---- process figures (Linux /proc) ----------------------------------------------------------------


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def tree_rss_kib(pid: int) -> int:
    """The resident memory of the processes below `pid`; one that exits meanwhile (the analyzer's
    short-lived helpers) counts nothing."""
    total = 0
    for child in descendants(pid):
        try:
            total += rss_kib(child)
        except (OSError, RuntimeError):  # gone, or a zombie with no memory left
            pass
    return total


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def descendants(pid: int, depth: int | None = None) -> list[int]:
    """The processes below `pid` (its children only with depth=1)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [(pid, 0)]
    while todo:
        parent, level = todo.pop()
        if depth is not None and level >= depth:
            continue
        for child in children.get(parent, []):
            found.append(child)
            todo.append((child, level + 1))
    return found


@dataclass
class Snapshot:
    """A server's RSS, open descriptors and own child processes (what it started and must end).

    Children are the server's own: the analyzer runs short-lived helpers of its own (cargo metadata,
    rustc --print cfg) whenever it reloads the workspace, which come and go with no say of ours.
    """

    rss_kib: int
    fds: int
    children: int

    @classmethod
    def of(cls, pid: int) -> Snapshot:
        return cls(rss_kib(pid), fd_count(pid), len(descendants(pid, depth=1)))


@dataclass
class Result:
    server: str
    requests: int
    seconds: float
    start: Snapshot
    end: Snapshot
    unanswered: int = 0
    duplicated: int = 0
    null_answers: int = 0
    null_expected: int = 0
    exit_code: int | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def growth_kib(self) -> int:
        return self.end.rss_kib - self.start.rss_kib

    def failures(self) -> list[str]:
        found = []
        if self.unanswered or self.duplicated:
            found.append(f"{self.unanswered} unanswered, {self.duplicated} answered twice")
        if self.null_answers != self.null_expected:
            found.append(f"{self.null_answers} id-null answers for {self.null_expected} malformed lines")
        if self.growth_kib >= RSS_TARGET_KIB:
            found.append(f"RSS grew {self.growth_kib} KiB (target < {RSS_TARGET_KIB})")
        if self.end.fds != self.start.fds:
            found.append(f"descriptors {self.start.fds} -> {self.end.fds}")
        if self.end.children != self.start.children:
            found.append(f"child processes {self.start.children} -> {self.end.children}")
        if self.exit_code not in (0, None):
            found.append(f"exit status {self.exit_code}")
        return found


class Tally:
    """Answers counted per integer id in a bytearray (a million ids in a megabyte)."""

    def __init__(self, size: int) -> None:
        self.seen = bytearray(size)
        self.null = 0
        self.count = 0
        self.done = threading.Condition()

    def add(self, msg_id: object) -> None:
        if msg_id is None:
            self.null += 1
        else:
            index = int(msg_id)  # type: ignore[call-overload]
            if self.seen[index] < 255:
                self.seen[index] += 1
        with self.done:
            self.count += 1
            self.done.notify_all()

    def wait_for(self, count: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with self.done:
            while self.count < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{self.count} of {count} answers after {timeout}s")
                self.done.wait(min(left, 1.0))

    def problems(self, ids: range) -> tuple[int, int]:
        missing = sum(1 for i in ids if self.seen[i] == 0)
        twice = sum(1 for i in ids if self.seen[i] > 1)
        return missing, twice


def _reader(stream, tally: Tally) -> None:
    loads = orjson.loads
    for line in stream:
        tally.add(loads(line).get("id"))


# ---- MCP ------------------------------------------------------------------------------------------


def mcp_mix(i: int) -> tuple[bytes, int]:
    """The i-th line and how many answers it gets: 1 under id i, 0 (notification), or -1 (id null)."""
    kind = i % 16
    if kind == 0:
        return b'{"jsonrpc":"2.0","id":%d,"method":"ping"}' % i, 1
    if kind == 1:
        return b'{"jsonrpc":"2.0","id":%d,"method":"tools/list"}' % i, 1
    if kind == 2:
        return orjson.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                             "params": {"name": "echo", "arguments": {"text": 1}}}), 1  # invalid arguments
    if kind == 3:
        return b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"nope"}}' % i, 1
    if kind == 4:
        return b'{"jsonrpc":"2.0","id":%d,"method":"resources/list"}' % i, 1
    if kind == 5:
        return b'{"jsonrpc":"2.0","method":"notifications/initialized"}', 0
    if kind == 6:
        return b'{"jsonrpc":"2.0","id":%d,"method":' % i, -1  # not JSON: answered with id null
    if kind == 7:
        return orjson.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                             "params": {"name": "echo", "arguments": {"text": "x" * (i % 300)},
                                        "_meta": ENVELOPE}}), 1
    if kind == 8:
        return orjson.dumps({"jsonrpc": "2.0", "id": str(i), "method": "ping"}), 1
    return orjson.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                         "params": {"name": "echo", "arguments": {"text": f"request {i}"}}}), 1


def soak_mcp(requests: int, *, warmup: int = 20_000, chunk: int = 2000, env: dict[str, str] | None = None) -> Result:
    proc = subprocess.Popen([sys.executable, str(ECHO_SERVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    tally = Tally(requests + warmup + 1)
    reader = threading.Thread(target=_reader, args=(proc.stdout, tally), daemon=True)
    reader.start()
    due, nulls = 0, 0

    def feed(first: int, last: int) -> None:
        nonlocal due, nulls
        for start in range(first, last, chunk):
            lines = []
            for i in range(start, min(start + chunk, last)):
                line, answers = mcp_mix(i)
                lines.append(line)
                due += answers != 0
                nulls += answers < 0
            proc.stdin.write(b"\n".join(lines) + b"\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    proc.stdin.write(orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "soak", "version": "0"}}}) + b"\n")
    due += 1
    feed(1, warmup + 1)
    tally.wait_for(due, 120)
    start = Snapshot.of(proc.pid)
    began = time.monotonic()
    feed(warmup + 1, warmup + 1 + requests)
    tally.wait_for(due, 600)
    seconds = time.monotonic() - began
    end = Snapshot.of(proc.pid)
    proc.stdin.close()
    code = proc.wait(60)
    reader.join(10)
    expected = range(0, warmup + 1 + requests)
    missing = twice = 0
    for i in expected:
        answers = 1 if i == 0 else mcp_mix(i)[1]
        seen = tally.seen[i]
        if answers == 1:
            missing += seen == 0
            twice += seen > 1
        elif seen:
            twice += 1  # a notification or malformed line answered under its id
    return Result("MCP (examples/echo_server.py)", requests, seconds, start, end, missing, twice,
                  tally.null, nulls, code)


# ---- relay ----------------------------------------------------------------------------------------

_FILES = ["src/lib.rs", "src/alpha.rs", "src/beta.rs", "src/gamma.rs"]


def relay_mix(i: int) -> tuple[bytes, bool]:
    """The i-th frame, and whether it must be answered under id i (else with id null)."""
    kind = i % 12
    file = _FILES[i % 4]
    params: dict[str, object]
    if kind == 0:
        op, params = "validate", {"file": file}
    elif kind == 1:
        op, params = "validate", {"file": file, "content": f"pub fn v{i}() -> u32 {{ {i} }}\n"}
    elif kind == 2:
        op, params = "type", {"file": "src/lib.rs", "position": {"line": 10, "character": 4}}
    elif kind == 3:
        op, params = "complete", {"file": "src/lib.rs", "position": {"line": 17, "character": 4}, "max": 5}
    elif kind == 4:
        op, params = "scope", {"file": file}
    elif kind == 5:
        op, params = "update", {"file": f"src/scratch{i % 7}.rs", "content": f"pub fn s{i}() {{}}\n"}
    elif kind == 6:
        op, params = "update", {"file": f"src/scratch{i % 7}.rs", "content": None}
    elif kind == 7:
        return b'{"proto":1,"id":%d,"op":' % i, False  # not JSON: answered with id null
    elif kind == 8:
        op, params = "validate", {"file": "../../etc/passwd"}  # refused: protocol
    elif kind == 9:
        op, params = "frobnicate", {}
    elif kind == 10:
        op, params = "type", {"file": file, "position": {"line": 0, "character": -1}}  # bad params
    else:
        op, params = "complete", {"file": file, "position": {"line": 2, "character": 0}, "prefix": "x"}
    return orjson.dumps({"proto": 1, "id": i, "op": op, "params": params}), True


def soak_relay(ops: int, analyzer: str, *, warmup: int = 2000, window: int = 1000,
               env: dict[str, str] | None = None) -> Result:
    work = Path(tempfile.mkdtemp(prefix="ferrule-soak-"))
    try:
        root = work / "crate"
        shutil.copytree(CRATE, root)
        environment = dict(env or os.environ)
        # The crate needs no std: a sysroot of empty stand-ins starts the analyzer in about a second (and
        # a sysroot it finds keeps it from asking rustup to install one).
        environment["RUST_SRC_PATH"] = str(SYSROOT_STUB)
        proc = subprocess.Popen([sys.executable, "-m", "ferrule", "serve", "--root", str(root),
                                 "--rust-analyzer", analyzer],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                env=environment)
        assert proc.stdin is not None and proc.stdout is not None
        tally = Tally(ops + warmup)
        reader = threading.Thread(target=_reader, args=(proc.stdout, tally), daemon=True)
        reader.start()

        def feed(first: int, last: int) -> None:
            sent = first
            while sent < last:
                tally.wait_for(sent - window, 600)  # at most `window` in flight, as a host would keep
                batch = range(sent, min(sent + 100, last))
                proc.stdin.write(b"".join(relay_mix(i)[0] + b"\n" for i in batch))  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]
                sent = batch.stop
            tally.wait_for(last, 600)

        feed(0, warmup)
        start = Snapshot.of(proc.pid)
        began = time.monotonic()
        feed(warmup, warmup + ops)
        seconds = time.monotonic() - began
        end = Snapshot.of(proc.pid)
        analyzer_rss = tree_rss_kib(proc.pid)
        proc.stdin.close()
        code = proc.wait(120)
        reader.join(10)
        missing = twice = nulls = 0
        for i in range(warmup + ops):
            keyed = relay_mix(i)[1]
            seen = tally.seen[i]
            if keyed:
                missing += seen == 0
                twice += seen > 1
            else:
                nulls += 1
                twice += seen > 0
        result = Result("relay (ferrule serve)", ops, seconds, start, end, missing, twice, tally.null, nulls, code)
        result.notes.append(f"analyzer RSS at the end: {analyzer_rss / 1024:.0f} MiB (not targeted)")
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def find_analyzer() -> str:
    from ferrule.relay.resolve import resolve_analyzer

    return resolve_analyzer().path


def report(results: list[Result]) -> None:
    rows = []
    for r in results:
        rows.append([r.server, f"{r.requests:,}", r.seconds, f"{r.requests / r.seconds:,.0f}",
                     f"{r.start.rss_kib / 1024:.1f} -> {r.end.rss_kib / 1024:.1f}", f"{r.growth_kib:+,}",
                     f"{r.start.fds} -> {r.end.fds}", f"{r.start.children} -> {r.end.children}",
                     f"{r.unanswered}/{r.duplicated}", "ok" if not r.failures() else "FAIL"])
    notes = [f"target: RSS growth < {RSS_TARGET_KIB // 1024} MB, descriptors and children unchanged, "
             "every request answered exactly once (measured after a warm-up, before input closes)"]
    for r in results:
        notes += [f"{r.server}: {note}" for note in r.notes]
        notes += [f"{r.server}: FAILED: {failure}" for failure in r.failures()]
    print_table("soak", ["server", "requests", "seconds", "req/s", "RSS MiB start -> end", "RSS KiB",
                         "fds", "children", "lost/twice", "verdict"], rows, "\n".join(notes))


def main(quick: bool = False, mcp: int | None = None, relay: int | None = None) -> int:
    mcp = (50_000 if quick else 1_000_000) if mcp is None else mcp
    relay = (5_000 if quick else 100_000) if relay is None else relay
    results = []
    if mcp:
        results.append(soak_mcp(mcp))
    if relay:
        results.append(soak_relay(relay, find_analyzer()))
    report(results)
    return 1 if any(r.failures() for r in results) else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50,000 MCP requests and 5,000 relay ops")
    parser.add_argument("--mcp", type=int, help="MCP requests (0: skip)")
    parser.add_argument("--relay", type=int, help="relay ops (0: skip)")
    args = parser.parse_args()
    sys.exit(main(args.quick, args.mcp, args.relay))
