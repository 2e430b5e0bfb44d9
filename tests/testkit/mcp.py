"""Helpers for the ferrule.mcp tests: message builders, a replay runner, and a driver for the
server as a real subprocess over pipes."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from ferrule.mcp import ReplayTransport, Server

HERE = Path(__file__).resolve().parent
SAMPLE_SERVER = HERE.parent / "mcp" / "sample_server.py"
EXAMPLE_SERVER = HERE.parents[1] / "examples" / "echo_server.py"
EXAMPLE_DROPIN = HERE.parents[1] / "examples" / "sdk_server_dropin.py"  # an official-SDK app, for `ferrule run`
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "0"},
}


def child_env(twin: Any = None) -> dict[str, str]:
    """The environment of a server a client starts: on `twin` (a testkit.twins.Twin; None: the one the
    user's environment selects), with what finds Python and the package and nothing else."""
    env = twin.env() if twin else dict(os.environ)
    return {k: env[k] for k in ("PATH", "HOME", "FERRULE_NO_EXTENSIONS", "PYTHONPATH") if k in env}


def request(msg_id: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def call(msg_id: Any, name: str, arguments: dict[str, Any] | None = None, **params: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, **params}
    if arguments is not None:
        body["arguments"] = arguments
    return request(msg_id, "tools/call", body)


def modern(msg: dict[str, Any], **meta: Any) -> dict[str, Any]:
    """The same request carrying the 2026-07-28 envelope."""
    params = dict(msg.get("params") or {})
    params["_meta"] = {**ENVELOPE, **meta}
    return {**msg, "params": params}


def replay(server: Server, *script: Any, **options: Any) -> list[Any]:
    """Run the server over a ReplayTransport; the decoded output."""
    transport = ReplayTransport(script, **options)
    server.run(transport)
    return transport.messages()


class Child:
    """A server subprocess driven over real pipes, line by line."""

    def __init__(self, script: Path, env: dict[str, str], stderr_path: Path) -> None:
        self.stderr_path = stderr_path
        self._stderr = open(stderr_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._stderr, env=env,
        )
        self._buffer = b""

    def send(self, *messages: Any) -> None:
        """Write messages (dicts as JSON lines, bytes as they are) in one write."""
        data = b"".join(m if isinstance(m, bytes) else orjson.dumps(m) + b"\n" for m in messages)
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def recv_line(self, timeout: float = 20.0) -> bytes:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError(f"no line from the server within {timeout}s; stderr: {self.stderr()!r}")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise EOFError(f"the server closed stdout; stderr: {self.stderr()!r}")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def recv(self, timeout: float = 20.0) -> Any:
        return orjson.loads(self.recv_line(timeout))

    def ask(self, message: dict[str, Any]) -> Any:
        self.send(message)
        return self.recv()

    def quiet(self, wait: float = 0.3) -> bool:
        """True when nothing more arrives within `wait` seconds."""
        assert self.proc.stdout is not None
        if self._buffer:
            return False
        return not select.select([self.proc.stdout.fileno()], [], [], wait)[0]

    def close_input(self) -> int:
        """End of input: the server must exit 0 promptly."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=20)

    def rest_of_stdout(self) -> bytes:
        assert self.proc.stdout is not None
        return self._buffer + self.proc.stdout.read()

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except BrokenPipeError:
                    pass
        self._stderr.close()


