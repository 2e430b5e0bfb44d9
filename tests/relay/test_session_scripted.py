"""The Session over a scripted language server (tests/testkit/fake_lsp_server.py) standing in for rust-analyzer,
so load phases, progress and the wire are exactly what each test says: when the analyzer counts as
ready, when an answer says it was given while indexing, where the policy line goes, and what a transient
op writes. The live counterparts are in the `live` tests of tests/relay/.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from ferrule.project import BadRequest
from ferrule.relay.session import Session

FAKE = Path(__file__).resolve().parents[1] / "testkit" / "fake_lsp_server.py"
AT = {"file": "src/lib.rs", "position": {"line": 1, "character": 4}}


def crate(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir(parents=True)
    (tmp_path / "src" / "lib.rs").write_text("fn f() { let x = 1u8; }\n")
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "x"\nversion = "0.1.0"\n')
    return tmp_path


def fake_analyzer(tmp_path: Path) -> str:
    script = tmp_path / "fake-rust-analyzer"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    script.chmod(0o755)
    return str(script)


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


def test_init_waits_out_the_quiescent_moment_between_two_load_phases(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_LOAD_GAP_MS", "150")
    root = crate(tmp_path / "crate")
    analyzer = fake_analyzer(tmp_path)

    async def body():
        session = Session(root, analyzer=analyzer, quiet_policy=True)
        started = time.monotonic()
        result = await session.call("init", {})
        waited = time.monotonic() - started
        answer = await session.call("type", AT)  # at once: the second phase must be over
        client = session.client
        await session.call("shutdown", {})
        return result, waited, answer, client

    result, waited, answer, client = run(body())
    assert result["quiescent"] is True
    assert waited >= 0.3, "init returned in the quiescent moment before the second phase"
    assert answer == {"display": "let x: u8", "documentation": ""}
    assert not client.busy


def test_answers_given_while_progress_runs_say_indexing(tmp_path):
    root = crate(tmp_path / "crate")
    analyzer = fake_analyzer(tmp_path)

    async def body():
        session = Session(root, analyzer=analyzer, quiet_policy=True)
        assert (await session.call("init", {}))["quiescent"] is True
        settled = await session.call("type", AT)
        await session.client.request("test/progress", {"kind": "begin", "token": "rustAnalyzer/Indexing"})
        assert session.client.quiescent, "the server still says quiescent: only the progress shows the work"
        during = await session.call("type", AT)
        await session.client.request("test/progress", {"kind": "end", "token": "rustAnalyzer/Indexing"})
        after = await session.call("type", AT)
        await session.call("shutdown", {})
        return settled, during, after

    settled, during, after = run(body())
    assert "indexing" not in settled
    assert during["indexing"] is True and during["display"] == "let x: u8"
    assert "indexing" not in after



def test_the_policy_line_goes_to_stderr_unless_the_embedder_asks_for_quiet(tmp_path, capfd):
    root = crate(tmp_path / "crate")
    analyzer = fake_analyzer(tmp_path)

    async def init_and_close(**options):
        session = Session(root, analyzer=analyzer, **options)
        await session.call("init", {})
        await session.call("shutdown", {})

    run(init_and_close())
    assert f"ferrule: policy from no conform.toml in {root}" in capfd.readouterr().err
    run(init_and_close(quiet_policy=True))
    assert "policy from" not in capfd.readouterr().err


def test_sync_session_passes_quiet_policy_through(tmp_path, capfd):
    from ferrule.relay.sync import SyncSession

    root = crate(tmp_path / "crate")
    with SyncSession(root, analyzer=fake_analyzer(tmp_path), quiet_policy=True) as session:
        assert session.call("init", {})["quiescent"] is True
    assert "policy from" not in capfd.readouterr().err


def test_transient_content_costs_the_analyzer_two_writes_and_the_restore_is_out_before_the_answer(tmp_path):
    """didOpen and the request in one write; didChange back to the disk text and didClose in a second,
    written before the op returns (the analyzer settles it while the caller reads the answer)."""
    root = crate(tmp_path / "crate")
    analyzer = fake_analyzer(tmp_path)

    async def body():
        session = Session(root, analyzer=analyzer, quiet_policy=True)
        await session.call("init", {})
        await session.client.request("test/seen", {})
        writes: list[bytes] = []
        transport = session.client._stdin
        real_write = transport.write
        transport.write = lambda data: (writes.append(bytes(data)), real_write(data))[1]
        answer = await session.call("type", {**AT, "content": "fn f() { let x = 2u8; }\n"})
        written_by_then = list(writes)
        seen = await session.client.request("test/seen", {})
        await session.call("shutdown", {})
        return answer, written_by_then, seen

    answer, written, seen = run(body())
    assert answer == {"display": "let x: u8", "documentation": ""}
    assert [w.count(b"Content-Length") for w in written] == [2, 2]
    assert b"didOpen" in written[0] and b"textDocument/hover" in written[0]
    assert b"didChange" in written[1] and b"didClose" in written[1] and b"2u8" not in written[1]
    assert seen == ["textDocument/didOpen", "textDocument/hover", "textDocument/didChange", "textDocument/didClose"]


def test_a_file_swapped_for_an_escaping_symlink_is_refused_by_the_next_call(tmp_path):
    root = crate(tmp_path / "crate")
    (tmp_path / "secret.rs").write_text("fn secret() {}\n")
    analyzer = fake_analyzer(tmp_path)

    async def body():
        session = Session(root, analyzer=analyzer, quiet_policy=True)
        await session.call("init", {})
        before = await session.call("type", AT)
        (root / "src" / "lib.rs").unlink()
        (root / "src" / "lib.rs").symlink_to(tmp_path / "secret.rs")
        try:
            await session.call("type", AT)
        except BadRequest as refused:
            after = refused
        await session.call("shutdown", {})
        return before, after

    before, after = run(body())
    assert before["display"] == "let x: u8"
    assert "outside the project root" in after.message and after.kind == "protocol"
