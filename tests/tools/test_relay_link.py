"""The shared relay link: lazy start, one retry after a crash, progress forwarded and kept growing.

A scripted session stands in for the relay here; the live chain (test_live_chain.py) runs the same
paths against the real rust-analyzer.
"""

from __future__ import annotations

import threading

from ferrule.project import AnalyzerMissing, OpTimeout, OracleCrashed
from testkit.tools import INIT
from testkit.tools import scripted_link as link


def ops(session):
    return [op for op, _ in session.calls]


def test_the_session_starts_on_the_first_call_and_is_shared(tmp_path):
    relay, sessions = link(tmp_path, {"version": 1}, {"display": "u8"})
    assert not relay.started and sessions == []
    assert relay.call("update", {"file": "a.rs", "content": "x"}).result == {"version": 1}
    assert relay.call("type", {"file": "a.rs"}).result == {"display": "u8"}
    assert len(sessions) == 1 and sessions[0].analyzer == "/opt/ra" and sessions[0].root == tmp_path
    assert ops(sessions[0]) == ["init", "update", "type"]
    assert relay.init_result == INIT


def test_a_crash_is_retried_once_and_the_retry_answers(tmp_path):
    relay, sessions = link(tmp_path, OracleCrashed("stream closed"), {"display": "u8"})
    outcome = relay.call("type", {"file": "a.rs"})
    assert outcome.result == {"display": "u8"} and outcome.retried and outcome.error is None
    assert ops(sessions[0]) == ["init", "type", "type"]
    assert relay.crashes == 1


def test_a_second_crash_reaches_the_caller_and_is_not_retried_again(tmp_path):
    relay, sessions = link(tmp_path, OracleCrashed("died"), OracleCrashed("died again"), {"display": "ok"})
    outcome = relay.call("validate", {"file": "a.rs"})
    assert outcome.error is not None and outcome.error.kind == "oracle-crashed" and outcome.retried
    assert ops(sessions[0]) == ["init", "validate", "validate"]
    # The session stays: the next call goes to the (respawned) analyzer.
    assert relay.call("validate", {"file": "a.rs"}).result == {"display": "ok"}


def test_other_errors_are_answered_without_retry(tmp_path):
    relay, sessions = link(tmp_path, OpTimeout.for_op("type", 50), AnalyzerMissing("none found"))
    first = relay.call("type", {"file": "a.rs"})
    assert first.error.kind == "timeout" and not first.retried
    assert relay.call("type", {"file": "a.rs"}).error.kind == "rust-analyzer-missing"
    assert ops(sessions[0]) == ["init", "type", "type"]


def test_a_failed_start_keeps_nothing_and_the_next_call_starts_again(tmp_path):
    relay, sessions = link(tmp_path, {"display": "u8"}, starts=[AnalyzerMissing("no rust-analyzer"), INIT])
    first = relay.call("type", {"file": "a.rs"})
    assert first.error.kind == "rust-analyzer-missing" and first.error.recipe
    assert not relay.started and sessions[0].closed == 1
    assert relay.call("type", {"file": "a.rs"}).result == {"display": "u8"}
    assert len(sessions) == 2 and ops(sessions[1]) == ["init", "type"]


def test_an_analyzer_that_dies_while_starting_is_started_once_more(tmp_path):
    relay, sessions = link(tmp_path, {"version": 1}, starts=[OracleCrashed("died indexing"), INIT])
    outcome = relay.call("update", {"file": "a.rs", "content": ""})
    assert outcome.result == {"version": 1} and outcome.retried and len(sessions) == 2


def test_progress_reaches_the_waiting_call_and_always_grows(tmp_path):
    def indexing(session):
        # The relay reports from its own thread, and rust-analyzer's percentages restart per phase.
        def report():
            session.on_progress("Indexing", 90)
            session.on_progress("Roots Scanned", 10)
            session.on_progress("", None)

        thread = threading.Thread(target=report)
        thread.start()
        thread.join()
        return {"diagnostics": []}

    relay, _ = link(tmp_path, indexing)
    notes = []
    relay.call("validate", {"file": "a.rs"}, progress=lambda done, total, message: notes.append((done, total, message)))
    assert notes == [(1, None, "rust-analyzer: Indexing (90%)"), (2, None, "rust-analyzer: Roots Scanned (10%)"),
                     (3, None, "rust-analyzer is indexing")]
    # Between calls, and for a call without a reporter, progress goes nowhere and breaks nothing.
    relay._on_progress("late", 5)
    assert len(notes) == 3


def test_progress_within_a_phase_is_thinned_but_every_new_phase_goes_out(tmp_path, monkeypatch):
    def indexing(session):
        for step in range(1, 30):
            session.on_progress(f"Indexing: {step}/30 (core)", step * 3)
        session.on_progress("Loading proc-macros", None)
        return {"diagnostics": []}

    relay, _ = link(tmp_path, indexing, indexing)
    notes = []
    relay.call("validate", {"file": "a.rs"}, progress=lambda *note: notes.append(note))
    assert [message for _, _, message in notes] == ["rust-analyzer: Indexing: 1/30 (core) (3%)",
                                                     "rust-analyzer: Loading proc-macros"]
    monkeypatch.setattr("ferrule.tools.relay_link.PROGRESS_INTERVAL_S", 0.0)
    notes.clear()
    relay.call("validate", {"file": "a.rs"}, progress=lambda *note: notes.append(note))
    assert len(notes) == 30 and [done for done, _, _ in notes] == list(range(1, 31))


def test_a_failing_reporter_does_not_fail_the_op(tmp_path):
    def noisy(session):
        session.on_progress("Indexing", 1)
        return {"version": 2}

    def broken(done, total, message):
        raise BrokenPipeError

    relay, _ = link(tmp_path, noisy)
    assert relay.call("update", {"file": "a.rs", "content": ""}, progress=broken).result == {"version": 2}


def test_close_shuts_the_session_once(tmp_path):
    relay, sessions = link(tmp_path, {"version": 1})
    relay.close()  # never started: nothing to do
    relay.call("update", {"file": "a.rs", "content": ""})
    relay.close()
    relay.close()
    assert sessions[0].closed == 1 and not relay.started


def test_after_a_final_close_no_call_starts_an_analyzer_again(tmp_path):
    relay, sessions = link(tmp_path, {"version": 1}, {"version": 2})
    relay.call("update", {"file": "a.rs", "content": ""})
    relay.close()  # a later call starts afresh
    assert relay.call("update", {"file": "a.rs", "content": ""}).result == {"version": 2} and len(sessions) == 2
    relay.close(final=True)  # the server is stopping: calls still on their way start nothing
    refused = relay.call("update", {"file": "a.rs", "content": ""})
    assert refused.error.kind == "oracle-crashed" and "shutting down" in refused.error.message
    assert len(sessions) == 2 and not relay.started


def test_start_answers_init_once_and_calls_then_reuse_it(tmp_path):
    relay, sessions = link(tmp_path, {"version": 1})
    started = relay.start()
    assert started.result == INIT and started.error is None and relay.started
    assert relay.start().result == INIT
    relay.call("update", {"file": "a.rs", "content": ""})
    assert ops(sessions[0]) == ["init", "update"]


def test_start_reports_a_missing_analyzer_with_its_recipe(tmp_path):
    relay, _ = link(tmp_path, starts=[AnalyzerMissing("no rust-analyzer found")])
    outcome = relay.start()
    assert outcome.error.kind == "rust-analyzer-missing" and "rustup component add" in outcome.error.recipe


def test_close_cancels_a_call_in_flight_and_neither_retries_nor_restarts_it(tmp_path):
    """A host's SIGTERM while a call waits on the analyzer: closing must not wait for that call."""
    entered = threading.Event()

    def hangs_until_cancelled(session):
        entered.set()
        assert session.cancelled.wait(30), "close waited for the call instead of cancelling it"
        return OracleCrashed("the analyzer was stopped under the call")  # as the cancelled op ends

    relay, sessions = link(tmp_path, hangs_until_cancelled, {"display": "never asked"})
    outcomes = []
    caller = threading.Thread(target=lambda: outcomes.append(relay.call("type", {"file": "a.rs"})))
    caller.start()
    assert entered.wait(30)
    relay.close()
    caller.join(30)
    (outcome,) = outcomes
    assert isinstance(outcome.error, OracleCrashed) and not outcome.retried
    assert relay.crashes == 0  # stopped on purpose: no crash of the analyzer's
    assert len(sessions) == 1 and ops(sessions[0]) == ["init", "type"] and sessions[0].closed == 1
    assert relay.call("type", {"file": "a.rs"}).result == {"display": "never asked"}  # closed, not dead
