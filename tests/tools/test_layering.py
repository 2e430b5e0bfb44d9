"""cli -> tools -> relay -> lsp, conform: the Rust tools sit on top; nothing below imports them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ferrule

SRC = Path(ferrule.__file__).resolve().parent  # the package under test, installed or in the tree
TOOLS = sorted((SRC / "tools").glob("*.py"))
BELOW = sorted(p for layer in ("mcp", "relay", "lsp", "conform") for p in (SRC / layer).glob("*.py"))
ALLOWED_FOR_TOOLS = ("ferrule.mcp", "ferrule.relay", "ferrule.conform", "ferrule.tools")


def ferrule_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            if node.module == "ferrule":
                found |= {f"ferrule.{alias.name}" for alias in node.names}
    return {name for name in found if name.startswith("ferrule.")}


@pytest.mark.parametrize("path", TOOLS, ids=lambda p: p.name)
def test_the_tools_build_only_on_the_transport_the_relay_and_the_policy(path):
    stray = {m for m in ferrule_imports(path) if not m.startswith(ALLOWED_FOR_TOOLS) and m != "ferrule.__version__"}
    assert not stray, f"{path.name} imports {stray}"


@pytest.mark.parametrize("path", BELOW, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_lower_layer_imports_the_tools_or_the_demo(path):
    upward = {m for m in ferrule_imports(path) if m.startswith(("ferrule.tools", "ferrule.demo", "ferrule.cli"))}
    assert not upward, f"{path.parent.name}/{path.name} imports {upward}"
