"""The official TypeScript client (SDK v2, in the 2026-07-28 era it negotiates with `ferrule mcp`)
starts `ferrule mcp` on a copy of the demo crate, which drives the real rust-analyzer. The client
checks each `structuredContent` against the tool's `outputSchema` itself, so a result that strays
from its schema fails the call here."""

from __future__ import annotations

import sys

import pytest

from testkit.node_clients import run_client
from testkit.tools import DEMO_CRATE, copy_crate

pytestmark = pytest.mark.live

PRICING = "src/orders/pricing.rs"


def test_the_typescript_client_reads_what_the_rust_tools_answer(tmp_path, analyzer):
    crate = copy_crate(DEMO_CRATE, tmp_path)
    steps = [
        {"list": True},
        {"call": "rust_validate", "arguments": {"file": PRICING}, "progress": True},
        {"call": "rust_type", "arguments": {"file": PRICING, "line": 19, "character": 37}},
        {"call": "rust_references", "arguments": {"symbol": "unit_price"}},
        {"call": "rust_type", "arguments": {"file": "../escape.rs", "line": 1, "character": 0}},
        {"call": "rust_nothing"},
    ]
    connected, listed, validate, typed, references, outside, unknown = run_client(
        "v2", "auto", [sys.executable, "-m", "ferrule", "mcp", "--root", str(crate)], steps, analyzer.env)

    assert connected["server"]["name"] == "ferrule" and connected["version"] == "2026-07-28"
    assert "1-based" in connected["instructions"]
    tools = {tool["name"]: tool for tool in listed["tools"]}
    assert {"rust_validate", "rust_type", "rust_references", "rust_check"} <= set(tools)
    assert "outputSchema" in tools["rust_validate"]  # what the client checked the answer below against

    # the first call started the analyzer: its indexing reached the client as progress, increasing
    progress = validate["progress"]
    assert progress and all(note["message"].startswith("rust-analyzer") for note in progress)
    assert [note["progress"] for note in progress] == sorted({note["progress"] for note in progress})
    structured = validate["result"]["structuredContent"]
    errors = [d for d in structured["diagnostics"] if d["category"] == "error"]
    assert [(d["code"], d["line"]) for d in errors] == [("E0308", 19)]
    assert validate["result"]["content"][0]["text"].startswith(f"{PRICING}: 1 error, 0 warnings")

    assert typed["result"]["isError"] is False
    assert "fn get(&self) -> u32" in typed["result"]["structuredContent"]["display"]
    files = {group["file"] for group in references["result"]["structuredContent"]["files"]}
    assert PRICING in files and references["result"]["structuredContent"]["count"] >= 2

    assert outside["result"]["isError"] is True
    assert "`..` may not leave the project root" in outside["result"]["content"][0]["text"]
    assert "rust_nothing" in unknown["error"]["message"]
