"""The LSP client against a scripted server over real pipes: correlation, server requests, progress,
crash, timeout, the shutdown dance, and answers decoded by their request's own decoder."""

from __future__ import annotations

import asyncio
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from ferrule.lsp import LspClient, RequestTimeout, ResponseError, ServerExited, completion_list
from ferrule.lsp.client import answered_id

FAKE = str(Path(__file__).resolve().parents[1] / "testkit" / "fake_lsp_server.py")


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 30))


def run_on(loop: str, coro):
    """`run`, on asyncio's loop or on uvloop's (whose subprocess plumbing is its own)."""
    if loop == "uvloop":
        import uvloop

        return uvloop.run(asyncio.wait_for(coro, 30))
    return run(coro)


async def started(encodings=("utf-8", "utf-16"), **env) -> LspClient:
    client = await LspClient.spawn([sys.executable, FAKE], env={**os.environ, **env})
    client.configuration = lambda item: {"section": item.get("section"), "checkOnSave": False}
    await client.initialize(
        {"processId": os.getpid(), "rootUri": None,
         "capabilities": {"general": {"positionEncodings": list(encodings)}}},
        timeout=10,
    )
    return client


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_negotiates_utf8_when_the_server_grants_it():
    async def body():
        client = await started(FAKE_ENCODINGS="utf-8,utf-16")
        assert client.position_encoding == "utf-8"
        assert client.server_info == {"name": "fake", "version": "0.0.1"}
        await client.shutdown()

    run(body())


def test_falls_back_to_utf16_when_only_that_is_granted():
    async def body():
        client = await started(FAKE_ENCODINGS="utf-16")
        assert client.position_encoding == "utf-16"
        await client.shutdown()

    run(body())


def test_concurrent_requests_resolve_to_their_own_answers():
    async def body():
        client = await started()
        slow = asyncio.ensure_future(client.request("test/delay", {"ms": 200, "value": "slow"}))
        fast = asyncio.ensure_future(client.request("test/delay", {"ms": 10, "value": "fast"}))
        echoes = [client.request("test/echo", {"n": n}) for n in range(50)]
        results = await asyncio.gather(slow, fast, *echoes)
        assert results[:2] == ["slow", "fast"]
        assert results[2:] == [{"n": n} for n in range(50)]
        assert client.in_flight == 0
        await client.shutdown()

    run(body())


def test_many_messages_in_one_chunk_are_all_dispatched():
    async def body():
        client = await started()
        ticks = []
        client.notification_handlers["test/tick"] = lambda params: ticks.append(params["n"])
        assert await client.request("test/burst", {"n": 500}) == 500
        assert ticks == list(range(500))
        await client.shutdown()

    run(body())


def test_output_that_is_not_lsp_ends_the_session_at_once():
    async def body():
        client = await started()
        with pytest.raises(ServerExited, match="not LSP"):
            await asyncio.wait_for(client.request("test/garbled", {}), 5)
        await client.shutdown()

    run(body())


def test_error_response_is_a_typed_error_and_content_modified_is_retryable():
    async def body():
        client = await started()
        with pytest.raises(ResponseError) as caught:
            await client.request("test/fail", {"code": -32801, "message": "content modified"})
        assert caught.value.code == -32801 and caught.value.retryable
        with pytest.raises(ResponseError) as caught:
            await client.request("test/fail", {"code": -32602, "message": "bad params"})
        assert not caught.value.retryable and "bad params" in str(caught.value)
        await client.shutdown()

    run(body())


def test_answers_server_requests_and_tracks_progress_and_status():
    async def body():
        client = await LspClient.spawn([sys.executable, FAKE])
        seen = []
        configured = asyncio.get_running_loop().create_future()
        client.on_progress = lambda message, percentage: seen.append((message, percentage))
        client.configuration = lambda item: {"section": item["section"], "checkOnSave": False}
        client.notification_handlers["test/configured"] = configured.set_result
        await client.initialize({"capabilities": {}}, timeout=10)
        assert await client.wait_quiescent(10) is True
        assert (await configured) == {"config": [{"section": "fake", "checkOnSave": False}]}
        assert ("Indexing", 0) in seen and ("Indexing: 1/2 (core)", 50) in seen
        assert client.progress == {}, "ended progress tokens are forgotten"
        # a method the client does not know gets MethodNotFound, not silence
        reply = await client.request("test/ask", {"method": "fake/unknown"})
        assert reply["reply"]["code"] == -32601
        reply = await client.request("test/ask", {"method": "client/registerCapability", "params": {"registrations": []}})
        assert reply == {"reply": None}
        await client.shutdown()

    run(body())


def test_quiescence_wait_times_out_when_the_server_stays_busy():
    async def body():
        client = await started()
        await client.wait_quiescent(10)
        await client.request("test/status", {"quiescent": False})
        assert client.quiescent is False
        assert await client.wait_quiescent(0.1) is False
        await client.request("test/status", {"quiescent": True})
        assert await client.wait_quiescent(0.1) is True
        await client.shutdown()

    run(body())


@pytest.mark.parametrize(("settle", "ends_after_the_load"), [(0.3, True), (0.0, False)])
def test_a_quiescent_moment_between_load_phases_ends_only_an_unsettled_wait(settle, ends_after_the_load):
    """rust-analyzer may say quiescent between two phases of a load: a settle period waits them out,
    while without one the first quiescent report ends the wait."""
    async def body():
        client = await started()
        assert await client.wait_quiescent(10)
        loaded = asyncio.get_running_loop().create_future()
        client.notification_handlers["test/loaded"] = loaded.set_result
        await client.request("test/status", {"quiescent": False})
        await client.request("test/phases", {"gap_ms": 150})
        assert await client.wait_quiescent(10, settle=settle) is True
        assert loaded.done() is ends_after_the_load
        await loaded
        assert not client.busy and client.progress == {}
        await client.shutdown()

    run(body())


def test_running_progress_keeps_the_server_busy_though_it_says_quiescent():
    async def body():
        client = await started()
        assert await client.wait_quiescent(10)
        await client.request("test/progress", {"kind": "begin", "token": "index"})
        assert client.quiescent and client.busy
        assert await client.wait_quiescent(0.2) is False
        waiting = asyncio.ensure_future(client.wait_quiescent(10))
        await client.request("test/status", {"quiescent": True})  # a state event: the wait looks again
        await client.request("test/echo", {})  # a round trip: the wait has had every chance to end
        assert not waiting.done(), "running progress must keep the wait going"
        await client.request("test/progress", {"kind": "end", "token": "index"})
        assert await waiting is True
        assert not client.busy
        await client.shutdown()

    run(body())


def test_pushed_diagnostics_wait_for_the_document_version():
    async def body():
        client = await started()
        waiter = asyncio.ensure_future(client.wait_diagnostics("file:///a.rs", 3, 5))
        await client.request("test/publish", {"uri": "file:///a.rs", "version": 2, "message": "old"})
        await client.request("test/echo", {})  # a round trip after the push: the wait had every chance to end
        assert not waiter.done(), "an older version must not satisfy the wait"
        await client.request("test/publish", {"uri": "file:///a.rs", "version": 3, "message": "new"})
        assert [d["message"] for d in await waiter] == ["new"]
        with pytest.raises(RequestTimeout):
            await client.wait_diagnostics("file:///a.rs", 4, 0.05)
        await client.shutdown()

    run(body())


def test_a_versionless_push_does_not_answer_a_wait_for_a_version():
    async def body():
        client = await started()
        uri = "file:///a.rs"
        waiter = asyncio.ensure_future(client.wait_diagnostics(uri, 3, 5))
        # the push reaches the client before the answer to the request that sent it
        await client.request("test/publish", {"uri": uri, "version": None, "message": "disk"})
        assert not waiter.done(), "a push for the file on disk must not answer a wait for version 3"
        await client.request("test/publish", {"uri": uri, "version": 3, "message": "open"})
        assert [d["message"] for d in await waiter] == ["open"]
        assert [d["message"] for d in await client.wait_diagnostics(uri, None, 5)] == ["open"]
        await client.shutdown()

    run(body())


def test_timeout_cancels_the_request_and_the_client_stays_usable():
    async def body():
        client = await started()
        with pytest.raises(RequestTimeout) as caught:
            await client.request("test/delay", {"ms": 5000, "value": "late"}, timeout=0.1)
        assert caught.value.method == "test/delay"
        assert client.in_flight == 0
        assert await client.request("test/echo", {"still": "here"}, timeout=5) == {"still": "here"}
        await client.shutdown()

    run(body())


def test_task_cancellation_sends_cancel_request():
    async def body():
        client = await started()
        assert await client.wait_quiescent(10)  # the start-up talk is over
        await client.request("test/seen", {})
        task = asyncio.ensure_future(client.request("test/delay", {"ms": 5000}))
        await client.request("test/echo", {})  # by its answer the task has run and sent its request
        assert client.in_flight == 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert client.in_flight == 0
        assert await client.request("test/seen", {}) == ["test/echo", "test/delay", "$/cancelRequest"]
        assert await client.request("test/echo", {"ok": 1}) == {"ok": 1}
        await client.shutdown()

    run(body())


def test_each_request_expires_at_its_own_deadline_and_sends_cancel():
    async def body():
        client = await started()
        assert await client.wait_quiescent(10)
        await client.request("test/seen", {})
        patient = client.send_request("test/delay", {"ms": 300, "value": "patient"}, timeout=30)
        hasty = client.send_request("test/delay", {"ms": 30_000}, timeout=0.05)  # due long before the first
        with pytest.raises(RequestTimeout) as caught:
            await hasty
        assert caught.value.timeout == 0.05
        assert not patient.done(), "an earlier deadline fails only its own request"
        assert await patient == "patient"
        assert await client.request("test/seen", {}) == ["test/delay", "test/delay", "$/cancelRequest"]
        later = client.send_request("test/delay", {"ms": 30_000}, timeout=0.05)  # after the others settled
        with pytest.raises(RequestTimeout):
            await later
        assert client.in_flight == 0
        await client.shutdown()

    run(body())


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_every_unanswered_request_expires_and_the_client_stays_usable(loop):
    """Deadlines one after another, one far shorter than a timer's resolution (uvloop counts
    milliseconds): each fails in turn, and a timed request after them is sent and answered."""
    async def body():
        client = await started()
        assert await client.wait_quiescent(10)
        tiny = client.send_request("test/delay", {"ms": 30_000}, timeout=0.0001)
        first = client.send_request("test/delay", {"ms": 30_000}, timeout=0.05)
        second = client.send_request("test/delay", {"ms": 30_000}, timeout=0.1)
        for pending in (tiny, first, second):
            with pytest.raises(RequestTimeout):
                await pending
        for _ in range(20):  # expiries at several moments, each followed by a timed request
            with pytest.raises(RequestTimeout):
                await client.request("test/delay", {"ms": 30_000}, timeout=0.002)
            assert await client.request("test/echo", {"ok": 1}, timeout=5) == {"ok": 1}
        assert client.in_flight == 0
        await client.shutdown()

    run_on(loop, body())


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_no_request_and_no_wait_for_a_push_expires_before_its_timeout(loop):
    """A caller's budget is whole: uvloop's timers round to milliseconds and may fire early, so the
    client checks the monotonic clock and waits again for what is left."""
    async def body():
        client = await started()
        assert await client.wait_quiescent(10)
        for k in range(1, 60, 4):
            timeout = 0.0001 * k
            began = time.monotonic()
            with pytest.raises(RequestTimeout):
                await client.request("test/delay", {"ms": 30_000}, timeout=timeout)
            assert time.monotonic() - began >= timeout, f"a {timeout * 1000:.1f} ms request expired early"
            began = time.monotonic()
            with pytest.raises(RequestTimeout):
                await client.wait_diagnostics("file:///never.rs", 1, timeout)
            assert time.monotonic() - began >= timeout, f"a {timeout * 1000:.1f} ms wait expired early"
        assert client.in_flight == 0
        await client.shutdown()

    run_on(loop, body())


def test_cancelling_a_sent_request_tells_the_server():
    async def body():
        client = await started()
        assert await client.wait_quiescent(10)
        await client.request("test/seen", {})
        pending = client.send_request("test/delay", {"ms": 30_000}, timeout=30)
        assert pending.cancel()
        assert client.in_flight == 0
        assert await client.request("test/seen", {}) == ["test/delay", "$/cancelRequest"]
        assert not pending.cancel(), "a settled request is not cancelled twice"
        await client.shutdown()

    run(body())


def test_crash_fails_pending_requests_and_later_ones():
    async def body():
        client = await started(FAKE_STDERR="panicked at the disco\n")
        pending = asyncio.ensure_future(client.request("test/delay", {"ms": 5000}))
        await client.request("test/echo", {})  # by its answer the delay is on its way, ahead of the crash
        with pytest.raises(ServerExited):
            await client.request("test/crash", {"status": 7})
        with pytest.raises(ServerExited):
            await pending
        assert await client.exited == 7
        assert not client.alive
        with pytest.raises(ServerExited) as caught:
            await client.request("test/echo", {})
        assert "panicked at the disco" in str(caught.value)
        await client.shutdown()  # harmless on a dead server
        assert not alive(client.pid)

    run(body())


def test_shutdown_dance_exits_cleanly_and_reaps():
    async def body():
        client = await started()
        status = await client.shutdown(timeout=5)
        assert status == 0
        assert not alive(client.pid), "the child must be reaped, not left a zombie"

    run(body())


def test_shutdown_kills_a_server_that_ignores_it():
    async def body():
        client = await started(FAKE_IGNORE_SHUTDOWN="1")
        status = await client.shutdown(timeout=0.3)
        assert status == -9
        assert not alive(client.pid)

    run(body())


def test_stdout_closed_while_alive_fails_requests():
    async def body():
        # `exec 1>&-` closes the output and then waits: the client must not hang
        client = await LspClient.spawn(["/bin/sh", "-c", "exec 1>&-; sleep 30"])
        with pytest.raises(ServerExited):
            await client.request("initialize", {}, timeout=5)
        await client.shutdown(timeout=0.2)
        assert not alive(client.pid)

    run(body())


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads the child's fds from /proc")
@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_the_server_reads_and_writes_plain_pipes(loop):
    """uvloop alone would hand the child socket pairs, which cost more per write on both sides."""
    import stat

    async def body():
        client = await started()
        try:
            for fd in (0, 1, 2):
                mode = os.stat(f"/proc/{client.pid}/fd/{fd}").st_mode
                assert stat.S_ISFIFO(mode), f"the server's fd {fd} is not a pipe"
            assert await client.request("test/echo", {"n": 1}, timeout=5) == {"n": 1}
        finally:
            await client.shutdown()
        assert not alive(client.pid)

    run_on(loop, body())


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_the_server_has_a_process_group_of_its_own_in_our_session(loop):
    """Its own group keeps a terminal's Ctrl-C away from it and lets kill() take its helpers; our
    session keeps it in our scheduler group (a session of its own made every hover slower)."""

    async def body():
        client = await started()
        try:
            assert os.getpgid(client.pid) == client.pid
            assert os.getsid(client.pid) == os.getsid(0)
        finally:
            await client.shutdown()

    run_on(loop, body())


def test_catch_up_reads_what_the_server_wrote_while_the_loop_was_not_running(tmp_path):
    """A loop run only during calls (SyncSession) must see the server as it is when a call begins."""
    fifo = tmp_path / "loaded"
    os.mkfifo(fifo)
    told = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # readable once the server has written to it
    loop = asyncio.new_event_loop()
    try:
        client = loop.run_until_complete(started(FAKE_LOADED_FIFO=str(fifo)))
        loaded = []
        client.notification_handlers["test/loaded"] = loaded.append
        # the server loads in two phases from a thread of its own, after this answer: the last status
        # and `test/loaded` land while the loop is stopped
        loop.run_until_complete(client.request("test/phases", {"gap_ms": 50}, timeout=5))
        assert select.select([told], [], [], 10)[0] == [told], "the server never said it had loaded"
        assert os.read(told, 16) == b"loaded"
        assert loaded == [], "nothing has read the pipe yet"
        loop.run_until_complete(client.catch_up())
        assert loaded == [{}]
        assert client.quiescent and not client.busy
        loop.run_until_complete(client.shutdown())
    finally:
        loop.close()
        os.close(told)


class _CountingWrites:
    """Wraps the client's stdin transport to count the writes that reach the pipe."""

    def __init__(self, client: LspClient) -> None:
        self.writes: list[bytes] = []
        transport = client._stdin
        self._write = transport.write
        transport.write = self._count  # type: ignore[method-assign]

    def _count(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self._write(data)


async def counting() -> tuple[LspClient, _CountingWrites]:
    """A started client, quiet (the server's start-up questions answered), its writes counted from now."""
    client = await started()
    assert await client.wait_quiescent(10)
    await client.request("test/seen", {})
    return client, _CountingWrites(client)


def test_an_edit_and_the_request_reading_it_go_in_one_write_and_the_undo_in_one_more():
    async def body():
        client, counter = await counting()
        client.notify("test/open", {"v": 1})
        answer = await client.request("test/echo", {"v": 1})
        assert answer == {"v": 1}
        assert len(counter.writes) == 1 and counter.writes[0].count(b"Content-Length") == 2
        client.notify("test/change", {"v": 2})
        client.notify("test/close", {})
        assert len(counter.writes) == 1, "notifications wait for the end of the loop turn"
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert len(counter.writes) == 2 and counter.writes[1].count(b"Content-Length") == 2
        assert await client.request("test/seen", {}) == ["test/open", "test/echo", "test/change", "test/close"]
        await client.shutdown()

    run(body())


def test_a_burst_of_requests_costs_two_writes_and_keeps_its_order():
    async def body():
        client, counter = await counting()
        answers = await asyncio.gather(*(client.request("test/echo", {"n": n}) for n in range(40)))
        assert answers == [{"n": n} for n in range(40)]
        assert len(counter.writes) == 2, "the first request goes at once, the other 39 at the turn's end"
        assert await client.request("test/seen", {}) == ["test/echo"] * 40
        await client.shutdown()

    run(body())


def test_requests_in_lockstep_each_go_at_once_in_a_write_of_their_own():
    async def body():
        client, counter = await counting()
        for n in range(5):
            pending = client.send_request("test/echo", {"n": n})
            assert len(counter.writes) == n + 1, "a request after the server's answer is not held to the turn's end"
            assert not client._out.turn_end_due, "and no loop turn is spent on an empty outbox"
            assert await pending == {"n": n}
        await client.shutdown()

    run(body())


def test_a_lone_notification_reaches_the_server_without_a_request_behind_it():
    async def body():
        client = await started()
        poked = asyncio.get_running_loop().create_future()
        client.notification_handlers["test/poked"] = poked.set_result
        client.notify("test/poke", {"n": 7})  # the server answers it with a notification of its own
        assert await asyncio.wait_for(poked, 5) == {"n": 7}
        await client.shutdown()

    run(body())


# ---- answers decoded by their request's own decoder --------------------------------------------


def test_answered_id_reads_a_response_head_and_nothing_else():
    assert answered_id(b'{"jsonrpc":"2.0","id":42,"result":null}') == 42
    assert answered_id(b'{"jsonrpc":"2.0","id":7,"error":{"code":1}}') == 7
    assert answered_id(b'{"jsonrpc":"2.0","id":7,"method":"workspace/configuration"}') is None  # the server asks
    assert answered_id(b'{"jsonrpc": "2.0", "id": 7, "result": null}') is None  # another writer's spacing
    assert answered_id(b'{"jsonrpc":"2.0","id":"7","result":null}') is None  # ids the client never sends
    assert answered_id(b'{"jsonrpc":"2.0","id":-7,"result":null}') is None


@pytest.mark.parametrize("compact", [True, False], ids=["rust-analyzer's spacing", "another spacing"])
def test_a_completion_answer_is_decoded_to_the_fields_read_and_a_server_request_under_its_id_is_not(compact):
    """The server asks the client something under the very id of the pending completion request (the
    two number apart): that request must be answered as a request, and the completion answer after it
    decoded by the completion decoder when its head shows the id, else in full; the fields read, and
    the item as sent back for resolve, are the same either way."""

    async def body():
        client = await started(FAKE_COMPACT="1" if compact else "0")
        result = await client.send_request("test/complete_asking", {
            "method": "workspace/configuration", "params": {"items": [{"section": "fake"}]}},
            decode=completion_list.decode_answer)
        (item,) = result["items"]
        assert json.loads(item["label"]) == [{"section": "fake", "checkOnSave": False}]
        assert (item["kind"], item["detail"]) == (3, "fn()")
        assert ("tags" in item) is not compact  # a field nobody reads: skipped by the completion decoder
        sent = completion_list.as_sent(item)
        assert sent["data"] == {"position": {"line": 0, "character": 0}, "hash": "h"}
        assert sent["textEdit"]["newText"] == "x"
        assert orjson.loads(orjson.dumps(sent)) == sent
        assert not client._decoders, "a decoder outlived its answer"
        await client.shutdown()

    run(body())


def test_an_answer_of_another_shape_is_decoded_in_full():
    odd = b'{"jsonrpc":"2.0","id":3,"result":{"items":[{"label":1}]}}'  # a label that is not a string
    assert completion_list.decode_answer(odd) == orjson.loads(odd)
    with pytest.raises(orjson.JSONDecodeError):
        completion_list.decode_answer(b'{"jsonrpc":"2.0","id":3,"result":')


def test_without_msgspec_a_completion_answer_is_decoded_in_full_and_reads_the_same():
    """An interpreter msgspec has no build for: the answer is decoded in full, and what the relay reads
    of it (the fields, the item sent back for resolve) is what it reads with msgspec."""
    pytest.importorskip("msgspec", reason="the comparison needs msgspec here (CPython)")
    body = (b'{"jsonrpc":"2.0","id":3,"result":{"isIncomplete":true,"items":[{"label":"unwrap","kind":2,'
            b'"detail":"fn(self) -> T","sortText":"7fff","tags":[1],"textEdit":{"range":{"start":{"line":0,'
            b'"character":4},"end":{"line":0,"character":6}},"newText":"unwrap()"},"data":{"hash":"h","n":[1,2]}}]}}')
    code = ("import sys, orjson; sys.modules['msgspec'] = None\n"
            "from ferrule.lsp import completion_list as c\n"
            "answer = c.decode_answer(sys.stdin.buffer.read())\n"
            "item = answer['result']['items'][0]\n"
            "sys.stdout.buffer.write(orjson.dumps({'answer': answer, 'sent': c.as_sent(item)}))\n")
    done = subprocess.run([sys.executable, "-c", code], input=body, capture_output=True, timeout=60, check=True)
    without = orjson.loads(done.stdout)
    assert without["answer"] == orjson.loads(body)  # in full
    answer = completion_list.decode_answer(body)
    (item,) = answer["result"]["items"]
    (full,) = without["answer"]["result"]["items"]
    for field in ("label", "kind", "detail", "sortText"):
        assert item[field] == full[field]
    assert answer["result"]["isIncomplete"] is without["answer"]["result"]["isIncomplete"] is True
    assert completion_list.as_sent(item) == \
        {key: value for key, value in without["sent"].items() if key != "tags"}  # a field nobody reads is skipped
