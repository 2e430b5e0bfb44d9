"""`ferrule serve` as a subprocess where no real analyzer is needed: environment errors, the analyzer
double over pipes and over plain files, a burst larger than a pipe's buffer, end of input.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from testkit import golden
from testkit.relay import by_id, frame
from testkit.scenarios import FIXTURE, IDS, LIB, at

HERE = Path(__file__).resolve().parent
TRANSCRIPT = HERE / "double" / "transcripts" / "ops.ndjson"


@pytest.fixture
def crate(tmp_path) -> Path:
    return golden.copy_fixture(FIXTURE, tmp_path / "crate")


@pytest.fixture
def double(tmp_path, monkeypatch) -> str:
    monkeypatch.setenv("FERRULE_DOUBLE_TRACE", str(tmp_path / "inner.ndjson"))
    return golden.fake_analyzer_wrapper(tmp_path, TRANSCRIPT)


def inner_methods(tmp_path: Path) -> list[str]:
    lines = (tmp_path / "inner.ndjson").read_text().splitlines()
    return [json.loads(line).get("method") for line in lines]


def test_a_root_that_is_not_a_directory_exits_2(tmp_path):
    done = subprocess.run([sys.executable, "-m", "ferrule", "serve", "--root", str(tmp_path / "nope")],
                          input=b"", capture_output=True, timeout=60)
    assert done.returncode == 2 and b"not a directory" in done.stderr


def test_without_cargo_toml_every_op_says_workspace_unloadable_and_the_loop_survives(tmp_path):
    serve = golden.ServeProcess(tmp_path, str(tmp_path / "no-analyzer"))
    try:
        answers = serve.ask(frame(1, "type", {"file": "a.rs", "position": at(1, 0)}), frame(2, "validate", {"file": "a.rs"}),
                            b"garbage")
        code = serve.close_input()
    finally:
        serve.kill()
    table = by_id(answers)
    for request_id in (1, 2):
        assert table[request_id]["error"]["kind"] == "workspace-unloadable"
        assert "Cargo.toml" in table[request_id]["error"]["message"] and table[request_id]["error"]["recipe"]
    assert table[None]["error"]["kind"] == "protocol"
    assert code == 0
    assert "workspace-unloadable" in serve.stderr()  # the failed self-init is logged for the host


def test_a_missing_analyzer_is_answered_with_its_recipe(crate, tmp_path):
    serve = golden.ServeProcess(crate, str(tmp_path / "no-such-analyzer"))
    try:
        (answer,) = serve.ask(frame(1, "type", {"file": LIB, "position": at(17, 8)}))
        code = serve.close_input()
    finally:
        serve.kill()
    assert answer["error"]["kind"] == "rust-analyzer-missing"
    assert "rustup component add rust-analyzer" in answer["error"]["recipe"]
    assert code == 0


def test_end_of_input_answers_then_shuts_the_analyzer_down(crate, double, tmp_path):
    serve = golden.ServeProcess(crate, double)
    try:
        serve.send(frame(1, "type", {"file": LIB, "position": at(17, 8)}))
        code = serve.close_input()
        answers = serve.read(1)
    finally:
        serve.kill()
    assert code == 0
    assert answers[0]["result"]["display"] == "let word: Option<&str>"
    methods = inner_methods(tmp_path)
    assert methods[-2:] == ["shutdown", "exit"]  # the LSP dance, not a kill


def test_serve_reads_and_writes_plain_files(crate, double, tmp_path):
    frames = tmp_path / "frames.ndjson"
    frames.write_bytes(frame(1, "type", {"file": LIB, "position": at(17, 8)}) + b"\n" + b"oops\n"
                       + frame(2, "scope", {"file": IDS}))  # the last frame has no newline: still served
    out = tmp_path / "answers.ndjson"
    with frames.open("rb") as stdin, out.open("wb") as stdout:
        done = subprocess.run([sys.executable, "-m", "ferrule", "serve", "--root", str(crate),
                               "--rust-analyzer", double], stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                              timeout=60)
    assert done.returncode == 0, done.stderr
    table = by_id([orjson.loads(line) for line in out.read_bytes().splitlines()])
    assert table[1]["result"]["display"] == "let word: Option<&str>"
    assert table[None]["error"]["kind"] == "protocol"
    assert table[2]["result"]["cell"] == "crate::ids"


def test_a_burst_bigger_than_the_pipe_buffer_does_not_deadlock(crate, double):
    # The host writes every frame before reading any answer; 100 scope answers are ~500 KB, far more
    # than a pipe holds (64 KB), so the relay must keep reading while its answers wait to be read.
    serve = golden.ServeProcess(crate, double)
    try:
        serve.send(*(frame(i, "scope", {"file": IDS}) for i in range(100)))
        answers = serve.read(100, timeout=120)
        code = serve.close_input()
    finally:
        serve.kill()
    assert sum(len(orjson.dumps(a)) for a in answers) > 4 * 65536
    table = by_id(answers)
    assert sorted(table) == list(range(100)) and all(a["ok"] for a in answers)
    assert code == 0


def test_stray_output_cannot_reach_the_protocol_channel(crate, double, tmp_path):
    # fd 1 of the relay process points at stderr once serving starts; only frames reach the host.
    code = ("import os, sys; from ferrule.capture import private_stdout; fd = private_stdout(); "
            "print('stray print'); os.system('echo stray child'); os.write(fd, b'frame\\n')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.stdout == b"frame\n"
    assert b"stray print" in done.stderr and b"stray child" in done.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="pipe sizes are set on Linux only")
def test_the_hosts_pipe_takes_a_large_files_frame_at_once(crate, double):
    # A request carrying a file's text (200 KB for a 6k-line Rust file) is handed over whole.
    import fcntl

    from ferrule._pipes import PIPE_BYTES

    serve = golden.ServeProcess(crate, double)
    try:
        serve.send(frame(1, "scope", {"file": IDS}))
        assert serve.read(1, timeout=60)[0]["ok"]
        assert serve.proc.stdin is not None
        assert fcntl.fcntl(serve.proc.stdin.fileno(), fcntl.F_GETPIPE_SZ) == PIPE_BYTES
        assert serve.close_input() == 0
    finally:
        serve.kill()
