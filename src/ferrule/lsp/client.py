"""An asyncio LSP client over a child process's pipes.

The child's stdio are plain pipes, its stdout read by a raw `Protocol` (no StreamReader): each chunk goes to
`ferrule.fastframe.LspFramer`, every body is decoded with orjson and dispatched synchronously, and a
response resolves its request's future in place. A request may bring its own decoder for its answer
(one that reads only the fields its caller uses), found by the id read from the body's head. Requests
carry integer ids. One timer per client, set for the nearest deadline, fails the requests whose time
has run out (and sends `$/cancelRequest` for them): a timer per request, and the callback that
cancelled it, cost about a sixth of the instructions the relay's process spent on a `type` op.
Server-to-client requests get answers from a handler table; `$/progress`, `experimental/serverStatus`
and `textDocument/publishDiagnostics` are tracked.
When the child dies or closes stdout, every pending request fails with `ServerExited`.

Writes are joined, order kept (`ferrule._turns.TurnWriter`): notifications wait until the end of the
loop turn, and a request takes them along in one write (the first request since the server last wrote
goes at once; later ones wait for the end of their turn). An edit, the request that reads it and the
edit that undoes it then wake the server twice instead of four times, and a burst of requests costs
two writes. In lockstep, no loop turn is spent on an empty queue.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import math
import os
import select
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from ferrule._deadlines import timer_for, wait_until
from ferrule._pipes import widen_pipe
from ferrule._turns import TurnWriter
from ferrule.fastframe import FrameError, LspFramer, encode_lsp
from ferrule.lsp.errors import (
    INTERNAL_ERROR,
    METHOD_NOT_FOUND,
    RequestTimeout,
    ResponseError,
    ServerExited,
)

ProgressCallback = Callable[[str, "int | None"], None]
Decoder = Callable[[bytes], Any]
RequestHandler = Callable[[Any], Any]
NotificationHandler = Callable[[Any], None]

_STDERR_TAIL_BYTES = 16 * 1024
_ANSWER_HEAD = b'{"jsonrpc":"2.0","id":'  # how rust-analyzer (lsp-server) begins every response


def answered_id(body: bytes) -> int | None:
    """The id of the response `body`, read from its head without decoding it; None when the body does
    not begin the usual way (it is then decoded in full and found by its decoded id). A request from
    the server begins the same way, with an id of its own numbering: the member after the id tells."""
    if body.startswith(_ANSWER_HEAD):
        start = len(_ANSWER_HEAD)
        end = body.find(b",", start, start + 21)
        if end > start and (body.startswith(b',"result":', end) or body.startswith(b',"error":', end)):
            digits = body[start:end]
            if digits.isdigit():
                return int(digits)
    return None


class _Exit(asyncio.SubprocessProtocol):
    """Tells the client when the child has exited (its pipes are read and written separately)."""

    __slots__ = ("client",)

    def __init__(self, client: LspClient) -> None:
        self.client = client

    def process_exited(self) -> None:
        self.client._on_exited()


class _Reader(asyncio.Protocol):
    """One of the child's output pipes, straight to a callback (no StreamReader)."""

    __slots__ = ("on_data", "on_closed")

    def __init__(self, on_data: Callable[[bytes], None], on_closed: Callable[[], None] | None) -> None:
        self.on_data = on_data
        self.on_closed = on_closed

    def data_received(self, data: bytes) -> None:
        self.on_data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.on_closed is not None:
            self.on_closed()


class _Request(asyncio.Future[Any]):
    """A request's future, with what the client needs to expire or abandon it. Cancelling it (or a
    task awaiting it) tells the server to stop working on it."""

    __slots__ = ("client", "request_id", "method", "timeout", "deadline")  # set by `send_request`

    client: LspClient
    request_id: int
    method: str
    timeout: float | None
    deadline: float | None

    def cancel(self, msg: Any = None) -> bool:
        if not self.done():
            self.client._abandon(self.request_id)
        return super().cancel(msg)


class Progress:
    """One `$/progress` token's latest state."""

    __slots__ = ("title", "message", "percentage")

    def __init__(self, title: str) -> None:
        self.title = title
        self.message: str | None = None
        self.percentage: int | None = None

    def text(self) -> str:
        return f"{self.title}: {self.message}" if self.message else self.title


class LspClient:
    """One language server process and the JSON-RPC conversation with it.

    Create with `await LspClient.spawn(argv, cwd=...)`, then `await client.initialize(...)`.
    """

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._framer = LspFramer()
        self._loads = orjson.loads
        self._dumps = orjson.dumps
        self._encode = encode_lsp
        self._pending: dict[int, _Request] = {}
        # due at `_watch_at`, the nearest pending deadline (monotonic): a float of our own, as uvloop
        # may hand back a plain Handle (no `when()`) for a timer due within its millisecond
        self._watchdog: asyncio.Handle | None = None
        self._watch_at = math.inf
        self._decoders: dict[int | None, Decoder] = {}  # a pending request's own answer decoder
        self._next_id = 1
        self._transport: asyncio.SubprocessTransport | None = None
        self._stdin: asyncio.WriteTransport | None = None
        self._pipes: list[asyncio.BaseTransport] = []  # stdin, stdout, stderr
        self._output_fd = -1  # our end of the server's stdout
        self._out = TurnWriter(self._loop, self._to_server)  # requests urgent, notifications joined
        self._stderr = collections.deque[bytes]()
        self._stderr_size = 0
        self._closed: ServerExited | None = None
        self._exited = self._loop.create_future()
        self.pid: int | None = None
        self.returncode: int | None = None
        # what the server told us
        self.capabilities: dict[str, Any] = {}
        self.server_info: dict[str, Any] = {}
        self.position_encoding = "utf-16"
        self.status: dict[str, Any] = {}
        self.progress: dict[Any, Progress] = {}
        self.diagnostics: dict[str, tuple[int | None, list[dict[str, Any]]]] = {}
        self._state_waiters: list[asyncio.Future[None]] = []  # woken by each progress or status event
        self._state_changed = 0.0  # when (monotonic) the last progress or status event came
        self._diagnostic_waiters: dict[str, list[tuple[int | None, asyncio.Future[None]]]] = {}
        # hooks
        self.on_progress: ProgressCallback | None = None
        self.configuration: Callable[[dict[str, Any]], Any] = lambda item: None
        self.request_handlers: dict[str, RequestHandler] = {
            "workspace/configuration": self._answer_configuration,
            "window/workDoneProgress/create": _null,
            "client/registerCapability": _null,
            "client/unregisterCapability": _null,
            "window/showMessageRequest": _null,
            "window/showDocument": lambda params: {"success": False},
            "workspace/applyEdit": lambda params: {"applied": False, "failureReason": "read-only client"},
            "workspace/semanticTokens/refresh": _null,
            "workspace/inlayHint/refresh": _null,
            "workspace/codeLens/refresh": _null,
            "workspace/diagnostic/refresh": _null,
        }
        self.notification_handlers: dict[str, NotificationHandler] = {
            "$/progress": self._on_progress,
            "experimental/serverStatus": self._on_server_status,
            "textDocument/publishDiagnostics": self._on_diagnostics,
        }

    # ---- process -------------------------------------------------------------------------------

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> LspClient:
        client = cls()
        loop = client._loop
        # Plain pipes, made here: uvloop would give the child socket pairs, and every write to a
        # socket costs more than a write to a pipe, on both sides, on every request.
        child_in, our_in = os.pipe()
        our_out, child_out = os.pipe()
        our_err, child_err = os.pipe()
        widen_pipe(our_in)  # a whole file's text, or a large answer, is handed over at once
        widen_pipe(our_out)
        ours = [our_in, our_out, our_err]
        try:
            try:
                transport, _ = await loop.subprocess_exec(
                    lambda: _Exit(client),
                    *argv,
                    cwd=cwd,
                    env=None if env is None else dict(env),
                    stdin=child_in,
                    stdout=child_out,
                    stderr=child_err,
                    **_group_of_its_own(loop),
                )
            finally:
                for fd in (child_in, child_out, child_err):
                    os.close(fd)
            client._transport = transport
            client.pid = transport.get_pid()
            # each file object owns its fd from here: the transports close them
            client._stdin, _ = await loop.connect_write_pipe(asyncio.Protocol, open(our_in, "wb", buffering=0))
            ours.remove(our_in)
            client._pipes.append(client._stdin)
            stdout, _ = await loop.connect_read_pipe(
                lambda: _Reader(client._on_stdout, lambda: client._on_closed("server output closed")),
                open(our_out, "rb", buffering=0))
            ours.remove(our_out)
            client._pipes.append(stdout)
            stderr, _ = await loop.connect_read_pipe(lambda: _Reader(client._on_stderr, None),
                                                     open(our_err, "rb", buffering=0))
            ours.remove(our_err)
            client._pipes.append(stderr)
        except BaseException:
            for fd in ours:
                os.close(fd)
            if client._transport is not None:
                client.kill()
                client._close_pipes()
            raise
        client._output_fd = our_out
        return client

    async def catch_up(self) -> None:
        """Read what the server wrote while the loop was not running (a loop run only during calls):
        its status, progress and diagnostics are then current, and a death is noticed."""
        while self._closed is None and self._output_fd >= 0:
            try:
                readable = select.select([self._output_fd], [], [], 0)[0]
            except (OSError, ValueError):  # the pipe was closed meanwhile
                return
            if not readable:
                return
            # one turn reads the pipe, the next runs what the read scheduled
            await asyncio.sleep(0)
            await asyncio.sleep(0)

    @property
    def alive(self) -> bool:
        return self._closed is None

    @property
    def exited(self) -> asyncio.Future[int | None]:
        """Resolves with the return code once the process has exited and been reaped."""
        return self._exited

    def stderr_tail(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    def _on_stderr(self, data: bytes) -> None:
        self._stderr.append(data)
        self._stderr_size += len(data)
        while self._stderr_size > _STDERR_TAIL_BYTES and len(self._stderr) > 1:
            self._stderr_size -= len(self._stderr.popleft())

    def _on_closed(self, reason: str) -> None:
        if self._closed is not None:
            return
        self._closed = ServerExited(self.returncode, self.stderr_tail(), reason)
        self._out.discard()
        pending, self._pending = self._pending, {}
        self._decoders.clear()
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog, self._watch_at = None, math.inf
        for future in pending.values():
            if not future.done():
                future.set_exception(self._closed)
        for waiter in self._state_waiters:
            if not waiter.done():
                waiter.set_exception(self._closed)
        self._state_waiters.clear()
        for waiters in self._diagnostic_waiters.values():
            for _, pushed in waiters:
                if not pushed.done():
                    pushed.set_exception(self._closed)
        self._diagnostic_waiters.clear()

    def _on_exited(self) -> None:
        assert self._transport is not None
        self.returncode = self._transport.get_returncode()
        self._on_closed(f"server exited with status {self.returncode}")
        if not self._exited.done():
            self._exited.set_result(self.returncode)

    def _raise_if_closed(self) -> None:
        if self._closed is not None:
            raise ServerExited(self.returncode, self._closed.stderr_tail, str(self._closed).split(";")[0])

    # ---- writing -------------------------------------------------------------------------------

    def _to_server(self, data: bytes) -> None:
        if self._closed is None:  # else the server is gone: nothing more can reach it
            assert self._stdin is not None
            self._stdin.write(data)

    def flush(self) -> None:
        """Write what waits now (it would go at the end of this loop turn anyway)."""
        self._out.flush()

    def _send(self, message: dict[str, Any]) -> None:
        self._raise_if_closed()
        self._out.post(self._encode(self._dumps(message)), False)

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)

    def send_request(self, method: str, params: Any = None, *, timeout: float | None = None,
                     decode: Decoder | None = None) -> asyncio.Future[Any]:
        """Send a request and return the future of its result, so that work can overlap the wait. It is
        written at once, unless another request went out since the server last wrote: then at the end
        of this loop turn, with what else the turn sends (`flush()` writes it now).

        Cancelling the future (or a task awaiting it) sends `$/cancelRequest`; so does `timeout`
        running out, and the future then fails with `RequestTimeout`. `decode`: the decoder for the
        whole response body (it must return what orjson would, at least in the fields read).
        """
        self._raise_if_closed()
        request_id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        frame = self._encode(self._dumps(message))  # what cannot be encoded leaves nothing pending
        self._next_id = request_id + 1
        # no __init__ of its own: the future's fields are set here, one call fewer per request
        future = self._pending[request_id] = _Request(loop=self._loop)
        future.client, future.request_id, future.method, future.timeout = self, request_id, method, timeout
        if decode is not None:
            self._decoders[request_id] = decode
        self._out.post(frame)
        if timeout is None:
            future.deadline = None
        else:
            future.deadline = deadline = time.monotonic() + timeout
            if deadline < self._watch_at:
                self._watch(deadline, timeout)
        return future

    async def request(self, method: str, params: Any = None, *, timeout: float | None = None) -> Any:
        """Send a request and await its result; `ResponseError`, `ServerExited` or `RequestTimeout`."""
        return await self.send_request(method, params, timeout=timeout)

    def _watch(self, deadline: float, delay: float) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        self._watch_at = deadline
        self._watchdog = self._loop.call_later(delay, self._expire)

    def _expire(self) -> None:
        """Fail the requests whose deadline has passed; watch for the nearest one left."""
        self._watchdog, self._watch_at = None, math.inf
        now, nearest = time.monotonic(), None
        for request in list(self._pending.values()):
            deadline = request.deadline
            if deadline is None or request.done():
                continue
            if deadline <= now:
                self._abandon(request.request_id)
                request.set_exception(RequestTimeout(request.method, request.timeout or 0.0))
            elif nearest is None or deadline < nearest:
                nearest = deadline
        if nearest is not None:  # a timer may fire early: watch again for what is left
            self._watch(nearest, timer_for(nearest - now))

    def _abandon(self, request_id: int) -> None:
        """Forget a request and tell the server it may stop working on it."""
        self._decoders.pop(request_id, None)
        if self._pending.pop(request_id, None) is not None and self._closed is None:
            self.notify("$/cancelRequest", {"id": request_id})

    @property
    def in_flight(self) -> int:
        return len(self._pending)

    # ---- reading -------------------------------------------------------------------------------

    def _on_stdout(self, data: bytes) -> None:
        self._out.peer_wrote()  # the next request goes at once
        fault = None
        try:
            bodies = self._framer.feed(data)
        except FrameError as error:  # a server that writes what is not LSP is broken: no waiting it out
            bodies, fault = error.bodies, f"a malformed header ({error})"
        loads, decoders = self._loads, self._decoders
        for body in bodies:
            try:
                message = decoders.pop(answered_id(body), loads)(body) if decoders else loads(body)
            except orjson.JSONDecodeError as error:
                fault = fault or f"a body that is not JSON ({error})"
                break
            if type(message) is not dict:
                continue
            method = message.get("method")
            if method is None:
                self._on_response(message)
            elif "id" in message:
                self._on_server_request(message["id"], method, message.get("params"))
            else:
                handler = self.notification_handlers.get(method)
                if handler is not None:
                    handler(message.get("params"))
        if fault is not None:
            self._on_closed(f"the server wrote output that is not LSP: {fault}")
            self.kill()

    def _on_response(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        future = self._pending.pop(request_id, None)  # type: ignore[arg-type]
        if self._decoders:
            self._decoders.pop(request_id, None)  # answered in a shape its head did not show
        if future is None or future.done():
            return  # answered after a timeout or a cancel
        error = message.get("error")
        if error is None:
            future.set_result(message.get("result"))
        else:
            future.set_exception(
                ResponseError(future.method, int(error.get("code", 0)), str(error.get("message", "")), error.get("data"))
            )

    def _on_server_request(self, request_id: Any, method: str, params: Any) -> None:
        handler = self.request_handlers.get(method)
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
        if handler is None:
            reply["error"] = {"code": METHOD_NOT_FOUND, "message": f"unhandled method {method}"}
        else:
            try:
                reply["result"] = handler(params)
            except Exception as error:  # an answer is owed whatever happens
                reply["error"] = {"code": INTERNAL_ERROR, "message": f"{type(error).__name__}: {error}"}
        if self._closed is None:
            self._send(reply)

    def _answer_configuration(self, params: Any) -> list[Any]:
        items = (params or {}).get("items") or []
        return [self.configuration(item) for item in items]

    def _on_progress(self, params: Any) -> None:
        token = params.get("token")
        value = params.get("value") or {}
        kind = value.get("kind")
        self._state_event()
        if kind == "begin":
            state = self.progress[token] = Progress(str(value.get("title", "")))
        elif kind == "end":
            self.progress.pop(token, None)
            return
        else:
            state = self.progress.get(token) or self.progress.setdefault(token, Progress(str(token)))
        if "message" in value:
            state.message = value.get("message")
        if "percentage" in value:
            state.percentage = value.get("percentage")
        if self.on_progress is not None:
            self.on_progress(state.text(), state.percentage)

    def _on_server_status(self, params: Any) -> None:
        self.status = params or {}
        self._state_event()

    def _state_event(self) -> None:
        self._state_changed = time.monotonic()
        if self._state_waiters:
            waiters, self._state_waiters = self._state_waiters, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)

    def _on_diagnostics(self, params: Any) -> None:
        uri = params.get("uri")
        version = params.get("version")
        self.diagnostics[uri] = (version, params.get("diagnostics") or [])
        waiters = self._diagnostic_waiters.get(uri)
        if not waiters:
            return
        keep: list[tuple[int | None, asyncio.Future[None]]] = []
        for wanted, waiter in waiters:
            if waiter.done():
                continue
            # a push without a version describes the file on disk (a closed file, a cargo check),
            # not the version waited for: only a versionless wait takes it, as above
            if wanted is None or (version is not None and version >= wanted):
                waiter.set_result(None)
            else:
                keep.append((wanted, waiter))
        if keep:
            self._diagnostic_waiters[uri] = keep
        else:
            del self._diagnostic_waiters[uri]

    # ---- waiting on server state ---------------------------------------------------------------

    @property
    def quiescent(self) -> bool:
        """What the last `experimental/serverStatus` said."""
        return bool(self.status.get("quiescent"))

    @property
    def busy(self) -> bool:
        """Not quiescent, or some `$/progress` (workspace loading, indexing) still running."""
        return not self.status.get("quiescent") or bool(self.progress)

    async def wait_quiescent(self, timeout: float | None, *, settle: float = 0.0) -> bool:
        """True once the server is quiescent with no progress running and has stayed so for `settle`
        seconds since its last progress or status event; False when `timeout` passes first.

        rust-analyzer may report quiescence for a moment between two phases of a workspace load; a
        settle period lets the next phase begin before the wait counts the server as ready.
        """
        self._raise_if_closed()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            now = time.monotonic()
            pause: float | None = None
            if not self.busy:
                quiet_for = now - self._state_changed
                if quiet_for >= settle:
                    return True
                pause = settle - quiet_for
            if deadline is not None:
                if now >= deadline:
                    return False
                pause = deadline - now if pause is None else min(pause, deadline - now)
            waiter: asyncio.Future[None] = self._loop.create_future()
            self._state_waiters.append(waiter)
            try:  # woken early, the loop above waits again for what is left
                await asyncio.wait((waiter,), timeout=None if pause is None else timer_for(pause))
                if waiter.done():
                    waiter.result()  # ServerExited when the server went away first
            finally:
                waiter.cancel()
                if waiter in self._state_waiters:
                    self._state_waiters.remove(waiter)

    async def wait_diagnostics(
        self, uri: str, version: int | None, timeout: float | None, *, fresh: bool = False
    ) -> list[dict[str, Any]]:
        """The pushed diagnostics of `uri` for `version` (or later); `RequestTimeout` when none come.

        With `fresh`, only a push that arrives after the call counts (a server may publish one
        document version more than once, syntax first and semantics later).
        """
        self._raise_if_closed()
        known = self.diagnostics.get(uri)
        if not fresh and known is not None and (
            version is None or (known[0] is not None and known[0] >= version)
        ):
            return known[1]
        waiter: asyncio.Future[None] = self._loop.create_future()
        self._diagnostic_waiters.setdefault(uri, []).append((version, waiter))
        try:
            if await wait_until((waiter,), None if timeout is None else time.monotonic() + timeout):
                raise RequestTimeout("textDocument/publishDiagnostics", timeout or 0.0)
            waiter.result()  # ServerExited when the server went away first
        finally:
            waiter.cancel()  # nobody awaits it now: a later push or a close skips it, and nothing is logged
        return self.diagnostics[uri][1]

    # ---- lifecycle -----------------------------------------------------------------------------

    async def initialize(self, params: dict[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        """`initialize` then `initialized`; records capabilities and the negotiated position encoding."""
        result = await self.request("initialize", params, timeout=timeout) or {}
        self.capabilities = result.get("capabilities") or {}
        self.server_info = result.get("serverInfo") or {}
        self.position_encoding = self.capabilities.get("positionEncoding") or "utf-16"
        self.notify("initialized", {})
        return result

    async def shutdown(self, timeout: float = 2.0) -> int | None:
        """The shutdown/exit dance, then SIGKILL if the server lingers; always reaps the child."""
        if self._closed is None:
            with contextlib.suppress(Exception):
                await self.request("shutdown", None, timeout=timeout)
                self.notify("exit")
        if not self._exited.done():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._exited), timeout)
        if not self._exited.done():
            self.kill()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._exited), 5.0)
        if self._transport is not None:
            self._transport.close()
        self._close_pipes()
        return self.returncode

    def _close_pipes(self) -> None:
        for pipe in self._pipes:
            pipe.close()

    def kill(self) -> None:
        """SIGKILL the server (its process group, so helpers it spawned go too)."""
        if self._transport is None or self._exited.done():
            return
        # One signal only: Popen.send_signal polls first and could reap the child under the watcher.
        try:
            os.killpg(self._transport.get_pid(), signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            with contextlib.suppress(ProcessLookupError):
                self._transport.kill()

    async def aclose(self) -> None:
        await self.shutdown()


def _group_of_its_own(loop: asyncio.AbstractEventLoop) -> dict[str, Any]:
    """Spawn options that give the server a process group of its own, in our session.

    Its own group: a terminal's Ctrl-C reaches us and not the server mid-write, and `kill` takes the
    helpers it spawned along (killpg). Not a session of its own: Linux gives each session its own
    scheduler group (autogroup), and the server's threads then wait longer for a CPU on every
    request (about 70 µs a hover on a 2-CPU machine).
    """
    if sys.version_info >= (3, 11) and isinstance(loop, asyncio.BaseEventLoop):
        return {"process_group": 0}
    return {"preexec_fn": os.setpgrp}  # uvloop, and Python 3.10: a bare syscall in the child


def _null(params: Any) -> None:
    return None
