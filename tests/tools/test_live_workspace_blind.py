"""Through the official MCP SDK client: `ferrule mcp` started in a workspace member's folder (no
`--root`) serves the workspace, and its reports say first where the analyzer is blind: proc-macros it
cannot expand (its proc-macro server fails), code an unset feature switches off."""

from __future__ import annotations

import stat
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from testkit.tools import REPO, copy_crate

pytestmark = pytest.mark.live
WORKSPACE = REPO / "tests" / "fixtures" / "workspace"


def failing_proc_macro_server(folder: Path) -> Path:
    server = folder / "rust-analyzer-proc-macro-srv"  # takes the version check, answers nothing
    server.write_text("#!/bin/sh\nread -r request\nexit 1\n", encoding="utf-8")
    server.chmod(server.stat().st_mode | stat.S_IXUSR)
    return server


def text_and_structure(result: Any) -> tuple[str, dict[str, Any]]:
    assert result.is_error is False, result.content
    return result.content[0].text, result.structured_content


def test_started_in_a_member_it_serves_the_workspace_and_says_where_it_is_blind(tmp_path, analyzer):
    workspace = copy_crate(WORKSPACE, tmp_path)
    env = {**analyzer.env, "FERRULE_PROC_MACRO_SERVER": str(failing_proc_macro_server(tmp_path))}
    lib = (workspace / "shapes/src/lib.rs").read_text(encoding="utf-8").splitlines()
    gated = next(number for number, line in enumerate(lib, 1) if "dx.abs()" in line)
    seen: dict[str, Any] = {}

    async def main() -> None:
        params = StdioServerParameters(command=sys.executable, args=["-m", "ferrule", "mcp"], env=env,
                                       cwd=str(workspace / "shapes"))
        with (tmp_path / "server.err").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                seen["validate"] = await session.call_tool("rust_validate", {"file": "shapes/src/lib.rs"})
                seen["scope"] = await session.call_tool("rust_scope", {"file": "shapes/src/area.rs"})
                seen["type"] = await session.call_tool("rust_type", {"file": "shapes/src/lib.rs", "line": gated,
                                                                     "character": lib[gated - 1].index("dx")})

    try:
        anyio.run(main)
    except BaseException:
        print("--- server stderr ---\n" + (tmp_path / "server.err").read_text(errors="replace"))
        raise
    report, validated = text_and_structure(seen["validate"])
    assert report.startswith("warning: rust-analyzer cannot expand procedural macros"), report
    assert "rustup component add rust-analyzer" in report.splitlines()[1]
    assert validated["degraded"] is True
    assert [w["kind"] for w in validated["warnings"]] == ["proc-macros-unexpanded"]
    assert any(f["rule"] == "file-too-long" for f in validated["conform_findings"])  # the workspace's policy
    _, scoped = text_and_structure(seen["scope"])
    assert (scoped["cell"], scoped["seam_file"]) == ("crate::area", "shapes/src/lib.rs")
    typed, _ = text_and_structure(seen["type"])
    assert 'warning: inactive: feature = "full" is disabled' in typed
