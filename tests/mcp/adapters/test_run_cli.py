"""`ferrule run TARGET`: how it finds the app, and what it says when it cannot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from testkit.dropin import APPS, Peer, ferrule_command
from testkit.mcp import EXAMPLE_DROPIN

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


def run(target: str, cwd: Path = APPS, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(ferrule_command(target), input=stdin, capture_output=True, cwd=cwd, timeout=60)


@pytest.mark.parametrize(("target", "name"), [
    ("mcpserver_app.py", "dropin-mcpserver"),
    ("fastmcp_app.py", "dropin-fastmcp"),
    ("lowlevel_app.py", "dropin-lowlevel"),
    ("mcpserver_app", "dropin-mcpserver"),
    ("mcpserver_app:mcp", "dropin-mcpserver"),
    (str(APPS / "fastmcp_app.py") + ":app", "dropin-fastmcp"),
    (str(EXAMPLE_DROPIN), "notes"),
])
def test_the_app_is_found_and_served_without_its_main_block(target, name):
    peer = Peer(ferrule_command(target))
    answer = peer.ask(INIT)
    assert answer["result"]["serverInfo"]["name"] == name
    status, rest, err = peer.close()
    assert (status, rest) == (0, b"")
    assert "Traceback" not in err


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def one_error_line(done: subprocess.CompletedProcess[bytes]) -> str:
    assert done.returncode != 0 and done.stdout == b""
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_a_missing_file_is_one_line_naming_it(tmp_path):
    line = one_error_line(run(str(tmp_path / "nowhere.py")))
    assert line == f"ferrule run: no such file: {tmp_path / 'nowhere.py'}"


def test_a_missing_module_is_one_line_naming_it():
    line = one_error_line(run("no_such_module_here"))
    assert "no module named 'no_such_module_here'" in line


def test_a_module_that_fails_to_import_shows_its_traceback_and_nothing_on_stdout(tmp_path):
    path = write(tmp_path, "broken.py", "print('to stdout before failing')\nimport nothing_of_that_name\n")
    done = run(str(path))
    assert done.returncode == 1 and done.stdout == b""
    err = done.stderr.decode()
    assert "Traceback" in err and "nothing_of_that_name" in err and f"importing {path} failed" in err
    assert "to stdout before failing" in err  # a print at import time reaches stderr, not the channel


def test_an_object_that_is_no_server_is_one_line_naming_it(tmp_path):
    path = write(tmp_path, "notone.py", "mcp = 42\n")
    line = one_error_line(run(f"{path}:mcp"))
    assert "mcp is a builtins.int, not a server ferrule can serve" in line


def test_no_server_and_several_servers_are_named(tmp_path):
    none = write(tmp_path, "empty.py", "x = 1\n")
    assert "no server object found" in one_error_line(run(str(none)))
    two = write(tmp_path, "two.py", "from mcp.server.mcpserver import MCPServer\n"
                                    "first = MCPServer('a')\nsecond = MCPServer('b')\n")
    line = one_error_line(run(str(two)))
    assert "several server objects (first (mcp MCPServer), second (mcp MCPServer))" in line
    assert line.endswith(f"name one: {two}:OBJECT")


def test_a_run_at_import_time_does_not_start_the_sdk_loop(tmp_path):
    path = write(tmp_path, "eager.py", "from mcp.server.mcpserver import MCPServer\n"
                                       "mcp = MCPServer('eager')\nmcp.run()\n")
    peer = Peer(ferrule_command(str(path)), cwd=tmp_path)
    assert peer.ask(INIT)["result"]["serverInfo"]["name"] == "eager"
    status, rest, err = peer.close()
    assert status == 0 and rest == b""
    assert "started an event loop while being imported" in err


def test_run_is_listed_among_the_commands():
    done = subprocess.run([sys.executable, "-m", "ferrule", "--help"], capture_output=True, text=True, timeout=60)
    assert "run " in done.stdout and "existing Python MCP server" in done.stdout


def test_a_low_level_app_is_told_its_initialization_options_are_the_default():
    peer = Peer(ferrule_command("lowlevel_options_app.py"))
    capabilities = peer.ask(INIT)["result"]["capabilities"]
    assert capabilities["tools"] == {"listChanged": False} and "experimental" not in capabilities
    status, _, err = peer.close()
    assert status == 0
    assert "create_initialization_options() with no arguments" in err
    assert "ferrule.mcp.serve(server, initialization_options=" in err


def test_a_named_object_that_is_missing_names_the_file_and_the_servers_found(tmp_path):
    path = write(tmp_path, "one.py", "from mcp.server.mcpserver import MCPServer\nmine = MCPServer('a')\n")
    line = one_error_line(run(f"{path}:wrong"))
    assert line == (f"ferrule run: {path}:wrong: {path} has no attribute 'wrong'; "
                    "its server objects: mine (mcp MCPServer)")


def test_an_empty_object_name_is_named(tmp_path):
    path = write(tmp_path, "one.py", "x = 1\n")
    line = one_error_line(run(f"{path}:"))
    assert line == f"ferrule run: {path}:: the object name after ':' is empty"


def test_no_server_found_names_the_target(tmp_path):
    path = write(tmp_path, "empty.py", "x = 1\n")
    assert one_error_line(run(str(path))).endswith(f"name one: {path}:OBJECT")


@pytest.mark.parametrize(("raised", "status", "said"), [
    ("'config missing: set API_KEY'", 1, "config missing: set API_KEY"),
    ("3", 3, "exited with status 3 while being imported"),
])
def test_an_exit_at_import_is_one_line_with_pythons_status(tmp_path, raised, status, said):
    path = write(tmp_path, "configured.py", f"import sys\nsys.exit({raised})\n")
    done = run(str(path))
    assert done.returncode == status
    assert one_error_line(done) == f"ferrule run: {path}: {said}"


def test_an_import_failure_shows_the_targets_frames_only(tmp_path):
    path = write(tmp_path, "deep.py", "def load():\n    raise KeyError('API_KEY')\n\nload()\n")
    err = run(str(path)).stderr.decode()
    assert "KeyError: 'API_KEY'" in err and f'File "{path}", line 4' in err and f'File "{path}", line 2' in err
    assert "ferrule" not in err.split("KeyError")[0] and "importlib" not in err
    syntax = write(tmp_path, "syntax.py", "x = (\n")
    err = run(str(syntax)).stderr.decode()
    assert "SyntaxError" in err and "Traceback" not in err and "ferrule" not in err.split("SyntaxError")[0]
