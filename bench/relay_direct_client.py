"""The floor for the relay benchmark: a minimal blocking Content-Length LSP client of rust-analyzer.

No asyncio, no threads, no validation: write a request, read until its response. What the relay adds
over this (envelope, scheduling, position conversion, its own pipes) is what the benchmark measures.
"""

from __future__ import annotations

import os
import select
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson


class LspError(RuntimeError):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"LSP error {error.get('code')}: {error.get('message')}")
        self.code = error.get("code")


class DirectClient:
    def __init__(self, analyzer: str, root: Path, *, options: dict[str, Any] | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.root = Path(root).resolve()
        self.options = options if options is not None else {"checkOnSave": False}
        self.proc = subprocess.Popen([analyzer], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=self.root, env=env, bufsize=0)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin.fileno()
        os.set_blocking(self._in, False)
        self._out = self.proc.stdout.fileno()
        self._buffer = bytearray()
        self._next_id = 0
        self.quiescent = False
        self.encoding = "utf-16"
        self.versions: dict[str, int] = {}
        self.read_timeout = 60.0
        self._early: dict[Any, dict[str, Any]] = {}  # responses read while waiting for another  # a silent analyzer is an error, never a hang

    # -- wire --------------------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        body = orjson.dumps(message)
        data = memoryview(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        while data:
            try:
                data = data[os.write(self._in, data):]
            except BlockingIOError:
                # rust-analyzer stops reading while its own output is full: read it, or both wait forever
                readable, _, _ = select.select([self._out], [self._in], [], self.read_timeout)
                if readable:
                    chunk = os.read(self._out, 1 << 16)
                    if not chunk:
                        raise EOFError("rust-analyzer closed its output") from None
                    self._buffer += chunk

    def _read(self) -> dict[str, Any]:
        buf = self._buffer
        while True:
            end = buf.find(b"\r\n\r\n")
            if end >= 0:
                length = 0
                for header in bytes(buf[:end]).split(b"\r\n"):
                    name, _, value = header.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                start = end + 4
                if len(buf) >= start + length:
                    body = bytes(buf[start:start + length])
                    del buf[:start + length]
                    return orjson.loads(body)
            if not select.select([self._out], [], [], self.read_timeout)[0]:
                raise TimeoutError(f"rust-analyzer sent nothing for {self.read_timeout} s")
            chunk = os.read(self._out, 1 << 16)
            if not chunk:
                raise EOFError("rust-analyzer closed its output")
            buf += chunk

    def _handle(self, message: dict[str, Any]) -> None:
        """Server-initiated traffic: the settings for workspace/configuration, null to other requests;
        watch serverStatus."""
        method = message.get("method")
        if "id" in message and method is not None:
            result = None
            if method == "workspace/configuration":
                result = [self.options if item.get("section") in ("rust-analyzer", None, "") else None
                          for item in (message.get("params") or {}).get("items") or []]
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif method == "experimental/serverStatus":
            self.quiescent = bool(message["params"].get("quiescent"))

    def send_request(self, method: str, params: Any) -> int:
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self._next_id

    def wait_response(self, request_id: int) -> Any:
        message = self._early.pop(request_id, None)
        while message is None:
            got = self._read()
            if "method" in got:
                self._handle(got)
            elif got.get("id") == request_id:
                message = got
            else:  # the analyzer answers from worker threads: out of order when pipelined
                self._early[got.get("id")] = got
        if "error" in message:
            raise LspError(message["error"])
        return message.get("result")

    def request(self, method: str, params: Any) -> Any:
        for _ in range(5):  # an edit a moment ago may cancel the answer: ContentModified, ask again
            try:
                return self.wait_response(self.send_request(method, params))
            except LspError as error:
                if error.code not in (-32801, -32800):
                    raise
        return self.wait_response(self.send_request(method, params))

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    # -- session -----------------------------------------------------------------------------------

    @classmethod
    def like_the_relay(cls, analyzer: str, root: Path) -> DirectClient:
        """A client initialised with the relay's own per-project settings and exact capabilities
        (completion documentation resolved lazily on both sides), so both analyzers do the same work."""
        from ferrule.project import ProjectRoot
        from ferrule.relay.analyzer import analyzer_config, initialize_params

        config = analyzer_config(ProjectRoot(root))
        client = cls(analyzer, root, options=config)
        client.initialize(params=initialize_params(Path(os.path.realpath(root)), config))
        return client

    def initialize(self, timeout: float = 120.0, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """`initialize` with `params` (default: a small set of capabilities), then wait for quiescence."""
        uri = self.root.as_uri()
        result = self.request("initialize", params if params is not None else {
            "processId": os.getpid(),
            "rootUri": uri,
            "workspaceFolders": [{"uri": uri, "name": self.root.name}],
            "capabilities": {
                "general": {"positionEncodings": ["utf-8", "utf-16"]},
                "textDocument": {
                    "hover": {"contentFormat": ["markdown", "plaintext"]},
                    "completion": {"completionItem": {"snippetSupport": False}},
                    "diagnostic": {"dynamicRegistration": False},
                    "synchronization": {"didSave": False},
                },
                "experimental": {"serverStatusNotification": True},
            },
            "initializationOptions": self.options,
        })
        self.encoding = result.get("capabilities", {}).get("positionEncoding", "utf-16")
        self.notify("initialized", {})
        deadline = time.monotonic() + timeout
        while not self.quiescent and time.monotonic() < deadline:
            self._handle(self._read())
        return result

    def uri(self, rel: str) -> str:
        return (self.root / rel).as_uri()

    def open(self, rel: str, text: str) -> None:
        self.versions[rel] = 1
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": self.uri(rel), "languageId": "rust", "version": 1, "text": text}})

    def change(self, rel: str, text: str) -> None:
        self.versions[rel] += 1
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": self.uri(rel), "version": self.versions[rel]},
            "contentChanges": [{"text": text}]})

    def transient(self, rel: str, content: str, saved: str, request: Callable[[], Any]) -> Any:
        """`request` while `content` is shown as the relay shows a transient text: didOpen, the request,
        then the saved text back (didChange) before didClose, each message its own write."""
        uri = self.uri(rel)
        version = self.versions[rel] = self.versions.get(rel, 0) + 1
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "rust", "version": version, "text": content}})
        try:
            return request()
        finally:  # the disk text back before closing, else the analyzer reloads it late
            version = self.versions[rel] = version + 1
            self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                   "contentChanges": [{"text": saved}]})
            self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def hover(self, rel: str, line0: int, character: int) -> Any:
        return self.request("textDocument/hover", {
            "textDocument": {"uri": self.uri(rel)}, "position": {"line": line0, "character": character}})

    def completion(self, rel: str, line0: int, character: int) -> Any:
        return self.request("textDocument/completion", {
            "textDocument": {"uri": self.uri(rel)}, "position": {"line": line0, "character": character}})

    def diagnostics(self, rel: str) -> Any:
        return self.request("textDocument/diagnostic", {"textDocument": {"uri": self.uri(rel)}})

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()


__all__ = ["DirectClient"]
