"""The server as a real subprocess over pipes, on each twin of fastframe and capture."""

from __future__ import annotations

import os
import subprocess
import sys

import orjson
import pytest

from testkit.mcp import SAMPLE_SERVER, call, notification, request
from testkit.waiting import wait_for


def initialize(child, version="2025-11-25"):
    answer = child.ask(request(0, "initialize", {"protocolVersion": version, "capabilities": {},
                                                 "clientInfo": {"name": "t", "version": "0"}}))
    child.send(notification("notifications/initialized"))
    return answer


def text_of(message):
    return message["result"]["content"][0]["text"]


def test_the_twins_asked_for_are_the_ones_serving(spawn, twin):
    child = spawn(twin)
    initialize(child)
    loaded = child.ask(call(1, "implementations"))["result"]["structuredContent"]
    assert loaded == {"fastframe": str(twin), "capture": str(twin), "server": str(twin)}


def test_serves_until_end_of_input_then_exits_0(spawn, twin):
    child = spawn(twin)
    assert initialize(child)["result"]["protocolVersion"] == "2025-11-25"
    assert text_of(child.ask(call(1, "echo", {"text": "hello"}))) == "hello"
    assert child.close_input() == 0
    assert child.rest_of_stdout() == b""


def test_stray_output_never_reaches_the_channel(spawn, twin):
    child = spawn(twin)
    initialize(child)
    answer = child.ask(call(1, "child_output", {"marker": "m1"}))
    report = text_of(answer)
    assert report.startswith("ran m1\n\n--- stderr ---\n")
    # the child's stderr, and (fd 1 being an alias of fd 2) the stdout of the child and of the tool
    for line in ("child-err m1", "child-out m1", "stray print m1", "raw fd1 write m1"):
        assert line in report
    assert text_of(child.ask(call(2, "echo", {"text": "still fine"}))) == "still fine"
    assert child.close_input() == 0
    assert child.rest_of_stdout() == b""  # nothing but the answers was ever written to stdout


def test_a_failing_tool_logs_its_traceback_to_the_server_stderr(spawn, twin):
    child = spawn(twin)
    answer = child.ask(call(1, "explode"))
    assert answer["result"]["isError"] is True
    assert "RuntimeError: the tool blew up" in text_of(answer)
    assert "about to fail" in text_of(answer)
    assert child.close_input() == 0
    assert "Traceback" in child.stderr() and "the tool blew up" in child.stderr()


def test_a_failing_tool_traceback_reaches_the_host_log_before_its_answer(spawn, twin):
    child = spawn(twin)
    answer = child.ask(call(1, "explode"))
    assert "about to fail" in text_of(answer)
    assert "RuntimeError: the tool blew up" in child.stderr()  # not held back until the next call
    assert "about to fail" not in child.stderr()  # the call's own text went into its report only
    assert child.close_input() == 0


def spoken(folder, marker: str) -> bool:
    """Whether the thread and the child a `later` call left behind have both written their line."""
    return (folder / f"{marker}.thread").exists() and (folder / f"{marker}.child").exists()


def test_what_a_call_leaves_behind_reaches_the_host_log_not_the_next_report(spawn, twin, tmp_path):
    child = spawn(twin, SAMPLE_SPOKEN=str(tmp_path))
    assert text_of(child.ask(call(1, "later", {"marker": "m7"}))) == "left m7 behind"
    wait_for(lambda: spoken(tmp_path, "m7"), what="the leftovers to speak while the server waits for input")
    assert text_of(child.ask(call(2, "echo", {"text": "clean"}))) == "clean"
    assert "thread m7" in child.stderr() and "child m7" in child.stderr()
    assert child.close_input() == 0


def test_the_servers_own_stderr_reaches_the_host_log_at_the_end(spawn, twin, tmp_path):
    child = spawn(twin, SAMPLE_SPOKEN=str(tmp_path))
    child.send(call(1, "later", {"marker": "m8", "seconds": 0.3}))
    assert text_of(child.recv()) == "left m8 behind"
    wait_for(lambda: spoken(tmp_path, "m8"), what="the leftovers to speak while the server waits for input")
    assert child.close_input() == 0  # nothing more was asked: the exit forwards what is left
    assert "thread m8" in child.stderr()


def test_pipelined_requests_are_answered_in_order(spawn, twin):
    child = spawn(twin)
    initialize(child)
    child.send(*[call(i, "echo", {"text": f"n{i}"}) for i in range(1, 301)])
    answers = [child.recv() for _ in range(300)]
    assert [a["id"] for a in answers] == list(range(1, 301))
    assert [text_of(a) for a in answers] == [f"n{i}" for i in range(1, 301)]


def test_a_queued_request_cancelled_in_the_same_write_is_never_answered(spawn, twin):
    child = spawn(twin)
    child.send(call(1, "nap", {"seconds": 0.3}), call(2, "nap", {"seconds": 5}),
               notification("notifications/cancelled", {"requestId": 2, "reason": "changed my mind"}),
               call(3, "echo", {"text": "after"}))
    assert child.recv()["id"] == 1
    assert child.recv(timeout=3)["id"] == 3  # 2 was never run: no five-second wait
    assert child.quiet()


def test_malformed_lines_are_answered_and_the_loop_goes_on(spawn, twin):
    child = spawn(twin)
    child.send(b"garbage\n", b"[1,2]\n", b'{"jsonrpc":"2.0","id":9}\n', request(1, "ping"))
    answers = [child.recv() for _ in range(4)]
    assert [(a["id"], a.get("error", {}).get("code")) for a in answers] == [
        (None, -32700), (None, -32600), (9, -32600), (1, None)]


def test_notifications_without_the_jsonrpc_member_get_no_answer(spawn, twin):
    child = spawn(twin)
    child.send(b'{"method":"notifications/initialized"}\n', b'{"method":"notifications/cancelled"}\n',
               request(1, "ping"))
    assert child.recv() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert child.quiet()


def test_integers_written_as_floats_reach_the_tool_as_ints(spawn, twin):
    child = spawn(twin)
    head = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"locate","arguments":'
    child.send(head % 1 + b'{"line":17.0,"character":4.0}}}\n', head % 2 + b'{"line":17.5}}}\n')
    first, second = child.recv(), child.recv()
    assert first["result"] == {"content": [{"type": "text", "text": "{'line': 17, 'character': 4}"}],
                               "isError": False}
    assert second["result"]["isError"] is True
    assert "argument 'line': expected integer, got number" in text_of(second)


def test_a_2025_03_26_session_gets_a_batch_answered_as_one_array(spawn, twin):
    child = spawn(twin)
    assert initialize(child, "2025-03-26")["result"]["protocolVersion"] == "2025-03-26"
    members = [call(1, "steps", {"count": 2}, _meta={"progressToken": "p"}), notification("notifications/x"),
               call(2, "locate", {"line": 3.0}), request(3, "ping")]
    child.send(b"[" + b",".join(orjson.dumps(m) for m in members) + b"]\n",
               b'[{"jsonrpc":"2.0","method":"notifications/initialized"}]\n', b"[]\n", request(4, "ping"))
    progress = [child.recv(), child.recv()]  # sent while the batch runs, each on its own line
    assert [p["params"]["progress"] for p in progress] == [1, 2]
    assert all(p["method"] == "notifications/progress" for p in progress)
    answers = child.recv()
    assert [a["id"] for a in answers] == [1, 2, 3]
    assert [text_of(a) for a in answers[:2]] == ["done", "{'line': 3}"]
    assert child.recv()["error"]["code"] == -32600  # the empty batch: one error, not an array
    assert child.recv() == {"jsonrpc": "2.0", "id": 4, "result": {}}  # nothing for the notification batch
    assert child.quiet()


def test_over_long_lines_are_refused_and_the_next_line_served(spawn, twin):
    child = spawn(twin, SAMPLE_MAX_LINE="4096")
    big = orjson.dumps(call(1, "echo", {"text": "x" * 200_000})) + b"\n"  # arrives over many reads
    child.send(big, call(2, "echo", {"text": "y" * 3000}), big, big, call(3, "echo", {"text": "z"}))
    answers = [child.recv() for _ in range(5)]
    assert [a["id"] for a in answers] == [None, 2, None, None, 3]
    assert all(a["error"]["code"] == -32600 for a in answers if a["id"] is None)
    assert text_of(answers[1]) == "y" * 3000


def test_big_lines_within_the_default_bound_are_served(spawn, twin):
    child = spawn(twin)
    text = "é" * 3_000_000  # 6 MB of UTF-8 in one line
    answer = child.ask(call(1, "echo", {"text": text}))
    assert text_of(answer) == text


def test_line_endings_and_a_last_line_without_newline(spawn, twin):
    child = spawn(twin)
    child.send(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n', b'{"jsonrpc":"2.0","id":2,"method":"ping"}')
    assert child.recv()["id"] == 1
    assert child.close_input() == 0
    assert orjson.loads(child.rest_of_stdout()) == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_invalid_utf8_is_served_with_replacement_characters(spawn, twin):
    child = spawn(twin)
    child.send(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"\xfe!"}}}\n')
    assert text_of(child.recv()) == "\ufffd!"


def test_tools_cannot_prompt(spawn, twin):
    child = spawn(twin)
    child.send(call(1, "ask"), call(2, "echo", {"text": "next"}))
    assert text_of(child.recv()) == "own='' child=b''"  # the protocol input was not swallowed
    assert text_of(child.recv()) == "next"


def test_progress_over_pipes(spawn, twin):
    child = spawn(twin)
    initialize(child)
    child.send(call(1, "steps", {"count": 3}, _meta={"progressToken": 41}))
    notes = [child.recv() for _ in range(3)]
    final = child.recv()
    assert [n["params"] for n in notes] == [
        {"progressToken": 41, "progress": i, "total": 3, "message": f"step {i}"} for i in (1, 2, 3)]
    assert final["id"] == 1 and text_of(final) == "done"
    assert child.quiet()


def test_captured_stderr_is_bounded(spawn, twin):
    child = spawn(twin, SAMPLE_STDERR_LIMIT="1000")
    report = text_of(child.ask(call(1, "chatty", {"size": 1_000_000})))
    stderr = report.partition("--- stderr ---\n")[2]
    assert stderr.startswith("[stderr truncated: the first 999000 bytes were cut]")
    assert stderr.endswith("xEND\n")


def test_a_dead_channel_ends_the_loop_with_exit_0(spawn, twin):
    child = spawn(twin)
    assert child.ask(request(1, "ping"))["result"] == {}
    child.proc.stdout.close()  # the host stops reading: the next write meets EPIPE
    child.send(call(2, "echo", {"text": "into the void"}))
    assert child.proc.wait(timeout=20) == 0
    assert "Traceback" not in child.stderr()


@pytest.mark.parametrize("closed", [0, 1])
def test_a_closed_stdin_or_stdout_ends_the_server_with_a_note(twin, closed):
    proc = subprocess.run([sys.executable, str(SAMPLE_SERVER)], env=twin.env(), capture_output=True,
                          preexec_fn=lambda: os.close(closed), timeout=30)
    assert proc.returncode == 0
    assert b"no stdio channel to serve" in proc.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="pipe sizes are set on Linux only")
def test_the_hosts_pipe_is_widened_for_large_arguments(spawn, twin):
    import fcntl

    from ferrule._pipes import PIPE_BYTES

    child = spawn(twin)
    initialize(child)
    assert fcntl.fcntl(child.proc.stdin.fileno(), fcntl.F_GETPIPE_SZ) == PIPE_BYTES
    text = "x" * 300_000  # more than the pipe holds: read in pieces all the same
    assert text_of(child.ask(call(1, "echo", {"text": text}))) == text
