"""Sits between the relay and the real rust-analyzer and corrupts one answer on demand.

    ra_proxy.py ANALYZER LAUNCH_LOG CONTROL_FILE

Forwards both directions message by message. When CONTROL_FILE exists and holds `FAULT METHOD`, the
next answer to a request of METHOD is replaced, and the file removed (one shot); `FAULT METHOD N`
does so for the next N such answers, across the analyzers started after one another:
  garbage         bytes that are not LSP at all, in place of the answer
  badjson         a well-framed message whose body is not JSON
  truncate-exit   the answer's header and half its body, then the analyzer is killed and the proxy exits
  truncate-stall  the answer's header and half its body, then the rest of the stream as it comes
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import orjson

from ferrule._fastframe_py import LspFramer, encode_lsp

analyzer, launch_log, control = sys.argv[1:4]
child = subprocess.Popen([analyzer], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
with open(launch_log, "a") as log:
    log.write(f"{child.pid}\n")
methods: dict[object, str] = {}  # request id -> method, for the relay's requests


def upstream() -> None:
    """The relay's messages to the analyzer, noting the method of each request."""
    framer = LspFramer()
    while True:
        data = os.read(0, 1 << 16)
        if not data:
            break
        for body in framer.feed(data):
            try:
                message = orjson.loads(body)
            except orjson.JSONDecodeError:
                continue
            if isinstance(message, dict) and "method" in message and "id" in message:
                methods[message["id"]] = message["method"]
        try:
            child.stdin.write(data)
            child.stdin.flush()
        except BrokenPipeError:
            break
    try:
        child.stdin.close()
    except BrokenPipeError:
        pass


def armed_fault(message: object) -> str | None:
    if not isinstance(message, dict) or "method" in message or not os.path.exists(control):
        return None
    fault, method, *times = open(control).read().split()
    if methods.get(message.get("id")) != method:
        return None
    left = int(times[0]) - 1 if times else 0
    if left > 0:
        with open(control, "w") as armed:
            armed.write(f"{fault} {method} {left}")
    else:
        os.unlink(control)
    return fault


def write(data: bytes) -> None:
    os.write(1, data)


threading.Thread(target=upstream, daemon=True).start()
framer = LspFramer()
while True:
    data = child.stdout.read1(1 << 16)
    if not data:
        break
    for body in framer.feed(data):
        try:
            message = orjson.loads(body)
        except orjson.JSONDecodeError:
            message = None
        fault = armed_fault(message)
        frame = encode_lsp(body)
        if fault == "garbage":
            write(b"\x00\xff this is not LSP \r\n\r\n{{{ garbage }}}\n")
        elif fault == "badjson":
            write(encode_lsp(b"{this is not json"))
        elif fault in ("truncate-exit", "truncate-stall"):
            write(frame[: len(frame) - len(body) // 2])
            if fault == "truncate-exit":
                os.kill(child.pid, signal.SIGKILL)
                child.wait()
                sys.exit(1)
        else:
            write(frame)
sys.exit(child.wait())
