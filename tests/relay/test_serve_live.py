"""`ferrule serve` as a host runs it: a real subprocess over pipes, the real rust-analyzer, the std fixture
crate. One relay is shared by the module's tests (the analyzer takes seconds and ~600 MB to start);
tests that set overlays clear them.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ferrule.relay import OP_NAMES
from testkit import golden
from testkit.relay import by_id, frame

pytestmark = pytest.mark.live
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LIB = "src/lib.rs"


def position(text: str, needle: str, line_hint: str | None = None) -> dict[str, int]:
    """The protocol position (1-based line, UTF-8 byte column) of `needle`, on the line holding `line_hint`."""
    for number, line in enumerate(text.split("\n"), 1):
        if needle in line and (line_hint is None or line_hint in line):
            return {"line": number, "character": len(line[: line.index(needle)].encode())}
    raise AssertionError(f"{needle!r} not in the text")


@pytest.fixture(scope="module")
def crate(tmp_path_factory) -> Path:
    return golden.copy_fixture(FIXTURES / "stdcrate", tmp_path_factory.mktemp("serve-live") / "stdcrate")


@pytest.fixture(scope="module")
def served(crate, analyzer):
    serve = golden.ServeProcess(crate, analyzer.path)
    yield serve
    serve.kill()


@pytest.fixture(scope="module")
def lib_text(crate) -> str:
    return (crate / LIB).read_text(encoding="utf-8")


def test_the_first_frame_may_be_any_op(served, lib_text):
    (answer,) = served.ask(frame("first", "type", {"file": LIB, "position": position(lib_text, "found")}))
    assert answer == {"proto": 1, "id": "first", "ok": True,
                      "result": {"display": "let found: Option<i32>", "documentation": ""}}


def test_protocol_errors_are_answered_and_the_loop_survives(served, lib_text):
    answers = served.ask(
        b"{not json",
        b'"a string"',
        frame(1, "init").replace(b'"proto":1', b'"proto":7'),
        frame(2, "teleport", {"file": LIB}),
        frame(3, "type", {"file": LIB, "position": {"line": 0, "character": "x"}}),
        frame(4, "complete", {"file": LIB}),
        frame(5, "validate", {"file": "/etc/hostname"}),
        frame(6, "validate", {"file": "src/../../stdcrate/src/lib.rs"}),
        frame(7, "type", {"file": LIB, "position": position(lib_text, "port", "let port")}),
    )
    nulls = [a for a in answers if a["id"] is None]
    table = by_id([a for a in answers if a["id"] is not None])
    assert len(nulls) == 2 and all("unparseable frame" in a["error"]["message"] for a in nulls)
    assert "proto 7" in table[1]["error"]["message"] and "proto 1" in table[1]["error"]["message"]
    assert all(op in table[2]["error"]["message"] for op in OP_NAMES)
    assert "`position.line`" in table[3]["error"]["message"] and "`position.character`" in table[3]["error"]["message"]
    assert "missing `position`" in table[4]["error"]["message"]
    assert "absolute path" in table[5]["error"]["message"]
    assert "`..`" in table[6]["error"]["message"]
    for answer in [*nulls, *(table[i] for i in range(1, 7))]:
        assert answer["proto"] == 1 and answer["ok"] is False
        assert answer["error"]["kind"] == "protocol" and answer["error"]["recipe"]
    assert table[7]["result"]["display"] == "let port: Result<u16, ParseIntError>"


def test_a_symlink_out_of_the_root_is_refused(served, crate, tmp_path):
    (tmp_path / "secret.rs").write_text("fn secret() {}\n")
    os.symlink(tmp_path / "secret.rs", crate / "src" / "leak.rs")
    try:
        (answer,) = served.ask(frame(1, "validate", {"file": "src/leak.rs"}))
    finally:
        os.unlink(crate / "src" / "leak.rs")
    assert answer["ok"] is False and answer["error"]["kind"] == "protocol"
    assert "outside the project root" in answer["error"]["message"]


def test_pipelined_frames_are_answered_once_each_and_correlate_by_id(served, lib_text):
    probes = {"found": "let found: Option<i32>", "port": "let port: Result<u16, ParseIntError>",
              "counts": "let mut counts: HashMap<String, usize>"}
    frames, expected = [], {}
    for i in range(60):
        name = list(probes)[i % 3]
        frames.append(frame(f"t{i}", "type", {"file": LIB, "position": position(lib_text, name, f"let {name}")
                                              if name != "counts" else position(lib_text, "counts", "let mut")}))
        expected[f"t{i}"] = probes[name]
    frames += [frame(f"v{i}", "validate", {"file": "src/text.rs"}) for i in range(5)]
    frames += [frame(f"c{i}", "complete", {"file": "src/shapes/circle.rs", "position": {"line": 7, "character": 38},
                                            "prefix": "rad", "max": 5}) for i in range(5)]
    answers = served.ask(*frames)
    table = by_id(answers)
    assert set(table) == {f"t{i}" for i in range(60)} | {f"v{i}" for i in range(5)} | {f"c{i}" for i in range(5)}
    for request_id, display in expected.items():
        assert table[request_id]["result"]["display"] == display, request_id
    assert all(table[f"v{i}"]["result"]["diagnostics"] == [] for i in range(5))
    assert all([e["name"] for e in table[f"c{i}"]["result"]["entries"]] == ["radius"] for i in range(5))


def test_ops_on_one_file_apply_in_arrival_order(served, lib_text):
    kinds = ["u8", "u16", "u32", "u64", "i128", "usize"]
    at = position(lib_text, "found", "let found")
    frames = []
    for i, kind in enumerate(kinds):
        text = lib_text.replace("let found = values.iter().copied().find(|v| v % 2 == 0);",
                                f"let found = 7{kind};")
        frames.append(frame(f"u{i}", "update", {"file": LIB, "content": text}))
        frames.append(frame(f"t{i}", "type", {"file": LIB, "position": at}))
    frames.append(frame("clear", "update", {"file": LIB, "content": None}))
    frames.append(frame("disk", "type", {"file": LIB, "position": at}))
    table = by_id(served.ask(*frames))
    versions = [table[f"u{i}"]["result"]["version"] for i in range(len(kinds))]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)
    assert table["clear"]["result"]["version"] > versions[-1]
    for i, kind in enumerate(kinds):
        assert table[f"t{i}"]["result"]["display"] == f"let found: {kind}"
    assert table["disk"]["result"]["display"] == "let found: Option<i32>"


def test_a_client_init_reinitialises(served, lib_text):
    (answer,) = served.ask(frame("again", "init", {}), timeout=180)
    result = answer["result"]
    assert result["ra_version"].startswith("rust-analyzer") and result["position_encoding"] == "utf-8"
    assert result["pull_diagnostics"] is True and result["quiescent"] is True
    (after,) = served.ask(frame("after", "type", {"file": LIB, "position": position(lib_text, "found")}))
    assert after["result"]["display"] == "let found: Option<i32>"


def _children(pid: int) -> list[int]:
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(entry))
    return kids


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_end_of_input_stops_the_analyzer_and_exits_0(served):
    analyzers = [pid for pid in _children(served.proc.pid) if _running(pid)]
    assert analyzers, "the relay should have a live analyzer child"
    assert served.close_input(timeout=60) == 0
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_running(pid) for pid in analyzers):
        time.sleep(0.1)
    assert not any(_running(pid) for pid in analyzers), "the analyzer outlived the relay"
