"""The relay's cost over talking to rust-analyzer directly, on the same file, in one run.

Rows (each its own warm analyzer on a private copy of tests/fixtures/relay_shell, src/lib.rs; the first
four run at the same time, measured in short alternating blocks of calls so the machine's drift is
shared; a full run repeats that race on fresh analyzers five times, since one analyzer process can be
twice as fast as the next at the same op, and takes the median over races):
- direct LSP client (relay_direct_client.py): a blocking Content-Length client, the floor;
- a second direct LSP client, the control: the same client on its own analyzer, so its distance from
  the floor is what two identical contenders differ by here (the noise the overheads stand against);
- `ferrule serve` over pipes: what a host sees (NDJSON frames through the relay process);
- the in-process Session: `await session.call(...)` in the caller's event loop;
- multilspy (or another peer) in .venv-peers, driven through bench/peer_lsp.py in a subprocess.

Ops: `type` (hover); `complete` with a transient `content` on every call; `validate` with a transient
`content`; pipelined `type` (N requests written at once, then N answers read). The direct client sends
the relay's own `initialize` params and settings, and does the same transient dance for the same
meaning: didOpen(content), the request, then didChange(disk text) and didClose; each message is its
own write, as a minimal client does.

Last, the same comparison by file size (bench/relay_sizes.py): the small fixture file beside large files
of real crates (regex-syntax's src/ast/parse.rs, byteorder's src/lib.rs), with the relay process's own
CPU time per op. `--sizes` runs only that table.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "src"))

from _report import print_table  # noqa: E402
from relay_direct_client import DirectClient  # noqa: E402
from relay_sizes import HEADER as SIZES_HEADER  # noqa: E402
from relay_sizes import NOTES as SIZES_NOTES  # noqa: E402
from relay_sizes import ServeProcess, rows_by_size  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "relay_shell"
FILE = "src/lib.rs"
TYPE_AT = (17, 8)  # 1-based line, UTF-8 column: `word` in `let word = text.split_whitespace().next();`
COMPLETE_LINE = 18  # the line replaced by `    word.` in the transient content
PEERS_PYTHON = REPO / ".venv-peers" / "bin" / "python"

TARGETS = {"type": 0.1, "complete": 0.3, "validate": 0.3}  # ms the relay may add at p50


def _lib_text(root: Path) -> str:
    return (root / FILE).read_text(encoding="utf-8")


def _with_line(text: str, line: int, replacement: str) -> str:
    lines = text.split("\n")
    lines[line - 1] = replacement
    return "\n".join(lines)


def complete_content(text: str) -> str:
    return _with_line(text, COMPLETE_LINE, "    word.")


def validate_content(text: str) -> str:
    return _with_line(text, COMPLETE_LINE, '    let n: u32 = "seven"; word')


def p50(samples: list[float]) -> float:
    return statistics.median(samples)


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def relay_params(text: str) -> dict[str, dict]:
    at = {"line": TYPE_AT[0], "character": TYPE_AT[1]}
    return {
        "type": {"file": FILE, "position": at},
        "complete": {"file": FILE, "position": {"line": COMPLETE_LINE, "character": 9},
                     "content": complete_content(text)},
        "validate": {"file": FILE, "content": validate_content(text)},
    }


# ---------------------------------------------------------------------------------------------------
# the three contenders, each with its own warm analyzer; `call(op)` runs one op, checked once


class Direct:
    """The floor: the blocking LSP client, sending what the relay sends for the same meaning."""

    name = "direct LSP client (floor)"

    def __init__(self, root: Path, analyzer: str) -> None:
        self.client = client = DirectClient.like_the_relay(analyzer, root)
        self.text = text = _lib_text(root)
        self.uri = client.uri(FILE)
        line0, col = TYPE_AT[0] - 1, TYPE_AT[1]
        self.hover_params = {"textDocument": {"uri": self.uri}, "position": {"line": line0, "character": col}}
        completing, failing = complete_content(text), validate_content(text)
        self.ops = {
            "type": lambda: client.request("textDocument/hover", self.hover_params),
            "complete": lambda: client.transient(FILE, completing, text,
                                                 lambda: client.completion(FILE, COMPLETE_LINE - 1, 9)),
            "validate": lambda: client.transient(FILE, failing, text, lambda: client.diagnostics(FILE)),
        }
        assert "Option<&str>" in self.ops["type"]()["contents"]["value"]
        assert any(i["label"].startswith("unwrap") for i in self.ops["complete"]()["items"])
        assert any(d.get("code") == "E0308" for d in self.ops["validate"]()["items"])

    async def call(self, op: str) -> None:
        self.ops[op]()

    async def pipelined(self, n: int) -> float:
        start = time.perf_counter()
        ids = [self.client.send_request("textDocument/hover", self.hover_params) for _ in range(n)]
        for request_id in ids:
            self.client.wait_response(request_id)
        return n / (time.perf_counter() - start)

    async def close(self) -> None:
        self.client.close()


class Served:
    """What a host sees: NDJSON frames through a `ferrule serve` process, one blocking round trip each."""

    name = "ferrule serve (pipes)"

    def __init__(self, root: Path, analyzer: str) -> None:
        self.serve = ServeProcess(root, analyzer)
        self.params = relay_params(_lib_text(root))
        self.frames = {op: orjson.dumps({"proto": 1, "id": op, "op": op, "params": p}) + b"\n"
                       for op, p in self.params.items()}
        _check(self.serve.call, self.params)

    async def call(self, op: str) -> None:
        self.serve.write(self.frames[op])
        self.serve.read()

    async def pipelined(self, n: int) -> float:
        frames = self.frames["type"] * n
        start = time.perf_counter()
        self.serve.write(frames)
        answers = [self.serve.read() for _ in range(n)]
        rate = n / (time.perf_counter() - start)
        assert all(a["ok"] for a in answers)
        return rate

    async def close(self) -> None:
        self.serve.close()


class InProcess:
    """The Session awaited in the caller's own event loop."""

    name = "Session in-process"

    def __init__(self, root: Path, analyzer: str) -> None:
        from ferrule.relay.session import Session

        self.session = Session(root, analyzer=analyzer)
        self.params = relay_params(_lib_text(root))

    async def start(self) -> None:
        await self.session.call("init", {})
        results = {op: await self.session.call(op, p) for op, p in self.params.items()}
        _check(lambda op, _: results[op], self.params)

    async def call(self, op: str) -> None:
        await self.session.call(op, self.params[op])

    async def pipelined(self, n: int) -> float:
        start = time.perf_counter()
        await asyncio.gather(*(self.session.call("type", self.params["type"]) for _ in range(n)))
        return n / (time.perf_counter() - start)

    async def close(self) -> None:
        await self.session.call("shutdown", {})


def _check(call: Callable[[str, dict], dict], params: dict[str, dict]) -> None:
    assert call("type", params["type"])["display"] == "let word: Option<&str>"
    assert any(e["name"] == "unwrap" for e in call("complete", params["complete"])["entries"])
    assert any(d["code"] == "E0308" for d in call("validate", params["validate"])["diagnostics"])


class Control(Direct):
    name = "direct LSP client #2 (control)"


FLOOR, CONTROL = Direct.name, Control.name
# calls per turn, and calls before each turn that are not counted (back in its stride after the others)
BLOCK = {"type": 50, "complete": 10, "validate": 10}
WARM = {"type": 5, "complete": 3, "validate": 3}


async def race(tmp: Path, analyzer: str, rounds: dict[str, int], label: str = "") -> dict[str, dict[str, object]]:
    """Every contender warm at once, measured in short turns of calls (rotating who goes first), so
    each runs in its stride and the machine's drift falls on all of them alike. Besides the samples,
    `paired` keeps each turn's p50 minus the floor's p50 in the same round: the overhead with the
    drift between rounds taken out."""
    contenders = []
    try:
        for kind in (Direct, Control, Served, InProcess):
            print(f"bench_relay: starting {kind.name}...", file=sys.stderr, flush=True)
            contender = kind(_copy(tmp, kind.__name__.lower() + label), analyzer)
            contenders.append(contender)
            if isinstance(contender, InProcess):
                await contender.start()
        results: dict[str, dict[str, object]] = {c.name: {"paired": {}} for c in contenders}
        n = len(contenders)
        for op in ("type", "complete", "validate"):
            samples: dict[str, list[float]] = {c.name: [] for c in contenders}
            paired: dict[str, list[float]] = {c.name: [] for c in contenders}
            block = BLOCK[op]
            for b in range(-(-rounds[op] // block)):
                turn: dict[str, float] = {}
                for contender in contenders[b % n:] + contenders[:b % n]:
                    for _ in range(WARM[op]):
                        await contender.call(op)
                    taken = []
                    for _ in range(block):
                        start = time.perf_counter()
                        await contender.call(op)
                        taken.append((time.perf_counter() - start) * 1e3)
                    samples[contender.name] += taken
                    turn[contender.name] = p50(taken)
                for name, value in turn.items():
                    paired[name].append(value - turn[FLOOR])
            for name in samples:
                results[name][op] = samples[name]
                results[name]["paired"][op] = paired[name]
        for contender in contenders:
            results[contender.name]["pipelined"] = await contender.pipelined(rounds["pipelined"])
        return results
    finally:
        for contender in contenders:
            await contender.close()


# ---------------------------------------------------------------------------------------------------
# the shell alone: `ferrule serve`'s loop with the analyzer hop taken out

_INSTANT_SERVE = """
import sys
from ferrule.relay.serve import serve

class Instant:  # answers at once: what is left is the envelope, the scheduling and the pipes
    def __init__(self, root, *, analyzer=None, on_progress=None):
        pass

    async def run(self, op, params):
        return {} if op == "shutdown" else {"display": "let word: Option<&str>", "documentation": ""}

sys.exit(serve(sys.argv[1], session_factory=Instant))
"""

_ECHO = """
import os
while True:
    data = os.read(0, 65536)
    if not data:
        break
    os.write(1, data)
"""


def shell_round_trips(root: Path, rounds: int) -> list[list[object]]:
    frame = orjson.dumps({"proto": 1, "id": 1, "op": "type", "params": relay_params(_lib_text(root))["type"]})
    rows = []
    variants = [("pipe echo (a blocking Python process)", [sys.executable, "-c", _ECHO], {}),
                ("ferrule serve, instant Session (uvloop)", [sys.executable, "-c", _INSTANT_SERVE, str(root)], {}),
                ("ferrule serve, instant Session (asyncio)", [sys.executable, "-c", _INSTANT_SERVE, str(root)],
                 {"FERRULE_NO_UVLOOP": "1"})]
    for name, cmd, env in variants:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                bufsize=0, env={**os.environ, **env})
        fd_in, fd_out = proc.stdin.fileno(), proc.stdout.fileno()
        samples = []
        for i in range(rounds + 200):
            start = time.perf_counter()
            os.write(fd_in, frame + b"\n")
            got = b""
            while not got.endswith(b"\n"):
                got += os.read(fd_out, 65536)
            if i >= 200:
                samples.append((time.perf_counter() - start) * 1e6)
        proc.stdin.close()
        proc.wait(30)
        proc.stdout.close()
        rows.append([name, p50(samples), p99(samples)])
    return rows


# ---------------------------------------------------------------------------------------------------
# the peer (its own venv, its own process)


def bench_peer(root: Path, analyzer: str, rounds: dict[str, int]) -> tuple[dict[str, object] | None, str]:
    if not PEERS_PYTHON.exists():
        return None, (".venv-peers is absent: `python3 -m venv .venv-peers && .venv-peers/bin/pip install "
                      "multilspy` to add the peer rows")
    script = HERE / "peer_lsp.py"
    done = subprocess.run(
        [str(PEERS_PYTHON), str(script), "--root", str(root), "--file", FILE, "--analyzer", analyzer,
         "--line", str(TYPE_AT[0] - 1), "--col", str(TYPE_AT[1]), "--complete-line", "10",
         "--complete-col", "10", "--rounds", str(rounds["type"]), "--complete-rounds", str(rounds["complete"])],
        capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return None, "peer failed: " + " | ".join(tail)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return report, report.get("note", "")


# ---------------------------------------------------------------------------------------------------


def _copy(into: Path, name: str) -> Path:
    target = into / name
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    return target


def _analyzer() -> str:
    from ferrule.relay.resolve import resolve_analyzer

    return resolve_analyzer().path


async def races(tmp: Path, analyzer: str, rounds: dict[str, int], count: int) -> list[dict[str, dict[str, object]]]:
    """`count` races, each on fresh analyzers: one analyzer's speed at an op varies from one process to
    the next (for validate by up to 2x here), so one race compares instances as much as clients."""
    runs = []
    for number in range(count):
        print(f"bench_relay: race {number + 1} of {count}", file=sys.stderr, flush=True)
        runs.append(await race(tmp, analyzer, rounds, f"-{number}"))
    return runs


def main(quick: bool = False, sizes_only: bool = False) -> None:
    if not sizes_only:
        main_races(quick)
    calls = 10 if quick else 50
    with tempfile.TemporaryDirectory(prefix="ferrule-bench-sizes-") as tmp:
        rows = rows_by_size(Path(tmp), _analyzer(), calls)
    print_table(f"relay cost by file size ({'quick' if quick else 'full'}: {calls} calls per op and client)",
                SIZES_HEADER, rows, SIZES_NOTES)


def main_races(quick: bool) -> None:
    count = 1 if quick else 5
    total = ({"type": 300, "complete": 60, "validate": 60, "pipelined": 300} if quick else
             {"type": 3000, "complete": 400, "validate": 400, "pipelined": 3000})
    rounds = {op: max(BLOCK.get(op, 1), n // count) for op, n in total.items()}
    analyzer = _analyzer()
    with tempfile.TemporaryDirectory(prefix="ferrule-bench-relay-") as tmp:
        each = asyncio.run(races(Path(tmp), analyzer, rounds, count))
        print("bench_relay: peer...", file=sys.stderr, flush=True)
        peer, peer_note = bench_peer(_copy(Path(tmp), "peer"), analyzer, total)
    names = list(each[0])
    runs: dict[str, dict[str, object]] = {
        name: {op: [x for run in each for x in run[name][op]] for op in ("type", "complete", "validate")}
        for name in names}
    for name in names:
        runs[name]["pipelined"] = statistics.median(run[name]["pipelined"] for run in each)
    rows = []
    for name, run in runs.items():
        row: list[object] = [name]
        for op in ("type", "complete", "validate"):
            row += [statistics.median(p50(r[name][op]) for r in each), p99(run[op])]
        row.append(run["pipelined"])
        rows.append(row)
    if peer is not None:
        rows.append([peer["name"], peer["hover_p50"], peer["hover_p99"], peer["completion_p50"],
                     peer["completion_p99"], "-", "-", "-"])
    print_table(f"relay vs direct rust-analyzer ({'quick' if quick else 'full'}: {count} race(s) on fresh "
                f"analyzers, {count * rounds['type']} type, {count * rounds['complete']} complete/validate)",
                ["client", "type p50 ms", "type p99 ms", "complete p50 ms", "complete p99 ms",
                 "validate p50 ms", "validate p99 ms", "pipelined type ops/s"], rows,
                "complete and validate send a transient `content` on every call.")
    overhead = []
    for name in (CONTROL, "ferrule serve (pipes)", "Session in-process"):
        for op, target in TARGETS.items():
            added = statistics.median(p50(r[name][op]) - p50(r[FLOOR][op]) for r in each)
            paired = p50([x for r in each for x in r[name]["paired"][op]])
            if name == CONTROL:
                overhead.append([name, op, added, paired, "-", "noise"])
            else:
                overhead.append([name, op, added, paired, f"<= {target}", "met" if added <= target else "MISSED"])
    print_table("the shell alone: one `type` frame's round trip with the analyzer hop removed",
                ["path", "p50 µs", "p99 µs"], shell_round_trips(FIXTURE, total["type"] * 3),
                "what `ferrule serve` itself costs per frame: envelope checks, path safety, scheduling, "
                "encoding, two pipe hops.")
    notes = ("added = the median over races of (p50 minus the floor's p50); paired = the median over all turns "
             "of a turn's p50 minus the floor's in the same round; the control row is the same client as the "
             "floor on its own analyzer: its figures are the noise.")
    print_table("relay overhead over the floor (p50)",
                ["path", "op", "added ms", "paired ms", "target ms", "verdict"], overhead,
                notes + (f"\npeer: {peer_note}" if peer_note else ""))


if __name__ == "__main__":
    main(quick="--quick" in sys.argv, sizes_only="--sizes" in sys.argv)
