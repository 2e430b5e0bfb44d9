"""`ferrule serve` against a real rust-analyzer that is killed, stopped, or writes garbage.

Each test runs its own relay process over a private copy of a crate without std (the analyzer starts
in about a second, so every test can afford fresh ones). RUST_ANALYZER is a wrapper that logs the pid
of each analyzer it starts, so a test signals the real analyzer and counts its launches; for output
faults the wrapper is a proxy that corrupts one answer on demand (testkit/ra_proxy.py).
The in-process forms of some of these (tests/relay/test_errors.py) drive the Session directly;
these go through the real serve process and its NDJSON pipes.
"""

from __future__ import annotations

import os
import signal

import pytest

from testkit.serve_process import (
    ServeProcess,
    copy_crate,
    error,
    kill_in_flight,
    launches,
    ok,
    pending_input,
    plain_wrapper,
    proxy_wrapper,
    stop,
)
from testkit.waiting import wait_for

pytestmark = pytest.mark.live

CLEAN = {"file": "src/lib.rs"}
AT_ADD = {"file": "src/lib.rs", "position": {"line": 10, "character": 4}}  # `left` in add's body
AT_TWICE = {"file": "src/lib.rs", "position": {"line": 17, "character": 4}}  # the body of twice()
OVERLAYS = {  # each file gets an unresolved name on its own line: the diagnostic proves the overlay
    "src/alpha.rs": ("pub fn alpha_value() -> u32 {\n    missing_alpha\n}\n", 2),
    "src/beta.rs": ("//! beta\npub fn beta_value() -> u32 {\n    missing_beta\n}\n", 3),
    "src/gamma.rs": ("//! gamma\n\npub fn gamma_value() -> u32 {\n    missing_gamma\n}\n", 4),
}


@pytest.fixture
def relay(tmp_path, analyzer):
    """A warm `ferrule serve` over the fault crate, its analyzer behind a pid-logging wrapper."""
    root = copy_crate("faultcrate", tmp_path)
    wrapper, log = plain_wrapper(tmp_path, analyzer.path)
    serve = ServeProcess(root, {**analyzer.env, "RUST_ANALYZER": str(wrapper)}, tmp_path / "serve.err")
    assert ok(serve.call("validate", CLEAN))["diagnostics"] == []  # after the relay's own init
    assert len(launches(log)) == 1
    serve.log = log  # type: ignore[attr-defined]
    yield serve
    serve.kill()


def analyzer_pid(serve) -> int:
    return launches(serve.log)[-1]


def assert_crashed(answer) -> dict:
    failure = error(answer)
    assert failure["kind"] == "oracle-crashed", failure
    assert "rust-analyzer died" in failure["message"] and failure["recipe"]
    return failure


def assert_healthy(serve) -> None:
    assert ok(serve.call("validate", CLEAN))["diagnostics"] == []
    assert ok(serve.call("type", AT_ADD))["display"].startswith("left: u32")


def test_killed_mid_validate_answers_oracle_crashed_then_respawns_once(relay):
    pid = analyzer_pid(relay)
    sent = []
    kill_in_flight(pid, lambda: sent.append(relay.send("validate", {**CLEAN, "content": "pub fn x() {}\n"})), relay)
    failure = assert_crashed(relay.wait(sent[0][0], timeout=15)[1])
    assert "retry" in failure["recipe"]
    assert launches(relay.log) == [pid], "nothing respawned before the next op"
    assert_healthy(relay)
    assert len(launches(relay.log)) == 2, "the next op respawned the analyzer exactly once"


def test_killed_mid_complete_answers_oracle_crashed_then_respawns_once(relay):
    pid = analyzer_pid(relay)
    sent = []
    kill_in_flight(pid, lambda: sent.append(relay.send("complete", {**AT_TWICE, "prefix": "d"})), relay)
    assert_crashed(relay.wait(sent[0][0], timeout=15)[1])
    entries = ok(relay.call("complete", {**AT_TWICE, "prefix": "d"}))["entries"]
    assert [e["name"] for e in entries] == ["doubled"]
    assert len(launches(relay.log)) == 2


def test_killed_while_idle_every_overlay_comes_back(relay):
    for file, (text, _) in OVERLAYS.items():
        ok(relay.call("update", {"file": file, "content": text}))
    pid = analyzer_pid(relay)
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not os.path.exists(f"/proc/{pid}/status") or _zombie(pid), what="the analyzer to die")
    assert_crashed(relay.call("validate", CLEAN))  # the death is reported once
    for file, (_, line) in OVERLAYS.items():  # validated without content: the analyzer's view of the overlay
        diagnostics = ok(relay.call("validate", {"file": file}))["diagnostics"]
        assert [(d["code"], d["line"]) for d in diagnostics] == [("E0425", line)], (file, diagnostics)
    assert len(launches(relay.log)) == 2, "respawned once"
    assert_healthy(relay)
    for file in OVERLAYS:  # the disk never changed: dropping the overlays gives the clean files back
        ok(relay.call("update", {"file": file, "content": None}))
        assert ok(relay.call("validate", {"file": file}))["diagnostics"] == []


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except OSError:
        return True


def test_killed_twice_in_a_row_is_a_clear_error_without_a_respawn_loop(relay):
    os.kill(analyzer_pid(relay), signal.SIGKILL)
    assert_crashed(relay.call("validate", CLEAN))
    sent = []
    # The next op respawns it; kill the new analyzer while that op is in flight.
    request_id, _ = relay.send("validate", CLEAN)
    wait_for(lambda: len(launches(relay.log)) == 2, what="the respawn")
    second = analyzer_pid(relay)
    wait_for(lambda: os.path.exists(f"/proc/{second}/fd/0"), what="the respawned analyzer")
    answered = relay.answers.get(request_id)
    if answered is None:  # still starting or working: it dies under the op
        os.kill(second, signal.SIGKILL)
        failure = assert_crashed(relay.wait(request_id, timeout=30)[1])
        assert "twice in a row" in failure["message"] and "init" in failure["recipe"]
    else:  # it answered first: the second death is reported by the next op
        ok(answered[1])
        os.kill(second, signal.SIGKILL)
        sent.append(relay.call("validate", CLEAN))
    for _ in range(5):
        failure = error(relay.call("validate", CLEAN, timeout=10))
        assert failure["kind"] == "oracle-crashed" and "init" in failure["recipe"], failure
    assert len(launches(relay.log)) == 2, "refusals, without trying to start anything: no respawn loop"
    assert ok(relay.call("init"))["quiescent"] is True  # init starts it afresh
    assert_healthy(relay)
    assert len(launches(relay.log)) == 3


BUDGET_MS = 2000


def test_stopped_past_the_budget_times_out_at_the_budget_then_recovers(relay):
    pid = analyzer_pid(relay)
    stop(pid)
    try:  # three files, so the three ops run side by side
        sent = {op: relay.send(op, {**params, "timeout_ms": BUDGET_MS}) for op, params in (
            ("validate", {"file": "src/alpha.rs", "content": "pub fn alpha_value() -> u32 { 1 }\n"}),
            ("type", AT_ADD),
            ("complete", {"file": "src/beta.rs", "position": {"line": 4, "character": 4}}),
        )}
        for op, (request_id, at) in sent.items():
            # the stopped analyzer cannot answer: the relay's own budget does, and not before it runs out
            arrived, answer = relay.wait(request_id, timeout=60)
            failure = error(answer)
            assert failure["kind"] == "timeout", failure
            assert op in failure["message"] and f"{BUDGET_MS} ms" in failure["message"]
            assert arrived - at >= BUDGET_MS / 1000, f"{op} answered before its budget ran out"
        waiting = pending_input(pid)  # through a pipe: the stopped analyzer never read them
        assert waiting is None or waiting > 0
    finally:
        os.kill(pid, signal.SIGCONT)
    assert_healthy(relay)
    assert ok(relay.call("validate", {"file": "src/alpha.rs"}))["diagnostics"] == []  # the transient text is gone
    assert [e["name"] for e in ok(relay.call("complete", {**AT_TWICE, "prefix": "d"}))["entries"]] == ["doubled"]
    assert launches(relay.log) == [pid], "a stopped analyzer is waited for, not replaced"


def test_an_op_queued_behind_a_stuck_one_still_answers_within_its_budget(relay):
    pid = analyzer_pid(relay)
    stop(pid)
    try:  # the queued op's budget runs out first: its answer must not wait for the stuck one's
        first = relay.send("type", {**AT_ADD, "timeout_ms": 3 * BUDGET_MS})
        queued = relay.send("complete", {**AT_TWICE, "prefix": "d", "timeout_ms": BUDGET_MS})  # same file
        (queued_at, queued_answer), (first_at, first_answer) = (relay.wait(request_id, timeout=60)
                                                                for request_id, _ in (queued, first))
        assert error(queued_answer)["kind"] == "timeout" and error(first_answer)["kind"] == "timeout"
        assert queued_at < first_at, "the queued op was answered only after the stuck one"
    finally:
        os.kill(pid, signal.SIGCONT)


# ---- an analyzer whose output is corrupted --------------------------------------------------------


@pytest.fixture
def proxied(tmp_path, analyzer):
    root = copy_crate("faultcrate", tmp_path)
    wrapper, log, control = proxy_wrapper(tmp_path, analyzer.path)
    serve = ServeProcess(root, {**analyzer.env, "RUST_ANALYZER": str(wrapper)}, tmp_path / "serve.err")
    assert ok(serve.call("validate", CLEAN))["diagnostics"] == []
    serve.log, serve.control = log, control  # type: ignore[attr-defined]
    yield serve
    serve.kill()


def arm(serve, fault: str, method: str = "textDocument/hover") -> None:
    serve.control.write_text(f"{fault} {method}")


def recovers(serve, tries: int = 3) -> int:
    """Ops until one answers correctly again (each bounded): how many failed first."""
    for failed in range(tries):
        answer = serve.call("type", {**AT_ADD, "timeout_ms": BUDGET_MS}, timeout=30)
        if answer["ok"]:
            assert answer["result"]["display"].startswith("left: u32")
            return failed
        assert error(answer)["kind"] in ("timeout", "oracle-crashed"), answer
    raise AssertionError(f"the session did not answer correctly within {tries} ops")


@pytest.mark.parametrize("fault", ["garbage", "badjson", "truncate-stall"])
def test_a_lost_answer_is_a_timeout_within_the_budget_and_the_session_recovers(proxied, fault):
    arm(proxied, fault)
    _, answer = proxied.timed("type", {**AT_ADD, "timeout_ms": BUDGET_MS}, timeout=30)
    assert not proxied.control.exists(), "the fault fired"
    failure = error(answer)
    assert failure["kind"] in ("timeout", "oracle-crashed"), failure
    if failure["kind"] == "timeout":  # the budget answered for the lost answer, not the analyzer
        assert f"{BUDGET_MS} ms" in failure["message"], failure
    assert recovers(proxied) <= 2
    assert_healthy(proxied)


def test_a_truncated_frame_then_exit_is_oracle_crashed_at_once(proxied):
    arm(proxied, "truncate-exit")
    _, answer = proxied.timed("type", AT_ADD, timeout=30)  # the default budget: 20 s
    assert_crashed(answer)  # the exit answered, not the budget (that would be a timeout)
    assert_healthy(proxied)
    assert len(launches(proxied.log)) == 2


@pytest.mark.parametrize("fault", ["garbage", "badjson"])
def test_output_that_is_not_lsp_is_a_clear_error_at_once(proxied, fault):
    arm(proxied, fault)
    _, answer = proxied.timed("type", {**AT_ADD, "timeout_ms": 6000}, timeout=40)
    failure = error(answer)
    # the garbage answered, not the budget (that would be a timeout)
    assert failure["kind"] == "oracle-crashed" and "not LSP" in failure["message"], failure
    assert_healthy(proxied)
