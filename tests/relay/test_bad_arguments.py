"""Arguments that pass the schema but not the analyzer: positions beyond what LSP can carry.

`line` and `character` are LSP `uinteger`s (at most 2**31 - 1). The MCP schema says integer >= 1 / >= 0
and lets 1e30 through (an integer-valued number); a direct Session call has no envelope in front of it.
Each must come back as a `protocol` error naming the position, and leave nothing behind in the session.
"""

from __future__ import annotations

import pytest

from ferrule.project import BadRequest
from ferrule.relay.sync import SyncSession
from testkit.mcp_process import McpProcess, mcp_command
from testkit.serve_process import ServeProcess, copy_crate, error, ok, plain_wrapper

pytestmark = pytest.mark.live


def test_the_relay_refuses_a_position_past_u32(tmp_path, analyzer):
    root = copy_crate("faultcrate", tmp_path)
    wrapper, _ = plain_wrapper(tmp_path, analyzer.path)
    serve = ServeProcess(root, {**analyzer.env, "RUST_ANALYZER": str(wrapper)}, tmp_path / "serve.err")
    try:
        for number, position in enumerate((b'{"line":18446744073709551615,"character":0}',
                                           b'{"line":1,"character":9223372036854775808}',
                                           b'{"line":1180591620717411303424,"character":0}')):
            serve.send_raw(b'{"proto":1,"id":%d,"op":"type","params":{"file":"src/lib.rs","position":%b}}\n'
                           % (number, position))
            failure = error(serve.wait(number, timeout=30)[1])
            assert failure["kind"] == "protocol", failure
        assert ok(serve.call("validate", {"file": "src/lib.rs"}))["diagnostics"] == []
    finally:
        serve.kill()


def test_a_position_past_64_bits_is_a_protocol_error_and_leaves_nothing_pending(tmp_path, analyzer,
                                                                                monkeypatch):
    root = copy_crate("faultcrate", tmp_path)
    wrapper, _ = plain_wrapper(tmp_path, analyzer.path)
    with SyncSession(root, analyzer=str(wrapper)) as session:
        session.call("init", {})
        for position in ({"line": 10**30, "character": 0}, {"line": 1, "character": 10**30}):
            with pytest.raises(BadRequest):
                session.call("type", {"file": "src/lib.rs", "position": position})
        assert session.session.client.in_flight == 0


@pytest.mark.parametrize("tool", ["rust_type", "rust_complete", "rust_scope"])
def test_mcp_tools_refuse_a_position_past_what_lsp_carries(tmp_path, analyzer, tool):
    root = copy_crate("faultcrate", tmp_path)
    wrapper, _ = plain_wrapper(tmp_path, analyzer.path)
    server = McpProcess(mcp_command(root), {**analyzer.env, "RUST_ANALYZER": str(wrapper)}, tmp_path / "mcp.err")
    try:
        server.initialize()
        result = server.tool(tool, {"file": "src/lib.rs", "line": 1e30, "character": 0})
        assert result["isError"] and result["structuredContent"]["error"]["kind"] == "protocol", result
        assert server.tool("rust_validate", {"file": "src/lib.rs"})["isError"] is False
    finally:
        server.kill()
