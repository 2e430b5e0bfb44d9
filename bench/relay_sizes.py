"""The relay's own cost by file size: the small fixture file beside large files of real crates.

For each file a direct LSP client (the floor), a second one on an analyzer of its own (the control:
its distance from the floor is the noise) and `ferrule serve` over pipes each get a warm analyzer on a
private copy of the crate, and run the same ops in short alternating turns. Every `type`, `complete`
and `validate` carries a transient `content` with a one-line change that differs from the previous
call's, so nothing is answered from a copy of the last text. Around each of the relay's timed turns
the relay process's own CPU time is read (every thread's, from /proc/<pid>/task/*/schedstat): the
figure the machine's load moves least.

Ops: `type` (the change is a comment on the hovered line), `complete` (the line being completed),
`validate` (the change adds a type error), `scope` (the protocol gives it no `content`: the saved file
at the neutral position, the probe shown transiently, as the direct client shows it too).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from relay_direct_client import DirectClient

REPO = Path(__file__).resolve().parent.parent
CRATES = Path(os.environ.get("RUST_OFFLINE_CRATES", "/opt/rust-offline/crates"))
OPS = ("type", "complete", "scope", "validate")
TARGETS_MS = {"type": 2.0, "complete": 2.0, "scope": 2.0, "validate": 5.0}  # on the large files
VARIANTS = 8  # transient texts cycled through: each call's differs from the one before
BLOCK = 5  # calls per turn
WARM = 1  # calls before each turn that are not counted


@dataclass(frozen=True)
class Subject:
    label: str
    crate: Path
    file: str
    type_at: tuple[int, int]  # 1-based line, UTF-8 column of a name whose type is known
    type_shows: str  # a piece of that type's display
    complete_line: int  # the line `completing` replaces; the completion is asked at its end
    completing: str
    offers: str  # an entry the completion must offer

    @property
    def edit_line(self) -> int:
        """The line the `type` and `validate` changes rewrite: the hovered one, a whole statement."""
        return self.type_at[0]


SUBJECTS = (
    Subject("relay_shell src/lib.rs", REPO / "tests" / "fixtures" / "relay_shell", "src/lib.rs",
            (17, 8), "Option<&str>", 18, "    word.", "unwrap"),
    Subject("regex-syntax src/ast/parse.rs", CRATES / "regex-syntax-0.6.27", "src/ast/parse.rs",
            (417, 12), "u32", 421, "        current.checked_add(1).", "unwrap"),
    Subject("byteorder src/lib.rs", CRATES / "byteorder-1.4.3", "src/lib.rs",
            (85, 8), "usize", 86, "    val.checked_shl(1).", "unwrap"),
)


def _replace(text: str, line: int, replacement: str) -> str:
    lines = text.split("\n")
    lines[line - 1] = replacement
    return "\n".join(lines)


class Texts:
    """The transient texts of one subject, built once: variant `i` of each op."""

    def __init__(self, subject: Subject, text: str) -> None:
        self.subject = subject
        self.text = text
        edited = text.split("\n")[subject.edit_line - 1]
        self.type = [_replace(text, subject.edit_line, f"{edited} // change {i}") for i in range(VARIANTS)]
        self.complete = [_replace(text, subject.complete_line, f"{subject.completing} // change {i}")
                         for i in range(VARIANTS)]
        self.validate = [_replace(text, subject.edit_line, f'{edited} let _check: u32 = "{i}";')
                         for i in range(VARIANTS)]
        self.complete_at = (subject.complete_line, len(subject.completing.encode("utf-8")))


def p50(samples: list[float]) -> float:
    return statistics.median(samples)


# ---------------------------------------------------------------------------------------------------


class DirectOn:
    """The floor: the blocking LSP client doing the same transient dance as the relay for each op."""

    def __init__(self, name: str, root: Path, analyzer: str, texts: Texts) -> None:
        from ferrule.relay.ops.completion import with_probe

        self.name = name
        self.client = client = DirectClient.like_the_relay(analyzer, root)
        subject, self.texts = texts.subject, texts
        file, saved = subject.file, texts.text
        self.calls = 0
        probed, neutral = with_probe(saved)
        line0, col = subject.type_at[0] - 1, subject.type_at[1]
        hover = {"textDocument": {"uri": client.uri(file)}, "position": {"line": line0, "character": col}}
        cline, ccol = texts.complete_at
        self.ops: dict[str, Callable[[int], Any]] = {
            "type": lambda i: client.transient(file, texts.type[i], saved,
                                               lambda: client.request("textDocument/hover", hover)),
            "complete": lambda i: client.transient(file, texts.complete[i], saved,
                                                   lambda: client.completion(file, cline - 1, ccol)),
            "scope": lambda i: client.transient(file, probed, saved, lambda: client.completion(
                file, neutral.line - 1, neutral.character)),
            "validate": lambda i: client.transient(file, texts.validate[i], saved, lambda: client.diagnostics(file)),
        }
        assert subject.type_shows in self.ops["type"](0)["contents"]["value"]
        assert any(i["label"].startswith(subject.offers) for i in self.ops["complete"](0)["items"])
        assert self.ops["scope"](0)["items"]
        assert any(d.get("code") == "E0308" for d in self.ops["validate"](0)["items"])

    def call(self, op: str) -> None:
        self.calls += 1
        self.ops[op](self.calls % VARIANTS)

    def cpu_ns(self) -> int:
        return 0

    def close(self) -> None:
        self.client.close()


class ServeProcess:
    """A `ferrule serve` process over pipes: one blocking NDJSON round trip at a time."""

    def __init__(self, root: Path, analyzer: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ferrule", "serve", "--root", str(root), "--rust-analyzer", analyzer],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in, self._out = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        self._buffer = bytearray()

    def read(self) -> dict:
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                return orjson.loads(line)
            chunk = os.read(self._out, 1 << 16)
            if not chunk:
                raise EOFError("ferrule serve closed its output")
            self._buffer += chunk

    def write(self, frame: bytes) -> None:
        view = memoryview(frame)
        while view:
            view = view[os.write(self._in, view):]

    def call(self, op: str, params: dict) -> dict:
        self.write(orjson.dumps({"proto": 1, "id": 0, "op": op, "params": params}) + b"\n")
        answer = self.read()
        if not answer["ok"]:
            raise RuntimeError(f"{op}: {answer['error']}")
        return answer["result"]

    def cpu_ns(self) -> int:
        """The process's CPU time so far, every thread's, in nanoseconds."""
        total = 0
        tasks = f"/proc/{self.proc.pid}/task"
        for task in os.listdir(tasks):
            try:
                with open(f"{tasks}/{task}/schedstat", encoding="ascii") as handle:
                    total += int(handle.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue  # a thread that ended meanwhile
        return total

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()


class ServedOn:
    name = "ferrule serve"

    def __init__(self, root: Path, analyzer: str, texts: Texts) -> None:
        self.serve = ServeProcess(root, analyzer)
        subject = texts.subject
        line, column = subject.type_at
        cline, ccol = texts.complete_at
        params: dict[str, list[dict]] = {
            "type": [{"file": subject.file, "position": {"line": line, "character": column}, "content": t}
                     for t in texts.type],
            "complete": [{"file": subject.file, "position": {"line": cline, "character": ccol}, "content": t}
                         for t in texts.complete],
            "scope": [{"file": subject.file}],
            "validate": [{"file": subject.file, "content": t} for t in texts.validate],
        }
        self.frames = {op: [orjson.dumps({"proto": 1, "id": 1, "op": op, "params": p}) + b"\n" for p in each]
                       for op, each in params.items()}
        self.calls = 0
        call = self.serve.call
        assert subject.type_shows in call("type", params["type"][0])["display"]
        assert any(e["name"] == subject.offers for e in call("complete", params["complete"][0])["entries"])
        assert call("scope", params["scope"][0])["symbols"]
        assert any(d["code"] == "E0308" for d in call("validate", params["validate"][0])["diagnostics"])

    def call(self, op: str) -> None:
        self.calls += 1
        frames = self.frames[op]
        self.serve.write(frames[self.calls % len(frames)])
        answer = self.serve.read()
        if not answer["ok"]:
            raise RuntimeError(f"{op}: {answer['error']}")

    def cpu_ns(self) -> int:
        return self.serve.cpu_ns()

    def close(self) -> None:
        self.serve.close()


FLOOR, CONTROL = "direct LSP client (floor)", "direct LSP client #2 (control)"


def _copy(subject: Subject, into: Path, name: str) -> Path:
    target = into / name
    shutil.copytree(subject.crate, target, ignore=shutil.ignore_patterns("target", "Cargo.lock", ".git"))
    return target


def race(subject: Subject, tmp: Path, analyzer: str, calls: int) -> dict[str, dict[str, Any]]:
    """Per contender and op: the latencies (ms), the paired overheads over the floor, and CPU ns/op."""
    text = (subject.crate / subject.file).read_text(encoding="utf-8")
    texts = Texts(subject, text)
    contenders: list[Any] = []
    try:
        slug = subject.label.split()[0]
        for name, kind in ((FLOOR, DirectOn), (CONTROL, DirectOn), (ServedOn.name, ServedOn)):
            print(f"bench_relay: {subject.label}: starting {name}...", file=sys.stderr, flush=True)
            root = _copy(subject, tmp, f"{slug}-{len(contenders)}")
            contenders.append(kind(name, root, analyzer, texts) if kind is DirectOn else kind(root, analyzer, texts))
        results: dict[str, dict[str, Any]] = {c.name: {"samples": {}, "paired": {}, "cpu": {}} for c in contenders}
        n = len(contenders)
        for op in OPS:
            samples: dict[str, list[float]] = {c.name: [] for c in contenders}
            paired: dict[str, list[float]] = {c.name: [] for c in contenders}
            cpu: dict[str, list[int]] = {c.name: [0, 0] for c in contenders}
            for turn_number in range(-(-calls // BLOCK)):
                turn: dict[str, float] = {}
                for contender in contenders[turn_number % n:] + contenders[:turn_number % n]:
                    for _ in range(WARM):
                        contender.call(op)
                    taken = []
                    used = contender.cpu_ns()
                    for _ in range(BLOCK):
                        start = time.perf_counter()
                        contender.call(op)
                        taken.append((time.perf_counter() - start) * 1e3)
                    cpu[contender.name][0] += contender.cpu_ns() - used
                    cpu[contender.name][1] += BLOCK
                    samples[contender.name] += taken
                    turn[contender.name] = p50(taken)
                for name, value in turn.items():
                    paired[name].append(value - turn[FLOOR])
            for name in samples:
                results[name]["samples"][op] = samples[name]
                results[name]["paired"][op] = paired[name]
                results[name]["cpu"][op] = cpu[name][0] / cpu[name][1] / 1e6
        return results
    finally:
        for contender in contenders:
            contender.close()


def rows_by_size(tmp: Path, analyzer: str, calls: int) -> list[list[object]]:
    """One row per file and op: the floor's and the relay's p50, what the relay adds, the control's
    distance (the noise), and the relay process's CPU time per op."""
    rows: list[list[object]] = []
    for subject in SUBJECTS:
        lines = (subject.crate / subject.file).read_text(encoding="utf-8").count("\n")
        results = race(subject, tmp, analyzer, calls)
        floor, control, served = results[FLOOR], results[CONTROL], results[ServedOn.name]
        for op in OPS:
            added = p50(served["paired"][op])
            cpu = served["cpu"][op]
            target = TARGETS_MS[op]
            verdict = "met" if cpu <= target else "MISSED"
            rows.append([f"{subject.label} ({lines:,} lines)", op, p50(floor["samples"][op]),
                         p50(served["samples"][op]), added, p50(control["paired"][op]), cpu,
                         f"<= {target}", verdict])
    return rows


HEADER = ["file", "op", "direct p50 ms", "relay p50 ms", "added p50 ms", "control p50 ms",
          "relay CPU ms/op", "target ms", "verdict"]
NOTES = ("added = the median over turns of (the relay's p50 minus the floor's in the same turn); control = "
         "the same for a second direct client on its own analyzer (the noise); relay CPU = the `ferrule "
         "serve` process's own CPU time per op over the timed calls. Each type/complete/validate carries a "
         "one-line transient change differing from the previous call's; scope runs on the saved file. "
         "The verdict holds the CPU time against the target set for the large files (the added p50 is "
         "to be read against the control's: on a busy machine both move by more than the target).")
