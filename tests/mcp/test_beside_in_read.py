"""A job run beside the reading from a line anywhere in its read (`Server.beside_in_read`): a quick
one runs on the thread that read its line, its answer in the read's one write; one that blocks gets
a follower, which serves the rest of the read and reads on. Both twins of the server loop.

Every wait is on an event, bounded so that a loop that holds the rest of the read behind the job
fails the test instead of hanging it."""

from __future__ import annotations

import importlib
import random
import threading
from collections.abc import Callable
from typing import Any

import pytest

from ferrule.mcp import ReplayTransport, turns
from ferrule.mcp.wire import result_line
from testkit.mcp import request

BOUND = 10.0
LOOPS = [pytest.param("ferrule.mcp._server_c", marks=pytest.mark.c_extension, id="c"),
         pytest.param("ferrule.mcp._server_py", id="python")]


@pytest.fixture(params=LOOPS)
def server_class(request: pytest.FixtureRequest) -> type:
    return importlib.import_module(request.param).Server


def job_server(server_class: type, jobs: dict[str, Callable[[], str]]) -> Any:
    return job_server_class(server_class, jobs)()


def job_server_class(server_class: type, jobs: dict[str, Callable[[], str]]) -> type:
    """A server whose `job` method runs `jobs[params.name]` beside the reading, noting the thread."""

    class JobServer(server_class):  # type: ignore[misc,valid-type]
        def __init__(self) -> None:
            super().__init__("jobs", "1")
            self.ran_on: dict[Any, str] = {}
            self.allowed: list[bool] = []
            self._handshake["job"] = self._job

        def _job(self, msg_id: Any, params: Any) -> bytes | None:
            work = jobs[params["name"]]

            def run() -> bytes:
                self.ran_on[msg_id] = threading.current_thread().name
                return result_line(msg_id, {"text": work()})

            allowed = self.can_run_beside_in_read
            self.allowed.append(allowed)
            return self.beside_in_read(run) if allowed else run()

    return JobServer


class Watched(ReplayTransport):
    """A replay that sets `written[id]` once the answer to request `id` is written."""

    def __init__(self, script: Any, ids: list[int]) -> None:
        super().__init__(script)
        self.written = {msg_id: threading.Event() for msg_id in ids}

    def write_lines(self, lines: list[bytes]) -> None:
        super().write_lines(lines)
        for msg_id, event in self.written.items():
            if any(b'"id":%d,' % msg_id in line for line in lines):
                event.set()


def job(msg_id: int, name: str) -> dict[str, Any]:
    return request(msg_id, "job", {"name": name})


def ids_written(transport: ReplayTransport) -> list[int]:
    import orjson

    return [orjson.loads(line)["id"] for line in transport.output]


def test_quick_jobs_anywhere_in_a_read_run_where_it_was_read_and_answer_in_its_one_write(server_class):
    server = job_server(server_class, {"quick": lambda: "done"})
    transport = ReplayTransport([(job(1, "quick"), request(2, "ping"), job(3, "quick"))])
    server.run(transport)
    assert ids_written(transport) == [1, 2, 3]
    assert transport.writes == 1, "the read's answers went out in more than one write"
    assert set(server.ran_on.values()) == {threading.current_thread().name}, server.ran_on
    assert server.allowed == [True, True]


def test_a_blocked_job_leaves_the_rest_of_its_read_to_a_follower(server_class):
    # the first job waits for the answer to the read's last line: it gets it only if a follower
    # serves the rest of the read while the job blocks
    transport: Watched

    def blocked() -> str:
        return "released" if transport.written[3].wait(BOUND) else "never released"

    server = job_server(server_class, {"blocked": blocked, "quick": lambda: "done"})
    transport = Watched([(job(1, "blocked"), request(2, "ping"), job(3, "quick"))], [3])
    server.run(transport)
    assert ids_written(transport) == [2, 3, 1]
    assert b'"released"' in transport.output[-1]
    assert server.ran_on[1] == threading.current_thread().name
    assert server.ran_on[3].startswith("mcp-reader"), "the rest of the read was served by the thread that read it"


def test_a_batch_member_is_not_run_beside_the_reading(server_class):
    """A JSON-RPC batch's answers go out as one array: its members are never left to a follower."""
    server = job_server(server_class, {"quick": lambda: "done"})
    initialize = request(0, "initialize", {"protocolVersion": "2025-03-26"})
    server.run(ReplayTransport([initialize, [request(1, "ping"), job(2, "quick")]]))
    assert server.allowed == [False]


def test_a_thread_whose_job_ends_while_its_follower_is_in_a_job_serves_the_followers_read_on(
        server_class, monkeypatch):
    """The turn comes back to the thread that read the first read when its job ends while the
    follower (which took up the second read) runs a job of its own: it serves the rest of the
    second read, not more of its own."""
    monkeypatch.setattr(turns, "HAND_ON_S", 0.5)  # no second follower while the first thread comes back
    first_done, second_done = threading.Event(), threading.Event()

    def first() -> str:  # ends once the follower's job has begun
        return "first" if first_done.wait(BOUND) else "never"

    def second() -> str:  # lets the first end, then waits for the rest of its own read
        first_done.set()
        return "second" if second_done.wait(BOUND) else "never"

    def last() -> str:
        second_done.set()
        return "last"

    server = job_server(server_class, {"first": first, "second": second, "last": last, "quick": lambda: "quick"})
    transport = ReplayTransport([(job(1, "first"), job(2, "quick")),
                                 (job(3, "second"), request(4, "ping"), job(5, "last"))])
    server.run(transport)
    assert sorted(ids_written(transport)) == [1, 2, 3, 4, 5]
    assert all(b'"never"' not in line for line in transport.output)
    main = threading.current_thread().name
    assert server.ran_on[1] == main and server.ran_on[5] == main, server.ran_on
    assert server.ran_on[3].startswith("mcp-reader"), server.ran_on


class HeldOpen(ReplayTransport):
    """A replay whose channel, once the script is read, stays open until `done` is set; it sets
    `written[id]` once the answer to request `id` is written."""

    def __init__(self, script: Any, ids: list[int]) -> None:
        super().__init__(script)
        self.done = threading.Event()
        self.written = {msg_id: threading.Event() for msg_id in ids}

    def read_batch(self) -> list[Any] | None:
        batch = super().read_batch()
        if batch is None:
            assert self.done.wait(BOUND), "the test's job never ended"
        return batch

    def write_lines(self, lines: list[bytes]) -> None:
        super().write_lines(lines)
        for msg_id, event in self.written.items():
            if any(b'"id":%d,' % msg_id in line for line in lines):
                event.set()


def test_answers_ahead_of_a_job_still_running_on_the_last_line_are_not_held_behind_it(server_class):
    """The answers to the lines before a blocked job go out once a follower takes the turn, though
    the follower then waits for the next read."""
    transport: HeldOpen

    def waits_for_the_ping() -> str:
        answered = transport.written[1].wait(BOUND)
        transport.done.set()
        return "after the ping" if answered else "the ping's answer was held back"

    server = job_server(server_class, {"waits": waits_for_the_ping})
    transport = HeldOpen([(request(1, "ping"), job(2, "waits"))], [1])
    server.run(transport)
    assert ids_written(transport) == [1, 2]
    assert b'"after the ping"' in transport.output[-1]


def test_a_stop_during_jobs_serves_no_more_of_their_read_and_their_answers_are_written(server_class):
    """Stopped from outside (Ctrl-C on the main thread, in the read's first job) while a follower runs
    the second: the third line is not served, and the second job's answer is written before `run`
    returns."""
    second_started, stopping = threading.Event(), threading.Event()
    served_after: list[Any] = []

    def first() -> str:  # on the main thread: the interrupt comes once the follower runs the second job
        assert second_started.wait(BOUND)
        raise KeyboardInterrupt

    def second() -> str:  # ends once the run is stopping
        second_started.set()
        return "second" if stopping.wait(BOUND) else "never"

    class Stopped(job_server_class(server_class, {"first": first, "second": second})):  # type: ignore[misc,valid-type]
        def __init__(self) -> None:
            super().__init__()
            self._handshake["note"] = self._note

        def _note(self, msg_id: Any, params: Any) -> bytes:
            served_after.append(msg_id)
            return result_line(msg_id, {})

        def interrupted(self) -> None:
            stopping.set()

    transport = ReplayTransport([(job(1, "first"), job(2, "second"), request(3, "note"))])
    with pytest.raises(KeyboardInterrupt):
        Stopped().run(transport)
    assert served_after == [], "a line of the read was served after the stop"
    assert [line for line in transport.output if b'"second"' in line], transport.output


def random_reads(seed: int) -> tuple[list[Any], dict[str, Callable[[], str]], int]:
    """Seeded reads of pings, quick jobs and jobs that block until a later line (in their read or a
    later one) releases them: the script, its jobs, and the number of requests."""
    rng = random.Random(seed)
    released: dict[str, threading.Event] = {}
    jobs: dict[str, Callable[[], str]] = {"quick": lambda: "quick"}
    lines: list[dict[str, Any]] = []
    waiting: list[str] = []  # blocked jobs not yet released, at most a few (well within the limit)
    for msg_id in range(1, rng.randrange(20, 60)):
        roll = rng.random()
        if roll < 0.2 and len(waiting) < 4:
            tag = f"blocked-{msg_id}"
            released[tag] = event = threading.Event()
            jobs[tag] = lambda event=event: "released" if event.wait(BOUND) else "never"
            waiting.append(tag)
            lines.append(job(msg_id, tag))
        elif roll < 0.45 and waiting:
            tag = waiting.pop(rng.randrange(len(waiting)))
            jobs[f"release-{tag}"] = lambda event=released[tag]: (event.set(), "releasing")[1]
            lines.append(job(msg_id, f"release-{tag}"))
        else:
            lines.append(request(msg_id, "ping") if rng.random() < 0.5 else job(msg_id, "quick"))
    count = len(lines)
    for offset, tag in enumerate(waiting, 1):
        jobs[f"release-{tag}"] = lambda event=released[tag]: (event.set(), "releasing")[1]
        lines.append(job(count + offset, f"release-{tag}"))
    reads: list[Any] = []
    while lines:
        size = rng.randrange(1, 6)
        reads.append(tuple(lines[:size]) if size > 1 else lines[0])
        del lines[:size]
    return reads, jobs, count + len(waiting)


@pytest.mark.parametrize("seed", range(12))
def test_every_line_of_random_reads_is_answered_once_whichever_thread_serves_it(server_class, seed):
    reads, jobs, count = random_reads(seed)
    server = job_server(server_class, jobs)
    transport = ReplayTransport(reads)
    server.run(transport)
    assert sorted(ids_written(transport)) == list(range(1, count + 1))
    assert all(b'"never"' not in line for line in transport.output)
