"""Large input: 10 MB and 60 MB lines through a real MCP server process, a line over the bound refused
and the next one served, and a 5 MB Rust file validated by the relay against the real analyzer."""

from __future__ import annotations

import sys

import orjson
import pytest

from ferrule.mcp.transport import DEFAULT_MAX_LINE
from testkit.mcp_process import McpProcess
from testkit.serve_process import REPO_EXAMPLE, ServeProcess, copy_crate, ok, plain_wrapper

MIB = 1 << 20


@pytest.fixture
def echo_server(twin, tmp_path):
    server = McpProcess([sys.executable, str(REPO_EXAMPLE)], twin.env(), tmp_path / "echo.err")
    server.initialize()
    yield server
    server.kill()


def echo_line(msg_id: str, size: int) -> tuple[bytes, str]:
    text = ("0123456789abcdé" * (size // 16 + 1))[:size]  # mostly ASCII, some two-byte characters
    line = orjson.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "tools/call",
                         "params": {"name": "echo", "arguments": {"text": text}}})
    return line, text


@pytest.mark.parametrize("megabytes", [10, 60])
def test_big_lines_are_served(echo_server, megabytes):
    line, text = echo_line("big", megabytes * MIB)
    assert megabytes * MIB < len(line) < DEFAULT_MAX_LINE
    echo_server.send_raw(line + b"\n")
    answer = echo_server.wait("big", timeout=120)
    assert answer["result"]["content"][0]["text"] == text
    assert echo_server.call("ping", timeout=10)["result"] == {}


def test_a_line_over_the_bound_is_refused_and_the_next_one_served(echo_server):
    over = b'{"jsonrpc":"2.0","id":"over","method":"ping","params":{"pad":"' + b"x" * DEFAULT_MAX_LINE + b'"}}'
    echo_server.send_raw(over + b"\n" + b'{"jsonrpc":"2.0","id":"after","method":"ping"}\n')
    refused = echo_server.wait(None, timeout=120)
    assert refused["error"]["code"] == -32600
    assert f"line longer than the limit of {DEFAULT_MAX_LINE} bytes" in refused["error"]["message"]
    assert "max_line" in refused["error"]["data"]["fix"]
    assert echo_server.wait("after", timeout=60)["result"] == {}
    assert "over" not in echo_server.answers, "the over-long line was not read as a request"


@pytest.mark.live
def test_a_5_mb_rust_file_is_validated_by_the_relay(tmp_path, analyzer):
    root = copy_crate("faultcrate", tmp_path)
    wrapper, _ = plain_wrapper(tmp_path, analyzer.path)
    lines = ["#![no_std]", "pub mod alpha;", "pub mod beta;", "pub mod gamma;"]
    size = 0
    while size < 5 * MIB:
        lines.append(f"pub fn generated_{len(lines)}(value: u32) -> u32 {{ value + {len(lines)} }}")
        size += len(lines[-1]) + 1
    lines.append("pub fn last() -> u32 { missing_at_the_end }")
    text = "\n".join(lines) + "\n"
    assert len(text) > 5 * MIB
    serve = ServeProcess(root, {**analyzer.env, "RUST_ANALYZER": str(wrapper)}, tmp_path / "serve.err")
    try:  # the crate root's text for this op only: a 5 MB frame, and a 5 MB file for the analyzer
        result = ok(serve.call("validate", {"file": "src/lib.rs", "content": text, "timeout_ms": 120_000},
                               timeout=180))
        assert [(d["code"], d["line"], d["character"]) for d in result["diagnostics"]] == [("E0425", len(lines), 23)]
        assert sum(1 for fact in result["facts"] if fact["kind"] == "fn") == len(lines) - 4
        assert ok(serve.call("validate", {"file": "src/lib.rs"}))["diagnostics"] == []  # the disk text again
        assert serve.close() == 0
    finally:
        serve.kill()
