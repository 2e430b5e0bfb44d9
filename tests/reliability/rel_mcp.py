"""A JSON-RPC client for an MCP stdio server over real pipes (`ferrule mcp`, the echo example), and an
inotify watch that tells whether anything opened or read a file in a directory."""

from __future__ import annotations

import ctypes
import os
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson

IN_ACCESS, IN_OPEN = 0x1, 0x20


class McpProcess:
    """An MCP server process; answers are collected by id on a reader thread."""

    def __init__(self, argv: list[str], env: dict[str, str], stderr_path: Path, cwd: Path | None = None) -> None:
        self._stderr = open(stderr_path, "wb")
        self.stderr_path = stderr_path
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                     env=env, cwd=cwd)
        self.pid = self.proc.pid
        self.answers: dict[Any, dict[str, Any]] = {}
        self.raw: list[bytes] = []
        self.count = 0
        self.duplicates = 0
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            message = orjson.loads(line)
            with self._cond:
                self.raw.append(line)
                if "id" in message:
                    self.count += 1
                    if message["id"] in self.answers:
                        self.duplicates += 1
                    self.answers[message["id"]] = message
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None, msg_id: Any = None) -> Any:
        if msg_id is None:
            self._next += 1
            msg_id = self._next
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send_raw(orjson.dumps(message) + b"\n")
        return msg_id

    def wait(self, msg_id: Any, timeout: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while msg_id not in self.answers:
                left = deadline - time.monotonic()
                if left <= 0 or not self._reader.is_alive():
                    raise AssertionError(f"no answer to {msg_id!r} within {timeout}s; stderr tail:\n"
                                         + self.stderr_path.read_text(errors="replace")[-3000:])
                self._cond.wait(min(left, 0.5))
            return self.answers[msg_id]

    def call(self, method: str, params: dict[str, Any] | None = None, timeout: float = 60.0) -> dict[str, Any]:
        return self.wait(self.request(method, params), timeout)

    def tool(self, name: str, arguments: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
        answer = self.call("tools/call", {"name": name, "arguments": arguments}, timeout)
        assert "result" in answer, answer
        return answer["result"]

    def initialize(self) -> dict[str, Any]:
        answer = self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                          "clientInfo": {"name": "reliability", "version": "0"}})
        self.send_raw(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        return answer["result"]

    def close(self, timeout: float = 30.0) -> int:
        assert self.proc.stdin is not None
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
            self.proc.kill()
            self.proc.wait()
        if not self._stderr.closed:
            self._stderr.close()


def mcp_command(root: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ferrule", "mcp", "--root", str(root), *extra]


class AccessWatch:
    """inotify on a directory: every open or read of a file in it, by any process, is counted."""

    def __init__(self, directory: Path) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        if self._libc.inotify_add_watch(self.fd, os.fsencode(directory), IN_ACCESS | IN_OPEN) < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {directory}")
        self.events: list[tuple[int, str]] = []

    def drain(self) -> list[tuple[int, str]]:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return self.events
            offset = 0
            while offset < len(data):
                _, mask, _, size = struct.unpack_from("iIII", data, offset)
                name = data[offset + 16: offset + 16 + size].rstrip(b"\0").decode(errors="replace")
                self.events.append((mask, name))
                offset += 16 + size

    def close(self) -> None:
        os.close(self.fd)
