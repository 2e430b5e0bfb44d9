"""The worker threads of sync tool calls: calls run side by side up to the limit, every answer is
written exactly once (batched when they finish together), a failing job is logged and the pool
goes on, and shutdown lets what was submitted finish first. Waits are on events."""

from __future__ import annotations

import threading

import pytest

from ferrule.mcp.adapters.workers import ToolThreads
from testkit.waiting import wait_for

WAIT = 10  # a bound for a wait on an event, never a pacing


class Written:
    def __init__(self) -> None:
        self.batches: list[list[bytes]] = []
        self.lock = threading.Lock()

    def __call__(self, lines: list[bytes]) -> None:
        with self.lock:
            self.batches.append(list(lines))

    def lines(self) -> list[bytes]:
        return [line for batch in self.batches for line in batch]


def test_blocking_calls_run_side_by_side():
    written, logged = Written(), []
    threads = ToolThreads(8, written, logged.append)
    meet = threading.Barrier(5, timeout=WAIT)  # breaks unless all five run at once

    def job(n: int) -> bytes:
        meet.wait()
        return b"%d" % n

    for n in range(5):
        threads.submit(job, n)
    threads.shutdown()
    assert sorted(written.lines()) == [b"0", b"1", b"2", b"3", b"4"] and not logged


def test_no_more_threads_than_the_limit_and_a_waiting_call_starts_when_one_ends():
    written, logged = Written(), []
    threads = ToolThreads(2, written, logged.append)
    running = threading.Semaphore(0)
    release = [threading.Event() for _ in range(3)]
    active, most = [0], [0]
    lock = threading.Lock()

    def job(n: int) -> bytes:
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        running.release()
        release[n].wait(WAIT)
        with lock:
            active[0] -= 1
        return b"%d" % n

    for n in range(3):
        threads.submit(job, n)
    assert running.acquire(timeout=WAIT) and running.acquire(timeout=WAIT)
    assert len(threads._threads) == 2  # no third thread was started: the third call waits for one
    release[0].set()
    assert running.acquire(timeout=WAIT)  # ...and starts once one is free
    release[1].set()
    release[2].set()
    threads.shutdown()
    assert most[0] == 2 and sorted(written.lines()) == [b"0", b"1", b"2"] and not logged


def test_every_answer_is_written_once_when_many_finish_together():
    written, logged = Written(), []
    threads = ToolThreads(40, written, logged.append)
    for n in range(2000):
        threads.submit(lambda n=n: b"%d" % n)
    threads.shutdown()
    assert sorted(written.lines()) == sorted(b"%d" % n for n in range(2000)) and not logged


def test_answers_that_finish_while_a_write_is_under_way_leave_in_one_write():
    logged: list[BaseException] = []
    writing, release = threading.Event(), threading.Event()
    batches: list[list[bytes]] = []

    def write(lines: list[bytes]) -> None:
        batches.append(list(lines))
        if len(batches) == 1:  # the first write stalls (a slow reader) while the others finish
            writing.set()
            assert release.wait(WAIT)

    threads = ToolThreads(8, write, logged.append)
    threads.submit(lambda: b"first")
    assert writing.wait(WAIT)
    for n in range(5):
        threads.submit(lambda n=n: b"%d" % n)
    wait_for(lambda: len(threads._outbox) == 5, WAIT, "the five answers waiting behind the stalled write")
    release.set()
    threads.shutdown()
    assert batches[0] == [b"first"]
    assert sorted(line for batch in batches[1:] for line in batch) == [b"0", b"1", b"2", b"3", b"4"]
    assert batches[1:] == [batches[1]], batches  # what waited went out in one write
    assert not logged


def test_a_failing_job_is_logged_and_the_pool_goes_on():
    written, logged = Written(), []
    threads = ToolThreads(1, written, logged.append)

    def fails() -> bytes:
        raise RuntimeError("boom")

    threads.submit(fails)
    threads.submit(lambda: None)  # no answer: nothing written
    threads.submit(lambda: b"after")
    threads.shutdown()
    assert written.lines() == [b"after"]
    assert [str(exc) for exc in logged] == ["boom"]


def test_a_failing_write_is_logged_and_later_answers_still_go_out():
    logged: list[BaseException] = []
    sent: list[bytes] = []

    def write(lines: list[bytes]) -> None:
        if b"first" in lines:
            raise OSError("pipe")
        sent.extend(lines)

    threads = ToolThreads(1, write, logged.append)
    threads.submit(lambda: b"first")
    threads.submit(lambda: b"second")
    threads.shutdown()
    assert sent == [b"second"] and [str(exc) for exc in logged] == ["pipe"]


@pytest.mark.parametrize("limit", [1, 4])
def test_shutdown_finishes_what_was_submitted(limit):
    written, logged = Written(), []
    threads = ToolThreads(limit, written, logged.append)
    gate = threading.Event()
    threads.submit(lambda: gate.wait(WAIT) and b"gated")
    for n in range(10):
        threads.submit(lambda n=n: b"%d" % n)
    gate.set()
    threads.shutdown()
    assert sorted(written.lines()) == sorted([b"gated", *(b"%d" % n for n in range(10))])
