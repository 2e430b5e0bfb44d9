"""Line-oriented child processes over real pipes, and the fuzz and soak drivers loaded from their files."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FUZZ = REPO / "fuzz"


def _load(name: str, path: Path) -> ModuleType:
    """A file of the repository that is not a package module, loaded once under `name`."""
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


def load_fuzz_targets() -> ModuleType:
    """fuzz/targets.py, the checks the atheris harness and these tests share."""
    return _load("ferrule_fuzz_targets", FUZZ / "targets.py")


def load_soak() -> ModuleType:
    """bench/soak.py, the soak driver, with its process figures from /proc."""
    return _load("ferrule_bench_soak", REPO / "bench" / "soak.py")


class LineProcess:
    """A child that answers one JSON object per line over real pipes; a reader thread collects the
    answers by id (`_keep`, under the lock), so a test can send many and wait for each."""

    def __init__(self, argv: list[str], env: dict[str, str], stderr_path: Path, cwd: Path | None = None) -> None:
        self.stderr_path = stderr_path
        self._stderr = open(stderr_path, "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                     env=env, cwd=cwd)
        self.pid = self.proc.pid
        self.answers: dict[Any, Any] = {}
        self.count = 0  # answer lines, ids repeated or not
        self.duplicates: list[Any] = []  # ids answered more than once
        self._next = 0
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _keep(self, line: bytes, message: Any) -> None:
        raise NotImplementedError

    def _answered(self, answer_id: Any, value: Any) -> None:
        self.count += 1
        if answer_id in self.answers:
            self.duplicates.append(answer_id)
        self.answers[answer_id] = value

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            message = orjson.loads(line)
            with self._cond:
                self._keep(line, message)
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def send_raw(self, data: bytes) -> float:
        assert self.proc.stdin is not None
        sent = time.monotonic()  # before the write: the peer may read the line before this process runs again
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        return sent

    def _wait(self, answer_id: Any, timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        with self._cond:
            while answer_id not in self.answers:
                left = deadline - time.monotonic()
                if left <= 0 or not self._reader.is_alive():
                    raise AssertionError(f"no answer to {answer_id!r} within {timeout}s; stderr tail:\n"
                                         + self.stderr()[-3000:])
                self._cond.wait(min(left, 0.5))
            return self.answers[answer_id]

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
        """SIGKILL the child and everything below it (an analyzer it started, that one's helpers)."""
        if self.proc.poll() is None:
            for pid in load_soak().descendants(self.pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.kill()
            self.proc.wait()
        if not self._stderr.closed:
            self._stderr.close()
