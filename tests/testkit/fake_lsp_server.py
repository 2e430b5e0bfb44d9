"""A scripted language server for the client's unit tests: LSP over stdin/stdout, no analysis.

Requests it understands (besides initialize/shutdown):
  test/echo {..}            -> the params back
  test/delay {ms, value}    -> value after ms milliseconds; a $/cancelRequest first -> RequestCancelled
  test/fail {code, message} -> that JSON-RPC error
  test/crash {status}       -> exits at once with that status
  test/burst {n}            -> n `test/tick` notifications, then the answer n, all in one write
  test/ask {method, params} -> asks the client that request, answers with the client's reply
  test/complete_asking {method, params} -> asks the client that request under this request's own id
                               (the server numbers its requests apart), then answers a completion
                               list of one item labelled with the client's reply (JSON)
  test/publish {uri, version, message} -> a publishDiagnostics push, then null
  test/status {quiescent}   -> an experimental/serverStatus notification, then null
  test/seen {}              -> the methods received since the last test/seen (notifications included)
  notification test/poke {..} -> a `test/poked` notification with the same params
  test/phases {gap_ms}      -> null, then a two-phase load: quiescent, gap, a `reload` progress with
                               quiescent false, gap, its end, quiescent again, then `test/loaded`
  test/progress {kind, token} -> a $/progress notification of that kind, then null
  textDocument/hover        -> a fixed hover (`let x: u8`); document notifications are ignored
Environment: FAKE_ENCODINGS (comma list the server accepts, first offered match wins; default utf-16),
FAKE_IGNORE_SHUTDOWN=1 (never answer shutdown, ignore exit), FAKE_COMPACT=1 (JSON without spaces, the
members in rust-analyzer's order), FAKE_STDERR (text written to stderr),
FAKE_LOAD_GAP_MS (the start-up load runs in two phases, quiescent for that long between them),
FAKE_LOADED_FIFO (a FIFO that gets `loaded` once test/phases has written its last message).
`--version` prints a version line and exits, as rust-analyzer does.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

out = sys.stdout.buffer
SEPARATORS = (",", ":") if os.environ.get("FAKE_COMPACT") == "1" else None
lock = threading.Lock()
cancelled: set[int] = set()
waiting: dict[int, threading.Event] = {}
client_replies: dict[int, object] = {}
next_id = [1000]
seen: list[str] = []


def send(message: dict) -> None:
    body = json.dumps(message, separators=SEPARATORS).encode()
    with lock:
        out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        out.flush()


def read_message() -> dict | None:
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def answer(request_id, result=None, error=None) -> None:
    message = {"jsonrpc": "2.0", "id": request_id}
    if error is not None:
        message["error"] = error
    else:
        message["result"] = result
    send(message)


def start_up() -> None:
    """What rust-analyzer does after `initialized`: create a progress token, ask config, report."""
    ask("window/workDoneProgress/create", {"token": "load"})
    config = ask("workspace/configuration", {"items": [{"section": "fake"}]})
    send({"jsonrpc": "2.0", "method": "test/configured", "params": {"config": config}})
    send({"jsonrpc": "2.0", "method": "experimental/serverStatus", "params": {"health": "ok", "quiescent": False}})
    send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "load", "value": {"kind": "begin", "title": "Indexing", "percentage": 0}}})
    send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "load", "value": {"kind": "report", "message": "1/2 (core)", "percentage": 50}}})
    send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "load", "value": {"kind": "end"}}})
    if os.environ.get("FAKE_LOAD_GAP_MS"):
        phases(int(os.environ["FAKE_LOAD_GAP_MS"]) / 1000)
    else:
        send({"jsonrpc": "2.0", "method": "experimental/serverStatus", "params": {"health": "ok", "quiescent": True}})


def phases(gap: float) -> None:
    """A workspace load in two phases with a quiescent moment between them, as rust-analyzer does."""
    status = {"jsonrpc": "2.0", "method": "experimental/serverStatus"}
    send({**status, "params": {"health": "ok", "quiescent": True}})
    time.sleep(gap)
    send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "reload", "value": {"kind": "begin", "title": "Fetching"}}})
    send({**status, "params": {"health": "ok", "quiescent": False}})
    time.sleep(gap)
    send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "reload", "value": {"kind": "end"}}})
    send({**status, "params": {"health": "ok", "quiescent": True}})
    send({"jsonrpc": "2.0", "method": "test/loaded", "params": {}})
    if os.environ.get("FAKE_LOADED_FIFO"):  # tells a test whose loop is stopped that all of it is written
        with open(os.environ["FAKE_LOADED_FIFO"], "wb") as fifo:
            fifo.write(b"loaded")


def ask(method: str, params, request_id=None) -> object:
    if request_id is None:
        next_id[0] += 1
        request_id = next_id[0]
    event = threading.Event()
    waiting[request_id] = event
    send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    event.wait(10)
    return client_replies.pop(request_id, None)


def delayed(request_id, ms, value) -> None:
    deadline = time.monotonic() + ms / 1000
    while time.monotonic() < deadline:
        if request_id in cancelled:
            answer(request_id, error={"code": -32800, "message": "cancelled"})
            return
        time.sleep(0.002)
    answer(request_id, value)


def main() -> None:
    if os.environ.get("FAKE_STDERR"):
        sys.stderr.write(os.environ["FAKE_STDERR"])
        sys.stderr.flush()
    accepted = os.environ.get("FAKE_ENCODINGS", "utf-16").split(",")
    ignore_shutdown = os.environ.get("FAKE_IGNORE_SHUTDOWN") == "1"
    while True:
        message = read_message()
        if message is None:
            return
        method = message.get("method")
        request_id = message.get("id")
        params = message.get("params") or {}
        if method is not None:
            seen.append(method)
        if method is None:  # the client's reply to one of our requests
            client_replies[request_id] = message.get("result", message.get("error"))
            event = waiting.pop(request_id, None)
            if event:
                event.set()
        elif method == "initialize":
            offered = params["capabilities"].get("general", {}).get("positionEncodings", ["utf-16"])
            chosen = next((e for e in offered if e in accepted), "utf-16")
            answer(request_id, {"capabilities": {"positionEncoding": chosen, "hoverProvider": True},
                                "serverInfo": {"name": "fake", "version": "0.0.1"}})
        elif method == "initialized":
            threading.Thread(target=start_up, daemon=True).start()
        elif method == "shutdown":
            if not ignore_shutdown:
                answer(request_id, None)
        elif method == "exit":
            if not ignore_shutdown:
                return
        elif method == "$/cancelRequest":
            cancelled.add(params["id"])
        elif method == "test/echo":
            answer(request_id, params)
        elif method == "textDocument/hover":
            answer(request_id, {"contents": {"kind": "markdown", "value": "```rust\nlet x: u8\n```"}})
        elif method == "test/phases":
            answer(request_id, None)
            threading.Thread(target=phases, args=(params["gap_ms"] / 1000,), daemon=True).start()
        elif method == "test/progress":
            value = {"kind": params["kind"]}
            if params["kind"] == "begin":
                value["title"] = params.get("title", "Indexing")
            send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": params["token"], "value": value}})
            answer(request_id, None)
        elif method == "test/poke":
            send({"jsonrpc": "2.0", "method": "test/poked", "params": params})
        elif method == "test/seen":
            answer(request_id, seen[:-1])
            seen.clear()
        elif method == "test/delay":
            threading.Thread(target=delayed, args=(request_id, params["ms"], params.get("value")), daemon=True).start()
        elif method == "test/fail":
            answer(request_id, error={"code": params["code"], "message": params["message"]})
        elif method == "test/garbled":  # a broken header block, then the answer, in one write
            body = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": "after"}).encode()
            with lock:
                out.write(b"Content-Length: nope\r\n\r\n" + b"Content-Length: %d\r\n\r\n" % len(body) + body)
                out.flush()
        elif method == "test/crash":
            os._exit(params.get("status", 3))
        elif method == "test/burst":
            frames = []
            for n in range(params["n"]):
                body = json.dumps({"jsonrpc": "2.0", "method": "test/tick", "params": {"n": n}}).encode()
                frames.append(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            body = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": params["n"]}).encode()
            frames.append(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            with lock:
                out.write(b"".join(frames))
                out.flush()
        elif method == "test/ask":
            threading.Thread(
                target=lambda rid=request_id, p=params: answer(rid, {"reply": ask(p["method"], p.get("params"))}),
                daemon=True,
            ).start()
        elif method == "test/complete_asking":
            def complete_asking(rid=request_id, p=params):
                reply = ask(p["method"], p.get("params"), rid)
                answer(rid, {"isIncomplete": False, "items": [{
                    "label": json.dumps(reply), "kind": 3, "tags": [1], "detail": "fn()",
                    "textEdit": {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                                 "newText": "x"},
                    "data": {"position": {"line": 0, "character": 0}, "hash": "h"}}]})

            threading.Thread(target=complete_asking, daemon=True).start()
        elif method == "test/publish":
            send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
                  "params": {"uri": params["uri"], "version": params.get("version"),
                             "diagnostics": [{"message": params.get("message", "x"),
                                              "range": {"start": {"line": 0, "character": 0},
                                                        "end": {"line": 0, "character": 1}}}]}})
            answer(request_id, None)
        elif method == "test/status":
            send({"jsonrpc": "2.0", "method": "experimental/serverStatus", "params": {"health": "ok", **params}})
            answer(request_id, None)
        elif request_id is not None:
            answer(request_id, error={"code": -32601, "message": f"no method {method}"})


if __name__ == "__main__":
    if sys.argv[1:] == ["--version"]:
        print("rust-analyzer 0.0.0-fake")
        sys.exit(0)
    main()
