"""Every error kind against the real analyzer: missing, unloadable, crashed (and respawned), timeout."""

from __future__ import annotations

import os
import signal
import stat
import time

import pytest

from ferrule.project import AnalyzerMissing, OpTimeout, OracleCrashed, WorkspaceUnloadable
from ferrule.relay.resolve import resolve_analyzer
from ferrule.relay.sync import SyncSession

pytestmark = pytest.mark.live


def write_script(path, body):
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def test_missing_analyzer_names_what_was_tried_and_the_recipe(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # a rustup proxy with no component behind it: present on PATH, fails --version
    write_script(bin_dir / "rust-analyzer", 'echo "error: unknown binary rust-analyzer" >&2; exit 1\n')
    env = {"RUST_ANALYZER": str(tmp_path / "nothing-here"), "PATH": str(bin_dir), "HOME": str(tmp_path)}
    with pytest.raises(AnalyzerMissing) as caught:
        resolve_analyzer(env=env, well_known=[])
    error = caught.value.to_json()
    assert error["kind"] == "rust-analyzer-missing"
    assert "rustup component add rust-analyzer" in error["recipe"] and "rust-src" in error["recipe"]
    assert "nothing-here" in error["message"] and "unknown binary" in error["message"]


def test_resolution_skips_a_broken_proxy_and_finds_the_next(tmp_path, analyzer):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    write_script(first / "rust-analyzer", "exit 1\n")
    os.symlink(analyzer.path, second / "rust-analyzer")
    found = resolve_analyzer(env={"PATH": f"{first}:{second}", "HOME": str(tmp_path)}, well_known=[])
    assert found.path == str(second / "rust-analyzer") and found.source == "PATH"
    assert found.version.startswith("rust-analyzer ")


def test_session_with_an_explicit_analyzer_that_is_not_there(stdcrate):
    with SyncSession(stdcrate, analyzer="/nonexistent/rust-analyzer") as session:
        with pytest.raises(AnalyzerMissing) as caught:
            session.call("init", {})
    assert "/nonexistent/rust-analyzer" in caught.value.message


def test_folder_without_cargo_toml_is_unloadable(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text("fn main() {}\n")
    with SyncSession(tmp_path) as session:
        with pytest.raises(WorkspaceUnloadable) as caught:
            session.call("init", {})
        assert "Cargo.toml" in caught.value.message
        assert "cargo metadata" in caught.value.recipe
        with pytest.raises(WorkspaceUnloadable):  # any first op says the same
            session.call("validate", {"file": "src/main.rs"})


def test_broken_cargo_toml_is_unloadable(tmp_path, analyzer):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text("fn main() {}\n")
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "broken"\nversion =\n')
    with SyncSession(tmp_path) as session:
        with pytest.raises(WorkspaceUnloadable) as caught:
            session.call("init", {})
    assert caught.value.kind == "workspace-unloadable"


@pytest.fixture
def wrapped(tmp_path, analyzer, stdcrate):
    """A session whose analyzer is a wrapper: it logs each launch and refuses to start while `refuse` exists."""
    log, refuse = tmp_path / "launches", tmp_path / "refuse"
    wrapper = write_script(tmp_path / "ra-wrapper", f"""
if [ "$1" != "--version" ]; then echo launch >> {log}; fi
if [ -e {refuse} ] && [ "$1" != "--version" ]; then exit 101; fi
exec {analyzer.path} "$@"
""")
    session = SyncSession(stdcrate, analyzer=str(wrapper))
    session.call("init", {})
    yield session, log, refuse
    session.close()


def launches(log):
    return len(log.read_text().splitlines())


def test_killed_analyzer_is_reported_then_respawned_with_overlays(wrapped, stdcrate, at):
    session, log, _ = wrapped
    lib = (stdcrate / "src" / "lib.rs").read_text()
    session.call("update", {"file": "src/lib.rs", "content": lib + "\npub fn oops() -> u8 { missing }\n"})
    os.kill(session.session.client.pid, signal.SIGKILL)
    with pytest.raises(OracleCrashed) as caught:
        session.call("type", {"file": "src/lib.rs", "position": at(lib, "word_counts")})
    assert caught.value.kind == "oracle-crashed" and "respawn" in caught.value.recipe
    assert launches(log) == 1
    # the next op respawns once and the overlay is back: its error is what validate sees
    result = session.call("validate", {"file": "src/lib.rs"})
    assert [d["code"] for d in result["diagnostics"]] == ["E0425"]
    assert launches(log) == 2
    assert session.call("type", {"file": "src/lib.rs", "position": at(lib, "word_counts")})["display"]


def test_killed_mid_request_is_oracle_crashed(wrapped, stdcrate):
    session, log, _ = wrapped
    pid = session.session.client.pid
    os.kill(pid, signal.SIGSTOP)  # hold it so the kill lands while the request is in flight
    try:
        import threading

        threading.Timer(0.3, lambda: os.kill(pid, signal.SIGKILL)).start()
        with pytest.raises(OracleCrashed):
            session.call("validate", {"file": "src/lib.rs"})
    finally:
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
    assert session.call("validate", {"file": "src/lib.rs"})["diagnostics"] == []


def test_dying_twice_in_a_row_stops_respawning_until_init(wrapped):
    session, log, refuse = wrapped
    os.kill(session.session.client.pid, signal.SIGKILL)
    with pytest.raises(OracleCrashed):
        session.call("validate", {"file": "src/lib.rs"})
    refuse.write_text("")
    with pytest.raises(OracleCrashed) as second:  # the respawn dies at once
        session.call("validate", {"file": "src/lib.rs"})
    assert "twice in a row" in second.value.message
    before = launches(log)
    for _ in range(3):
        with pytest.raises(OracleCrashed) as later:
            session.call("validate", {"file": "src/lib.rs"})
        assert "init" in later.value.recipe
    assert launches(log) == before, "no respawn loop"
    refuse.unlink()
    assert session.call("init", {})["quiescent"] is True
    assert session.call("validate", {"file": "src/lib.rs"})["diagnostics"] == []


def test_stopped_analyzer_times_out_and_the_session_recovers(wrapped, stdcrate, at):
    session, _, _ = wrapped
    lib = (stdcrate / "src" / "lib.rs").read_text()
    position = at(lib, "word_counts")
    pid = session.session.client.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        with pytest.raises(OpTimeout) as caught:  # the stopped analyzer cannot answer: the budget does
            session.call("type", {"file": "src/lib.rs", "position": position, "timeout_ms": 300})
        error = caught.value.to_json()
        assert error["kind"] == "timeout"
        assert "type" in error["message"] and "300 ms" in error["message"]
        with pytest.raises(OpTimeout):
            session.call("validate", {"file": "src/lib.rs", "content": lib, "timeout_ms": 200})
    finally:
        os.kill(pid, signal.SIGCONT)
    assert session.call("type", {"file": "src/lib.rs", "position": position})["display"].startswith("pub fn word_counts")
    assert session.call("validate", {"file": "src/lib.rs"})["diagnostics"] == []


def test_reinit_restarts_the_analyzer_and_clears_overlays(wrapped, stdcrate):
    session, log, _ = wrapped
    lib = (stdcrate / "src" / "lib.rs").read_text()
    session.call("update", {"file": "src/lib.rs", "content": lib + "\npub fn oops() -> u8 { missing }\n"})
    first_pid = session.session.client.pid
    result = session.call("init", {})
    assert result["quiescent"] is True
    assert session.session.client.pid != first_pid
    assert launches(log) == 2
    assert session.call("validate", {"file": "src/lib.rs"})["diagnostics"] == []


def test_shutdown_ends_the_analyzer_without_a_zombie(wrapped):
    session, _, _ = wrapped
    pid = session.session.client.pid
    assert session.call("shutdown", {}) == {}
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_init_deadline_passed_reports_not_quiescent_and_answers_say_indexing(stdcrate, at, analyzer):
    progress = []
    lib = (stdcrate / "src" / "lib.rs").read_text()
    with SyncSession(stdcrate, on_progress=lambda message, percentage: progress.append((message, percentage))) as session:
        result = session.call("init", {"timeout_ms": 1})
        assert result["quiescent"] is False, "std takes seconds to index; a 1 ms deadline cannot be met"
        answer = session.call("type", {"file": "src/lib.rs", "position": at(lib, "word_counts")})
        assert answer.get("indexing") is True
        deadline = time.monotonic() + 120
        while "indexing" in answer and time.monotonic() < deadline:  # each call catches up first
            time.sleep(0.2)
            answer = session.call("type", {"file": "src/lib.rs", "position": at(lib, "word_counts")})
        assert "indexing" not in answer and answer["display"].startswith("pub fn word_counts")
    assert any(message.startswith("Indexing") for message, _ in progress)
    assert any(percentage == 100 for _, percentage in progress)
