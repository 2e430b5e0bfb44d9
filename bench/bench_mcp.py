"""MCP stdio servers side by side: ferrule (C and pure-Python twins), the official SDK's low-level
server, fastmcp, and a hand-written orjson line loop as the ceiling.

Every server is a real subprocess serving the same `echo` tool, driven over pipes by the same driver
with the same request bytes. The machine is shared and noisy, so the servers are measured in
interleaved rounds and rates are the median over rounds: in lockstep each round is several turns
of 100 ms per server (so the servers compared meet the same moments of the machine); a pipelined round
gives every server one burst.

Where the processes run decides a lockstep rate more than the server does: a server the kernel woke on
the driver's core answers in a few microseconds, one woken on an idle core of a virtual machine waits for
that core to be scheduled first (measured here: the same bare loop at 0.2x and 4.5x of an identical
copy, window to window, as the kernel placed them). So the driver and the servers are pinned, in two
placements, each a steady figure:
- one core: the driver and the server share a core, and every call is the two processes' own CPU work
  and two switches; the server's cost shows in full. This is the placement of the main table;
- two cores: the server on a core of its own, as a host and its server often run; each call also
  waits for the server's core to wake, which on a virtual machine can cost more than any server's
  work (here every server's rate falls to a few thousand calls a second).
Pipelined bursts run on two cores: one wake-up serves many calls there, and a burst is the case where
the host writes and reads while the server works, which one shared core would forbid.
Without `sched_setaffinity` (macOS, Windows) or with one CPU, the run is unpinned / one core only.

- lockstep tools/call: one request, wait for its answer, the next (requests/s; p50 and p99 latency
  over every call of every round, in the main placement);
- pipelined: a burst of requests written at once, timed until the last answer (responses/s);
- server CPU per call: the child's rusage (user + system, read at exit), minus the median rusage of
  runs that only start, answer `initialize` and exit, divided by the calls it served;
- start-up: from spawn to the `initialize` answer (median over every spawn);
- RSS: the child's peak resident set (VmHWM of the lockstep process; ru_maxrss where /proc is absent).

Run: `python bench/bench_mcp.py [--quick] [--only NAME]`, or `python bench/run.py --only bench_mcp`.
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _report import print_table  # noqa: E402

PEERS_DIR = HERE / "peers"
TEXT = "hello, world"
INITIALIZE = orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}) + b"\n"
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
CALL_HEAD = b'{"jsonrpc":"2.0","id":'
CALL_TAIL = b',"method":"tools/call","params":{"name":"echo","arguments":{"text":"%s"}}}\n' % TEXT.encode()
READ_TIMEOUT = 120.0
TURN_S = 0.1  # a server's turn at lockstep calls within a round (lockstep_rounds)


class Placement:
    """Where the driver and the servers run: CPU sets (None: wherever the kernel puts them)."""

    def __init__(self, name: str, driver: set[int] | None, servers: set[int] | None) -> None:
        self.name = name
        self.driver = driver
        self.servers = servers

    def apply(self, child: Child) -> None:
        if self.driver is not None and self.servers is not None:
            os.sched_setaffinity(0, self.driver)
            os.sched_setaffinity(child.proc.pid, self.servers)


def placements() -> list[Placement]:
    """One core (the main placement) and two cores (the last: the pipelined bursts'), where the machine
    can pin; else unpinned."""
    if not hasattr(os, "sched_setaffinity"):
        return [Placement("unpinned", None, None)]
    cpus = sorted(os.sched_getaffinity(0))
    one = Placement("one core", {cpus[0]}, {cpus[0]})
    return [one, Placement("two cores", {cpus[0]}, {cpus[1]})] if len(cpus) > 1 else [one]


def call_bytes(msg_id: int) -> bytes:
    return b"%b%d%b" % (CALL_HEAD, msg_id, CALL_TAIL)


class Peer:
    def __init__(self, name: str, script: str, no_extensions: bool = False) -> None:
        self.name = name
        self.script = script
        self.no_extensions = no_extensions

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.pop("FERRULE_NO_EXTENSIONS", None)
        if self.no_extensions:
            env["FERRULE_NO_EXTENSIONS"] = "1"
        return env


PEERS = [
    Peer("ferrule (C twins)", "ferrule_echo.py"),
    Peer("ferrule (Python twins)", "ferrule_echo.py", no_extensions=True),
    Peer("official SDK low-level", "sdk_lowlevel_echo.py"),
    Peer("fastmcp", "fastmcp_echo.py"),
    Peer("hand-written orjson loop", "bare_loop.py"),
]
FERRULE, FERRULE_PY, SDK, FASTMCP, BARE = (p.name for p in PEERS)


class Child:
    """One server process and the driver's end of its pipes."""

    def __init__(self, peer: Peer) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, str(PEERS_DIR / peer.script)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=peer.env(), bufsize=0)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin.fileno()
        self.stdout = self.proc.stdout.fileno()
        self.buffer = b""
        self.next_id = 1
        self.calls = 0

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.stdin, view):]

    def read_chunk(self) -> bytes:
        if not select.select([self.stdout], [], [], READ_TIMEOUT)[0]:
            raise TimeoutError(f"no answer within {READ_TIMEOUT}s")
        chunk = os.read(self.stdout, 1 << 16)
        if not chunk:
            raise EOFError("the server closed its stdout")
        return chunk

    def read_line(self) -> bytes:
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = self.buffer[:end]
                self.buffer = self.buffer[end + 1:]
                return line
            self.buffer += self.read_chunk()

    def handshake(self) -> float:
        """Send initialize; seconds from spawn to its answer."""
        self.write(INITIALIZE)
        answer = orjson.loads(self.read_line())
        elapsed = time.perf_counter() - self.started
        if answer.get("id") != 0 or "result" not in answer:
            raise RuntimeError(f"bad initialize answer: {answer}")
        self.write(INITIALIZED)
        return elapsed

    def peak_rss(self) -> int | None:
        try:
            with open(f"/proc/{self.proc.pid}/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return None

    def finish(self) -> tuple[float, int]:
        """Close stdin, reap the child: (CPU seconds from its rusage, peak RSS bytes)."""
        peak = self.peak_rss()
        self.proc.stdin.close()  # type: ignore[union-attr]
        deadline = time.monotonic() + 30
        while True:
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                self.proc.kill()
                pid, status, usage = os.wait4(self.proc.pid, 0)
                break
            time.sleep(0.005)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self.proc.stdout.close()  # type: ignore[union-attr]
        # ru_maxrss also counts the driver's memory inherited across fork, so VmHWM is preferred.
        return usage.ru_utime + usage.ru_stime, peak if peak is not None else usage.ru_maxrss * 1024


def check_answers(lines: list[bytes], ids: range) -> None:
    seen = {}
    for line in lines:
        msg = orjson.loads(line)
        if "id" in msg:
            seen[msg["id"]] = msg
    missing = [i for i in ids if i not in seen]
    if missing:
        raise RuntimeError(f"{len(missing)} answers missing, e.g. id {missing[0]}")
    sample = seen[ids[-1]]["result"]
    if sample["content"][0]["text"] != TEXT or sample.get("isError"):
        raise RuntimeError(f"wrong echo answer: {sample}")


def lockstep_window(child: Child, seconds: float, latencies: list[int]) -> tuple[int, float]:
    """Lockstep calls for `seconds`: (calls, seconds taken). Answers are checked after the clock stops."""
    first = msg_id = child.next_id
    lines: list[bytes] = []
    clock = time.perf_counter_ns
    write, read_line, record, keep = child.write, child.read_line, latencies.append, lines.append
    start = now = clock()
    stop = start + int(seconds * 1e9)
    while now < stop:
        write(b"%b%d%b" % (CALL_HEAD, msg_id, CALL_TAIL))  # built as it goes: the driver stays small
        keep(read_line())
        done = clock()
        record(done - now)
        now = done
        msg_id += 1
    check_answers(lines, range(first, msg_id))
    child.next_id = msg_id
    child.calls += msg_id - first
    return msg_id - first, (now - start) / 1e9


def lockstep_rounds(children: dict[str, Child], figures: dict[str, Figures], rounds: int, seconds: float) -> None:
    """`rounds` rounds of lockstep calls in each placement. Within a round the servers take turns of
    TURN_S each, in an order that reverses every turn, until each had `seconds`; a round's rate is a
    server's calls over its time in them. Short turns put the servers compared on the same machine
    (quick runs with one window of a second per server put the native server at 0.59x to 0.80x of
    the loop, with turns at 0.68x to 0.73x); turns much shorter than TURN_S start each server's turn
    with caches the others filled, which costs the larger servers more."""
    where = placements()
    order = list(children.items())
    for round_number in range(rounds):
        for placement in where:
            for child in children.values():
                placement.apply(child)
            if round_number == 0:
                for child in children.values():
                    lockstep_window(child, seconds / 3, [])  # warm-up, not counted in the rates
            calls = dict.fromkeys(children, 0)
            taken = dict.fromkeys(children, 0.0)
            for turn in range(max(1, round(seconds / TURN_S))):
                for name, child in order if turn % 2 == 0 else order[::-1]:
                    latencies = figures[name].latencies if placement is where[0] else []
                    made, spent = lockstep_window(child, TURN_S, latencies)
                    calls[name] += made
                    taken[name] += spent
            for name in children:
                rate = calls[name] / taken[name]
                figures[name].lockstep_by.setdefault(placement.name, []).append(rate)
                if placement is where[0]:
                    figures[name].lockstep.append(rate)


def pipelined_burst(child: Child, count: int) -> float:
    """`count` requests written at once (from a thread, so neither pipe fills up); the rate."""
    first = child.next_id
    payload = b"".join(call_bytes(i) for i in range(first, first + count))
    chunks: list[bytes] = []
    seen = 0
    writer = threading.Thread(target=child.write, args=(payload,), daemon=True)
    start = time.perf_counter()
    writer.start()
    while seen < count:
        chunk = child.read_chunk()
        chunks.append(chunk)
        seen += chunk.count(b"\n")
    elapsed = time.perf_counter() - start
    writer.join()
    check_answers(b"".join(chunks).split(b"\n")[:-1], range(first, first + count))
    child.next_id = first + count
    child.calls += count
    return count / elapsed


class Figures:
    """What one server measured (plain class: bench/run.py loads this file outside sys.modules)."""

    def __init__(self) -> None:
        self.startup: list[float] = []
        self.idle_cpu: list[float] = []
        self.lockstep: list[float] = []  # in the main placement
        self.lockstep_by: dict[str, list[float]] = {}  # placement name -> rates
        self.latencies: list[int] = []
        self.lockstep_cpu = 0.0
        self.rss = 0
        self.pipelined: list[float] = []
        self.pipelined_cpu = 0.0

    @property
    def lockstep_rate(self) -> float:
        return statistics.median(self.lockstep)

    @property
    def pipelined_rate(self) -> float:
        return statistics.median(self.pipelined)

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] / 1e3

    def cpu_per_call(self, cpu: float, calls: int) -> float:
        return max(0.0, cpu - statistics.median(self.idle_cpu)) / calls * 1e6


def spawned(peers: list[Peer], figures: dict[str, Figures]) -> dict[str, Child]:
    """One process per server, handshaken."""
    children = {}
    for peer in peers:
        children[peer.name] = child = Child(peer)
        figures[peer.name].startup.append(child.handshake())
    return children


def interleaved(children: dict[str, Child], figures: dict[str, Figures], rounds: int,
                window: Callable[[Child, Figures], None]) -> None:
    """`rounds` rounds giving each server one window in turn. Each round starts one server further on,
    so that no server is always measured right after the same one."""
    names = list(children)
    for round_number in range(rounds):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            window(children[name], figures[name])


def run(peers: list[Peer], quick: bool) -> dict[str, Figures]:
    figures = {peer.name: Figures() for peer in peers}
    rounds, seconds = (3, 0.3) if quick else (7, 1.0)
    for _ in range(2 if quick else 5):  # idle runs: start-up time and the CPU a run costs with no calls
        for peer in peers:
            child = Child(peer)
            figures[peer.name].startup.append(child.handshake())
            cpu, _ = child.finish()
            figures[peer.name].idle_cpu.append(cpu)

    where = placements()
    unpinned = set(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    try:
        children = spawned(peers, figures)
        lockstep_rounds(children, figures, rounds, seconds)
        for name, child in children.items():
            cpu, figures[name].rss = child.finish()
            figures[name].lockstep_cpu = figures[name].cpu_per_call(cpu, child.calls)

        def burst(child: Child, f: Figures) -> None:
            where[-1].apply(child)
            # sized so that each server's burst takes about a lockstep window (its pipelined rate is higher)
            f.pipelined.append(pipelined_burst(child, int(min(200_000, max(500, f.lockstep_rate * seconds * 2)))))

        children = spawned(peers, figures)
        interleaved(children, figures, rounds, burst)
        for name, child in children.items():
            cpu, _ = child.finish()
            figures[name].pipelined_cpu = figures[name].cpu_per_call(cpu, child.calls)
    finally:
        if unpinned is not None:
            os.sched_setaffinity(0, unpinned)  # the driver's process goes on unpinned (bench/run.py)
    return figures


def lockstep_by_placement(results: dict[str, Figures], names: list[str], against: str) -> list[tuple[str, str, float]]:
    """(server, placement, its lockstep rate over `against`'s) for each placement: the ratio of the
    medians over the same rounds."""
    ratios = []
    base = results[against]
    for name in names:
        for placement, rates in results[name].lockstep_by.items():
            ratios.append((name, placement, statistics.median(rates) / statistics.median(base.lockstep_by[placement])))
    return ratios


def versions() -> str:
    found = []
    for dist in ("mcp", "fastmcp", "orjson"):
        try:
            found.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            found.append(f"{dist} missing")
    return ", ".join(found)


def report(results: dict[str, Figures], quick: bool) -> None:
    sdk, bare = results.get(SDK), results.get(BARE)
    rows = []
    for name, f in results.items():
        rows.append([
            name, f.lockstep_rate,
            f"{f.lockstep_rate / sdk.lockstep_rate:.1f}x" if sdk else "-",
            f"{f.lockstep_rate / bare.lockstep_rate:.2f}x" if bare else "-",
            f.percentile(0.5), f.percentile(0.99), f.pipelined_rate,
            f"{f.pipelined_rate / sdk.pipelined_rate:.1f}x" if sdk else "-",
            f.lockstep_cpu, f.pipelined_cpu, statistics.median(f.startup) * 1e3, f.rss / 2**20,
        ])
    print_table(
        "MCP stdio servers: the echo tool over pipes" + (" (quick)" if quick else ""),
        ["server", "lockstep req/s", "vs SDK", "vs loop", "p50 µs", "p99 µs", "pipelined resp/s", "vs SDK",
         "CPU/call µs (lockstep)", "CPU/call µs (pipelined)", "start-up ms", "peak RSS MB"],
        rows,
        f"Python {sys.version.split()[0]}, {versions()}, {os.cpu_count()} CPUs. Rates: median of interleaved "
        f"rounds; lockstep on {placements()[0].name}, pipelined on {placements()[-1].name}; CPU per call: the child's "
        "rusage minus an idle run's.",
    )
    if bare is not None:
        print_table(
            "lockstep tools/call by placement",
            ["server", "placement", "req/s", "vs loop"],
            [[name, placement, statistics.median(results[name].lockstep_by[placement]), f"{ratio:.2f}x"]
             for name, placement, ratio in lockstep_by_placement(results, list(results), BARE)],
            "Medians over the same interleaved rounds; the main table's rates are the first placement's.",
        )
    ours = results.get(FERRULE)
    if ours is None or sdk is None or bare is None:
        return
    checks = [
        ("lockstep tools/call vs official SDK", ">= 40x", ours.lockstep_rate / sdk.lockstep_rate, 40.0, "x"),
        *((f"lockstep tools/call vs hand-written loop, {placement}", ">= 0.75x", ratio, 0.75, "x")
          for _, placement, ratio in lockstep_by_placement(results, [FERRULE], BARE)),
        ("pipelined vs official SDK", ">= 100x", ours.pipelined_rate / sdk.pipelined_rate, 100.0, "x"),
        ("start-up to first answer", "< 100 ms", statistics.median(ours.startup) * 1e3, -100.0, " ms"),
        ("peak RSS", "< 30 MB", ours.rss / 2**20, -30.0, " MB"),
    ]
    rows = []
    for figure, target, value, bound, unit in checks:
        met = value >= bound if bound > 0 else value < -bound
        rows.append([figure, target, f"{value:.2f}{unit}" if value < 100 else f"{value:,.0f}{unit}",
                     "met" if met else "NOT met"])
    print_table("ferrule (C twins) against its targets", ["figure", "target", "measured", ""], rows)


def main(quick: bool = False, only: str | None = None) -> dict[str, Figures]:
    peers = [p for p in PEERS if not only or only in p.name]
    results = run(peers, quick)
    report(results, quick)
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (CI)")
    parser.add_argument("--only", help="measure only the servers whose name contains this")
    options = parser.parse_args()
    main(options.quick, options.only)
