"""The live chain: the official MCP SDK client starts `ferrule mcp`, which drives the real rust-analyzer.

Each test runs one server process over a private copy of a crate, lists the tools and calls them as
an agent host would, and checks both what the agent reads (the text report) and the structured
result. One test kills the analyzer mid-session and expects the next call to succeed.
"""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from ferrule.demo import plan
from testkit.tools import (
    DEMO_CRATE,
    STD_CRATE,
    alive,
    analyzer_pids,
    copy_crate,
    locate,
    run_server,
    server_pid,
    text_of,
)
from testkit.waiting import wait_for

pytestmark = pytest.mark.live

PRICING = "src/orders/pricing.rs"
TOOLS = ["rust_apply_fix", "rust_check", "rust_complete", "rust_definition", "rust_fixes", "rust_implementations",
         "rust_references", "rust_rename", "rust_scope", "rust_symbols", "rust_type", "rust_update", "rust_validate"]


def test_every_tool_on_the_demo_crate_then_the_analyzer_dies(tmp_path, analyzer):
    crate = copy_crate(DEMO_CRATE, tmp_path)
    steps = {step.tool + (":" + step.args["file"] if "file" in step.args else ""): step.args for step in plan(crate)}
    pricing_text = (crate / PRICING).read_text()
    seen: dict[str, Any] = {}

    async def body(session: ClientSession) -> None:
        listed = await session.list_tools()
        assert sorted(tool.name for tool in listed.tools) == TOOLS
        for tool in listed.tools:
            assert tool.description and tool.input_schema["type"] == "object"
        assert seen.setdefault("pids", analyzer_pids(server_pid())) == [], "listing must not start the analyzer"

        notes: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            notes.append((progress, total, message))

        validate = await session.call_tool("rust_validate", {"file": PRICING}, progress_callback=on_progress)
        seen["progress"] = notes
        seen["validate"] = validate
        seen["type"] = await session.call_tool("rust_type", steps["rust_type:" + PRICING])
        seen["complete"] = await session.call_tool("rust_complete", steps["rust_complete:" + PRICING])
        seen["scope"] = await session.call_tool("rust_scope", {"file": "src/orders/mod.rs"})
        seen["check"] = await session.call_tool("rust_check", {})
        seen["outside"] = await session.call_tool("rust_type", {"file": "../escape.rs", "line": 1, "character": 0})
        with pytest.raises(MCPError) as unknown:
            await session.call_tool("rust_nothing", {})
        seen["unknown"] = unknown.value

        # An unsaved fix, kept as an overlay: later calls see it; dropping it brings the disk back.
        fixed = pricing_text.replace("u64::from(cents) * u64::from(qty.get())",
                                     "Ok(u64::from(cents) * u64::from(qty.get()))")
        seen["update"] = await session.call_tool("rust_update", {"file": PRICING, "content": fixed})
        seen["validate_overlay"] = await session.call_tool("rust_validate", {"file": PRICING})
        seen["drop"] = await session.call_tool("rust_update", {"file": PRICING, "content": None})
        seen["validate_disk"] = await session.call_tool("rust_validate", {"file": PRICING})

        # The analyzer dies mid-session; the next call respawns it and answers.
        server = server_pid()
        before = analyzer_pids(server)
        assert len(before) == 1, f"expected one rust-analyzer under the server, found {before}"
        os.kill(before[0], signal.SIGKILL)
        wait_for(lambda: not alive(before[0]), 5, what="the killed analyzer to be gone")
        seen["after_crash"] = await session.call_tool("rust_type", steps["rust_type:" + PRICING])
        seen["respawned"] = analyzer_pids(server)
        seen["server"] = server

    run_server(crate, analyzer.env, body, errlog=tmp_path / "server.err")

    # Indexing progress reached the client, increasing, under the token it sent.
    progress = seen["progress"]
    assert progress, "no notifications/progress while the analyzer indexed"
    assert [p for p, _, _ in progress] == sorted({p for p, _, _ in progress})
    assert all(message and message.startswith("rust-analyzer") for _, _, message in progress)

    validate = seen["validate"]
    assert validate.is_error is False
    structured = validate.structured_content
    assert set(structured) >= {"diagnostics", "facts", "markers", "conform_findings", "advice", "degraded"}
    errors = [d for d in structured["diagnostics"] if d["category"] == "error"]
    assert [(d["code"], d["line"]) for d in errors] == [("E0308", 19)]
    assert {(f["rule"], f["line"]) for f in structured["conform_findings"]} == {
        ("env-outside-roots", 24), ("unwrap-outside-tests", 25)}
    report = text_of(validate)
    assert report.startswith(f"{PRICING}: 1 error, 0 warnings; 2 policy findings (2 new, 0 baselined)")
    assert "19:4 error[E0308] (rustc): mismatched types: expected `Result<u64, UnknownSku>`, found `u64`" in report
    assert "compile check: rustc checked this text in" in report
    assert "[GUIDE REQ-6.1]" in report and "[GUIDE REQ-4.1]" in report

    typed = seen["type"]
    assert typed.is_error is False and "fn get(&self) -> u32" in typed.structured_content["display"]
    assert "pub fn get(&self) -> u32" in text_of(typed)

    entries = {e["name"]: e for e in seen["complete"].structured_content["entries"]}
    assert entries["unwrap"]["unsafe"] is True and entries["unwrap_or"]["unsafe"] is False
    assert all(name.startswith("unwrap") for name in entries)
    unwrap_line = next(line for line in text_of(seen["complete"]).splitlines() if line.strip().startswith("unwrap "))
    assert "UNSAFE" in unwrap_line

    scope = seen["scope"].structured_content
    assert {b["name"] for b in scope["branded"]} == {"OrderId", "Quantity"}
    assert scope["seam_file"] == "src/orders/mod.rs" and scope["cell"].endswith("orders")
    assert "OrderId (line" in text_of(seen["scope"])
    assert any(s["name"] == "pricing" for s in scope["symbols"])

    check = seen["check"]
    assert check.is_error is True and check.structured_content["passed"] is False
    assert check.structured_content["counts"]["new"] == 3
    assert text_of(check).startswith("policy gate FAILED: 3 new")

    outside = seen["outside"]
    assert outside.is_error is True and outside.structured_content["error"]["kind"] == "protocol"
    assert "rust_type failed: protocol:" in text_of(outside)
    assert seen["unknown"].code == -32601

    assert seen["update"].is_error is False and "overlay set" in text_of(seen["update"])
    assert not [d for d in seen["validate_overlay"].structured_content["diagnostics"] if d["category"] == "error"]
    assert "overlay dropped" in text_of(seen["drop"])
    assert [d["code"] for d in seen["validate_disk"].structured_content["diagnostics"]] == ["E0308"]

    after = seen["after_crash"]
    assert after.is_error is False, text_of(after)
    assert "fn get(&self) -> u32" in after.structured_content["display"]
    assert len(seen["respawned"]) == 1

    # Closing the client ends the server, and the analyzer with it.
    wait_for(lambda: not alive(seen["server"]), 15, what="the server to exit")
    wait_for(lambda: not alive(seen["respawned"][0]), 15, what="the respawned analyzer to exit with it")


def test_utf8_positions_overlays_and_newtypes_on_the_std_fixture(tmp_path, analyzer):
    crate = copy_crate(STD_CRATE, tmp_path)
    text = (crate / "src/text.rs").read_text()
    len_line, len_char = locate(text, "名前.len()", len("名前."))
    assert len_char > len("    let wave = ") + 3, "the column must count UTF-8 bytes, not characters"
    shout_line, shout_char = locate(text, "shout = ")
    draft = text.replace("名前.len()", "名前.", 1)
    dot_line, dot_char = locate(draft, "名前.", len("名前."))
    seen: dict[str, Any] = {}

    async def body(session: ClientSession) -> None:
        seen["len"] = await session.call_tool("rust_type", {"file": "src/text.rs", "line": len_line,
                                                            "character": len_char})
        seen["len_bare"] = await session.call_tool("rust_type", {"file": "src/text.rs", "line": len_line,
                                                                 "character": len_char, "doc_max": 0})
        seen["len_bad"] = await session.call_tool("rust_type", {"file": "src/text.rs", "line": len_line,
                                                                "character": len_char, "doc_max": -1})
        seen["shout"] = await session.call_tool("rust_type", {"file": "src/text.rs", "line": shout_line,
                                                              "character": shout_char})
        seen["complete"] = await session.call_tool("rust_complete", {
            "file": "src/text.rs", "line": dot_line, "character": dot_char, "prefix": "len", "content": draft})
        seen["scope"] = await session.call_tool("rust_scope", {"file": "src/lib.rs"})
        seen["lib"] = await session.call_tool("rust_validate", {"file": "src/lib.rs"})
        broken = text.replace("let shout = 名前.len();", "let shout: bool = Some(名前.len());")
        await session.call_tool("rust_update", {"file": "src/text.rs", "content": broken})
        seen["broken"] = await session.call_tool("rust_validate", {"file": "src/text.rs"})
        await session.call_tool("rust_update", {"file": "src/text.rs", "content": None})
        seen["restored"] = await session.call_tool("rust_validate", {"file": "src/text.rs"})

    run_server(crate, analyzer.env, body, errlog=tmp_path / "server.err")

    assert "fn len(&self) -> usize" in seen["len"].structured_content["display"]
    documentation = seen["len"].structured_content["documentation"]
    assert documentation, "str::len is documented"
    bare = seen["len_bare"].structured_content
    assert bare["display"] == seen["len"].structured_content["display"] and bare["documentation"] == ""
    assert bare["documentation_omitted"] >= len(documentation)
    assert seen["len_bad"].is_error and "doc_max" in text_of(seen["len_bad"])
    assert "usize" in seen["shout"].structured_content["display"]
    names = [e["name"] for e in seen["complete"].structured_content["entries"]]
    assert "len" in names and all(name.startswith("len") for name in names)
    assert [b["name"] for b in seen["scope"].structured_content["branded"]] == ["UserId"]
    assert not [d for d in seen["lib"].structured_content["diagnostics"] if d["category"] == "error"]
    broken = [d for d in seen["broken"].structured_content["diagnostics"] if d["category"] == "error"]
    assert broken and broken[0]["line"] == shout_line
    assert not [d for d in seen["restored"].structured_content["diagnostics"] if d["category"] == "error"]


def test_without_an_analyzer_the_tools_answer_the_install_recipe(tmp_path, analyzer):
    crate = copy_crate(DEMO_CRATE, tmp_path)
    seen: dict[str, Any] = {}

    async def body(session: ClientSession) -> None:
        seen["validate"] = await session.call_tool("rust_validate", {"file": PRICING})
        seen["again"] = await session.call_tool("rust_scope", {"file": PRICING})
        seen["check"] = await session.call_tool("rust_check", {"paths": ["src/lib.rs"]})

    run_server(crate, analyzer.env, body, "--rust-analyzer", str(tmp_path / "no-such-rust-analyzer"),
               errlog=tmp_path / "server.err")
    for key in ("validate", "again"):
        result = seen[key]
        assert result.is_error is True
        error = result.structured_content["error"]
        assert error["kind"] == "rust-analyzer-missing"
        assert "rustup component add rust-analyzer" in error["recipe"]
        assert "fix: install it with `rustup component add rust-analyzer" in text_of(result)
    # The gate reads files, not the analyzer: it still answers.
    assert seen["check"].structured_content["findings"][0]["rule"] == "seam-doctest"
