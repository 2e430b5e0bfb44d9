"""A JSON-RPC client for an MCP stdio server over real pipes (`ferrule mcp`, the echo example), and an
inotify watch that tells whether anything opened or read a file in a directory."""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from pathlib import Path
from typing import Any

import orjson

from testkit.lines import LineProcess

IN_ACCESS, IN_OPEN = 0x1, 0x20


class McpProcess(LineProcess):
    """An MCP server process; answers are collected by id on a reader thread."""

    def __init__(self, argv: list[str], env: dict[str, str], stderr_path: Path, cwd: Path | None = None) -> None:
        self.raw: list[bytes] = []  # every line the server wrote
        super().__init__(argv, env, stderr_path, cwd)

    def _keep(self, line: bytes, message: Any) -> None:
        self.raw.append(line)
        if "id" in message:
            self._answered(message["id"], message)

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
        return self._wait(msg_id, timeout)

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
