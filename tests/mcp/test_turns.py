"""Reading by turns: a job run beside the reading stays on the thread that read it while it is quick,
and a follower reads on while it blocks; the main thread's jobs run there."""

from __future__ import annotations

import threading
from queue import SimpleQueue

import pytest

from ferrule.mcp import turns as turns_module
from ferrule.mcp.turns import MainThreadJobs, ReadTurns

BOUND = 30.0


class Channel:
    """Reads handed in by the test, one at a time; None ends the channel. Each read is served by
    `serve(item)` on whichever thread holds the turn."""

    def __init__(self, serve) -> None:
        self.reads: SimpleQueue = SimpleQueue()
        self.serve = serve
        self.readers: list[str] = []
        self.ended = threading.Event()
        self.end_reader = ""

    def serve_one(self) -> bool:
        item = self.reads.get(timeout=BOUND)
        if item is None:
            self.end_reader = threading.current_thread().name
            self.ended.set()
            return False
        self.readers.append(threading.current_thread().name)
        self.serve(item)
        return True


def test_a_blocked_job_gets_a_follower_that_reads_on_and_the_job_ends_in_its_turn():
    released, served_meanwhile = threading.Event(), threading.Event()
    order: list[str] = []
    turns: ReadTurns

    def serve(item):
        if item == "block":
            turns.beside(released.wait, BOUND)
            order.append("blocked job ended")
        else:
            order.append(item)
            if item == "ping":
                served_meanwhile.set()

    channel = Channel(serve)
    turns = ReadTurns(channel.serve_one, limit=4)
    runner = threading.Thread(target=turns.run)
    runner.start()
    channel.reads.put("block")
    channel.reads.put("ping")  # read by a follower while the job blocks
    assert served_meanwhile.wait(BOUND)
    released.set()
    channel.reads.put("after")
    channel.reads.put(None)
    runner.join(BOUND)
    turns.finish(BOUND)
    assert not runner.is_alive()
    assert order[0] == "ping" and sorted(order) == ["after", "blocked job ended", "ping"]
    assert channel.readers[1].startswith("mcp-reader"), "the ping was read by a follower"


def test_after_a_follower_took_over_quick_jobs_stay_on_one_thread_and_a_parked_one_is_recalled(monkeypatch):
    """A job's thread that finds a follower holding the turn parks: the lockstep calls after it run
    on one thread (no handover, and its wake-up, per call), and when a job blocks again the parked
    thread reads on rather than a new one."""
    # A quick job is one under HAND_ON_S; a busy machine can stretch one past 2 ms and rightly get it
    # a follower, so the bound is raised for the test.
    monkeypatch.setattr(turns_module, "HAND_ON_S", 0.5)
    released, served = threading.Event(), threading.Event()
    turns: ReadTurns

    def serve(item):
        if item == "block":
            turns.beside(released.wait, BOUND)
        else:
            turns.beside(served.set)

    channel = Channel(serve)
    turns = ReadTurns(channel.serve_one, limit=4)
    runner = threading.Thread(target=turns.run, name="first")
    runner.start()

    def call(item):
        served.clear()
        channel.reads.put(item)
        assert served.wait(BOUND)

    channel.reads.put("block")
    call("while blocked")  # read by a follower
    released.set()  # the job ends with the turn held by the follower
    for n in range(12):
        call(n)
    lockstep = channel.readers[-10:]
    assert len(set(lockstep)) == 1, f"quick calls in lockstep handed the turn to and fro: {lockstep}"
    released.clear()
    channel.reads.put("block")
    call("while blocked again")
    released.set()
    channel.reads.put(None)
    runner.join(BOUND)
    turns.finish(BOUND)
    assert set(channel.readers) == {"first", "mcp-reader-0"}, "the parked thread was recalled, no new one started"
    assert not runner.is_alive()


def test_a_thread_that_lost_the_turn_is_recalled_even_before_it_parks():
    """A job's thread that lost the turn still has its answer to write before it parks; a job that
    blocks meanwhile recalls that thread rather than starting another."""
    first_released, first_back, first_answered = threading.Event(), threading.Event(), threading.Event()
    second_released = threading.Event()
    served: dict[str, threading.Event] = {name: threading.Event() for name in ("while first", "while second")}
    turns: ReadTurns

    def serve(item):
        if item == "first":
            turns.beside(first_released.wait, BOUND)
            first_back.set()
            first_answered.wait(BOUND)  # writing its answer, not yet parked
        elif item == "second":
            turns.beside(second_released.wait, BOUND)
        else:
            served[item].set()

    channel = Channel(serve)
    turns = ReadTurns(channel.serve_one, limit=4)
    runner = threading.Thread(target=turns.run, name="first")
    runner.start()
    channel.reads.put("first")
    channel.reads.put("while first")  # read by a follower, which keeps the turn
    assert served["while first"].wait(BOUND)
    first_released.set()  # the first thread's job ends with the turn held by the follower
    assert first_back.wait(BOUND)
    channel.reads.put("second")  # blocks on the follower: the watch finds it a thread
    channel.reads.put("while second")
    while not (turns._recalls or served["while second"].is_set()):  # the watch acted
        served["while second"].wait(0.01)
    first_answered.set()
    assert served["while second"].wait(BOUND)
    second_released.set()
    channel.reads.put(None)
    runner.join(BOUND)
    turns.finish(BOUND)
    assert set(channel.readers) == {"first", "mcp-reader-0"}, "the first thread was recalled, no new one started"


class BlockingJob:
    """A job beside the reading that blocks until released; `notes` records what ended when."""

    def __init__(self) -> None:
        self.started, self.released = threading.Event(), threading.Event()
        self.notes: list[str] = []

    def __call__(self) -> None:
        self.started.set()
        self.released.wait(BOUND)
        self.notes.append("job ended")

    def turns_serving_it(self) -> tuple[Channel, ReadTurns]:
        """Turns whose every read runs this job beside the reading."""
        turns = ReadTurns(lambda: channel.serve_one(), limit=4)
        channel = Channel(lambda item: turns.beside(self))
        return channel, turns


def test_the_end_read_by_a_follower_during_a_job_waits_for_the_job():
    job = BlockingJob()
    channel, turns = job.turns_serving_it()
    notes = job.notes

    def run():
        turns.run()
        notes.append("run returned")

    runner = threading.Thread(target=run, name="first")
    runner.start()
    channel.reads.put("block")
    assert job.started.wait(BOUND)
    channel.reads.put(None)
    assert channel.ended.wait(BOUND)  # the end, read while the job blocks: by a follower
    job.released.set()
    runner.join(BOUND)
    turns.finish(BOUND)
    assert channel.end_reader.startswith("mcp-reader")
    assert notes == ["job ended", "run returned"]
    assert not [t for t in threading.enumerate() if t.name.startswith(("mcp-reader", "mcp-turns"))], \
        "the follower and the watch are gone once finished"


def test_a_stop_waits_for_the_job_beside_and_ends_the_turns():
    job = BlockingJob()
    channel, turns = job.turns_serving_it()
    notes = job.notes

    def stop():
        turns.stop(BOUND)
        notes.append("stop returned")

    runner = threading.Thread(target=turns.run, daemon=True)
    runner.start()
    channel.reads.put("block")
    assert job.started.wait(BOUND)
    stopper = threading.Thread(target=stop)
    stopper.start()
    job.released.set()
    stopper.join(BOUND)
    assert notes == ["job ended", "stop returned"] and turns.ended
    channel.reads.put(None)  # a follower blocked in a read meanwhile, if one started, lets the turn go
    runner.join(BOUND)
    assert not runner.is_alive(), "the job's thread takes no further turn"


def test_the_limit_says_when_no_more_jobs_may_run_beside():
    inside, released = threading.Barrier(3), threading.Event()
    turns: ReadTurns
    refused: list[bool] = []

    def serve(item):
        if turns.can_hand_on:
            turns.beside(lambda: (inside.wait(BOUND), released.wait(BOUND)))
        else:
            refused.append(True)
            released.set()

    channel = Channel(serve)
    turns = ReadTurns(channel.serve_one, limit=2)
    runner = threading.Thread(target=turns.run)
    runner.start()
    for item in range(2):
        channel.reads.put(item)
    inside.wait(BOUND)  # both jobs run beside the reading, each on its own thread
    channel.reads.put(2)
    assert released.wait(BOUND) and refused == [True]
    channel.reads.put(None)
    runner.join(BOUND)
    turns.finish(BOUND)


def test_main_thread_jobs_run_on_the_main_thread_and_raise_to_their_caller():
    jobs = MainThreadJobs()
    seen: list[object] = []

    def elsewhere():
        try:
            seen.append(jobs.run(lambda: threading.current_thread() is threading.main_thread()))
            with pytest.raises(ZeroDivisionError):
                jobs.run(lambda: 1 / 0)
            seen.append("raised")
        finally:
            jobs.stop()

    other = threading.Thread(target=elsewhere)
    other.start()
    jobs.serve()
    other.join(BOUND)
    assert seen == [True, "raised"]
    assert jobs.run(lambda: "here") == "here", "on the main thread itself: run at once"
