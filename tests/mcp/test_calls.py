"""What happens around a tool run: the capture guard, no prompts, progress, cancellation, batching."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest
from mcp_types import methods as wire_types

from ferrule.mcp import ReplayTransport, Server, bound_progress, progress, tool
from testkit.mcp import call, notification, replay, request


@tool
def noisy(size: int = 0) -> str:
    """Writes to stderr three ways: Python, the raw fd, and a child process."""
    # sys.__stderr__: under pytest sys.stderr is pytest's own object; in a server it is fd 2 (the
    # subprocess tests show a plain print(file=sys.stderr) landing in the report).
    print("python stderr line", file=sys.__stderr__, flush=True)
    os.write(2, b"raw fd 2 line\n")
    subprocess.run([sys.executable, "-c", "import sys; sys.stderr.write('child stderr line\\n')"], check=True)
    if size:
        os.write(2, b"y" * size + b"TAIL\n")
    return "report body"


@tool
def quiet() -> str:
    """Says nothing on stderr."""
    return "just the report"


@tool
def ask() -> str:
    """Tries to read stdin itself and through a child."""
    own = sys.stdin.read()
    child = subprocess.run(["cat"], capture_output=True, timeout=10).stdout
    return f"own={own!r} child={child!r}"


@tool
def steps(count: int) -> str:
    """Reports progress, including values that do not increase."""
    sent = [progress(i, count, f"step {i}") for i in range(1, count + 1)]
    sent.append(progress(count - 1, count, "backwards"))
    sent.append(progress(count, count, "same again"))
    return ",".join("sent" if s else "dropped" for s in sent)


late: list[bool] = []
lingerers: list[threading.Thread] = []
call_over = threading.Event()  # set by the test once the server has answered the call


@tool
def lingering() -> str:
    """Starts a thread that reports progress, bound to the call, after the call returned."""
    report = bound_progress()

    def later() -> None:
        call_over.wait(10)
        late.append(report(99, 100, "too late"))

    progress(1, 100)
    lingerers.append(threading.Thread(target=later))
    lingerers[-1].start()
    return "returned"


runs: list[str] = []


@tool
def record(tag: str) -> str:
    """Records that it ran."""
    runs.append(tag)
    return tag


@tool
def explode() -> str:
    """Says something, then raises."""
    os.write(2, b"about to fail\n")
    raise RuntimeError("the tool blew up")


@tool
def slow(seconds: float) -> str:
    """Sleeps."""
    time.sleep(seconds)
    return "slept"


@pytest.fixture
def server(use_twin: str, capture_mode: str) -> Server:
    runs.clear()
    return Server("calls", "1", [noisy, quiet, ask, steps, lingering, record, slow, explode], stderr_limit=2000)


def text_of(message: dict) -> str:
    return message["result"]["content"][0]["text"]


def test_stderr_of_the_run_children_included_is_appended_to_the_report(server):
    out = replay(server, call(1, "noisy"), call(2, "quiet"))
    report = text_of(out[0])
    body, _, stderr = report.partition("\n\n--- stderr ---\n")
    assert body == "report body"
    assert "python stderr line" in stderr and "raw fd 2 line" in stderr and "child stderr line" in stderr
    assert text_of(out[1]) == "just the report"  # nothing captured, nothing appended; no leak from before


class LoggingBetweenReads(ReplayTransport):
    """A replay during whose waits for input something else writes to fd 2 (a thread, a child)."""

    def read_batch(self):
        os.write(2, b"written while the server waited\n")
        return super().read_batch()


def test_what_is_written_between_calls_reaches_stderr_and_no_report(server, capfd):
    identities = os.fstat(2).st_ino, os.fstat(1).st_ino
    transport = LoggingBetweenReads([call(1, "noisy"), call(2, "explode"), call(3, "quiet")])
    server.run(transport)
    noisy_report, failed, quiet_report = map(text_of, transport.messages())
    assert "raw fd 2 line" in noisy_report and "waited" not in noisy_report
    assert failed.endswith("--- stderr ---\nabout to fail\n")
    assert quiet_report == "just the report"
    err = capfd.readouterr().err
    assert err.count("written while the server waited") == 4  # three calls, then the end of input
    assert "RuntimeError: the tool blew up" in err and "Traceback" in err
    assert "about to fail" not in err and "raw fd 2 line" not in err
    assert (os.fstat(2).st_ino, os.fstat(1).st_ino) == identities
    from ferrule._capture_shared import ACTIVE

    assert not ACTIVE.locked()


def test_captured_stderr_is_bounded_keeping_the_tail(server):
    out = replay(server, call(1, "noisy", {"size": 10_000}))
    stderr = text_of(out[0]).partition("--- stderr ---\n")[2]
    assert stderr.rstrip().endswith("TAIL")
    assert "truncated" in stderr.splitlines()[0]
    assert len(stderr.encode()) < 2200
    assert "python stderr line" not in stderr  # the head was cut


def test_tools_cannot_prompt_stdin_is_devnull_inside_a_call(server):
    out = replay(server, call(1, "ask"))
    assert text_of(out[0]) == "own='' child=b''"


@pytest.mark.parametrize(("token", "version"), [("tok-1", "2025-11-25"), (7, "2025-03-26"), (0, "2024-11-05")])
def test_progress_notifications_echo_the_token_and_only_increase(server, token, version):
    out = replay(
        server,
        request(1, "initialize", {"protocolVersion": version}),
        call(2, "steps", {"count": 3}, _meta={"progressToken": token}),
    )
    notes, answer = out[1:-1], out[-1]
    assert answer["id"] == 2 and text_of(answer) == "sent,sent,sent,dropped,dropped"
    assert [n["method"] for n in notes] == ["notifications/progress"] * 3
    for n in notes:
        assert n["params"]["progressToken"] == token and type(n["params"]["progressToken"]) is type(token)
        assert "id" not in n
        wire_types.parse_server_notification("notifications/progress", version, n["params"])
    assert [n["params"]["progress"] for n in notes] == [1, 2, 3]
    assert all(n["params"]["total"] == 3 for n in notes)
    if version == "2024-11-05":
        assert all("message" not in n["params"] for n in notes)  # the field came in 2025-03-26
    else:
        assert [n["params"]["message"] for n in notes] == ["step 1", "step 2", "step 3"]


def test_progress_without_a_token_sends_nothing(server):
    out = replay(server, call(1, "steps", {"count": 2}), call(2, "steps", {"count": 2}, _meta={"progressToken": True}))
    assert [m["id"] for m in out] == [1, 2]
    assert text_of(out[0]) == "dropped,dropped,dropped,dropped"
    assert progress(1) is False  # outside any call


@tool
def delegating() -> str:
    """Reports from a thread of its own, which the call's context does not reach."""
    sent: list[bool] = []
    report = bound_progress()
    worker = threading.Thread(target=lambda: sent.extend([progress(1, 2, "unbound"), report(2, 2, "bound")]))
    worker.start()
    worker.join()
    return ",".join("sent" if s else "dropped" for s in sent)


def test_a_thread_the_tool_starts_reports_through_the_calls_bound_progress():
    transport = ReplayTransport([call(1, "delegating", _meta={"progressToken": "t"})])
    Server("s", "1", [delegating]).run(transport)
    note, answer = transport.messages()
    assert note["params"] == {"progressToken": "t", "progress": 2, "total": 2, "message": "bound"}
    assert text_of(answer) == "dropped,sent"
    assert bound_progress()(3) is False  # outside any call


def test_nothing_follows_the_final_response(server):
    late.clear()
    call_over.clear()
    transport = ReplayTransport([call(1, "lingering", _meta={"progressToken": "t"})])
    server.run(transport)
    call_over.set()
    lingerers.pop().join(10)  # the thread has tried to report, after the call was over
    out = transport.messages()
    assert [m.get("method", m.get("id")) for m in out] == ["notifications/progress", 1]
    assert late == [False]


def test_a_cancelled_request_still_queued_is_neither_run_nor_answered(server):
    out = replay(
        server,
        call(1, "record", {"tag": "answered"}),
        (
            notification("notifications/cancelled", {"requestId": 1}),  # already answered: ignored
            call(2, "record", {"tag": "second"}),
            call(3, "record", {"tag": "cancelled"}),
            call(4, "record", {"tag": "fourth"}),
            notification("notifications/cancelled", {"requestId": 3, "reason": "user aborted"}),
        ),
    )
    assert runs == ["answered", "second", "fourth"]
    assert [m["id"] for m in out] == [1, 2, 4]


def test_cancellation_matches_the_id_exactly_and_only_earlier_requests(server):
    out = replay(
        server,
        (
            notification("notifications/cancelled", {"requestId": 5}),  # before the request: not it
            call(5, "record", {"tag": "five"}),
            call("6", "record", {"tag": "string six"}),
            notification("notifications/cancelled", {"requestId": 6}),  # 6 is not "6"
            request(7, "initialize", {"protocolVersion": "2025-11-25"}),
            notification("notifications/cancelled", {"requestId": 7}),  # initialize cannot be cancelled
            notification("notifications/cancelled", {"requestId": 404}),
        ),
    )
    assert runs == ["five", "string six"]
    assert [m["id"] for m in out] == [5, "6", 7]


def test_a_cancel_that_is_not_json_rpc_2_is_absorbed_and_cancels_nothing(server):
    out = replay(
        server,
        (
            call(1, "record", {"tag": "one"}),
            {"jsonrpc": "1.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
            call(2, "record", {"tag": "two"}),
            {"method": "notifications/cancelled", "params": {"requestId": 2}},  # no jsonrpc member
        ),
    )
    assert runs == ["one", "two"]
    assert [(m["id"], m.get("error", {}).get("code")) for m in out] == [(1, None), (2, None)]


def test_a_batch_of_quick_calls_is_answered_in_one_write(server, monkeypatch):
    monkeypatch.setattr(sys.modules[type(server).__module__], "_QUICK_SECONDS", 1.0)  # "quick" must not hang on a noisy machine
    script = (request(0, "ping"), call(1, "quiet")) + tuple(call(i, "record", {"tag": str(i)}) for i in range(2, 50))
    warm_up = (request("w", "ping"), call("warm", "record", {"tag": "warm"}))
    transport = ReplayTransport([warm_up, script])
    server.run(transport)
    assert [m["id"] for m in transport.messages()] == ["w", "warm", *range(50)]
    # the warm-up's ping, before `record` first ran, then its answer; the ping, before `quiet` first
    # ran; the other 49 at once
    assert transport.writes == 4


def test_a_tool_called_only_in_lockstep_is_new_to_its_first_read_of_several_lines(server, monkeypatch):
    # lockstep calls are not timed, so the answers ahead of the tool's first call in a read of several
    # lines go out before it runs, as before any tool whose time is not known
    monkeypatch.setattr(sys.modules[type(server).__module__], "_QUICK_SECONDS", 1.0)
    transport = ReplayTransport([call("a", "record", {"tag": "a"}), call("b", "record", {"tag": "b"}),
                                 (request(1, "ping"), call(2, "record", {"tag": "2"})),
                                 (request(3, "ping"), call(4, "record", {"tag": "4"}))])
    server.run(transport)
    assert [m["id"] for m in transport.messages()] == ["a", "b", 1, 2, 3, 4]
    assert transport.writes == 5  # "a"; "b"; ping 1 before `record` was timed, then 2; 3 and 4 at once


def test_answers_are_not_held_behind_a_slow_tool(server):
    transport = ReplayTransport([(request(1, "ping"), call(2, "slow", {"seconds": 0.01}), request(3, "ping"))])
    server.run(transport)
    assert [m["id"] for m in transport.messages()] == [1, 2, 3]
    assert transport.writes == 2  # the ping went out before the slow tool started


def test_a_capture_already_active_is_an_internal_error_not_a_crash(server):
    from ferrule import capture

    with capture.capture_stderr():
        out = replay(server, call(1, "quiet"), request(2, "ping"))
    assert out[0]["error"]["code"] == -32603
    assert "docs/MCP.md §4.2" in out[0]["error"]["message"]
    assert out[1]["result"] == {}
