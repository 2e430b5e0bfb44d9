"""Async tools run concurrently on the server's loop, concurrent tools beside the reading; pings are
answered and cancellations act while they run; sync tools still run one at a time inside the capture
guard. Every wait is on an event,
bounded so that a server that serialises the calls fails the test instead of hanging it."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from ferrule.mcp import InvalidTool, ReplayTransport, Server, progress, tool, turns
from testkit.mcp import call, modern, notification, request

BOUND = 10.0  # seconds: only reached when the behaviour under test is missing


class Gated(ReplayTransport):
    """A replay whose next read waits until `gate` is set (the server reads on meanwhile)."""

    def __init__(self, script: Any, gates: dict[int, threading.Event], **options: Any) -> None:
        super().__init__(script, **options)
        self._gates = gates
        self._reads = 0

    def read_batch(self) -> list[Any] | None:
        gate = self._gates.get(self._reads)
        self._reads += 1
        if gate is not None:
            assert gate.wait(BOUND), f"read {self._reads - 1} waited for an event that never came"
        return super().read_batch()


class Concurrent:
    """A concurrent tool (`concurrent = True`): a blocking `run`, here `work(args)`."""

    concurrent = True

    def __init__(self, name: str, work: Any) -> None:
        self.name, self.work = name, work

    def descriptor(self) -> dict[str, Any]:
        return {"name": self.name, "description": "blocks", "inputSchema": {"type": "object"}}

    def run(self, args: dict[str, Any]) -> Any:
        return self.work(args)


def releasing(base: type[ReplayTransport], marker: bytes, released: threading.Event) -> type[ReplayTransport]:
    """`base`, setting `released` once a line holding `marker` (an answer's id) is written."""

    class Releasing(base):  # type: ignore[valid-type,misc]
        def write_lines(self, lines: list[bytes]) -> None:
            super().write_lines(lines)
            if any(marker in line for line in lines):
                released.set()

    return Releasing


def test_five_calls_that_wait_for_each_other_all_complete():
    barrier: list[asyncio.Barrier] = []

    @tool
    async def meet() -> str:
        """Waits until five calls are running at once."""
        if not barrier:
            barrier.append(asyncio.Barrier(5))
        try:
            await asyncio.wait_for(barrier[0].wait(), BOUND)
        except TimeoutError:
            return "alone"
        return "met"

    transport = ReplayTransport([call(i, "meet", {}) for i in range(5)])
    Server("s", "1", [meet]).run(transport)
    answers = transport.messages()
    assert sorted(a["id"] for a in answers) == [0, 1, 2, 3, 4]
    assert {a["result"]["content"][0]["text"] for a in answers} == {"met"}


@pytest.mark.parametrize("kind", ["async", "concurrent", "concurrent function"])
def test_ping_is_answered_while_a_tool_that_is_not_sync_runs(kind):
    released = threading.Event()  # set once the ping's answer is out: the tool may finish

    def said(answered: bool) -> str:
        return "after the ping" if answered else "the ping waited for me"

    @tool
    async def hold() -> str:
        """Runs until the ping was answered."""
        return said(await asyncio.get_running_loop().run_in_executor(None, released.wait, BOUND))

    if kind == "concurrent":
        hold = Concurrent("hold", lambda args: said(released.wait(BOUND)))
    elif kind == "concurrent function":
        @tool(name="hold", concurrent=True)
        def holding() -> str:
            """Blocks until the ping was answered."""
            return said(released.wait(BOUND))

        hold = holding
    transport = releasing(ReplayTransport, b'"id":2', released)([call(1, "hold", {}), request(2, "ping")])
    Server("s", "1", [hold]).run(transport)
    assert transport.messages() == [
        {"jsonrpc": "2.0", "id": 2, "result": {}},
        {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "after the ping"}],
                                               "isError": False}},
    ]


@pytest.mark.parametrize("era", ["handshake", "stateless"])
def test_a_cancelled_async_call_stops_and_is_not_answered(era):
    started, stopped = threading.Event(), threading.Event()

    @tool
    async def forever() -> str:
        """Waits until cancelled."""
        started.set()
        try:
            await asyncio.sleep(BOUND)
        except asyncio.CancelledError:
            stopped.set()
            raise
        return "never cancelled"

    first = call(7, "forever", {})
    if era == "stateless":
        first = modern(first)
    script = [first, notification("notifications/cancelled", {"requestId": 7, "reason": "user"}), request(8, "ping")]
    transport = Gated(script, {1: started})  # the cancel is read once the call runs
    Server("s", "1", [forever]).run(transport)
    assert stopped.is_set()
    assert transport.messages() == [{"jsonrpc": "2.0", "id": 8, "result": {}}]


def test_async_calls_report_their_own_progress_and_answer_with_the_era_shape():
    both = threading.Event()
    count = [0]
    lock = threading.Lock()

    @tool
    async def step(label: str) -> dict:
        """Reports progress, waits for the other call, reports again."""
        progress(1, 2, f"{label} half")
        with lock:
            count[0] += 1
            if count[0] == 2:
                both.set()
        await asyncio.get_running_loop().run_in_executor(None, both.wait, BOUND)
        progress(2, 2, f"{label} done")
        return {"label": label}

    a = call("a", "step", {"label": "a"}, _meta={"progressToken": "ta"})
    b = modern(call("b", "step", {"label": "b"}), progressToken=5)
    transport = ReplayTransport([request(0, "initialize", {"protocolVersion": "2025-06-18"}), a, b])
    Server("s", "1", [step]).run(transport)
    out = transport.messages()
    notes = [m["params"] for m in out if m.get("method") == "notifications/progress"]
    assert [n for n in notes if n["progressToken"] == "ta"] == [
        {"progressToken": "ta", "progress": 1, "total": 2, "message": "a half"},
        {"progressToken": "ta", "progress": 2, "total": 2, "message": "a done"}]
    assert [n["message"] for n in notes if n["progressToken"] == 5] == ["b half", "b done"]
    answers = {m["id"]: m["result"] for m in out if "id" in m and m["id"] != 0}
    assert answers["a"]["structuredContent"] == {"label": "a"} and "resultType" not in answers["a"]
    assert answers["b"]["resultType"] == "complete" and answers["b"]["structuredContent"] == {"label": "b"}
    # nothing for a request follows its answer
    for token, msg_id in (("ta", "a"), (5, "b")):
        last_note = max(i for i, m in enumerate(out) if m.get("params", {}).get("progressToken") == token)
        assert last_note < next(i for i, m in enumerate(out) if m.get("id") == msg_id)


def test_a_raising_async_tool_is_an_error_result():
    @tool
    async def boom() -> str:
        """Raises."""
        raise ValueError("no luck")

    transport = ReplayTransport([call(1, "boom", {})])
    Server("s", "1", [boom]).run(transport)
    (answer,) = transport.messages()
    assert answer["result"]["isError"] is True
    assert answer["result"]["content"][0]["text"] == "tool 'boom' failed: ValueError: no luck"


def test_sync_tools_keep_the_capture_guard_beside_async_ones():
    @tool
    def loud() -> str:
        """Writes to stderr."""
        import os

        os.write(2, b"said on fd 2\n")
        return "body"

    @tool
    async def calm() -> str:
        """Async, says nothing."""
        return "calm"

    transport = ReplayTransport([call(1, "calm", {}), call(2, "loud", {})])
    Server("s", "1", [loud, calm]).run(transport)
    answers = {m["id"]: m["result"]["content"][0]["text"] for m in transport.messages()}
    assert answers == {1: "calm", 2: "body\n\n--- stderr ---\nsaid on fd 2\n"}


def test_a_quick_concurrent_call_runs_on_the_thread_that_read_it(monkeypatch):
    # "quick" is under HAND_ON_S; a busy machine can stretch a call past 2 ms, so the bound is raised
    # (the watch sleeps this long at the end of the run)
    monkeypatch.setattr(turns, "HAND_ON_S", 0.5)
    reader = threading.get_ident()  # the thread that runs the server reads the first line
    where = Concurrent("where", lambda args: "reading thread" if threading.get_ident() == reader else "another")
    transport = ReplayTransport([call(1, "where", {}), call(2, "where", {})])
    Server("s", "1", [where]).run(transport)
    assert [m["result"]["content"][0]["text"] for m in transport.messages()] == ["reading thread"] * 2


def test_a_cancelled_concurrent_call_is_not_answered_and_later_calls_are():
    started, released = threading.Event(), threading.Event()

    def held(args: dict[str, Any]) -> str:
        if args.get("wait"):
            started.set()
            released.wait(BOUND)
        return "done"

    script = [call(7, "held", {"wait": True}), notification("notifications/cancelled", {"requestId": 7}),
              request(8, "ping"), call(9, "held", {})]
    # the cancel is read once the call runs, and before the ping whose answer releases the call
    transport = releasing(Gated, b'"id":8', released)(script, {1: started})
    Server("s", "1", [Concurrent("held", held)]).run(transport)
    answers = transport.messages()
    assert {m["id"] for m in answers} == {8, 9}
    assert next(m for m in answers if m["id"] == 9)["result"]["content"] == [{"type": "text", "text": "done"}]


def test_concurrent_calls_in_one_read_run_on_workers_in_order_and_report_progress():
    reader = threading.get_ident()

    def step(args: dict[str, Any]) -> str:
        progress(1, 2, "half")
        return "reading thread" if threading.get_ident() == reader else "another thread"

    # one read of two calls: the first is not the last line of its read, so it runs on a worker, and
    # the second follows it there rather than overtake it on the reading thread
    pair = (call(1, "step", {}, _meta={"progressToken": "one"}), call(2, "step", {}))
    transport = ReplayTransport([request(0, "initialize", {"protocolVersion": "2025-06-18"}), pair])
    Server("s", "1", [Concurrent("step", step)]).run(transport)
    out = transport.messages()
    answers = {m["id"]: m["result"]["content"][0]["text"] for m in out if m.get("id") in (1, 2)}
    assert answers == {1: "another thread", 2: "another thread"}
    (note,) = [m["params"] for m in out if m.get("method") == "notifications/progress"]
    assert note == {"progressToken": "one", "progress": 1, "total": 2, "message": "half"}
    assert out.index(next(m for m in out if m.get("method") == "notifications/progress")) < \
        out.index(next(m for m in out if m.get("id") == 1))


@pytest.mark.parametrize("form", ["object", "function"])
def test_a_raising_concurrent_tool_is_an_error_result_and_runs_outside_the_capture_guard(form):
    def boom(args: dict[str, Any]) -> str:
        import os

        os.write(2, b"said on fd 2\n")  # the host's log, not the report: calls overlap, captures cannot
        raise ValueError("no luck")

    server = Server("s", "1", [Concurrent("boom", boom)] if form == "object" else [])
    if form == "function":  # the option passes through the server's own decorator
        server.tool(name="boom", concurrent=True)(lambda: boom({}))
    transport = ReplayTransport([call(1, "boom", {})], session_capture=True)
    server.run(transport)
    (answer,) = transport.messages()
    assert answer["result"]["isError"] is True
    assert answer["result"]["content"][0]["text"] == "tool 'boom' failed: ValueError: no luck"


def test_an_async_function_cannot_be_declared_concurrent_nor_anything_but_a_bool():
    async def waits() -> str:
        return "never"

    with pytest.raises(TypeError, match="'waits': `concurrent` is for blocking functions"):
        tool(waits, concurrent=True)
    with pytest.raises(TypeError, match="`concurrent` is True or False, got 1"):
        tool(lambda: None, concurrent=1)


class Ordered(Concurrent):
    """A concurrent tool whose calls run one at a time in the order read (`ordered = True`)."""

    ordered = True


class Journal:
    """What the calls of a tool did, in the order they did it. `step` is the tool's work: call 0 holds
    until `released`, once it has set `started`."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._lock = threading.Lock()
        self.started, self.released = threading.Event(), threading.Event()

    def note(self, line: str) -> None:
        with self._lock:
            self.lines.append(line)

    def step(self, args: dict[str, Any]) -> str:
        self.note(f"start {args['n']}")
        if args["n"] == 0:
            self.started.set()
            self.released.wait(BOUND)
        self.note(f"end {args['n']}")
        return "done"


def test_ordered_calls_in_one_read_run_one_at_a_time_in_the_order_read():
    journal = Journal()

    def step(args: dict[str, Any]) -> str:
        journal.note(f"start {args['n']}")
        threading.Event().wait(0.001)  # a moment of work off the GIL: unordered calls overlap here
        journal.note(f"end {args['n']}")
        return str(args["n"])

    # all on workers (none but the last ends its read), where threads race to start them
    transport = ReplayTransport([tuple(call(n, "step", {"n": n}) for n in range(20))])
    Server("s", "1", [Ordered("step", step)]).run(transport)
    assert journal.lines == [f"{what} {n}" for n in range(20) for what in ("start", "end")]
    assert sorted(m["id"] for m in transport.messages()) == list(range(20))


def test_an_ordered_call_read_while_an_earlier_one_runs_waits_for_it():
    journal = Journal()
    # call 1 is read (by a follower) while call 0 runs; the ping after it is read once call 1 has
    # held its reader for 2 ms, and its answer releases call 0
    script = [call(0, "step", {"n": 0}), call(1, "step", {"n": 1}), request(9, "ping")]
    transport = releasing(Gated, b'"id":9', journal.released)(script, {1: journal.started})
    Server("s", "1", [Ordered("step", journal.step)]).run(transport)
    assert journal.lines == ["start 0", "end 0", "start 1", "end 1"]
    assert sorted(m["id"] for m in transport.messages()) == [0, 1, 9]


@pytest.mark.parametrize("where", ["beside the reading", "on a worker"])
def test_an_ordered_call_cancelled_while_it_waits_never_runs_and_the_next_one_does(where):
    journal = Journal()
    first, waiting = call(0, "step", {"n": 0}), call(1, "step", {"n": 1})
    # beside: call 1 waits on the thread that read it; on a worker: both calls in one read go to the
    # lane, and the cancel ends call 1's task there before its turn
    reads: list[Any] = [first, waiting] if where == "beside the reading" else [(first, waiting)]
    cancel = notification("notifications/cancelled", {"requestId": 1})
    script = [*reads, (cancel, request(9, "ping")), call(2, "step", {"n": 2})]
    gate = 1 if where == "beside the reading" else 0
    transport = releasing(Gated, b'"id":9', journal.released)(script, {gate + 1: journal.started})
    Server("s", "1", [Ordered("step", journal.step)]).run(transport)
    assert journal.lines == ["start 0", "end 0", "start 2", "end 2"]
    assert sorted(m["id"] for m in transport.messages()) == [0, 2, 9]


def test_ordered_is_for_concurrent_functions_and_a_bool():
    with pytest.raises(InvalidTool, match="'waits': `ordered = True` orders the calls of a concurrent tool"):
        Server("s", "1", [tool(lambda: None, name="waits", ordered=True)])
    with pytest.raises(TypeError, match="`ordered` is True or False, got 'yes'"):
        tool(lambda: None, concurrent=True, ordered="yes")
    class OrderedOnly(Concurrent):
        concurrent = False
        ordered = True

    with pytest.raises(InvalidTool, match="'alone': `ordered = True` orders the calls of a concurrent tool"):
        Server("s", "1", [OrderedOnly("alone", lambda args: "never")])
    server = Server("s", "1")
    server.tool(name="step", concurrent=True, ordered=True)(lambda: "done")  # passes through the server's decorator
    entry = server.tools.entry("step")
    assert entry is not None and entry.ordered is True


def test_a_stop_from_outside_while_an_ordered_call_runs_starts_none_of_those_waiting():
    journal = Journal()

    def step(args: dict[str, Any]) -> str:
        journal.step(args)
        if args["n"] == 0:
            raise KeyboardInterrupt  # Ctrl-C as the call ends, on the main thread that runs it
        return "done"

    # call 0 runs on the main thread; call 1, read meanwhile, waits for its turn on a worker
    script = [call(0, "step", {"n": 0}), (call(1, "step", {"n": 1}), request(9, "ping"))]
    transport = releasing(Gated, b'"id":9', journal.released)(script, {1: journal.started})
    class SlowToStop(Server):
        def interrupted(self) -> None:
            threading.Event().wait(0.05)  # stopping takes a while, as ferrule mcp's analyzer shutdown does

    with pytest.raises(KeyboardInterrupt):
        SlowToStop("s", "1", [Ordered("step", step)]).run(transport)
    assert journal.lines == ["start 0", "end 0"]
    assert [m["id"] for m in transport.messages()] == [9]
