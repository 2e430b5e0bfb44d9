#!/usr/bin/env python3
"""A stand-in for rust-analyzer that replays a recorded LSP transcript (see record.py).

    fake_analyzer.py --transcript FILE [--version]
    (or FERRULE_DOUBLE_TRANSCRIPT=FILE fake_analyzer.py)

For each message the client sends, it finds the recorded client message with the same method and
params (paths compared relative to the workspace root), answers a request with the recorded result
under the new id, and sends the server messages that followed that message in the recording
(progress, serverStatus, diagnostics, server requests). Candidates are taken in recorded order, so a
client that behaves as the recorded one replays the session exactly; a request with no recorded
counterpart is answered with an LSP error naming it, so a test sees the divergence. Standard library
only: it runs under any Python 3.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from urllib.parse import quote, unquote

ROOT_MARK = "$ROOT"
VOLATILE_KEYS = {"processId", "workDoneToken", "partialResultToken", "clientInfo", "trace", "locale"}


def normalise(value, root: str | None):
    """Params in comparable form: the root path as $ROOT, volatile keys gone."""
    if isinstance(value, dict):
        return {k: normalise(v, root) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [normalise(v, root) for v in value]
    if isinstance(value, str) and root:
        return replace_root(value, root, ROOT_MARK)
    return value


def replace_root(text: str, root: str, mark: str) -> str:
    encoded = quote(root)
    if encoded != root:
        text = text.replace(encoded, mark)
    return text.replace(root, mark)


def root_of(initialize_params: dict) -> str | None:
    uri = initialize_params.get("rootUri") or (initialize_params.get("workspaceFolders") or [{}])[0].get("uri")
    if uri and uri.startswith("file://"):
        return unquote(uri[len("file://"):]).rstrip("/")
    return initialize_params.get("rootPath")


def position_key(params) -> tuple:
    if not isinstance(params, dict):
        return ()
    document = params.get("textDocument") or {}
    return (document.get("uri"), json.dumps(params.get("position"), sort_keys=True))


def _key(params) -> str:
    return json.dumps(params, sort_keys=True)


class Transcript:
    """The recorded session: client messages (with method) in order, each with what followed it."""

    def __init__(self, path: Path) -> None:
        self.version = "rust-analyzer (replayed)"
        self.client: list[dict] = []  # recorded client messages with a method, in order
        self.after: list[list[dict]] = []  # server messages that followed each of them
        # (analyzer process, recorded request id) -> recorded response; a transcript may hold several
        # processes one after another (a re-init, a respawn, one-shot runs), each numbering from 1
        self.responses: dict[tuple[int, object], dict] = {}
        self.process: list[int] = []  # the process each client message belongs to
        process = -1
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            entry = json.loads(line)
            if "version" in entry:
                self.version = entry["version"]
            elif "c" in entry:
                message = entry["c"]
                if message.get("method") == "initialize":
                    process += 1
                if "method" in message:
                    self.client.append(message)
                    self.after.append([])
                    self.process.append(process)
            elif "s" in entry and self.client:
                message = entry["s"]
                if "method" not in message and "id" in message:
                    self.responses[(process, message["id"])] = message
                    # keep its place among the notifications around it
                    self.after[-1].append({"__response_to__": message["id"]})
                else:
                    self.after[-1].append(message)
        self.used = [False] * len(self.client)
        self.cursor = -1
        self.by_method: dict[str, list[int]] = {}
        for i, m in enumerate(self.client):
            self.by_method.setdefault(m["method"], []).append(i)
        self.keys = [_key(normalise(m.get("params"), None)) for m in self.client]
        self.places = [position_key(m.get("params")) for m in self.client]

    def match(self, message: dict, root: str | None) -> int | None:
        method = message["method"]
        params = normalise(message.get("params"), root)
        same_method = self.by_method.get(method, [])
        key = _key(params)
        candidates = [i for i in same_method if self.keys[i] == key]
        if not candidates and "id" in message:  # same question about the same place, other details
            place = position_key(params)
            candidates = [i for i in same_method if "id" in self.client[i] and place and self.places[i] == place]
        if not candidates and "id" not in message:
            candidates = [i for i in same_method if "id" not in self.client[i]]
        if not candidates and method in ("initialize", "shutdown"):
            candidates = same_method
        if not candidates:
            return None
        # The n-th time a message is sent, the n-th recorded one answers it: concurrent ops on other
        # files may interleave differently than when recorded, but one file's ops keep their order.
        for pick in ([i for i in candidates if not self.used[i]],
                     [i for i in candidates if i <= self.cursor][-1:],
                     candidates):
            if pick:
                index = pick[0]
                self.used[index] = True
                self.cursor = max(self.cursor, index)
                return index
        return None


class Replayer:
    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self.root: str | None = None
        self.out = sys.stdout.buffer
        self.server_ids = 0

    def send(self, message: dict) -> None:
        text = json.dumps(message, ensure_ascii=False)
        if self.root:
            text = text.replace(ROOT_MARK, self.root)
        body = text.encode("utf-8")
        self.out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def receive(self, message: dict) -> bool:
        """Answer one client message; False once the client said `exit`."""
        method = message.get("method")
        if method is None:
            return True  # the client's answer to one of our requests
        if method == "initialize":
            self.root = root_of(message.get("params") or {})
        if method == "exit":
            return False
        index = self.transcript.match(message, self.root)
        if index is None:
            if "id" in message:
                sys.stderr.write(f"fake analyzer: no recorded answer for {method} "
                                 f"{json.dumps(message.get('params'))[:300]}\n")
                self.send({"jsonrpc": "2.0", "id": message["id"], "error": {
                    "code": -32603, "message": f"analyzer double: no recorded answer for {method}"}})
            return True
        recorded = self.transcript.client[index]
        answered = False
        for event in self.transcript.after[index]:
            if "__response_to__" in event:
                if event["__response_to__"] == recorded.get("id") and "id" in message:
                    self.respond(message, index)
                    answered = True
                continue
            self.send(event)
        if "id" in message and not answered:
            self.respond(message, index)
        self.out.flush()
        return True

    def respond(self, message: dict, index: int) -> None:
        key = (self.transcript.process[index], self.transcript.client[index].get("id"))
        response = dict(self.transcript.responses.get(key, {"result": None}))
        response["id"] = message["id"]
        response.setdefault("jsonrpc", "2.0")
        self.send(response)


def read_messages(stream):
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                return
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if length is None:
            continue
        body = stream.read(length)
        if len(body) < length:
            return
        yield json.loads(body)


def main(argv: list[str]) -> int:
    path = os.environ.get("FERRULE_DOUBLE_TRANSCRIPT")
    if "--transcript" in argv:
        path = argv[argv.index("--transcript") + 1]
    if not path:
        sys.stderr.write("fake analyzer: no transcript (--transcript FILE or FERRULE_DOUBLE_TRANSCRIPT)\n")
        return 2
    transcript = Transcript(Path(path))
    if "--version" in argv or "-V" in argv:
        print(transcript.version)
        return 0
    replayer = Replayer(transcript)
    trace = open(os.environ["FERRULE_DOUBLE_TRACE"], "a") if os.environ.get("FERRULE_DOUBLE_TRACE") else None
    for message in read_messages(sys.stdin.buffer):
        if trace is not None:  # what the client sent, for finding where a replay diverged
            trace.write(json.dumps(message) + "\n")
            trace.flush()
        if not replayer.receive(message):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
