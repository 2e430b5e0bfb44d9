"""`ferrule mcp` as a host starts it: arguments, the default root, help, and shutdown."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

import orjson
import pytest

from ferrule.tools.descriptors import DESCRIPTORS
from testkit.tools import DEMO_CRATE, alive, analyzer_pids, command_line, copy_crate

HELLO = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})


def frames(*calls):
    lines = [HELLO, b'{"jsonrpc":"2.0","method":"notifications/initialized"}']
    for n, (name, arguments) in enumerate(calls, 2):
        lines.append(orjson.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                   "params": {"name": name, "arguments": arguments}}))
    return b"\n".join(lines) + b"\n"


def ferrule_mcp(*args, cwd=None, stdin=b"", env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "ferrule", "mcp", *args], input=stdin, capture_output=True,
                          cwd=cwd, timeout=timeout, env={**os.environ, **(env or {})})


def test_the_sigterm_exception_leaves_the_relays_loop_from_a_callback():
    """The relay's loop may run on the thread SIGTERM interrupts, and asyncio logs and drops most
    exceptions a callback raises: the server's SIGTERM exception must get out of it."""
    import asyncio

    from ferrule.tools.cli import Terminated

    loop = asyncio.new_event_loop()
    try:
        loop.call_soon(lambda: (_ for _ in ()).throw(Terminated(signal.SIGTERM)))  # as the analyzer's output is read
        with pytest.raises(Terminated):
            loop.run_until_complete(loop.create_future())  # a wait that only the exception ends
    finally:
        loop.close()


def test_help_names_the_tools_conventions_and_host_set_up():
    done = ferrule_mcp("--help")
    out = done.stdout.decode()
    assert done.returncode == 0
    for needle in ("--root DIR", "--rust-analyzer PATH", "1-based", "claude mcp add", ".vscode/mcp.json",
                   ".cursor/mcp.json"):
        assert needle in out
    listed = {line.split()[0] for line in out.splitlines() if line.startswith("  rust_")}
    assert listed == set(DESCRIPTORS)  # every tool the server offers, none it does not
    assert "{symbol?, file?, line?, character?, content?, doc_max?}" in out  # the arguments, as tools/list has them


def test_a_root_that_is_not_a_directory_is_a_usage_error(tmp_path):
    done = ferrule_mcp("--root", str(tmp_path / "missing"))
    assert done.returncode == 2 and b"is not a directory" in done.stderr


def test_without_root_the_server_serves_the_directory_it_was_started_in(tmp_path):
    crate = copy_crate(DEMO_CRATE, tmp_path)
    done = ferrule_mcp(cwd=crate, stdin=frames(("rust_check", {"paths": ["src/lib.rs"]})))
    assert done.returncode == 0, done.stderr
    answers = [orjson.loads(line) for line in done.stdout.splitlines()]
    gate = answers[-1]["result"]["structuredContent"]
    assert os.path.realpath(gate["root"]) == os.path.realpath(crate)


def test_a_root_without_cargo_toml_is_served_with_a_warning(tmp_path):
    done = ferrule_mcp("--root", str(tmp_path), stdin=frames())
    assert done.returncode == 0 and b"no Cargo.toml" in done.stderr


FAILING_TOOL_SERVER = """
import sys
from pathlib import Path
from ferrule.mcp import tool
from ferrule.tools.server import RustServer, build_tools

@tool(concurrent=True)
def broken() -> str:
    \"\"\"A tool with a bug.\"\"\"
    raise RuntimeError("the bug in broken")

tools, relay = build_tools(Path(sys.argv[1]))
RustServer([*tools, broken], relay).run()
"""


def test_a_failing_tools_traceback_reaches_the_hosts_log_while_the_server_runs(tmp_path):
    # every Rust tool runs beside the reading: what the server writes to stderr meanwhile (here the
    # traceback of a tool's bug) goes to the host's log at once, not when the server stops
    script = tmp_path / "server.py"
    script.write_text(FAILING_TOOL_SERVER)
    server = subprocess.Popen([sys.executable, str(script), str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        server.stdin.write(frames(("broken", {})))
        server.stdin.flush()
        assert b'"id":1' in server.stdout.readline()
        answer = orjson.loads(server.stdout.readline())
        assert answer["result"]["isError"] is True
        log = b""
        deadline = time.monotonic() + 10
        while b"RuntimeError: the bug in broken" not in log and time.monotonic() < deadline:
            log += os.read(server.stderr.fileno(), 65536) if select.select([server.stderr], [], [], 1)[0] else b""
        assert b"RuntimeError: the bug in broken" in log, log
        assert server.poll() is None  # still serving: stdin is open
    finally:
        server.kill()
        server.wait()


def validating_server(crate, analyzer, *extra):
    """`ferrule mcp` on `crate`, initialised and asked to validate src/lib.rs (stdin left open). Its
    stderr goes to a file beside the crate, with faulthandler on: `terminated` reads them."""
    log = open(crate.parent / "server-stderr.log", "wb")  # noqa: SIM115 (the server holds it for its life)
    server = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m", "ferrule", "mcp", "--root", str(crate),
                               *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                              env={**os.environ, **analyzer.env})
    log.close()
    server.log = crate.parent / "server-stderr.log"
    server.stdin.write(frames(("rust_validate", {"file": "src/lib.rs"})))
    server.stdin.flush()
    assert b'"id":1' in server.stdout.readline()
    return server


def terminated(server, timeout=20):
    """SIGTERM, then the exit status; a server still running after `timeout` is made to print every
    thread's stack (SIGABRT under faulthandler), and the failure shows where it hung."""
    server.send_signal(signal.SIGTERM)
    try:
        return server.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        server.send_signal(signal.SIGABRT)
        server.wait()
        raise AssertionError(f"still running {timeout} s after SIGTERM; its stderr:\n"
                             f"{server.log.read_text(errors='replace')[-6000:]}") from None


@pytest.mark.live
@pytest.mark.parametrize("moment", ["idle", "mid-call"])
def test_sigterm_stops_the_server_and_its_analyzer(tmp_path, analyzer, moment):
    server = validating_server(copy_crate(DEMO_CRATE, tmp_path), analyzer)
    try:
        if moment == "idle":
            assert b'"id":2' in server.stdout.readline()
        deadline = time.monotonic() + 10
        while not analyzer_pids(server.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        analyzers = analyzer_pids(server.pid)
        assert len(analyzers) == 1 and "rust-analyzer" in command_line(analyzers[0])[0]
        # stdin stays open: a host that gives up waiting, or the system shutting down.
        assert terminated(server) == 128 + signal.SIGTERM
        deadline = time.monotonic() + 15
        while alive(analyzers[0]) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(analyzers[0]), "the analyzer outlived its server"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


@pytest.mark.live
def test_sigterm_stops_the_server_while_its_analyzer_never_finishes_starting(tmp_path, analyzer):
    """The first call waits on an analyzer that answers nothing after `--version` (a hung start, or
    indexing that outlasts the host's patience): SIGTERM must still end the server, and that analyzer
    with it, instead of waiting for the call."""
    crate = copy_crate(DEMO_CRATE, tmp_path)
    hung = tmp_path / "rust-analyzer"
    hung.write_text(f'#!/bin/bash\n[ "$1" = --version ] && exec {analyzer.path} --version\n'
                    'exec -a rust-analyzer-hung sleep 600\n')
    hung.chmod(0o755)
    server = validating_server(crate, analyzer, "--rust-analyzer", str(hung))
    try:
        deadline = time.monotonic() + 10
        while not analyzer_pids(server.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        (stuck,) = analyzer_pids(server.pid)
        assert command_line(stuck)[0] == "rust-analyzer-hung"
        assert terminated(server) == 128 + signal.SIGTERM
        assert not alive(stuck), "the hung analyzer outlived its server"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
