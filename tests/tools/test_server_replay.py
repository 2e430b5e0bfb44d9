"""The Rust tools mounted on the MCP server, over a scripted transport and a scripted relay.

Fast and analyzer-free: what the wire carries for each tool (report, structuredContent, isError,
progress). test_live_chain.py runs the same through the official SDK client and the real analyzer.
"""

from __future__ import annotations

import orjson
import pytest

from ferrule import __version__
from ferrule.mcp import ReplayTransport, Server, ToolSet
from ferrule.project import AnalyzerMissing, OpTimeout, OracleCrashed
from ferrule.tools.descriptors import DESCRIPTORS, INSTRUCTIONS
from ferrule.tools.server import build_tools

from .conftest import scripted_link

HELLO = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


def call(id_, name, arguments, token=None):
    params = {"name": name, "arguments": arguments}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params}


def serve(tmp_path, frames, *script, starts=None):
    relay, sessions = scripted_link(tmp_path, *script, starts=starts)
    tools, _ = build_tools(tmp_path, relay=relay)
    transport = ReplayTransport([HELLO, *frames])
    Server("ferrule", __version__, ToolSet(tools), instructions=INSTRUCTIONS).run(transport)
    messages = [orjson.loads(line) for line in transport.output]
    return {m["id"]: m for m in messages if "id" in m}, [m for m in messages if "id" not in m], sessions


def test_initialize_carries_the_instructions_and_tools_list_the_descriptors(tmp_path):
    answers, _, sessions = serve(tmp_path, [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}])
    assert answers[0]["result"]["instructions"] == INSTRUCTIONS
    listed = {tool["name"]: tool for tool in answers[1]["result"]["tools"]}
    relay_tools = {"rust_validate", "rust_type", "rust_complete", "rust_scope", "rust_update"}
    assert relay_tools <= set(listed)
    for name in listed:
        assert listed[name] == DESCRIPTORS[name]
    assert sessions == [], "listing tools must not start the analyzer"


def test_each_tool_maps_its_arguments_onto_the_op(tmp_path):
    frames = [
        call(1, "rust_validate", {"file": "src/lib.rs"}),
        call(2, "rust_type", {"file": "src/lib.rs", "line": 3, "character": 4, "content": "x"}),
        call(3, "rust_complete", {"file": "src/lib.rs", "line": 3, "character": 4, "prefix": "un", "max": 5}),
        call(4, "rust_scope", {"file": "src/lib.rs"}),
        call(5, "rust_scope", {"file": "src/lib.rs", "line": 2, "character": 0}),
        call(6, "rust_update", {"file": "src/lib.rs", "content": "fn a() {}"}),
        call(7, "rust_update", {"file": "src/lib.rs", "content": None}),
    ]
    validate = {"diagnostics": [], "facts": [], "markers": [], "conform_findings": [], "advice": [], "degraded": False}
    scope = {"symbols": [], "cell": "", "seam_file": "src/lib.rs", "branded": []}
    answers, _, sessions = serve(tmp_path, frames, validate, {"display": "u8", "documentation": ""},
                                 {"entries": []}, scope, scope, {"version": 1}, {"version": 2})
    assert sessions[0].calls == [
        ("init", {}),
        ("validate", {"file": "src/lib.rs", "compile": True}),  # the compile check is on by default
        ("type", {"file": "src/lib.rs", "position": {"line": 3, "character": 4}, "content": "x"}),
        ("complete", {"file": "src/lib.rs", "position": {"line": 3, "character": 4}, "prefix": "un", "max": 5}),
        ("scope", {"file": "src/lib.rs"}),
        ("scope", {"file": "src/lib.rs", "position": {"line": 2, "character": 0}}),
        ("update", {"file": "src/lib.rs", "content": "fn a() {}"}),
        ("update", {"file": "src/lib.rs", "content": None}),
    ]
    assert answers[1]["result"]["structuredContent"] == validate
    assert answers[2]["result"]["structuredContent"] == {"display": "u8", "documentation": ""}
    assert answers[2]["result"]["content"] == [{"type": "text", "text": "src/lib.rs 3:4:\n  u8"}]
    assert all(answers[i]["result"]["isError"] is False for i in range(1, 8))


def test_a_relay_error_is_an_error_result_with_kind_and_recipe(tmp_path):
    answers, _, _ = serve(tmp_path, [call(1, "rust_type", {"file": "a.rs", "line": 1, "character": 0}),
                                     call(2, "rust_validate", {"file": "a.rs"})],
                          OpTimeout.for_op("type", 3000), starts=[AnalyzerMissing("no rust-analyzer found"), None])
    first = answers[1]["result"]
    assert "error" not in answers[1] and first["isError"] is True
    assert first["structuredContent"]["error"]["kind"] == "rust-analyzer-missing"
    assert "rustup component add rust-analyzer" in first["structuredContent"]["error"]["recipe"]
    assert first["content"][0]["text"].startswith("rust_type failed: rust-analyzer-missing: no rust-analyzer found")
    assert "fix: install it with `rustup component add rust-analyzer rust-src`" in first["content"][0]["text"]
    second = answers[2]["result"]
    assert second["isError"] is True and second["structuredContent"]["error"]["kind"] == "timeout"
    assert "budget of 3000 ms" in second["content"][0]["text"]


def test_a_crash_is_retried_once_on_the_wire_too(tmp_path):
    answers, _, sessions = serve(tmp_path, [call(1, "rust_type", {"file": "a.rs", "line": 1, "character": 0}),
                                            call(2, "rust_type", {"file": "a.rs", "line": 1, "character": 0})],
                                 OracleCrashed("stream closed"), {"display": "u8"},
                                 OracleCrashed("died"), OracleCrashed("died again"))
    assert answers[1]["result"]["isError"] is False
    second = answers[2]["result"]
    assert second["isError"] is True and second["structuredContent"] == {
        "error": {"kind": "oracle-crashed", "message": "died again", "recipe": OracleCrashed.default_recipe},
        "retried": True}
    assert "respawned and the call retried once" in second["content"][0]["text"]


def test_indexing_progress_goes_out_with_the_callers_token_before_the_answer(tmp_path):
    def indexing(session):
        session.on_progress("Fetching", None)
        session.on_progress("Indexing: 3/24 (core)", 12)
        return {"display": "u8"}

    answers, notes, _ = serve(tmp_path, [call(1, "rust_type", {"file": "a.rs", "line": 1, "character": 0}, token="t1"),
                                         call(2, "rust_type", {"file": "a.rs", "line": 1, "character": 0})],
                              indexing, indexing)
    progress = [n["params"] for n in notes if n["method"] == "notifications/progress"]
    assert progress == [{"progressToken": "t1", "progress": 1, "message": "rust-analyzer: Fetching"},
                        {"progressToken": "t1", "progress": 2, "message": "rust-analyzer: Indexing: 3/24 (core) (12%)"}]
    assert answers[1]["result"]["isError"] is False and answers[2]["result"]["isError"] is False


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"file": "a.rs", "line": 0, "character": 0}, "line"),
        ({"file": "a.rs", "line": 1}, "character"),
        ({"line": 1, "character": 0}, "file"),
    ],
)
def test_bad_arguments_are_error_results_naming_the_argument(tmp_path, arguments, expected):
    answers, _, sessions = serve(tmp_path, [call(1, "rust_type", arguments)])
    result = answers[1]["result"]
    assert result["isError"] is True and expected in result["content"][0]["text"]
    assert sessions == [], "a refused call must not start the analyzer"


def test_scope_character_without_line_is_refused_by_the_tool(tmp_path):
    answers, _, sessions = serve(tmp_path, [call(1, "rust_scope", {"file": "a.rs", "character": 3})])
    result = answers[1]["result"]
    assert result["isError"] is True and result["structuredContent"]["error"]["kind"] == "protocol"
    assert "'character' needs 'line'" in result["content"][0]["text"]
    assert sessions == []
