"""Instructions counted per lockstep tools/call and per relay op: figures that wall-clock runs on a
shared machine cannot hold steady to a few per cent.

Each server answers the benchmark's echo call (bench/peers/) in process, one line per read over the
same in-memory channel, under valgrind's cachegrind (`--cache-sim=no`: the instructions executed,
within about 1 % from run to run, the hash seed fixed). A count at two call counts, differenced and
divided by the extra calls, is the work per call, start-up taken off; the channel's own per call (a
run that only drives it) is taken off too, leaving the server's:
- the bare orjson loop: parse, answer, encode (bench/peers/bare_loop.py's work, the ceiling);
- `ferrule.mcp.Server` with its compiled twins, and with the pure-Python ones: the route of a call
  from its line to its answer's line, the schema check and the capture window included, as over stdio.
Left out, the same for every server: splitting the input into lines and writing the output (the
channel hands over whole lines), and the kernel's share (the reads, the writes, the wake-ups). The
lockstep rates of bench_mcp.py and bench_dropin.py put them back.

The relay's `type` op is counted the same way: the relay's `Session` in process against the direct
LSP client (bench/relay_direct_client.py, the floor of bench_relay.py), each asking its own warm
rust-analyzer (a child process, not counted) for the same hover on a copy of
tests/fixtures/relay_shell. The difference per op is what the relay itself adds: the envelope, the
typed request, the path sandbox, the position's conversion, the answer's mapping. These counts move
by a few per cent from run to run (how the analyzer's answers arrive decides how often each client
wakes to read), still far steadier than the wall-clock overheads.

Needs valgrind (it says so and measures nothing without it). Run: `python bench/bench_instructions.py
[--quick]`, or `python bench/run.py --only bench_instructions`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from orjson import dumps, loads  # noqa: E402

from _report import print_table  # noqa: E402
from ferrule.mcp.transport import Transport  # noqa: E402

CALL = (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo",'
        b'"arguments":{"text":"hello, world"}}}')
INITIALIZE = (b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
              b'"capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}')
SERVERS = {  # name: (target, environment)
    "hand-written orjson loop": ("loop", {}),
    "ferrule.mcp.Server (C twins)": ("native-c", {}),
    "ferrule.mcp.Server (Python twins)": ("native-python", {"FERRULE_NO_EXTENSIONS": "1"}),
}
CHANNEL_ONLY = "null"
RELAY = {"direct": "direct LSP client (floor)", "relay": "ferrule relay, Session in process"}
_REFS = re.compile(rb"I\s+refs:\s+([\d,]+)")
_NULL_ANSWER = b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello, world"}],"isError":false}}'


class _Channel(Transport):
    """`initialize`, then the call `calls` times, one line per read, then the end; the answers counted
    and dropped."""

    # the route a call takes over stdio: the run's capture session (a window per call), and stdin
    # already away from the tools (StdioTransport moves fd 0 once, so no call guards it on its own)
    session_capture = True
    stdin_is_private = True

    def __init__(self, calls: int) -> None:
        self.lines = [INITIALIZE]
        self.left = calls
        self.answers = 0
        self.last = b""

    def read_batch(self) -> list[bytes] | None:
        if self.lines:
            return [self.lines.pop()]
        if self.left <= 0:
            return None
        self.left -= 1
        return [CALL]

    def write_lines(self, lines: list[bytes]) -> None:
        self.answers += len(lines)
        self.last = lines[-1]


def _serve_loop(channel: _Channel) -> None:
    """bare_loop.py's work over the channel."""
    while (batch := channel.read_batch()) is not None:
        msg = loads(batch[0])
        if msg["method"] == "tools/call":
            result = {"content": [{"type": "text", "text": msg["params"]["arguments"]["text"]}], "isError": False}
        else:
            result = {}
        channel.write_lines([dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result})])


def _serve_native(channel: _Channel, twins: str) -> None:
    from ferrule_echo import echo  # bench/peers: the tool the wall-clock benchmarks serve

    from ferrule import capture, fastframe
    from ferrule.mcp import Server, server

    loaded = (capture.IMPLEMENTATION, fastframe.IMPLEMENTATION, server.IMPLEMENTATION)
    if loaded != (twins, twins, twins):  # not built: the rows would be one
        raise SystemExit(f"the {twins} twins were asked for; the capture's, framing's and server's are "
                         f"{', '.join(loaded)} (make build)")
    Server("bench-echo", "1.0", [echo]).run(channel)


def _drive(channel: _Channel) -> None:
    """The channel alone, answered with a constant: its own cost per call."""
    while channel.read_batch() is not None:
        channel.write_lines([_NULL_ANSWER])


def _relay_ops(kind: str, calls: int, root: Path) -> None:
    """`calls` type ops after a warm start: the relay's Session, or the direct client's hover."""
    import asyncio

    import bench_relay

    analyzer = os.environ["FERRULE_BENCH_ANALYZER"]
    if kind == "direct":
        direct = bench_relay.Direct(root, analyzer)  # checks its answers once
        for _ in range(calls):
            answer = direct.ops["type"]()
        direct.client.close()
        shown = answer["contents"]["value"]
    else:
        async def run() -> str:
            relay = bench_relay.InProcess(root, analyzer)
            await relay.start()  # checks its answers once
            for _ in range(calls):
                result = await relay.session.call("type", relay.params["type"])
            await relay.close()
            return str(result["display"])

        shown = asyncio.run(run())
    if "Option<&str>" not in shown:
        raise SystemExit(f"{kind}: the last type answer was {shown!r}")


def target(kind: str, calls: int) -> None:
    """Serve `calls` echo calls, or run `calls` type ops, in this process (what valgrind counts)."""
    if kind in RELAY:
        _relay_ops(kind, calls, Path(os.environ["FERRULE_BENCH_ROOT"]))
        return
    sys.path.insert(0, str(HERE / "peers"))
    channel = _Channel(calls)
    if kind == CHANNEL_ONLY:
        _drive(channel)
    elif kind == "loop":
        _serve_loop(channel)
    else:
        _serve_native(channel, kind.removeprefix("native-"))
    if channel.answers != calls + 1 or b'"text":"hello, world"' not in channel.last or b'"isError":false' not in channel.last:
        raise SystemExit(f"{kind}: {channel.answers} answers to {calls} calls and initialize, the last {channel.last!r}")


def _count(kind: str, env: dict[str, str], calls: int, scratch: Path) -> int:
    log = scratch / f"{kind}-{calls}.log"
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
               f"--log-file={log}", sys.executable, str(Path(__file__).resolve()), "--target", kind, str(calls)]
    # a fixed hash seed: dicts and sets then take the same steps every run
    done = subprocess.run(command, env={**os.environ, **env, "PYTHONHASHSEED": "0"}, capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{kind} under valgrind exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    found = _REFS.search(log.read_bytes())
    if found is None:
        raise RuntimeError(f"no instruction count in {log}")
    return int(found.group(1).replace(b",", b""))


def _relay_table(quick: bool, scratch: Path) -> dict[str, float]:
    """Instructions per type op: the relay's and the direct client's, and what the relay adds."""
    import bench_relay

    low, high = (50, 250) if quick else (200, 1_200)
    env = {"FERRULE_BENCH_ANALYZER": bench_relay._analyzer()}
    per_op: dict[str, float] = {}
    for kind, name in RELAY.items():
        env["FERRULE_BENCH_ROOT"] = str(bench_relay._copy(scratch, f"relay-{kind}"))  # a warm analyzer of its own
        counts = [_count(kind, env, ops, scratch) for ops in (low, high)]
        per_op[name] = (counts[1] - counts[0]) / (high - low)
    direct, relay = per_op[RELAY["direct"]], per_op[RELAY["relay"]]
    print_table(
        "Instructions per type op, in process" + (" (quick)" if quick else ""),
        ["client", "instructions per op", "added over the floor"],
        [[RELAY["direct"], round(direct), "-"], [RELAY["relay"], round(relay), round(relay - direct)]],
        f"cachegrind's instruction count at {low:,} and {high:,} ops, differenced (to a few per cent: the "
        "analyzer's answers arrive as they do); rust-analyzer's own work (a child process) and the kernel's "
        "share are not in it.",
    )
    return per_op


def main(quick: bool = False) -> dict[str, float]:
    if shutil.which("valgrind") is None:
        print("\n## Instructions per tools/call\nvalgrind is not installed: no instruction counts (apt install valgrind)")
        return {}
    low, high = (500, 2_500) if quick else (2_000, 12_000)
    per_call: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="ferrule-instructions-") as scratch:

        def per(kind: str, env: dict[str, str]) -> float:
            counts = [_count(kind, env, calls, Path(scratch)) for calls in (low, high)]
            return (counts[1] - counts[0]) / (high - low)

        channel = per(CHANNEL_ONLY, {})
        for name, (kind, env) in SERVERS.items():
            per_call[name] = per(kind, env) - channel
        per_call.update(_relay_table(quick, Path(scratch)))
    loop = per_call["hand-written orjson loop"]
    print_table(
        "Instructions per lockstep tools/call, in process" + (" (quick)" if quick else ""),
        ["server", "instructions per call", "vs the loop"],
        [[name, round(per_call[name]), f"{loop / per_call[name]:.2f}x"] for name in SERVERS],
        f"Python {sys.version.split()[0]}; cachegrind's instruction count at {low:,} and {high:,} calls, "
        f"differenced, less the in-memory channel's own {round(channel):,} per call; framing the lines and "
        "the kernel's share (reads, writes, wake-ups) are not in it.",
    )
    return per_call


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (CI)")
    parser.add_argument("--target", nargs=2, metavar=("KIND", "CALLS"), help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.target:
        target(arguments.target[0], int(arguments.target[1]))
    else:
        main(arguments.quick)
