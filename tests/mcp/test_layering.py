"""ferrule.mcp stands alone: it knows no LSP, no Rust, and builds only on fastframe and capture;
and its transport-level failures form one hierarchy that cites the spec and names a fix."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import ferrule.mcp as mcp
from ferrule.mcp import errors

PACKAGE = Path(mcp.__file__).resolve().parent
# capture's shared module: the fd helpers and the flag that makes a capture follow a claimed fd 1;
# the pipe sizing the stdio transport shares with the other layers' pipes.
ALLOWED_FERRULE = {"ferrule.capture", "ferrule.fastframe", "ferrule._capture_shared", "ferrule._pipes"}


def imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_imports_point_only_at_fastframe_and_capture(path):
    ours = {m for m in imported_modules(path) if m == "ferrule" or m.startswith("ferrule.")}
    assert ours <= ALLOWED_FERRULE, f"{path.name} imports {ours - ALLOWED_FERRULE}"
    text = path.read_text().lower()
    for word in ("rust", "lsp", "analyzer", "cargo"):
        assert word not in text, f"{path.name} mentions {word!r}"


def test_serving_loads_nothing_of_the_other_layers():
    code = (
        "import sys, ferrule.mcp as m\n"
        "t = m.ReplayTransport([b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"e\"}}'])\n"
        "m.Server('s', '1', [m.tool(lambda: 'x', name='e')]).run(t)\n"
        "print(','.join(sorted(n for n in sys.modules if n.startswith('ferrule'))))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(",")
    assert {name.strip() for name in loaded} <= {"ferrule", *ALLOWED_FERRULE, "ferrule._capture", "ferrule._capture_py",
                                                 "ferrule._capture_shared", "ferrule._capture_helpers",
                                                 "ferrule._capture_helpers_c", "ferrule._twins",
                                                 "ferrule._fastframe", "ferrule._fastframe_py",
                                                 "ferrule._frame_errors", "ferrule.textspan"} | {
        f"ferrule.mcp.{p.stem}" for p in PACKAGE.glob("*.py")} | {"ferrule.mcp", "ferrule.mcp._server_c", "ferrule.mcp._wire_c", "ferrule.mcp._validate_c"}


def test_every_transport_failure_is_one_hierarchy_citing_its_section_and_fix():
    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__]
    assert len(classes) >= 10
    for cls in classes:
        assert issubclass(cls, errors.McpError)
        assert cls.section.startswith("docs/MCP.md §"), cls
        if cls is not errors.McpError:
            assert cls.fix, cls
    codes = {c.code for c in classes if issubclass(c, errors.ProtocolError)}
    assert {-32700, -32600, -32601, -32602, -32603, -32022} <= codes
    assert "fix:" in str(errors.ChannelClosed("gone"))


def test_the_core_never_imports_an_sdk():
    code = (
        "import sys, ferrule.mcp as m\n"
        "t = m.ReplayTransport([b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"e\"}}'])\n"
        "m.Server('s', '1', [m.tool(lambda: 'x', name='e')]).run(t)\n"
        "m.serve(m.Server('s', '1'), m.ReplayTransport([]))\n"
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in ('mcp', 'mcp_types', 'fastmcp'))))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == ""
