"""Running an app under its SDK's own stdio and under `ferrule run`, line by line over pipes."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

APPS = Path(__file__).resolve().parents[1] / "mcp" / "adapters" / "apps"
BOUND = 30.0  # seconds: reached only when an answer the test waits for never comes
# texts a tool returns as they are, spliced into a laid-out answer: each must be the app's own answer
TEXTS = ["plain", "", "ünïcödé ✓ 🦀 中文", 'quote " backslash \\ slash / newline \n tab \t', "\x00\x01\x1f control",
         "\x00ferrule\x01text\x02probe\x03", "text", "type", "result", "x" * 5000]


def sdk_command(app: str) -> list[str]:
    return [sys.executable, str(APPS / f"{app}.py")]


def ferrule_command(target: str) -> list[str]:
    return [sys.executable, "-m", "ferrule", "run", target]


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Peer:
    """A server process driven over pipes; answers are collected by id, notifications in order."""

    def __init__(self, command: list[str], cwd: Path = APPS, env: dict[str, str] | None = None,
                 ctrl_c: bool = False) -> None:
        self._stderr = tempfile.TemporaryFile()  # a file, not a pipe: a chatty server never blocks on it
        # ctrl_c: the server starts with SIGINT's default action, as a host starts it, even when this
        # run ignores SIGINT (a shell's background job does, and a child inherits that)
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, cwd=cwd, env=env,
                                     preexec_fn=_default_sigint if ctrl_c else None)
        self._buffer = b""
        self.answers: dict[Any, Any] = {}
        self.notifications: list[Any] = []

    def send(self, *messages: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(orjson.dumps(m) + b"\n" for m in messages))
        self.proc.stdin.flush()

    def _read(self, deadline: float) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise TimeoutError(f"nothing from the server within {BOUND}s")
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            raise EOFError("the server closed stdout")
        self._buffer += chunk
        while b"\n" in self._buffer:
            line, _, self._buffer = self._buffer.partition(b"\n")
            msg = orjson.loads(line)
            if "id" in msg and "method" not in msg:
                self.answers[msg["id"]] = msg
            else:
                self.notifications.append(msg)

    def wait_answer(self, msg_id: Any) -> Any:
        deadline = time.monotonic() + BOUND
        while msg_id not in self.answers:
            self._read(deadline)
        return self.answers[msg_id]

    def wait_for(self, ready: Any) -> None:
        """Read until `ready()` holds (it looks at what was collected)."""
        deadline = time.monotonic() + BOUND
        while not ready():
            self._read(deadline)

    def batch_answers(self, ids: set[Any]) -> dict[Any, Any]:
        """The answers to a batch's members, by id, once all of `ids` came: in the batch's array, or
        alone (a member that runs off the read loop answers on its own)."""
        def seen() -> dict[Any, Any]:
            inside = {a["id"]: a for note in self.notifications if isinstance(note, list) for a in note}
            return inside | {i: self.answers[i] for i in ids if i in self.answers}

        self.wait_for(lambda: ids <= seen().keys())
        return seen()

    def wait_notification(self, predicate: Any) -> Any:
        deadline = time.monotonic() + BOUND
        while True:
            for note in self.notifications:
                if predicate(note):
                    return note
            self._read(deadline)

    def ask(self, message: dict[str, Any]) -> Any:
        self.send(message)
        return self.wait_answer(message["id"])

    def stderr_so_far(self) -> str:
        """What the server wrote to stderr until now (it may still be running)."""
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def close(self) -> tuple[int, bytes, str]:
        """End of input; (exit status, the rest of stdout, stderr)."""
        out, _ = self.proc.communicate(timeout=BOUND)
        self._stderr.seek(0)
        err = self._stderr.read()
        self._stderr.close()
        rest = self._buffer + out
        for line in rest.splitlines():
            msg = orjson.loads(line)
            if "id" in msg and "method" not in msg:
                self.answers[msg["id"]] = msg
            else:
                self.notifications.append(msg)
        return self.proc.returncode, rest, err.decode(errors="replace")


ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "transcript", "version": "0"}}


def req(msg_id: Any, method: str, params: dict[str, Any] | None = None, *, stateless: bool = False) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if stateless:
        params = {**(params or {}), "_meta": {**ENVELOPE, **(params or {}).get("_meta", {})}}
    if params is not None:
        msg["params"] = params
    return msg


def call(msg_id: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return req(msg_id, "tools/call", {"name": name, "arguments": arguments})


def transcript(peer: Peer) -> dict[str, Any]:
    status, rest, err = peer.close()
    assert status == 0, err
    answers = {key: normalise(msg) for key, msg in peer.answers.items()}
    progress: dict[Any, list[Any]] = {}
    for note in peer.notifications:
        if note.get("method") == "notifications/progress":
            progress.setdefault(note["params"]["progressToken"], []).append(note["params"])
    logs = [n["params"] for n in peer.notifications if n.get("method") == "notifications/message"]
    asked = [n for n in peer.notifications if "id" in n]  # requests from the server
    return {"answers": answers, "progress": progress, "logs": logs, "asked": asked}


def blocked_sync_tool_session(peer: Peer) -> dict[str, Any]:
    """A sync tool (`wait_release`) blocks, as on its SDK's worker thread: a ping and another call
    (`point`) are answered meanwhile; once cancelled, its call is never answered, though its body goes
    on to the end (`release` lets it)."""
    peer.ask(req(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "direct", "version": "0"}}))
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    peer.send(call(2, "wait_release", {}))
    peer.ask(req(3, "ping"))
    peer.ask(call(4, "point", {"x": 1}))
    peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "test"}})
    peer.ask(call(5, "release", {}))
    peer.send(call(6, "wait_release", {}))  # the event stays set: this one returns at once
    peer.wait_answer(6)
    return transcript(peer)


def blocked_mid_read_session(peer: Peer) -> dict[str, Any]:
    """Calls sent in one write, so that they arrive in one read: a sync tool that blocks (`wait_release`)
    holds up none of the lines read after it (a ping, another call); and one that waits for a call
    later in its own read (`release`) is released by it, as on its SDK's worker threads."""
    peer.ask(req(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "direct", "version": "0"}}))
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    peer.send(call(2, "wait_release", {}), req(3, "ping"), call(4, "point", {"x": 1}))
    peer.wait_answer(3)
    peer.wait_answer(4)
    blocked_meanwhile = 2 not in peer.answers
    peer.send(call(5, "wait_release", {}), call(6, "release", {}))
    for msg_id in (2, 5, 6):
        peer.wait_answer(msg_id)
    return {**transcript(peer), "blocked meanwhile": blocked_meanwhile}


def check_blocked_mid_read(app: str) -> None:
    """`blocked_mid_read_session` against the app's SDK run and `ferrule run`: the same answers, and
    the lines after the blocked call answered while it blocked."""
    theirs = blocked_mid_read_session(Peer(sdk_command(app)))
    ours = blocked_mid_read_session(Peer(ferrule_command(f"{app}.py")))
    assert ours == theirs
    assert ours["blocked meanwhile"] is True
    assert [ours["answers"][n]["result"]["content"][0]["text"] for n in (2, 5)] == ["released", "released"]


def normalise(msg: dict[str, Any]) -> dict[str, Any]:
    result = msg.get("result")
    if isinstance(result, dict):
        for key, field in (("tools", "name"), ("resources", "uri"), ("resourceTemplates", "uriTemplate"),
                           ("prompts", "name")):
            if isinstance(result.get(key), list):
                result[key] = sorted(result[key], key=lambda item, f=field: item[f])
    error = msg.get("error")
    if isinstance(error, dict) and error.get("code") == 0:
        error["code"] = -32603  # the SDK's code for an uncaught handler fault; JSON-RPC's is -32603
    return msg


def calls_seen_by_the_apps_middleware(app_source: str, folder: Path) -> list[str]:
    """Serve `app_source` (an app whose middleware records each tool call and whose `watched` tool
    answers the record) under `ferrule run`; call `echo` twice, then `watched`: what it saw."""
    (folder / "watched_app.py").write_text(app_source)
    peer = Peer(ferrule_command("watched_app.py"), cwd=folder)
    peer.ask(req(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "direct", "version": "0"}}))
    peer.ask(call(2, "echo", {"text": "a"}))
    peer.ask(call(3, "echo", {"text": "b"}))
    answer = peer.ask(call(4, "watched", {}))
    assert peer.close()[0] == 0
    return answer["result"]["structuredContent"]["result"]
