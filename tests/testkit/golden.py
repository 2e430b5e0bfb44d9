"""Outer-frame goldens: recorded `ferrule serve` conversations, normalised, and their replay.

A golden is NDJSON: `{"send": frame}` (or `{"send_raw": text}` for a line that is not JSON) and
`{"recv": answer}` lines. A run of sends is one batch, written to the relay at once (pipelined);
the run of recvs after it is what the batch was answered, compared without regard to order (answers
may leave out of order). Volatile fields are normalised on both sides: the project root becomes
$ROOT, `ra_version` and timing fields become placeholders.
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

ROOT_MARK = "$ROOT"
VOLATILE = {"ra_version": "<ra_version>"}
TIMING_SUFFIXES = ("_ms", "_s", "_seconds")
# Lists whose order means nothing and which rust-analyzer orders differently run to run (equal-relevance
# completion items come out in hash order): the symbols in scope are a set.
UNORDERED = {"symbols"}


def normalise(value: Any, root: str | None) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in VOLATILE:
                out[key] = VOLATILE[key]
            elif key.endswith(TIMING_SUFFIXES) and isinstance(item, (int, float)) and key != "timeout_ms":
                out[key] = "<timing>"
            elif key in UNORDERED and isinstance(item, list):
                out[key] = sorted(normalise(item, root), key=lambda v: orjson.dumps(v, option=orjson.OPT_SORT_KEYS))
            else:
                out[key] = normalise(item, root)
        return out
    if isinstance(value, list):
        return [normalise(item, root) for item in value]
    if isinstance(value, str) and root:
        return value.replace(root, ROOT_MARK)
    return value


# Replayed live, a golden meets whichever rust-analyzer release is installed, and a few fields are that
# release's (and its std's) to decide: the wording of a diagnostic, how a type is spelled (`const fn`),
# which entries rank first under a completion cap, and what the std prelude holds. `release_neutral`
# keeps the relay's own work exact (envelopes, ids, errors, positions, codes, caps, facts, policy flags,
# hover displays, the project's own symbols) and reduces those to what every release agrees on. The
# double replays the recorded release, so its comparison stays exact.
def project_names(root: Path) -> frozenset[str]:
    """Every identifier in the project's Rust sources: a symbol so named is the project's own or used by it."""
    return frozenset(name for path in root.rglob("*.rs") for name in re.findall(r"\w+", path.read_text("utf-8")))


def bare_name(name: str) -> str:
    return name.rstrip("!").removesuffix("()")


def release_neutral(value: Any, names: frozenset[str]) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "type_text":
                out[key] = "<type_text>"
            elif key == "entries" and isinstance(item, list):  # ranked by the release: the cap, the flags
                out[key] = sorted(({**release_neutral(entry, names), "kind": "<kind>", "name": "<name>"}
                                   for entry in item), key=lambda e: orjson.dumps(e, option=orjson.OPT_SORT_KEYS))
            elif key == "symbols" and isinstance(item, list):  # the project's own, not the prelude's
                out[key] = [release_neutral(s, names) for s in item if bare_name(s.get("name", "")) in names]
            elif key == "diagnostics" and isinstance(item, list):
                out[key] = [{**release_neutral(d, names), "message": "<message>"} for d in item]
            else:
                out[key] = release_neutral(item, names)
        return out
    if isinstance(value, list):
        return [release_neutral(item, names) for item in value]
    return value


@dataclass
class Step:
    sends: list[bytes] = field(default_factory=list)  # raw lines, without the newline
    recvs: list[dict[str, Any]] = field(default_factory=list)


def load(path: Path) -> list[Step]:
    steps: list[Step] = []
    for line in path.read_bytes().splitlines():
        if not line.strip():
            continue
        entry = orjson.loads(line)
        if "send" in entry or "send_raw" in entry:
            if not steps or steps[-1].recvs:
                steps.append(Step())
            raw = entry["send_raw"].encode() if "send_raw" in entry else orjson.dumps(entry["send"])
            steps[-1].sends.append(raw)
        else:
            steps[-1].recvs.append(entry["recv"])
    return steps


def dump(path: Path, steps: list[Step]) -> None:
    lines = []
    for step in steps:
        for raw in step.sends:
            try:
                lines.append(orjson.dumps({"send": orjson.loads(raw)}))
            except orjson.JSONDecodeError:
                lines.append(orjson.dumps({"send_raw": raw.decode("utf-8", "replace")}))
        lines.extend(orjson.dumps({"recv": answer}, option=orjson.OPT_SORT_KEYS) for answer in step.recvs)
    path.write_bytes(b"\n".join(lines) + b"\n")


def canonical(answers: list[dict[str, Any]]) -> list[str]:
    return sorted(orjson.dumps(a, option=orjson.OPT_SORT_KEYS).decode() for a in answers)


def order_like_sends(step_sends: list[bytes], answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Answers in the order of the frames that asked them (for stable golden files)."""
    rank: dict[Any, int] = {}
    for i, raw in enumerate(step_sends):
        try:
            frame = orjson.loads(raw)
            key = orjson.dumps(frame.get("id")) if isinstance(frame, dict) else b"null"
        except orjson.JSONDecodeError:
            key = b"null"
        rank.setdefault(key, i)
    return sorted(answers, key=lambda a: (rank.get(orjson.dumps(a.get("id")), len(step_sends)),
                                         canonical([a])))


class ServeProcess:
    """`ferrule serve` as a real subprocess over pipes, as a host runs it."""

    def __init__(self, root: Path, analyzer: str | None = None, env: dict[str, str] | None = None,
                 extra_args: list[str] | None = None) -> None:
        self.root = root
        cmd = [sys.executable, "-m", "ferrule", "serve", "--root", str(root)]
        if analyzer:
            cmd += ["--rust-analyzer", analyzer]
        cmd += extra_args or []
        self.stderr_file = tempfile.TemporaryFile()
        self._stderr_text = ""
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr_file, env=env, cwd=root, bufsize=0)
        self.answers: queue.Queue[bytes | None] = queue.Queue()
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.answers.put(line)
        self.answers.put(None)

    def send(self, *lines: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(line.rstrip(b"\n") + b"\n" for line in lines))
        self.proc.stdin.flush()

    def read(self, count: int, timeout: float = 120.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        out = []
        while len(out) < count:
            left = deadline - time.monotonic()
            try:
                line = self.answers.get(timeout=max(left, 0.001))
            except queue.Empty:
                raise AssertionError(f"only {len(out)} of {count} answers within {timeout} s; "
                                     f"stderr:\n{self.stderr()}") from None
            if line is None:
                raise AssertionError(f"serve ended after {len(out)} of {count} answers "
                                     f"(exit {self.proc.wait()}); stderr:\n{self.stderr()}")
            out.append(orjson.loads(line))
        return out

    def ask(self, *frames: bytes, timeout: float = 120.0) -> list[dict[str, Any]]:
        self.send(*frames)
        return self.read(len(frames), timeout)

    def close_input(self, timeout: float = 60.0) -> int:
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        return self.proc.wait(timeout)

    def stderr(self) -> str:
        if self.stderr_file.closed:
            return self._stderr_text
        self.stderr_file.seek(0)
        self._stderr_text = self.stderr_file.read().decode("utf-8", "replace")
        return self._stderr_text

    def kill(self) -> None:
        """Stop the process if it still runs, and release its pipes."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(5)
        self.stderr()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None and not stream.closed:
                stream.close()
        self.stderr_file.close()


def run_steps(serve: ServeProcess, steps: list[Step], root: str) -> list[Step]:
    """Drive `serve` through the steps' sends; the normalised answers each batch got."""
    seen = []
    for step in steps:
        answers = serve.ask(*step.sends)
        seen.append(Step(step.sends, order_like_sends(step.sends, normalise(answers, root))))
    return seen


def run_cli(args: list[str], cwd: Path, analyzer: str | None, timeout: float = 120.0,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A one-shot `ferrule` command as a person runs it (progress goes to stderr, not a terminal)."""
    cmd = [sys.executable, "-m", "ferrule", *args]
    if analyzer:
        cmd += ["--rust-analyzer", analyzer]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def fake_analyzer_wrapper(directory: Path, transcript: Path) -> str:
    """An executable that starts the analyzer double on `transcript` (what --rust-analyzer is given)."""
    script = Path(__file__).resolve().parents[1] / "relay" / "double" / "fake_analyzer.py"
    wrapper = directory / "fake-rust-analyzer"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" --transcript "{transcript}" "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def copy_fixture(source: Path, destination: Path) -> Path:
    """A private copy of a fixture crate (the analyzer may write target/ and Cargo.lock into it)."""
    import shutil

    shutil.copytree(source, destination, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    return Path(os.path.realpath(destination))
