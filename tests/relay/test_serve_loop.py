"""The serve loop over a scripted Session: envelope errors, scheduling, barriers, shutdown, end of input.

These are unit tests of the shell alone; the same behaviours are checked against the real Session and
rust-analyzer in test_serve_live.py and over the analyzer double in test_serve_double.py.
"""

from __future__ import annotations

import os

import orjson
import pytest

from ferrule.project import OpTimeout, WorkspaceUnloadable
from ferrule.relay import OP_NAMES
from testkit.relay import by_id, frame, run_loop
from testkit.relay_stub import factory

POS = {"line": 1, "character": 0}


@pytest.fixture
def root(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text("pub fn f() {}\n")
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "x"\nversion = "0.1.0"\n')
    return tmp_path


def test_self_init_runs_first_and_is_not_answered(root):
    make = factory()
    code, answers = run_loop(root, frame(1, "type", {"file": "src/lib.rs", "position": POS}), make)
    assert code == 0
    assert [c[0] for c in make.made.calls] == ["init", "type", "shutdown"]
    assert [a["id"] for a in answers] == [1]
    assert answers[0] == {"proto": 1, "id": 1, "ok": True,
                          "result": {"op": "type", "params": {"file": "src/lib.rs", "position": POS}}}


def test_client_init_is_a_reinit_and_is_answered(root):
    make = factory()
    code, answers = run_loop(root, frame("a", "init", {}), make)
    assert [c[0] for c in make.made.calls] == ["init", "init", "shutdown"]
    assert answers == [{"proto": 1, "id": "a", "ok": True, "result": {"op": "init", "params": {}}}]


def test_unparseable_frame_answers_id_null_and_the_loop_goes_on(root):
    data = b'{"proto":1,"id":7,"op":\n' + b"[1, 2]\n" + b"\xff\xfe\n" + frame(8, "init")
    code, answers = run_loop(root, data, factory())
    assert code == 0
    assert [a["id"] for a in answers[:3]] == [None, None, None]
    for answer in answers[:3]:
        assert answer["proto"] == 1 and answer["ok"] is False
        assert answer["error"]["kind"] == "protocol"
        assert "unparseable frame" in answer["error"]["message"]
        assert answer["error"]["recipe"]
    assert answers[3]["id"] == 8 and answers[3]["ok"] is True


def test_frame_without_usable_id_is_answered_with_null(root):
    data = b'{"proto":1,"op":"init","params":{}}\n{"proto":1,"id":{"a":1},"op":"init"}\n'
    _, answers = run_loop(root, data, factory())
    assert [a["id"] for a in answers] == [None, None]
    assert all("id" in a["error"]["message"] for a in answers)


@pytest.mark.parametrize("proto, said", [(2, "proto 2"), ("1", 'proto "1"'), (None, "proto null")])
def test_proto_mismatch_names_both_versions(root, proto, said):
    data = orjson.dumps({"proto": proto, "id": 3, "op": "init", "params": {}}) + b"\n"
    _, answers = run_loop(root, data, factory())
    (answer,) = answers
    assert answer["id"] == 3 and answer["error"]["kind"] == "protocol"
    assert said in answer["error"]["message"] and "proto 1" in answer["error"]["message"]
    assert "version" in answer["error"]["recipe"]


def test_missing_proto_is_a_mismatch(root):
    _, (answer,) = run_loop(root, b'{"id":3,"op":"init","params":{}}\n', factory())
    assert "no `proto`" in answer["error"]["message"] and "proto 1" in answer["error"]["message"]


def test_unknown_op_lists_the_known_ops(root):
    make = factory()
    _, (answer,) = run_loop(root, frame(4, "hover", {}), make)
    assert answer["id"] == 4 and answer["error"]["kind"] == "protocol"
    for op in OP_NAMES:
        assert op in answer["error"]["message"] and op in answer["error"]["recipe"]
    assert "hover" in answer["error"]["message"]
    assert [c[0] for c in make.made.calls] == ["init", "shutdown"]  # never reached the Session


@pytest.mark.parametrize("op, params, named", [
    ("complete", {"file": "src/lib.rs"}, ["missing `position`"]),
    ("complete", {"position": POS}, ["missing `file`"]),
    ("complete", {"file": 5, "position": {"line": 0, "character": -1}, "max": -1, "prefix": 3},
     ["`file` must be a string", "`position.line`", "`position.character`", "`max`", "`prefix`"]),
    ("update", {"file": "src/lib.rs"}, ["missing `content`"]),
    ("update", {"file": "src/lib.rs", "content": 12}, ["`content` must be a string or null"]),
    ("validate", {"file": "src/lib.rs", "content": ["x"]}, ["`content` must be a string"]),
    ("scope", {"file": "src/lib.rs", "position": "1:2"}, ["`position` must be an object"]),
    ("type", {"file": "src/lib.rs", "position": {"line": True, "character": 0}}, ["`position.line`"]),
    ("validate", {"file": "src/lib.rs", "timeout_ms": "soon"}, ["`timeout_ms`"]),
    ("init", [], ["`params` must be an object"]),
])
def test_bad_params_name_every_fault(root, op, params, named):
    make = factory()
    _, (answer,) = run_loop(root, frame(9, op, params), make)
    assert answer["id"] == 9 and answer["ok"] is False and answer["error"]["kind"] == "protocol"
    for piece in named:
        assert piece in answer["error"]["message"], answer["error"]["message"]
    assert answer["error"]["message"].startswith(op)
    assert [c[0] for c in make.made.calls] == ["init", "shutdown"]


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.rs", "src/../../outside.rs", "src\\lib.rs",
                                  "escape/lib.rs"])
def test_paths_outside_the_root_are_refused(root, tmp_path_factory, path):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "lib.rs").write_text("secret\n")
    os.symlink(outside, root / "escape")
    make = factory()
    _, (answer,) = run_loop(root, frame(1, "validate", {"file": path}), make)
    assert answer["ok"] is False and answer["error"]["kind"] == "protocol"
    assert "root" in answer["error"]["message"] or "backslash" in answer["error"]["message"]
    assert not any(c[0] == "validate" for c in make.made.calls)


def test_paths_are_canonicalised_before_the_session_sees_them(root):
    make = factory()
    _, (answer,) = run_loop(root, frame(1, "validate", {"file": "./src//lib.rs"}), make)
    assert answer["result"]["params"] == {"file": "src/lib.rs"}


def test_unknown_params_and_null_optionals_are_dropped(root):
    make = factory()
    params = {"file": "src/lib.rs", "position": POS, "content": None, "future_flag": True}
    _, (answer,) = run_loop(root, frame(1, "type", params), make)
    assert answer["result"]["params"] == {"file": "src/lib.rs", "position": POS}


def test_update_keeps_null_content_which_clears_the_overlay(root):
    _, (answer,) = run_loop(root, frame(1, "update", {"file": "src/lib.rs", "content": None}), factory())
    assert answer["result"]["params"] == {"file": "src/lib.rs", "content": None}


def test_session_errors_become_error_frames_and_the_loop_survives(root):
    make = factory(failures={
        ("validate", "src/a.rs"): WorkspaceUnloadable("cargo metadata failed"),
        ("validate", "src/b.rs"): OpTimeout.for_op("validate", 5),
        ("validate", "src/c.rs"): RuntimeError("a bug"),
    })
    data = b"".join(frame(i, "validate", {"file": f"src/{n}.rs"}) for i, n in enumerate("abcd"))
    code, answers = run_loop(root, data, make)
    table = by_id(answers)
    assert code == 0
    assert table[0]["error"] == {"kind": "workspace-unloadable", "message": "cargo metadata failed",
                                 "recipe": WorkspaceUnloadable.default_recipe}
    assert table[1]["error"]["kind"] == "timeout" and "5 ms" in table[1]["error"]["message"]
    assert table[2]["error"]["kind"] == "oracle-crashed" and "a bug" in table[2]["error"]["message"]
    assert table[3]["ok"] is True


def test_blank_lines_are_ignored_and_crlf_accepted(root):
    data = b"\n   \n" + frame(1, "init").replace(b"\n", b"\r\n") + b"\n"
    _, answers = run_loop(root, data, factory())
    assert [(a["id"], a["ok"]) for a in answers] == [(1, True)]


def test_an_oversized_line_is_refused_and_the_next_frame_served(root):
    import asyncio
    import io

    from ferrule.relay.serve import serve_async

    out = io.BytesIO()
    data = b'{"proto":1,"id":1,' + b" " * 4096 + b'"op":"init"}\n' + frame(2, "init")
    asyncio.run(serve_async(root, io.BytesIO(data), out, session_factory=factory(), max_line=1024))
    answers = [orjson.loads(line) for line in out.getvalue().splitlines()]
    assert answers[0]["id"] is None and "longer than 1024 bytes" in answers[0]["error"]["message"]
    assert answers[1] == {"proto": 1, "id": 2, "ok": True, "result": {"op": "init", "params": {}}}


def test_shutdown_answers_empty_then_stops_serving(root):
    make = factory()
    data = frame(1, "shutdown") + frame(2, "type", {"file": "src/lib.rs", "position": POS})
    code, answers = run_loop(root, data, make)
    table = by_id(answers)
    assert code == 0
    assert table[1] == {"proto": 1, "id": 1, "ok": True, "result": {}}
    assert table[2]["ok"] is False and "after `shutdown`" in table[2]["error"]["message"]
    assert [c[0] for c in make.made.calls] == ["init", "shutdown"]  # one shutdown, none at end of input


def test_end_of_input_answers_everything_then_shuts_the_analyzer_down(root):
    make = factory(delays={("validate", None): 0.05})
    data = b"".join(frame(i, "validate", {"file": f"src/f{i}.rs"}) for i in range(5))
    code, answers = run_loop(root, data, make)
    assert code == 0
    assert sorted(a["id"] for a in answers) == [0, 1, 2, 3, 4]
    assert make.made.calls[-1][0] == "shutdown"
    assert make.made.events[-2][:2] == ("end", "validate") or make.made.events[-1][1] == "shutdown"


def test_pipelined_ops_on_different_files_overlap_and_answer_out_of_order(root):
    make = factory(delays={("type", "src/slow.rs"): 0.3, ("type", "src/fast.rs"): 0.0})
    data = frame("slow", "type", {"file": "src/slow.rs", "position": POS}) + \
        frame("fast", "type", {"file": "src/fast.rs", "position": POS})
    _, answers = run_loop(root, data, make)
    assert [a["id"] for a in answers] == ["fast", "slow"]
    events = [(e[0], e[2]) for e in make.made.events if e[1] == "type"]
    assert events.index(("start", "src/fast.rs")) < events.index(("end", "src/slow.rs"))


def test_ops_on_one_file_run_in_arrival_order(root):
    # the first update is slow: the later ops on that file must wait for it, whatever their speed
    make = factory(delays={("update", "src/lib.rs"): 0.2})
    data = (frame(1, "update", {"file": "src/lib.rs", "content": "A"})
            + frame(2, "type", {"file": "src/lib.rs", "position": POS})
            + frame(3, "update", {"file": "src/lib.rs", "content": "B"})
            + frame(4, "validate", {"file": "src/lib.rs", "content": "C"})
            + frame(5, "type", {"file": "src/other.rs", "position": POS}))
    _, answers = run_loop(root, data, make)
    lib = [(e[0], e[1], e[3]) for e in make.made.events if e[2] == "src/lib.rs"]
    assert lib == [("start", "update", "A"), ("end", "update", "A"), ("start", "type", None),
                   ("end", "type", None), ("start", "update", "B"), ("end", "update", "B"),
                   ("start", "validate", "C"), ("end", "validate", "C")]
    ids = [a["id"] for a in answers]
    assert ids.index(5) < ids.index(1)  # the other file did not queue behind the slow one
    assert set(ids) == {1, 2, 3, 4, 5}


def test_an_op_that_waited_checks_its_path_again_and_one_that_did_not_keeps_the_arrival_check(root):
    make = factory(delays={("update", "src/lib.rs"): 0.2})
    data = (frame(1, "update", {"file": "src/lib.rs", "content": "A"})
            + frame(2, "type", {"file": "src/lib.rs", "position": POS}))
    run_loop(root, data, make)
    checked = {params.to_json().get("content", "type"): params.checked for params in make.made.typed
               if getattr(params, "file", None) == "src/lib.rs"}
    assert checked["A"] is not None and checked["A"].rel == "src/lib.rs"
    assert checked["type"] is None, "the type op waited 0.2 s behind the update: its file is checked at use"


def test_reads_of_one_file_overlap_and_a_change_waits_for_all_of_them(root):
    make = factory(delays={("type", "src/lib.rs"): 0.2, ("complete", "src/lib.rs"): 0.1})
    lib = {"file": "src/lib.rs", "position": POS}
    data = (frame(1, "type", lib) + frame(2, "complete", lib) + frame(3, "scope", lib)
            + frame(4, "update", {"file": "src/lib.rs", "content": "A"})
            + frame(5, "type", lib) + frame(6, "complete", {**lib, "content": "B"}) + frame(7, "type", lib))
    _, answers = run_loop(root, data, make)
    events = [(e[0], e[1], e[3]) for e in make.made.events if e[2] == "src/lib.rs"]
    at: dict[tuple, int] = {}
    for i, event in enumerate(events):
        at.setdefault(event, i)  # the first time each event is seen
    reads = [("type", None), ("complete", None), ("scope", None)]
    # the three reads run together: each starts before the slow first one ends
    assert all(at[("start", *r)] < at[("end", "type", None)] for r in reads)
    # the update waits for every read before it, and the next read waits for the update
    assert all(at[("end", *r)] < at[("start", "update", "A")] for r in reads)
    second_type = [i for i, e in enumerate(events) if e[:2] == ("start", "type")][1]
    assert second_type > at[("end", "update", "A")]
    # an op that shows content is a change too: it waits for the read before it, and holds the next
    shown = at[("start", "complete", "B")]
    assert [e[:2] for e in events[shown - 1:shown]] == [("end", "type")]
    last_type = [i for i, e in enumerate(events) if e[:2] == ("start", "type")][2]
    assert last_type > at[("end", "complete", "B")]
    assert sorted(a["id"] for a in answers) == list(range(1, 8))


def test_init_is_a_barrier_both_ways(root):
    make = factory(delays={("validate", "src/a.rs"): 0.1, ("init", None): 0.1})
    data = (frame(1, "validate", {"file": "src/a.rs"}) + frame(2, "init")
            + frame(3, "validate", {"file": "src/b.rs"}))
    _, answers = run_loop(root, data, make)
    sequence = [(e[0], e[1], e[2]) for e in make.made.events]
    reinit_start = [i for i, e in enumerate(sequence) if e[:2] == ("start", "init")][1]
    assert sequence.index(("end", "validate", "src/a.rs")) < reinit_start
    assert sequence.index(("start", "validate", "src/b.rs")) > sequence.index(("end", "init", None), reinit_start)
    assert [a["id"] for a in answers] == [1, 2, 3]


def test_many_pipelined_frames_are_all_answered_once(root):
    data = b"".join(frame(i, "type", {"file": f"src/f{i % 7}.rs", "position": POS}) for i in range(500))
    _, answers = run_loop(root, data, factory())
    table = by_id(answers)
    assert sorted(table) == list(range(500))
    assert all(table[i]["result"]["params"]["file"] == f"src/f{i % 7}.rs" for i in range(500))


def test_end_of_input_during_shutdown_lets_it_finish(root):
    # `printf '<shutdown>\n' | ferrule serve`: input ends while the analyzer is still shutting down
    make = factory(delays={("shutdown", None): 0.2})
    code, answers = run_loop(root, frame(1, "validate", {"file": "src/lib.rs"}) + frame(2, "shutdown"), make)
    assert code == 0
    assert by_id(answers)[2] == {"proto": 1, "id": 2, "ok": True, "result": {}}
    assert [e[:2] for e in make.made.events if e[1] == "shutdown"] == [("start", "shutdown"), ("end", "shutdown")]
    assert [c[0] for c in make.made.calls].count("shutdown") == 1


def test_a_budget_counts_from_arrival_including_time_queued(root):
    # the first op on the file (a change) is stuck until the one queued behind it, with 150 ms, is answered:
    # it must be answered `timeout` at its deadline, not after the first finishes, and the Session never runs it
    import asyncio
    import io

    from ferrule.relay.serve import serve_async

    released = asyncio.Event()
    make = factory(delays={("update", "src/lib.rs"): released})
    data = (frame("stuck", "update", {"file": "src/lib.rs", "content": "A"})
            + frame("queued", "complete", {"file": "src/lib.rs", "position": POS, "timeout_ms": 150})
            + frame("next", "validate", {"file": "src/lib.rs"}))

    class Out(io.BytesIO):
        def write(self, chunk):
            if any(orjson.loads(line)["id"] == "queued" for line in chunk.splitlines()):
                released.set()
            return super().write(chunk)

    out = Out()
    asyncio.run(serve_async(root, io.BytesIO(data), out, session_factory=make))
    answers = [orjson.loads(line) for line in out.getvalue().splitlines()]
    table = by_id(answers)
    assert table["queued"]["error"]["kind"] == "timeout"
    assert "150 ms" in table["queued"]["error"]["message"] and "queued" in table["queued"]["error"]["message"]
    assert [a["id"] for a in answers].index("queued") < [a["id"] for a in answers].index("stuck"), \
        "the queued op was answered while the one ahead of it was still running"
    assert not any(c[0] == "complete" for c in make.made.calls)
    # the op after it still waited for the stuck one: the file's order holds
    lib = [(e[0], e[1]) for e in make.made.events if e[2] == "src/lib.rs"]
    assert lib.index(("start", "validate")) > lib.index(("end", "update"))
    assert table["next"]["ok"] is True


def test_the_session_gets_what_is_left_of_the_budget_and_timeouts_name_the_callers(root):
    make = factory(delays={("update", "src/lib.rs"): 0.2},
                   failures={("complete", "src/lib.rs"): OpTimeout.for_op("complete", 3)})
    data = (frame(1, "update", {"file": "src/lib.rs", "content": "A"})
            + frame(2, "complete", {"file": "src/lib.rs", "position": POS, "timeout_ms": 5000}))
    _, answers = run_loop(root, data, make)
    sent = dict(make.made.calls)["complete"]["timeout_ms"]
    assert 4000 < sent < 4850  # about 200 ms were spent queued
    assert "5000 ms" in by_id(answers)[2]["error"]["message"]
