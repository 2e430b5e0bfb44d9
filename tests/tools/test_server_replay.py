"""The Rust tools mounted on the MCP server, over a scripted transport and a scripted relay.

Fast and analyzer-free: what the wire carries for each tool (report, structuredContent, isError,
progress). test_live_chain.py runs the same through the official SDK client and the real analyzer.
"""

from __future__ import annotations

import threading

import orjson
import pytest

from ferrule import __version__
from ferrule.mcp import ReplayTransport, Server, ToolSet
from ferrule.project import AnalyzerMissing, BadRequest, OpTimeout, OracleCrashed
from ferrule.relay.symbols import AMBIGUOUS_RECIPE
from ferrule.tools.descriptors import DESCRIPTORS, INSTRUCTIONS
from ferrule.tools.gate_tool import GateTool
from ferrule.tools.server import build_tools
from testkit.tools import scripted_link

OVERTAKE_BOUND_S = 0.5  # how long a slow edit gives a later query to overtake it (only an unordered one can)

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


def test_calls_sent_together_reach_the_relay_in_the_order_sent(tmp_path):
    # one read of edits and queries: each runs on a worker thread, and the first edit is slow to set
    # out (it waits, up to a bound, for the query after it to reach the relay first); still the relay
    # sees each query after the edit before it, as the agent sent them
    contents = [f"fn f{n}() {{}}" for n in range(3)]
    frames = [frame for n, text in enumerate(contents)
              for frame in (call(2 * n + 1, "rust_update", {"file": "src/lib.rs", "content": text}),
                            call(2 * n + 2, "rust_type", {"file": "src/lib.rs", "line": 1, "character": 3}))]
    script = [answer for n in range(len(contents)) for answer in ({"version": n + 1}, {"display": "fn", "documentation": ""})]
    relay, sessions = scripted_link(tmp_path, *script)
    tools, _ = build_tools(tmp_path, relay=relay)
    update, query = (next(t for t in tools if t.name == name) for name in ("rust_update", "rust_type"))
    overtaken = threading.Event()
    edit_params, query_params = update._build_params, query._build_params

    def slow_edit(args):
        if args["content"] == contents[0]:
            overtaken.wait(OVERTAKE_BOUND_S)  # an unordered query would set it at once; an ordered one cannot
        return edit_params(args)

    def query_now(args):
        overtaken.set()
        return query_params(args)

    update._build_params, query._build_params = slow_edit, query_now
    transport = ReplayTransport([HELLO, tuple(frames)])
    Server("ferrule", __version__, ToolSet(tools), instructions=INSTRUCTIONS).run(transport)
    answers = {m["id"] for m in map(orjson.loads, transport.output) if "id" in m}
    at = {"file": "src/lib.rs", "position": {"line": 1, "character": 3}}
    assert sessions[0].calls[1:] == [op for text in contents
                                     for op in (("update", {"file": "src/lib.rs", "content": text}), ("type", at))]
    assert answers == set(range(len(frames) + 1))


def test_a_policy_check_sent_after_an_edit_to_disk_reads_the_edited_file(tmp_path):
    # rust_rename writes to disk and rust_check reads the disk: sent in one read, the check runs after
    # the rename even when the rename's edit is slow to land (it waits, up to a bound, for the check to
    # be done first)
    (tmp_path / "src").mkdir()
    lib = tmp_path / "src" / "lib.rs"
    lib.write_text("pub(crate) fn total() -> usize {\n    1\n}\n")
    edited = 'pub(crate) fn total() -> usize {\n    "1".parse::<usize>().unwrap()\n}\n'
    check_done = threading.Event()

    def rename_on_disk(session):
        check_done.wait(OVERTAKE_BOUND_S)  # an unordered check would run at once; an ordered one cannot
        lib.write_text(edited)
        return {"changes": [{"file": "src/lib.rs", "edits": []}], "applied": "disk"}

    relay, sessions = scripted_link(tmp_path, rename_on_disk)
    tools, _ = build_tools(tmp_path, relay=relay)
    gate = next(t for t in tools if isinstance(t, GateTool))
    gate_run = gate.run

    def check_now(args):
        try:
            return gate_run(args)
        finally:
            check_done.set()

    gate.run = check_now
    frames = (call(1, "rust_rename", {"file": "src/lib.rs", "line": 1, "character": 12, "new_name": "sum",
                                      "apply": "disk"}),
              call(2, "rust_check", {}))
    transport = ReplayTransport([HELLO, frames])
    Server("ferrule", __version__, ToolSet(tools), instructions=INSTRUCTIONS).run(transport)
    answers = {m["id"]: m["result"] for m in map(orjson.loads, transport.output) if "id" in m}
    assert [op for op, _ in sessions[0].calls] == ["init", "rename"]
    check = answers[2]
    assert check["isError"] is True
    assert [(f["path"], f["rule"]) for f in check["structuredContent"]["findings"]] == \
        [("src/lib.rs", "unwrap-outside-tests")]


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
    assert answers[1]["result"]["structuredContent"] == {  # cut to fit a model's context, counts beside
        **validate, "diagnostics_omitted": 0, "diagnostic_counts": {}, "error_kinds": {}, "warning_kinds": {},
        "note_kinds": {}, "fact_counts": {}, "conform_findings_omitted": 0, "advice_omitted": 0, "compile_check": "off"}
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


def respawned(then):
    """A scripted answer given by a freshly spawned analyzer."""
    def answer(session):
        session.analyzer_starts += 1
        return then
    return answer


def test_a_crash_is_retried_once_on_the_wire_too(tmp_path):
    answers, _, sessions = serve(tmp_path, [call(1, "rust_type", {"file": "a.rs", "line": 1, "character": 0}),
                                            call(2, "rust_type", {"file": "a.rs", "line": 1, "character": 0}),
                                            call(3, "rust_type", {"file": "a.rs", "line": 1, "character": 0})],
                                 OracleCrashed("stream closed"), respawned({"display": "u8", "documentation": ""}),
                                 OracleCrashed("died"), respawned(OracleCrashed("died again")),
                                 OracleCrashed("died"), OracleCrashed("no start while cooling down"))
    first = answers[1]["result"]
    assert first["isError"] is False and first["structuredContent"] == {"display": "u8", "documentation": ""}
    assert first["content"][0]["text"].endswith(
        "note: rust-analyzer had died; a fresh one was started for this call with every overlay re-applied")
    second = answers[2]["result"]
    assert second["isError"] is True and second["structuredContent"] == {
        "error": {"kind": "oracle-crashed", "message": "died again", "recipe": OracleCrashed.default_recipe},
        "retried": True, "restarted": 1}
    assert ("a fresh one was started for this call with every overlay re-applied, and the call retried; "
            "it failed again") in second["content"][0]["text"]
    third = answers[3]["result"]  # retried, but nothing started: the report must not claim a respawn
    assert third["isError"] is True and "restarted" not in third["structuredContent"]
    assert "started for this call" not in third["content"][0]["text"]


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


def test_progress_read_during_a_later_call_goes_out_with_that_calls_token(tmp_path):
    # the first call started the analyzer; the second finds it indexing again (a respawn, a reload)
    def indexing(session):
        session.from_reader("Indexing: 3/24 (core)", 12)
        return {"display": "u8"}

    at = {"file": "a.rs", "line": 1, "character": 0}
    answers, notes, _ = serve(tmp_path, [call(1, "rust_type", at, token="t1"), call(2, "rust_type", at, token="t2")],
                              {"display": "u8"}, indexing)
    progress = [n["params"] for n in notes if n["method"] == "notifications/progress"]
    assert progress == [{"progressToken": "t2", "progress": 1, "message": "rust-analyzer: Indexing: 3/24 (core) (12%)"}]
    assert answers[2]["result"]["isError"] is False


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("rust_type", {"file": "a.rs", "line": 0, "character": 0}, "line"),
        ("rust_type", {"file": "a.rs", "line": 1}, "character"),
        ("rust_type", {"line": 1, "character": 0}, "file"),
        # a place without its column would be column 0, and "nothing found" there
        ("rust_definition", {"file": "a.rs", "line": 1}, "missing 'character'"),
        ("rust_references", {"line": 1, "character": 2}, "missing 'file'"),
        ("rust_implementations", {"file": "a.rs"}, "missing 'line' and 'character'"),
    ],
)
def test_bad_arguments_are_error_results_naming_the_argument(tmp_path, tool, arguments, expected):
    answers, _, sessions = serve(tmp_path, [call(1, tool, arguments)])
    result = answers[1]["result"]
    assert result["isError"] is True and expected in result["content"][0]["text"]
    assert sessions == [], "a refused call must not start the analyzer"


def test_scope_character_without_line_is_refused_by_the_tool(tmp_path):
    answers, _, sessions = serve(tmp_path, [call(1, "rust_scope", {"file": "a.rs", "character": 3})])
    result = answers[1]["result"]
    assert result["isError"] is True and result["structuredContent"]["error"]["kind"] == "protocol"
    assert "'character' needs 'line'" in result["content"][0]["text"]
    assert sessions == []


def _raised(action):
    try:
        action()
    except Exception as error:
        return error
    raise AssertionError("expected an error")


def test_recipes_name_the_tools_and_arguments_of_this_face(tmp_path):
    from ferrule.project import ProjectRoot
    from ferrule.relay.documents import Documents
    from ferrule.relay.enrichment import PolicySlot
    from ferrule.relay.params import TypeParams, parse_params

    root = ProjectRoot(tmp_path)
    (tmp_path / "conform.toml").write_text("max_file_lines = 'many'\n")
    # the errors as the relay raises them
    missing = _raised(lambda: Documents(root).disk_text(root.file("src/gone.rs")))
    bad_params = _raised(lambda: parse_params("type", TypeParams, {"file": 5}, None))
    policy = _raised(lambda: PolicySlot(tmp_path, announce=False).load())
    timeout = OpTimeout.for_op("type", 3000)
    (tmp_path / "src").mkdir()
    directory = _raised(lambda: Documents(root).disk_text(root.file("src")))
    ambiguous = BadRequest("`symbol` 'total' is ambiguous: 2 matches", AMBIGUOUS_RECIPE)
    unexplained = BadRequest("the analyzer refused the request")  # the relay's own recipe speaks of frames
    at = {"file": "a.rs", "line": 1, "character": 0}
    frames = [call(i, "rust_type", at) for i in range(1, 8)]
    answers, _, _ = serve(tmp_path, frames, missing, bad_params, policy, timeout, directory, ambiguous, unexplained)
    reports = {i: answers[i]["result"]["content"][0]["text"] for i in range(1, 8)}
    recipes = {i: answers[i]["result"]["structuredContent"]["error"]["recipe"] for i in range(1, 8)}
    assert "rust_update" in recipes[1] and "`update`" not in reports[1]
    assert recipes[2] == "call rust_type with {symbol?, file?, line?, character?, content?, doc_max?}"
    assert "call the tool again" in recipes[3] and "init" not in reports[3]
    assert "call rust_type again" in recipes[4]
    assert reports[4].startswith("rust_type failed: timeout: rust_type got no answer within its budget of 3000 ms")
    assert "src is a directory, not a file" in reports[5] and "e.g. `src/lib.rs`" in recipes[5]
    assert "`file`, `line` and `character`" in recipes[6] and "`position`" not in reports[6]
    assert recipes[7] == "call rust_type with {symbol?, file?, line?, character?, content?, doc_max?}"
    for report in reports.values():  # no relay op or param the agent cannot send
        assert "timeout_ms" not in report and "docs/PROTOCOL.md" not in report and "init" not in report
        assert "ORACLE_PROTOCOL" not in report and "frames" not in report


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-03-26"])
def test_before_structured_content_the_text_carries_the_error_kind_and_recipe(tmp_path, revision):
    relay, _ = scripted_link(tmp_path, OpTimeout.for_op("type", 3000), {"display": "u8", "documentation": "",
                                                                        "indexing": True})
    tools, _ = build_tools(tmp_path, relay=relay)
    hello = {**HELLO, "params": {**HELLO["params"], "protocolVersion": revision}}
    at = {"file": "a.rs", "line": 1, "character": 0}
    transport = ReplayTransport([hello, call(1, "rust_type", at), call(2, "rust_type", at)])
    Server("ferrule", __version__, ToolSet(tools), instructions=INSTRUCTIONS).run(transport)
    answers = {m["id"]: m for m in map(orjson.loads, transport.output) if "id" in m}
    failed, answered = answers[1]["result"], answers[2]["result"]
    assert "structuredContent" not in failed and "structuredContent" not in answered
    text = failed["content"][0]["text"]
    assert failed["isError"] is True and "timeout:" in text and "fix: call rust_type again" in text
    assert "still indexing" in answered["content"][0]["text"]


def test_rust_scope_takes_max_and_says_how_many_more(tmp_path):
    scope = {"symbols": [{"name": "OrderId", "kind": "struct", "type_text": "OrderId"}], "more": 41, "cell": "crate",
             "seam_file": "src/lib.rs", "branded": []}
    answers, _, sessions = serve(tmp_path, [call(1, "rust_scope", {"file": "src/lib.rs", "max": 1})], scope)
    assert sessions[0].calls[1] == ("scope", {"file": "src/lib.rs", "max": 1})
    text = answers[1]["result"]["content"][0]["text"]
    assert "1 name in scope at top level (the file's own first; 41 more not shown: raise `max`):" in text


def test_a_ping_is_answered_while_an_analyzer_op_runs(tmp_path):
    import threading

    released = threading.Event()

    class Releasing(ReplayTransport):
        def write_lines(self, lines):
            super().write_lines(lines)
            if any(b'"id":2' in line for line in lines):
                released.set()  # the ping's answer is out: the op may finish

    def slow_type(session):
        return {"display": "u8" if released.wait(10) else "the ping waited for the op", "documentation": ""}

    relay, _ = scripted_link(tmp_path, slow_type)
    tools, _ = build_tools(tmp_path, relay=relay)
    transport = Releasing([HELLO, call(1, "rust_type", {"file": "a.rs", "line": 1, "character": 0}),
                           {"jsonrpc": "2.0", "id": 2, "method": "ping"}])
    Server("ferrule", __version__, ToolSet(tools), instructions=INSTRUCTIONS).run(transport)
    messages = [orjson.loads(line) for line in transport.output]
    assert [m["id"] for m in messages] == [0, 2, 1]
    assert messages[2]["result"]["structuredContent"]["display"] == "u8"
