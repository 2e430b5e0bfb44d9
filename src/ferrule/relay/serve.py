"""`ferrule serve`: the NDJSON loop between a host and one warm Session.

Frames are read as they arrive and served concurrently: answers may leave out of order (the caller's
ids correlate them), but the ops on one file take effect in arrival order: an op that changes what the
analyzer sees of the file (`update`, any op with `content`) waits for every earlier op on that file
and holds every later one, while ops that only read it (the op table says which) may overlap one
another. `init`/`shutdown` are barriers (they wait for every earlier op, every later op waits for
them). The relay initialises itself at start, so the host's first frame may be any op. The loop
survives every bad frame and every failed op; only end of input (clean analyzer shutdown, exit 0) or
a `shutdown` op (answered `{}`, exit 0) ends it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import math
import os
import stat
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import orjson

from ferrule._deadlines import wait_until
from ferrule._pipes import widen_pipe
from ferrule._turns import TurnWriter
from ferrule.fastframe import DEFAULT_MAX_LINE, FrameTooLarge, LineFramer
from ferrule.project import BadRequest, FerruleError, OpTimeout, OracleCrashed, ProjectRoot
from ferrule.relay.envelope import (
    FrameRejected,
    Request,
    RequestId,
    encode_error,
    encode_result,
    parse_request,
)
from ferrule.relay.params import FileParams, InitParams, OpParams, ShutdownParams
from ferrule.relay.results import OpResult


class SessionLike(Protocol):
    async def run(self, op: str, params: OpParams) -> OpResult: ...


SessionFactory = Callable[..., SessionLike]


def log(message: str) -> None:
    sys.stderr.write(f"ferrule serve: {message}\n")
    sys.stderr.flush()


class ProgressLog:
    """Indexing progress on stderr for a host's log: at most one line a second, and the last one."""

    def __init__(self, prefix: str = "indexing", interval: float = 1.0) -> None:
        self.prefix, self.interval, self._last = prefix, interval, 0.0

    def __call__(self, message: str, percentage: int | None) -> None:
        now = time.monotonic()
        if now - self._last < self.interval:
            return
        self._last = now
        pct = f"{percentage:3d}% " if percentage is not None else ""
        log(f"{self.prefix}: {pct}{message}")


class Relay:
    """Schedules checked requests on the Session and writes each answer as soon as it is ready."""

    def __init__(self, session: SessionLike, root: ProjectRoot, write: Callable[[bytes], None]) -> None:
        self.loop = asyncio.get_running_loop()  # held: each lookup costs a getpid() syscall
        self.session = session
        self.root = root
        self.write = write
        self.writes: dict[str, asyncio.Task[None]] = {}  # per file: the last op that changes it
        self.reads: dict[str, set[asyncio.Task[None]]] = {}  # per file: the reads scheduled since
        self.barrier: asyncio.Task[None] | None = None  # last init/shutdown
        self.pending: set[asyncio.Task[None]] = set()
        self.shutdown_task: asyncio.Task[None] | None = None
        self.shutdown_requested = asyncio.Event()

    # -- intake ------------------------------------------------------------------------------------

    def submit_line(self, line: bytes) -> None:
        if not line.strip():
            return
        if self.shutdown_task is not None:
            self.write(encode_error(_peek_id(line), BadRequest(
                "frame after `shutdown`: the relay is shutting down and does not serve it",
                "send nothing after shutdown; start a new relay to continue")))
            return
        try:
            request = parse_request(line, self.root)
        except FrameRejected as rejected:
            self.write(encode_error(rejected.id, rejected.error))
            return
        task = self.schedule(request)
        if request.op == "shutdown":
            self.shutdown_task = task
            self.shutdown_requested.set()

    def reject_oversized(self, limit: int) -> None:
        self.write(encode_error(None, BadRequest(
            f"frame longer than {limit} bytes: discarded unread", "send smaller frames")))

    def schedule(self, request: Request, *, answer: bool = True) -> asyncio.Task[None]:
        file = request.file
        after: list[asyncio.Task[None]]
        if file is None:  # init and shutdown: wait for everything before, hold everything after
            after = list(self.pending)
            reading = False
        else:
            after = [t for t in (self.barrier, self.writes.get(file)) if t is not None and not t.done()]
            reading = request.only_reads
            if not reading:  # a change waits for the reads before it, too
                after += self.reads.pop(file, ())
        task = self.loop.create_task(self._run(request, after, answer, time.monotonic()))
        self.pending.add(task)
        task.add_done_callback(functools.partial(self._forget, file=file))
        if file is None:
            self.barrier = task
        elif reading:
            self.reads.setdefault(file, set()).add(task)
        else:
            self.writes[file] = task
        return task

    def _forget(self, task: asyncio.Task[None], file: str | None) -> None:
        self.pending.discard(task)
        if file is None:
            return
        if self.writes.get(file) is task:
            del self.writes[file]
        reads = self.reads.get(file)
        if reads is not None:
            reads.discard(task)
            if not reads:
                del self.reads[file]

    # -- running -----------------------------------------------------------------------------------

    async def _run(self, request: Request, after: list[asyncio.Task[None]], answer: bool,
                   arrived: float) -> None:
        # A caller's `timeout_ms` counts from the frame's arrival: time queued behind earlier ops on
        # the same file is part of it, and an op still queued when it runs out is answered `timeout`.
        # Its clock is the monotonic one (`ferrule._deadlines`), as the Session's and the client's are.
        budget_ms = request.params.timeout_ms
        deadline = None if budget_ms is None else arrived + budget_ms / 1000
        params = request.params
        if after and not all(t.done() for t in after):
            # the sandbox check made at arrival is stale once the op has waited: check again at use
            if isinstance(params, FileParams):
                params = dataclasses.replace(params, checked=None)
            still = await wait_until(after, deadline)
            if still:
                assert budget_ms is not None  # only a caller's budget sets a deadline
                self._fail(request, answer, _queued_too_long(request, budget_ms))
                await asyncio.wait(still)  # this op's place in the file's order is kept for the next ones
                return
        try:
            if deadline is not None:
                left_ms = math.ceil((deadline - time.monotonic()) * 1000)
                if left_ms <= 0:
                    assert budget_ms is not None
                    raise _queued_too_long(request, budget_ms)
                params = dataclasses.replace(params, timeout_ms=left_ms)
            try:
                result = await self.session.run(request.op, params)
            except OpTimeout:
                if budget_ms is None:
                    raise
                raise OpTimeout.for_op(request.op, budget_ms) from None  # the caller's budget, not what was left
        except FerruleError as error:  # a failed self-init is retried by the Session on the next op
            self._fail(request, answer, error)
            return
        except Exception as exc:  # a relay bug must cost one answer, never the loop
            traceback.print_exc(file=sys.stderr)
            self._fail(request, answer, OracleCrashed(
                f"relay internal error in {request.op}: {type(exc).__name__}: {exc}",
                "retry the op; if it fails again, report the relay's stderr"))
            return
        if request.op == "init" and not answer:
            log("ready: " + ", ".join(f"{k}={v}" for k, v in result.items()))
        if answer:
            self.write(encode_result(request.id, result))

    def _fail(self, request: Request, answer: bool, error: FerruleError) -> None:
        if answer:
            self.write(encode_error(request.id, error))
        else:
            log(f"{error.kind}: {error.message}\n  recipe: {error.recipe}")

    async def drain(self) -> None:
        while self.pending:
            await asyncio.wait(list(self.pending))


# ---------------------------------------------------------------------------------------------------
# byte streams: asyncio pipes when the fds are pipes (no thread hop), a reader thread otherwise


def _queued_too_long(request: Request, budget_ms: int) -> OpTimeout:
    error = OpTimeout.for_op(request.op, budget_ms)
    error.message += f" (it was still queued behind earlier ops on {request.file or 'the session'})"
    return error


class _Intake(asyncio.Protocol):
    def __init__(self, on_data: Callable[[bytes], None], on_eof: Callable[[], None]) -> None:
        self.on_data, self.on_eof = on_data, on_eof

    def data_received(self, data: bytes) -> None:
        self.on_data(data)

    def eof_received(self) -> bool:
        self.on_eof()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.on_eof()


class _Outlet(asyncio.Protocol):
    def __init__(self) -> None:
        self.closed = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(exc)


def _is_streamable(fileobj: Any) -> bool:
    try:
        mode = os.fstat(fileobj.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def _open_intake(
    stdin: BinaryIO, on_data: Callable[[bytes], None], on_eof: Callable[[], None]
) -> asyncio.BaseTransport | None:
    loop = asyncio.get_running_loop()
    if _is_streamable(stdin):
        widen_pipe(stdin.fileno())
        transport, _ = await loop.connect_read_pipe(lambda: _Intake(on_data, on_eof), stdin)
        return transport

    def pump() -> None:  # files, terminals, in-memory streams
        read = getattr(stdin, "read1", stdin.read)
        try:
            while True:
                data = read(65536)
                if not data:
                    break
                loop.call_soon_threadsafe(on_data, data)
            loop.call_soon_threadsafe(on_eof)
        except (OSError, ValueError, RuntimeError):  # input closed, or the loop ended (after shutdown)
            pass

    threading.Thread(target=pump, name="ferrule-serve-stdin", daemon=True).start()
    return None


class _Output:
    """Writes answer lines without ever blocking the loop on a slow reader (pipes), or plainly.

    Answers are joined by loop turn (`ferrule._turns.TurnWriter`): the first since the host last wrote
    goes at once, with no added latency and nothing scheduled; the ones after it go in one write at
    the end of their turn, so a pipelined burst costs the host a few reads, not one per answer.
    """

    def __init__(self, stdout: BinaryIO) -> None:
        self.stdout = stdout
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.WriteTransport | None = None
        self.outlet: _Outlet | None = None
        self.broken = False
        self.turns = TurnWriter(self.loop, self._emit)
        self.write = self.turns.post  # an answer line
        self.input_arrived = self.turns.peer_wrote  # the host wrote: the next answer goes at once

    async def open(self) -> None:
        if _is_streamable(self.stdout):
            self.transport, self.outlet = await self.loop.connect_write_pipe(_Outlet, self.stdout)

    def _emit(self, data: bytes) -> None:
        if self.broken:
            return
        if self.transport is not None:
            if self.transport.is_closing():
                self.broken = True
                return
            self.transport.write(data)
            return
        try:
            self.stdout.write(data)
            self.stdout.flush()
        except (OSError, ValueError):
            self.broken = True  # the host stopped reading; keep serving until its input ends

    async def close(self) -> None:
        self.turns.flush()
        if self.transport is not None and self.outlet is not None:
            self.transport.close()
            await self.outlet.closed


# ---------------------------------------------------------------------------------------------------


async def serve_async(
    root: Path,
    stdin: BinaryIO,
    stdout: BinaryIO,
    *,
    analyzer: str | None = None,
    session_factory: SessionFactory | None = None,
    max_line: int = DEFAULT_MAX_LINE,
) -> int:
    project = ProjectRoot(root)
    if session_factory is None:
        from ferrule.relay.session import Session

        session_factory = Session
    session = session_factory(project.path, analyzer=analyzer, on_progress=ProgressLog())
    output = _Output(stdout)
    await output.open()
    relay = Relay(session, project, output.write)
    framer = LineFramer(max_line)
    ended = asyncio.get_running_loop().create_future()

    def on_data(data: bytes) -> None:
        output.input_arrived()
        while True:
            try:
                lines = framer.feed(data)
            except FrameTooLarge as exc:
                for line in exc.lines:
                    relay.submit_line(line)
                relay.reject_oversized(exc.limit)
                data = b""  # the framer kept what followed the long line; collect it
                continue
            for line in lines:
                relay.submit_line(line)
            return

    def on_eof() -> None:
        if not ended.done():
            ended.set_result(None)

    relay.schedule(Request(None, "init", InitParams(unanswered=True), None), answer=False)  # self-init: any op may come first
    intake = await _open_intake(stdin, on_data, on_eof)
    stop = asyncio.ensure_future(_wait_shutdown(relay))
    await asyncio.wait([ended, stop], return_when=asyncio.FIRST_COMPLETED)
    if not stop.done():  # end of input: answer what was asked, then a clean analyzer shutdown
        if framer.pending:  # a last frame without its newline is still a frame
            on_data(b"\n")
        stop.cancel()
        await relay.drain()
        if relay.shutdown_task is None:
            try:
                await session.run("shutdown", ShutdownParams())
            except Exception as exc:
                log(f"analyzer shutdown at end of input: {exc}")
    await relay.drain()
    if intake is not None:
        intake.close()
    await output.close()
    return 0


async def _wait_shutdown(relay: Relay) -> None:
    await relay.shutdown_requested.wait()
    assert relay.shutdown_task is not None
    # asyncio.wait, not `await task`: cancelling this watcher at end of input must not cancel the op
    await asyncio.wait([relay.shutdown_task])


def _peek_id(line: bytes) -> RequestId:
    try:
        frame = orjson.loads(line)
        return frame.get("id") if isinstance(frame, dict) else None
    except ValueError:
        return None


def _run_loop(main: Any) -> int:
    """uvloop when installed (it halves the loop's cost per frame on both hops), else asyncio;
    FERRULE_NO_UVLOOP=1 forces asyncio."""
    if not os.environ.get("FERRULE_NO_UVLOOP"):
        try:
            import uvloop
        except ImportError:
            pass
        else:
            return uvloop.run(main)
    return asyncio.run(main)


def serve(
    root: Path,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    *,
    analyzer: str | None = None,
    session_factory: SessionFactory | None = None,
) -> int:
    """Serve the NDJSON oracle protocol for the project at `root` until end of input or `shutdown`."""
    return _run_loop(serve_async(
        Path(root),
        sys.stdin.buffer if stdin is None else stdin,
        sys.stdout.buffer if stdout is None else stdout,
        analyzer=analyzer,
        session_factory=session_factory,
    ))


__all__ = ["Relay", "serve", "serve_async"]
