"""Defects the fuzzers found in the two loops, each pinned by a readable test.

A test marked xfail(strict) pins a reported defect whose fix is pending: it fails today, and once the
fix lands it passes, which fails the run until the mark is removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import io

import orjson

from ferrule.mcp import ReplayTransport, Server
from ferrule.relay.envelope import encode_request
from ferrule.relay.serve import serve_async
from testkit.lines import load_fuzz_targets

TARGETS = load_fuzz_targets()


def echo(text: str) -> str:
    """Echo the text back."""
    return text


def run_mcp(*batch: bytes) -> list[dict]:
    transport = ReplayTransport([tuple(batch)])
    Server("t", "0", [echo]).run(transport)
    return transport.messages()


def test_a_valid_cancel_in_the_same_read_suppresses_the_queued_request():
    answers = run_mcp(
        orjson.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo",
                                                                                  "arguments": {"text": "a"}}}),
        orjson.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}),
        orjson.dumps({"jsonrpc": "2.0", "id": 8, "method": "ping"}),
    )
    assert [a["id"] for a in answers] == [8]


def test_an_invalid_cancel_is_absorbed_and_cancels_nothing():
    answers = run_mcp(
        orjson.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
        orjson.dumps({"jsonrpc": "1.0", "method": "notifications/cancelled", "params": {"requestId": 7}}),
    )
    assert [(a["id"], a.get("error", {}).get("code")) for a in answers] == [(7, None)]


class SlowShutdown:
    """Answers every op at once, except `shutdown`, which takes as long as an analyzer's does."""

    def __init__(self, root, *, analyzer=None, on_progress=None) -> None:
        self.shutdowns_finished = 0

    async def run(self, op, params):
        if op == "shutdown":
            await asyncio.sleep(0.2)
            self.shutdowns_finished += 1
        return {}


def run_relay(data: bytes) -> tuple[list[dict], SlowShutdown]:
    made = []

    def factory(root, **options):
        made.append(SlowShutdown(root, **options))
        return made[-1]

    out = io.BytesIO()
    root = TARGETS.relay_project()[0].path
    with contextlib.redirect_stderr(io.StringIO()):
        assert asyncio.run(asyncio.wait_for(serve_async(root, io.BytesIO(data), out, session_factory=factory),
                                            10)) == 0
    return [orjson.loads(line) for line in out.getvalue().splitlines()], made[0]


def test_shutdown_with_input_still_open_is_answered():
    import os
    import threading

    read, write = os.pipe()
    os.write(write, encode_request(1, "shutdown"))
    threading.Timer(1.0, os.close, [write]).start()  # input ends well after the shutdown finished
    with os.fdopen(read, "rb", buffering=0) as stdin:
        out = io.BytesIO()
        root = TARGETS.relay_project()[0].path
        with contextlib.redirect_stderr(io.StringIO()):
            assert asyncio.run(serve_async(root, stdin, out, session_factory=SlowShutdown)) == 0
    assert [orjson.loads(line) for line in out.getvalue().splitlines()] == [
        {"proto": 1, "id": 1, "ok": True, "result": {}}]


def test_shutdown_then_end_of_input_is_answered_and_finished():
    # `printf '<shutdown>\n' | ferrule serve`: input ends while the analyzer is still shutting down.
    answers, session = run_relay(encode_request(1, "validate", {"file": "src/lib.rs"}) + encode_request(2, "shutdown"))
    assert sorted(a["id"] for a in answers) == [1, 2]
    assert session.shutdowns_finished == 1, "the analyzer's shutdown was cut short"
