"""The layers of the design, kept by a test: each package imports only the ferrule modules below it.

cli -> tools -> relay -> lsp, conform -> project; mcp stands apart and builds only on capture and
fastframe (tests/mcp/test_layering.py checks, besides, that the transport loads and names nothing of
Rust). `project` (the root, its path sandbox, the error kinds) is the floor both the relay and the gate
stand on.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ferrule

PACKAGE = Path(ferrule.__file__).resolve().parent
LEAVES = ("ferrule.fastframe", "ferrule.capture", "ferrule.textspan", "ferrule._", "ferrule.__version__")

# package -> the ferrule packages it may import besides itself and the leaves
ALLOWED = {
    "mcp": (),
    "project": (),
    "lsp": ("ferrule.project",),
    "conform": ("ferrule.project",),
    "relay": ("ferrule.lsp", "ferrule.conform", "ferrule.project"),
    "tools": ("ferrule.mcp", "ferrule.relay", "ferrule.conform", "ferrule.project"),
}


def ferrule_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            if node.module == "ferrule":
                found |= {f"ferrule.{alias.name}" for alias in node.names}
    return {name for name in found if name == "ferrule" or name.startswith("ferrule.")}


MODULES = sorted((layer, path) for layer in ALLOWED for path in (PACKAGE / layer).rglob("*.py"))


def test_every_layer_is_there():
    assert {layer for layer, _ in MODULES} == set(ALLOWED)


@pytest.mark.parametrize("layer,path", MODULES, ids=lambda v: v if isinstance(v, str) else v.name)
def test_a_module_imports_only_the_layers_below_it(layer, path):
    own = f"ferrule.{layer}"
    stray = {
        name for name in ferrule_imports(path)
        if name != "ferrule" and not name.startswith((own, *ALLOWED[layer], *LEAVES))
    }
    assert not stray, f"{layer}/{path.relative_to(PACKAGE / layer)} imports {sorted(stray)}"

