"""An app of the official MCP SDK (2.x), served on ferrule's loop with the SDK's own semantics.

Every SDK 2.x app comes down to a low-level `mcp.server.lowlevel.Server`: `MCPServer` holds one,
fastmcp's `FastMCP` holds one (`LowLevelServer`), and a low-level app is one. Its `ServerRunner`
is the SDK's per-connection kernel: given `(dispatch context, method, params)` it validates the
request for the connection's revision, runs the app's middleware and handler, and shapes the result
for the wire (cache hints, the revision's sieve, the 2026 stamp). ferrule replaces what is around
it: the transport, the read loop, the concurrency and the JSON encoding. So tools, their argument
validation, `Context` injection, structured output, resources, prompts and completion all behave as
the app's own registries say.

Eras are chosen per request, as everywhere in ferrule: a request carrying the 2026-07-28 envelope
is served statelessly (the SDK's envelope ladder, then a born-ready connection, as the SDK's modern
loop does); every other request belongs to the one handshake-era connection of the process.
`initialize` is handled before the next line is read (the SDK also runs it inline), and the revision
it negotiated is recorded for the read loop's batch rule; a `tools/call` that the app's direct route
takes (an MCPServer's tool, direct.py; a fastmcp app's, fastdirect.py) runs a sync tool where the
SDK's worker thread would, off the read loop (on the thread that read the call, the reading handed
on), and an async one on the lane (a fastmcp tool that fastmcp runs on its event loop: on the main
thread, where the reading then does not run); every other request and notification runs on the
async lane, concurrently. The app's stderr is not captured: most of its work runs beside the read
loop, so it goes to the host's log as it is written.

Server-to-client requests (sampling, elicitation, roots, ping from the server) go out on the same
channel in the handshake era, and the client's answer (routed back by its id) resumes the waiting
tool; the 2026-07-28 era has no server-to-client requests, so there the tool gets the SDK's own
`NoBackChannelError`, as under the SDK. Notifications (log messages, progress) are sent in both.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import Future
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.connection import Connection, NotifyOnlyOutbound
from mcp.server.lowlevel.server import Server as LowLevelServer
from mcp.server.models import InitializationOptions
from mcp.server.runner import ServerRunner, modern_error_data, serve_one
from mcp.shared.exceptions import MCPError, NoBackChannelError
from mcp.shared.inbound import InboundLadderRejection, classify_inbound_request
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data, progress_token_from_params
from mcp.shared.transport_context import TransportContext
from mcp_types import INTERNAL_ERROR, REQUEST_TIMEOUT, ErrorData

from ..eras import is_stateless
from ..server import Server, log_exception
from ..turns import MainThreadJobs
from ..wire import encode, error_line, raw_result_line, result_line
from .workers import ToolThreads

if TYPE_CHECKING:
    from .direct import DirectTools, ToolPlan
    from .fastdirect import FastPlan, FastTools

__all__ = ["SdkServer"]

_STDIO = TransportContext(kind="stdio", can_send_request=False)
_DUPLEX = TransportContext(kind="stdio", can_send_request=True)
Lifespan = Callable[[], AbstractAsyncContextManager[Any]]
_WORKERS = 40  # as many worker threads as anyio's default limiter lets the SDKs run at once
_UNSET = object()


class _Outbound:
    """The connection-scoped channel: notifications, and requests to the client."""

    can_send_request = True

    def __init__(self, server: SdkServer) -> None:
        self._server = server

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> None:
        if method.endswith("/list_changed") and self._server._fast is not None:
            self._server._fast.revoke()  # the app's lists (or a session's view of them) changed
        if params is None:  # as the SDK sends it: no params member at all
            self._server.write([encode({"jsonrpc": "2.0", "method": method})])
        else:
            self._server.notify(method, dict(params))

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> dict[str, Any]:
        if not self.can_send_request:
            raise NoBackChannelError(method)
        return await self._server.request(method, params, opts)


class _Exchange(_Outbound):
    """The SDK's `DispatchContext` for one inbound message on ferrule's channel."""

    message_metadata = None

    def __init__(self, server: SdkServer, request_id: Any, params: Mapping[str, Any] | None, modern: bool,
                 cancellable: bool = True) -> None:
        super().__init__(server)
        self.can_send_request = not modern  # 2026-07-28 has no server-to-client requests
        self.transport = _STDIO if modern else _DUPLEX
        self.request_id = request_id
        self._token = progress_token_from_params(params)
        # made now for a request a cancellation can reach (from the lane); else when first asked for,
        # by the one thread the call runs on: making one costs over a microsecond a call
        self._cancel_requested: anyio.Event | None = anyio.Event() if cancellable else None
        self.closed = False

    @property
    def cancel_requested(self) -> anyio.Event:
        if self._cancel_requested is None:
            self._cancel_requested = anyio.Event()
        return self._cancel_requested

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> None:
        if not self.closed:  # nothing for a request may follow its answer
            await super().notify(method, params, opts)

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        if self._token is None:
            return
        params: dict[str, Any] = {"progressToken": self._token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self.notify("notifications/progress", params)


class SdkServer(Server):
    """A low-level SDK `Server` (`app`) served by ferrule. `lifespans` are entered, in order, for
    the run (the low-level server's own is entered last, as its `run()` does), and every request and
    notification sees the context variables they set. `init_options` answer `initialize` (default:
    the app's `create_initialization_options()`, as the SDK's runner does). `direct`, when given,
    takes the `tools/call` requests it can answer straight from the app's registry (direct.py);
    `fast` does the same for a fastmcp app (fastdirect.py)."""

    session_capture = False  # the app's work runs on the lane, beside the read loop: its stderr passes live
    beside_limit = _WORKERS  # sync tools on reading threads at once, as on the SDKs' worker threads

    def __init__(
        self, app: LowLevelServer[Any], lifespans: list[Lifespan], *, label: str, direct: DirectTools | None = None,
        fast: FastTools | None = None, init_options: InitializationOptions | None = None,
    ) -> None:
        super().__init__(app.name, app.version or "", instructions=app.instructions)
        self.app = app
        self.label = label
        self._init_options = init_options
        self._direct = direct
        self._fast = fast
        self._workers: ToolThreads | None = None  # sync tools on the direct routes, as the SDKs' worker threads run them
        # request id -> its cancel cell ([True] once cancelled), for the sync calls off the read loop
        self._in_thread: dict[Any, list[bool]] = {}
        self._main_jobs = MainThreadJobs()  # a fastmcp app's tools that run on its event loop's thread
        self._lifespans = [*lifespans, lambda: app.lifespan(app)]
        self._outbound = _Outbound(self)
        self._state: Any = None
        self._run_vars: list[tuple[contextvars.ContextVar[Any], Any]] = []  # what the lifespans set
        self._stop: anyio.Event | None = None
        self._legacy: ServerRunner[Any] | None = None
        self._last_request_id = 0
        self._waiting: dict[Any, asyncio.Future[dict[str, Any]]] = {}  # touched on the lane only
        self._exchanges: dict[Any, _Exchange] = {}  # the requests running, by id; on the lane only

    # -- lifecycle: the app's lifespans are held open on the lane for the whole run ---------------

    def started(self) -> None:
        entered: Future[Any] = Future()
        self.lane.spawn(self._hold_lifespans(entered))
        self._state = entered.result()  # a lifespan that raised ends the run here, with its error
        self._legacy = ServerRunner(self.app, Connection.for_loop(self._outbound), self._state,
                                    init_options=self._init_options)
        if self._direct is not None and not self._direct.usable():
            self._direct = None
        if self._fast is not None and not self._fast.usable():
            self._fast = None
        if self._fast is not None or self._direct is not None:
            self._workers = ToolThreads(_WORKERS, self.write, log_exception)

    async def _hold_lifespans(self, entered: Future[Any]) -> None:
        self._stop = stop = anyio.Event()
        before = contextvars.copy_context()
        try:
            async with AsyncExitStack() as stack:
                state = None
                for lifespan in self._lifespans:
                    state = await stack.enter_async_context(lifespan())
                self._run_vars = [(var, value) for var, value in contextvars.copy_context().items()
                                  if before.get(var, _UNSET) is not value]
                entered.set_result(state)
                await stop.wait()
        except BaseException as exc:
            if not entered.done():
                entered.set_exception(exc)
            else:
                raise

    def _enter_run(self) -> None:
        """Set in the running task's own context what the lifespans set in theirs (fastmcp's
        transport name, the app's own variables): the SDK's handlers run inside the lifespans."""
        for var, value in self._run_vars:
            var.set(value)

    def serve_turns(self) -> None:
        if self._fast is None:
            super().serve_turns()
            return
        # fastmcp runs a sync tool on a worker thread, or on its event loop's, the main one: the
        # reading moves off the main thread, which runs the loop's tools
        reader = threading.Thread(target=self._read_off_main, name="mcp-reader", daemon=True)
        reader.start()
        self._main_jobs.serve()
        reader.join()
        self.turns.finish()

    def _read_off_main(self) -> None:
        try:
            self.turns.run()
        finally:
            self._main_jobs.stop()

    def stopping(self) -> None:
        try:
            if self._workers is not None:
                self._workers.shutdown()  # the calls on worker threads answer first
            self.lane.drain()
            if self._stop is not None:
                self.lane.call(_set(self._stop))
        finally:
            super().stopping()

    # -- requests and notifications ------------------------------------------------------------

    def _route(self, msg_id: Any, method: str, params: Any) -> bytes | None:
        if method == "initialize":  # before the next line is read: later requests see its outcome
            answer = self.lane.call(self._respond(msg_id, method, params))
            assert self._legacy is not None
            self.revision = self._legacy.connection.protocol_version  # what the read loop's batch rule reads
            return answer
        plan = None
        if method == "tools/call" and self._direct is not None and not (params and is_stateless(method, params)):
            assert self._legacy is not None
            plan = self._direct.plan(self._legacy, params)
            if plan is not None and plan.threaded:
                return self._off_the_loop(msg_id, partial(self._answer_direct, msg_id, plan, params))
        elif method == "tools/call" and self._fast is not None and not (params and is_stateless(method, params)):
            assert self._legacy is not None
            fast = self._fast.plan(self._legacy, params)
            if fast is not None:
                return self._call_fast(msg_id, fast, params)
        self.lane.submit(msg_id, self._respond(msg_id, method, params, plan))
        return None

    def _answer_direct(self, msg_id: Any, plan: ToolPlan, params: Any) -> bytes:
        """A sync tool's call on an MCPServer app's direct route."""
        assert self._direct is not None and self._legacy is not None
        try:
            return _answer_line(msg_id, self._direct.call(self._legacy, plan, params))
        except Exception as exc:
            return error_line(msg_id, _error_data(exc, modern=False).model_dump(mode="json", exclude_none=True))

    def _call_fast(self, msg_id: Any, plan: FastPlan, params: Any) -> bytes | None:
        """A fastmcp tool's call on the direct route: off the loop where fastmcp runs the tool on a
        thread of its own; where it runs it on its event loop, on the main thread, the reading waiting."""
        if not plan.threaded:
            return self._main_jobs.run(partial(self._answer_fast, msg_id, plan, params))
        return self._off_the_loop(msg_id, partial(self._answer_fast, msg_id, plan, params))

    def _off_the_loop(self, msg_id: Any, answer: Callable[[], bytes]) -> bytes | None:
        """A sync tool's call where its SDK would hand it to a worker thread: on the thread that read
        it, with the reading handed on (a call that runs on past the hand-on time leaves the rest of
        its read and the reading to a follower), else (beyond the limit, or in a JSON-RPC batch) on
        a worker thread. So a slow tool holds up no ping and no other call, as under the SDK, and a
        quick one costs no hop to another thread. The answer, for the read's write; None when it
        was written already, or the call was cancelled meanwhile (not answered, as under the SDK)."""
        assert self._workers is not None
        # a cell, not a flag in the dict: a cancel that finds the call gone cannot put an entry back
        self._in_thread[msg_id] = cell = [False]
        if self.can_run_beside_in_read:
            return self.beside_in_read(partial(self._unless_cancelled, msg_id, cell, answer))
        self._workers.submit(self._unless_cancelled, msg_id, cell, answer)
        return None

    def _unless_cancelled(self, msg_id: Any, cell: list[bool], answer: Callable[[], bytes]) -> bytes | None:
        try:
            line = answer()
        finally:
            if self._in_thread.get(msg_id) is cell:
                del self._in_thread[msg_id]
        return None if cell[0] else line  # a cancelled call is not answered, as under the SDK

    def _answer_fast(self, msg_id: Any, plan: FastPlan, params: Any) -> bytes:
        assert self._fast is not None and self._legacy is not None
        exchange = _Exchange(self, msg_id, params, False, cancellable=False)
        try:
            return _answer_line(msg_id, self._fast.call(self._legacy, plan, exchange, params, self.lane.call))
        except Exception as exc:
            return error_line(msg_id, _error_data(exc, modern=False).model_dump(mode="json", exclude_none=True))
        finally:
            exchange.closed = True

    async def _respond(self, msg_id: Any, method: str, params: Any, plan: ToolPlan | None = None) -> bytes | None:
        """Serve one request on the lane: the direct route's `plan` for an async tool, else the kernel."""
        self._enter_run()
        modern = params is not None and is_stateless(method, params)
        exchange = _Exchange(self, msg_id, params, modern)
        self._exchanges[msg_id] = exchange
        try:
            if plan is not None:
                assert self._direct is not None and self._legacy is not None
                result = await self._direct.call_async(self._legacy, plan, exchange, params)
            elif modern:
                result = await self._serve_modern(exchange, method, params)
            else:
                assert self._legacy is not None
                result = await self._legacy.on_request(exchange, method, params)
        except Exception as exc:
            return error_line(msg_id, _error_data(exc, modern).model_dump(mode="json", exclude_none=True))
        finally:
            exchange.closed = True
            if self._exchanges.get(msg_id) is exchange:
                del self._exchanges[msg_id]
        return result_line(msg_id, result)

    async def _serve_modern(self, exchange: _Exchange, method: str, params: Any) -> dict[str, Any]:
        route = classify_inbound_request({"method": method, "params": params})
        if isinstance(route, InboundLadderRejection):
            raise MCPError(code=route.code, message=route.message, data=route.data)
        connection = Connection.from_envelope(route.protocol_version, route.client_info, route.client_capabilities,
                                              outbound=NotifyOnlyOutbound(self._outbound))
        return await serve_one(self.app, exchange, method, params, connection=connection, lifespan_state=self._state)

    def on_notification(self, method: str, params: Any) -> None:
        if method == "notifications/cancelled" and type(params) is dict and type(params.get("requestId")) in (int, str):
            cell = self._in_thread.get(params["requestId"])
            if cell is not None:
                cell[0] = True
        if method == "notifications/cancelled" and type(params) is dict and self.lane.started:
            # As the SDK's dispatcher does: the request's cancel_requested is set, then its task cancelled.
            self.lane.loop.call_soon_threadsafe(self._cancel_requested, params.get("requestId"))
        super().on_notification(method, params)  # a cancel reaches the running call at once
        self.lane.spawn(self._notified(method, params))

    async def _notified(self, method: str, params: Any) -> None:
        assert self._legacy is not None
        self._enter_run()
        try:
            await self._legacy.on_notify(_Exchange(self, None, params, False), method, params)
        except Exception as exc:  # the SDK logs a notification handler's failure and goes on
            print(f"{self.label}: the handler of {method!r} raised {exc!r}", file=sys.stderr)


    # -- requests to the client (handshake era) ------------------------------------------------

    async def request(self, method: str, params: Mapping[str, Any] | None, opts: Any) -> dict[str, Any]:
        """Send a request to the client and wait for its answer (on the lane)."""
        self._last_request_id += 1
        request_id = self._last_request_id
        waiting = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = waiting
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.write([encode(message)])
        timeout = (opts or {}).get("timeout")
        try:
            with anyio.fail_after(timeout):
                answer = await waiting
        except TimeoutError:
            raise MCPError(code=REQUEST_TIMEOUT, message=f"the client did not answer {method} in {timeout} s") from None
        finally:
            self._waiting.pop(request_id, None)
        if "error" in answer:
            raise MCPError.from_error_data(ErrorData.model_validate(answer["error"]))
        result = answer.get("result")
        return result if type(result) is dict else {}

    def on_response(self, msg: dict[str, Any]) -> None:
        if self.lane.started:
            self.lane.loop.call_soon_threadsafe(self._resolve, msg)

    def _cancel_requested(self, msg_id: Any) -> None:
        exchange = self._exchanges.get(msg_id)
        if exchange is not None:
            exchange.cancel_requested.set()

    def _resolve(self, msg: dict[str, Any]) -> None:
        waiting = self._waiting.get(msg.get("id"))
        if waiting is not None and not waiting.done():
            waiting.set_result(msg)


def _error_data(exc: Exception, modern: bool) -> ErrorData:
    """The error answer to a request whose handling raised, as the SDK's dispatcher shapes it."""
    error = handler_exception_to_error_data(exc)
    if error is None:
        # The SDK sends code 0 in the handshake era; JSON-RPC's code for a fault is -32603.
        error = modern_error_data(exc) if modern else _internal(exc)
    return error


def _internal(exc: Exception) -> ErrorData:
    log_exception(exc)
    return ErrorData(code=INTERNAL_ERROR, message=str(exc) or type(exc).__name__)


async def _set(event: anyio.Event) -> None:
    event.set()


@asynccontextmanager
async def no_lifespan() -> AsyncIterator[None]:
    yield None


def _answer_line(msg_id: Any, result: dict[str, Any] | bytes) -> bytes:
    """The response to a direct route's call: its result as a dict, or already encoded."""
    return raw_result_line(msg_id, result) if type(result) is bytes else result_line(msg_id, result)
