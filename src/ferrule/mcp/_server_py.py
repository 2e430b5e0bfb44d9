# cython: annotation_typing=False
"""The server loop (docs/MCP.md §2): `(name, version, ToolSet)` over a Transport.

The read loop is one plain thread at a time (turns.py): read whatever the channel holds (many
pipelined lines at once), handle every complete line in order, and write the answers of one read in
one write. A handler may run a blocking job where its line was read, handing the reading on
meanwhile: for the last line of a read (`run_beside`, concurrent tools), or for any line
(`beside_in_read`, the drop-in's sync tools), when a follower that takes the turn from a job still
running serves the rest of the read first. Every line
takes one route: `_decode` (bytes to a message, or the ProtocolError to answer), `classify` (the one
test of a well-formed request, wire.py), `_route` (the era and the method), the method's handler. A
`tools/call` resolves its tool through `_plan`, a cache of the decisions the route takes for a tool
name (its entry, and whether its last timed sync run was quick); the cache is dropped when the
ToolSet changes.

Sync tools run on the read loop, one at a time, inside the capture guard (docs/MCP.md §4.2), which
is what licenses a process-global redirect. Over stdio the redirect is made once for the run
(`CaptureSession`) and each call reads its own window of the capture file; over other transports
each call is captured on its own (`capture_stderr`). Async tools (an `async def` under `@tool`) run
on the async lane (lane.py), concurrently, outside the guard: the read loop goes on meanwhile, so
pings are answered and `notifications/cancelled` cancels a running async call (which then is not
answered). A cancellation for a request still queued in the same read suppresses that request; one
for a sync call that already ran is past cancelling and ignored, as the protocol allows. A concurrent
tool (a blocking `run`, `concurrent = True`) runs beside the reading (`run_beside`): where its line
was read, outside the guard, the reading handed on while it runs; a cancelled one is not answered.

Answers wait for the read's single write only behind sync tools that ran quickly last time; before a
tool that is new or was slow, the answers queued so far are written first, so a quick `ping` is not
held up by a long build in the same read. A sync call is timed only in a read of several lines, where
its time can decide this: lockstep calls (one line per read) take no clock readings.

A JSON-RPC batch (one line holding an array of messages) is served only when `initialize`
negotiated 2025-03-26, the one revision that has them: its members are handled in order as lines of
their own and the answers to its requests written as one array line (an async member's answer
follows on its own line). Every other revision refuses an array with one -32600.

Methods and eras are described in `eras.py`; the wire rules in `wire.py`.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from functools import partial
from threading import get_ident
from time import perf_counter
from types import GetSetDescriptorType, MemberDescriptorType
from typing import Any

from orjson import JSONDecodeError, loads

from .eras import (
    MODERN_REVISIONS,
    NEWEST_HANDSHAKE,
    SERVER_INFO_KEY,
    SUPPORTED_REVISIONS,
    accepts_batches,
    check_envelope,
    has_progress_message,
    has_structured_content,
    is_stateless,
    negotiate,
)
from .errors import (
    ChannelClosed,
    InternalError,
    InvalidParams,
    InvalidRequest,
    LineTooLong,
    MethodNotFound,
    ParseError,
    ProtocolError,
)
from .lane import AsyncLane
from .order import CallOrder
from .output import ToolOutput, as_output
from .progress import ProgressReporter, activate
from .tools import Entry, ToolSet
from .transport import DEFAULT_MAX_LINE, LineChannel, LineTransport, StdioTransport, Transport
from .turns import ReadTurns
from .wire import (
    NOTIFICATION,
    REQUEST,
    RESPONSE,
    classify,
    compact,
    decode,
    decode_exact,
    encode,
    error_line,
    notification_line,
    raw_result_line,
    result_line,
)

__all__ = ["Server", "log_exception"]

DEFAULT_STDERR_LIMIT = 64 * 1024
_QUICK_SECONDS = 0.002  # a sync tool faster than this lets the answers ahead of it wait for the batch write
_CAPABILITIES = {"tools": {"listChanged": False}}
_MODERN = MODERN_REVISIONS[-1]
_ID_TYPES = frozenset({int, str})  # exactly: a bool is not an id
_FIELD_TYPES = (MemberDescriptorType, GetSetDescriptorType)  # how the compiled twin's C fields show on its type
_NOT_CANCELLED = (False,)  # the cancel cell of a call that has none (it ended, or it was never concurrent)


class _Plan:
    """What the route decided for one tool name: its entry, and whether its last sync run was quick."""

    __slots__ = ("entry", "quick")

    def __init__(self, entry: Entry) -> None:
        self.entry = entry
        self.quick = False


class Server:
    """An MCP stdio server for a set of tools.

    `tools` is a ToolSet, or an iterable of Tools and typed functions. `run()` serves stdio until
    end of input; `run(transport)` serves any Transport (or object with `read_line`/`write_line`).
    `stderr_limit` bounds the stderr text a call's report carries (the tail is kept); `max_line`
    bounds one input line.
    """

    #: Over stdio, hold one capture session for the run (sync tool calls read their windows of it).
    #: A subclass whose work runs beside the read loop turns it off: its stderr then reaches the log live.
    session_capture = True
    #: How many jobs may run beside the reading at once (`run_beside`).
    beside_limit = 40

    def __init__(
        self,
        name: str,
        version: str,
        tools: ToolSet | Iterable[Any] | None = None,
        *,
        instructions: str | None = None,
        max_line: int = DEFAULT_MAX_LINE,
        stderr_limit: int = DEFAULT_STDERR_LIMIT,
    ) -> None:
        if type(self) is not Server:
            _refuse_hidden_fields(type(self))
        self.name = name
        self.version = version
        self.tools = tools if isinstance(tools, ToolSet) else ToolSet(tools or ())
        self.instructions = instructions
        self.max_line = max_line
        self.stderr_limit = stderr_limit
        self.revision = NEWEST_HANDSHAKE  # the handshake era's revision until `initialize` says otherwise
        self._info = {"name": name, "version": version}
        self._stamp = {SERVER_INFO_KEY: self._info}
        self._plans: dict[str, _Plan] = {}
        self._plans_of = -1  # the ToolSet revision the plans were made for
        self._lists: tuple[int, bytes, bytes] | None = None
        self._discover = self._discover_result()
        self._pending: list[bytes] = []
        # request id -> [cancelled, turn], for the concurrent calls running: a cancel flips the cell it
        # finds, so one that comes as the call ends never leaves an entry behind; an ordered call's
        # turn (its order and ticket, else None) lets a cancel give up its turn while it waits
        self._concurrent: dict[Any, list[Any]] = {}
        self._lane_in_read = False  # a concurrent call of this read went to the lane: the later ones follow it
        self._order = CallOrder()  # the ordered tools' calls, one at a time in the order read (made per run)
        self._last_of_read = True  # the line being handled is the last of its read
        self._read_items: list[tuple[Any, bytes]] = []  # the decoded lines of the read in hand
        self._read_at = 0  # the next of them to serve
        self._read_cancels: dict[Any, int] | None = None  # request id -> index of a cancel for it in that read
        self._in_array = False  # the line being handled is a member of a JSON-RPC batch
        self._read_batch: Callable[[], list[Any] | None] = _no_channel
        self.turns = ReadTurns(self._serve_one, self.beside_limit)
        self._transport: Transport | None = None
        self._write_lock = threading.Lock()
        self._dead = False
        self._stdin_guard: Callable[[], Any] | None = None
        self._capture: Callable[..., Any] | None = None
        self._window: Any = None  # the run's CaptureSession, when the transport lets one stay open
        self.lane = AsyncLane(self._answer_late, log_exception)
        self._handshake: dict[str, Callable[[Any, Any], bytes | None]] = {
            "tools/call": self._call,
            "tools/list": self._tools_list,
            "ping": self._ping,
            "initialize": self._initialize,
        }
        self._stateless: dict[str, Callable[[Any, Any], bytes | None]] = {
            "tools/call": partial(self._call, stateless=True),
            "tools/list": self._tools_list_stateless,
            "server/discover": self._server_discover,
        }

    def tool(self, fn: Callable[..., Any] | None = None, **options: Any) -> Any:
        """Decorator registering a typed function on this server's ToolSet."""
        return self.tools.tool(fn, **options)

    # -- the loop ---------------------------------------------------------------------------------

    def run(self, transport: Transport | LineChannel | None = None) -> None:
        """Serve until end of input or a dead channel (stdio when no transport is given)."""
        from ferrule.capture import CaptureBusy, CaptureSession, capture_stderr, stdin_from_devnull

        own = transport is None
        if transport is None:
            try:
                transport = StdioTransport(max_line=self.max_line)
            except OSError as exc:  # fd 0 or fd 1 closed: no input to serve, or no channel to answer on
                print(f"{self.name}: no stdio channel to serve ({exc}); exiting", file=sys.stderr)
                return
        elif not isinstance(transport, Transport):
            transport = LineTransport(transport)
        self._transport = transport
        self._capture = capture_stderr
        self._stdin_guard = None if transport.stdin_is_private else stdin_from_devnull
        self._read_batch = transport.read_batch
        self.turns = ReadTurns(self._serve_one, self.beside_limit)
        self._order = CallOrder()  # per run: a call of an earlier, stopped run cannot take a turn here
        self._pending = []  # a read an earlier run was stopped in leaves no answers for this one
        self._read_items = []  # nor lines to serve
        self._read_at = 0
        self._dead = False
        window = None
        try:
            if transport.session_capture and self.session_capture:
                window = CaptureSession()
                try:
                    window.__enter__()
                except CaptureBusy:  # a capture is active: each call meets the refusal on its own
                    window = None
            self._window = window
            self.started()
            self.serve_turns()
        except BaseException:  # stopped from outside (a signal's exception): running calls end with it
            self._order.close()  # first: ordered calls still waiting for their turn do not start
            try:
                self.interrupted()  # a subclass cuts short what its concurrent calls wait for
            finally:
                self.lane.cancel_all()
                self.turns.stop()  # the jobs beside the reading are threads: they end (and answer, unless cut short)
            raise
        finally:
            try:
                self.stopping()  # in-flight async calls finish and are answered, as at any end of input
            finally:
                self._window = None
                try:
                    if window is not None:
                        window.__exit__(None, None, None)  # what the run left in the file reaches stderr
                finally:
                    self._transport = None
                    if own:
                        transport.close()

    def _serve_one(self) -> bool:
        """One read and its answers (in one write); False once the channel ended. Run by whichever
        thread holds the reading turn (turns.py): `_pending`, `_last_of_read`, `_lane_in_read` and
        the read in hand (`_read_items` from `_read_at` on) are that thread's while it holds it. A
        thread that takes the turn from one whose job ran on past the hand-on time first serves the
        rest of that thread's read."""
        if self._read_at < len(self._read_items):
            self._serve_rest()
        else:
            if self._pending:  # the answers of a read left by a job still running: not held behind the next read
                self._flush()
            try:
                batch = self._read_batch()
            except ChannelClosed:
                return False
            if batch is None or self.turns.ended:  # a read that ends after a stop is not served
                return False
            self._lane_in_read = False
            if len(batch) == 1:  # lockstep calls: one line per read, its answer written at once
                msg, line = _decode(batch[0], self.max_line)
                self._last_of_read = True
                answer = self._handle(msg, line, 0, None)
                if answer is not None:
                    self.write([answer])
                return not self._dead
            self._serve_read(batch)
        # the read's answers in one write (by a thread still holding the turn: one whose call ran
        # beside the reading wrote its answer, and `_pending` is the holder's now)
        if self._pending and self.turns.holder == get_ident():
            self._flush()
        return not self._dead

    def serve_turns(self) -> None:
        """Read and serve until the channel ends; then wait for the jobs run beside the reading (a
        hook: a subclass may read on another thread)."""
        self.turns.run()
        self.turns.finish()

    def started(self) -> None:
        """Called once the channel is open, before the first read (a hook for subclasses)."""

    def stopping(self) -> None:
        """Called at the end of input: the async lane drains (its calls answer) and stops."""
        self.lane.close()

    def interrupted(self) -> None:
        """Called when the run is stopped from outside, before the jobs beside the reading are waited
        for (a hook: a subclass whose concurrent tools can be cut short does it here)."""

    def write(self, lines: list[bytes]) -> None:
        """Write lines to the channel, from either thread; a dead channel ends the loop."""
        transport = self._transport
        if transport is None or self._dead:
            return
        with self._write_lock:  # `with`: a signal's exception cannot leave the lock held
            try:
                transport.write_lines(lines)
            except ChannelClosed:
                self._dead = True

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send a notification now, from either thread."""
        self.write([notification_line(method, params)])

    def run_beside(self, job: Callable[[], bytes | None]) -> bool:
        """Run a blocking `job` where its line was read, with the reading handed on (turns.py), when
        the line is the last of its read and the limit allows: the answer `job` returns is written
        at once. False when it cannot, and then nothing ran."""
        if not self._last_of_read or not self.turns.can_hand_on:
            return False
        if self._pending:  # the answers to the read's earlier lines go first: the next reader starts afresh
            self._flush()
        self.turns.beside(self._answer_from, job)
        return True

    @property
    def can_run_beside_in_read(self) -> bool:
        """Whether `beside_in_read` may run a job for the line in hand: a line of its own (not a
        member of a JSON-RPC batch, whose array is answered as one), within the limit."""
        return not self._in_array and self.turns.can_hand_on

    def beside_in_read(self, job: Callable[[], bytes | None]) -> bytes | None:
        """Run a blocking `job` where its line was read, wherever the line is in its read, with the
        turn handed on (turns.py): a job still running after the hand-on time gets a follower,
        which serves the rest of the read and reads on, so a slow job holds up no later line. The
        answer `job` returns, for the read's one write, when the turn came back to this thread;
        None when it was written at once (the turn had passed on) or there was none. Check
        `can_run_beside_in_read` first."""
        answer = self.turns.beside(self._job_answer, job, lost=self._write_answer)
        return answer if self.turns.holder == get_ident() else None

    def _answer_from(self, job: Callable[[], bytes | None]) -> None:
        # written before the turn is taken back: a follower may hold it, waiting to read
        self._write_answer(self._job_answer(job))

    def _write_answer(self, answer: bytes | None) -> None:
        if answer is not None:
            self.write([answer])

    def _job_answer(self, job: Callable[[], bytes | None]) -> bytes | None:
        try:
            return job()
        except BaseException as exc:  # a tool's sys.exit() on a reading thread ends its call, not the server
            if threading.current_thread() is threading.main_thread():
                raise
            log_exception(exc)
            return None

    def _answer_late(self, line: bytes) -> None:
        self.write([line])

    def _flush(self) -> None:
        lines, self._pending = self._pending, []
        self.write(lines)

    def _serve_read(self, batch: list[Any]) -> None:
        """A read of several lines: decode them all first, so a cancellation can reach a request
        queued before it."""
        max_line = self.max_line
        self._last_of_read = False
        items = [_decode(line, max_line) for line in batch]
        cancels: dict[Any, int] | None = None
        for index, (msg, line) in enumerate(items):
            if b"notifications/cancelled" in line:  # a byte search spares the others a closer look
                target = _cancel_target(msg)
                if target is not None:
                    if cancels is None:
                        cancels = {}
                    cancels[target] = index
        self._read_items = items
        self._read_cancels = cancels
        self._read_at = 0
        self._serve_rest()

    def _serve_rest(self) -> None:
        """The read in hand, from `_read_at` on, while this thread holds the turn. The index moves on
        before each line is handled: a follower that takes the turn during a job beside the reading
        (`beside_in_read`) serves on from the next line."""
        me = get_ident()
        items = self._read_items
        cancels = self._read_cancels
        last = len(items) - 1
        while self._read_at <= last:
            if self._dead:
                self._read_at = last + 1
                return
            index = self._read_at
            self._read_at = index + 1
            msg, line = items[index]
            self._last_of_read = index == last
            answer = self._handle(msg, line, index, cancels)
            if self.turns.holder != me:
                return  # the turn passed on during a job (which wrote its answer): the holder serves on
            if answer is not None:  # held for the read's one write, compacted unless it is the last
                self._pending.append(answer if index == last else compact(answer))
            if self._read_items is not items:
                return  # the turn came back after its follower took up a read of its own: that one is served on

    def _handle(self, msg: Any, line: bytes, index: int, cancels: dict[Any, int] | None) -> bytes | None:
        """The answer to one decoded line; None for a line that has none (a notification, which is
        acted on; a response, dropped; a request whose answer comes later, from its job)."""
        msg_id = None
        try:
            if type(msg) is not dict:
                if isinstance(msg, ProtocolError):
                    raise msg
                if type(msg) is list and accepts_batches(self.revision):
                    return self._serve_batch(msg, line)
            kind, msg_id, method, params = classify(msg)
            if kind != REQUEST:
                if kind == NOTIFICATION:
                    self.on_notification(method, params)
                elif kind == RESPONSE:
                    self.on_response(msg)
                return None
            if cancels is not None and cancels.get(msg_id, -1) > index and method != "initialize":
                return None  # cancelled while still queued: not run, not answered
            return self._route(msg_id, method, params)
        except ProtocolError as exc:
            msg_id = getattr(exc, "id", msg_id)  # classify() names the id of a request it refused
            return error_line(msg_id, exc.to_error())
        except Exception as exc:  # a fault of ours answers -32603; the loop goes on
            log_exception(exc)
            return None if msg_id is None else error_line(msg_id, InternalError(repr(exc)).to_error())

    def _route(self, msg_id: Any, method: str, params: Any) -> bytes | None:
        """The one route of a request to its handler: the era (per request), then the method."""
        if params is not None and "_meta" in params and is_stateless(method, params):
            check_envelope(params)
            handler = self._stateless.get(method)
            if handler is None:
                raise MethodNotFound(f"{method!r} is not a 2026-07-28 method", data=method)
        else:
            handler = self._handshake.get(method)
            if handler is None:
                raise MethodNotFound(repr(method), data=method)
        return handler(msg_id, params)

    def on_notification(self, method: str, params: Any) -> None:
        """A notification: `notifications/cancelled` cancels a running async call; the rest is absorbed."""
        if method == "notifications/cancelled" and type(params) is dict:
            target = params.get("requestId")
            if type(target) in _ID_TYPES:
                # the cell first: once the lane has cancelled a call's task, its cell is gone
                cell = self._concurrent.get(target)
                if cell is not None:
                    cell[0] = True
                    if cell[1] is not None:  # an ordered call still waiting for its turn never runs
                        order, ticket = cell[1]
                        order.give_up(ticket)
                self.lane.cancel(target)

    def on_response(self, msg: dict[str, Any]) -> None:
        """A response from the client: this server sends no requests, so it answers nothing and is dropped."""

    def _serve_batch(self, batch: list[Any], line: bytes) -> bytes | None:
        """A JSON-RPC batch (2025-03-26): each member handled as a line of its own; the answers to its
        requests as one array line, None when it held only notifications and responses."""
        if not batch:
            raise InvalidRequest("an empty batch", fix="put at least one request or notification in a batch")
        if any(type(m) is dict and type(m.get("id")) is float for m in batch):
            batch = decode_exact(line)  # an integer id beyond 64 bits: read them all exactly
        if self._pending:
            self._flush()  # answers to earlier lines need not wait for the whole batch
        self._last_of_read = False  # a member's job goes to a worker: the array is not held behind a handover
        self._in_array = True
        answers: list[bytes] = []
        try:
            for member in batch:
                if self._dead:
                    return None
                if type(member) is list:
                    answers.append(error_line(None, InvalidRequest("a batch cannot hold a batch").to_error()))
                elif (type(member) is dict and member.get("method") == "initialize"
                      and type(member.get("id")) in _ID_TYPES):
                    # 2025-03-26 lifecycle: initialize is never part of a batch (it would renegotiate mid-batch)
                    refusal = InvalidRequest("initialize cannot be part of a batch", fix="send initialize alone")
                    answers.append(error_line(member["id"], refusal.to_error()))
                elif (answer := self._handle(member, b"", 0, None)) is not None:
                    answers.append(answer)
        finally:
            self._in_array = False
        return b"[" + b",".join(answers) + b"]" if answers else None

    # -- handshake era ----------------------------------------------------------------------------

    def _initialize(self, msg_id: Any, params: Any) -> bytes:
        if params is None or type(params.get("protocolVersion")) is not str:
            raise InvalidParams("initialize needs params.protocolVersion (a string)",
                                fix="send initialize with params {protocolVersion, capabilities, clientInfo}")
        self.revision = negotiate(params["protocolVersion"])
        result: dict[str, Any] = {
            "protocolVersion": self.revision,
            "capabilities": _CAPABILITIES,
            "serverInfo": self._info,
        }
        if self.instructions is not None:
            result["instructions"] = self.instructions
        return result_line(msg_id, result)

    def _ping(self, msg_id: Any, params: Any) -> bytes:
        return result_line(msg_id, {})

    def _tools_list(self, msg_id: Any, params: Any) -> bytes:
        _check_cursor(params)
        return raw_result_line(msg_id, self._list_answers()[1])

    # -- stateless era (2026-07-28) ---------------------------------------------------------------

    def _discover_result(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "supportedVersions": SUPPORTED_REVISIONS,
            "capabilities": _CAPABILITIES,
            "resultType": "complete",
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": self._stamp,
        }
        if self.instructions is not None:
            result["instructions"] = self.instructions
        return result

    def _server_discover(self, msg_id: Any, params: Any) -> bytes:
        return result_line(msg_id, self._discover)

    def _tools_list_stateless(self, msg_id: Any, params: Any) -> bytes:
        _check_cursor(params)
        return raw_result_line(msg_id, self._list_answers()[2])

    def _list_answers(self) -> tuple[int, bytes, bytes]:
        """The tools/list results, serialised once per change of the ToolSet."""
        lists = self._lists
        if lists is None or lists[0] != self.tools.revision:
            tools = self.tools.descriptors()
            modern = {"tools": tools, "resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                      "_meta": self._stamp}
            self._lists = lists = (self.tools.revision, compact(encode({"tools": tools})), compact(encode(modern)))
        return lists

    # -- tools/call -------------------------------------------------------------------------------

    def _plan(self, name: str) -> _Plan | None:
        """The route's decisions for a tool name, cached until the ToolSet changes."""
        if self._plans_of != self.tools.revision:
            self._plans = {}
            self._plans_of = self.tools.revision
        plan = self._plans.get(name)
        if plan is None:
            entry = self.tools.entry(name)
            if entry is None:
                return None
            self._plans[name] = plan = _Plan(entry)
        return plan

    def _call(self, msg_id: Any, params: Any, stateless: bool = False) -> bytes | None:
        """tools/call, in either era: check the call, then run the tool (sync here, async on the lane)."""
        revision = _MODERN if stateless else self.revision
        if params is None or type(name := params.get("name")) is not str:
            raise InvalidParams("tools/call needs params.name (a string)")
        plan = self._plans.get(name) if self._plans_of == self.tools.revision else None
        if plan is None and (plan := self._plan(name)) is None:
            raise MethodNotFound(f"no tool named {name!r}; tools/list names the tools", data=name)
        args = params.get("arguments")
        if args is None:
            args = {}
        elif type(args) is not dict:
            raise InvalidParams("tools/call params.arguments must be an object")
        entry = plan.entry
        reason = entry.check(args)
        if reason is not None:
            report = f"invalid arguments for tool {name!r}: {reason}"
            return self._answer(msg_id, name, ToolOutput(report, True), "", revision, stateless)
        reporter = self._reporter(params["_meta"], revision) if "_meta" in params else None
        if entry.awaitable is not None:
            self.lane.submit(msg_id, self._run_async(msg_id, entry, name, args, reporter, revision, stateless))
            return None
        if entry.concurrent is not None:
            order = self._order
            turn = (order, order.take()) if entry.ordered else None  # taken as read: the wire's order
            cell = self._concurrent[msg_id] = [False, turn]
            job = partial(self._run_concurrent, msg_id, entry.concurrent, name, args, reporter, revision, stateless,
                          turn)
            try:
                # beside the reading when it is the last line of its read and no earlier one of the read
                # went to the lane (it would overtake that one); else on a worker, after the earlier ones
                if self._lane_in_read or not self.run_beside(job):
                    self._lane_in_read = True
                    self.lane.submit(msg_id, self._on_worker(msg_id, cell, job))
            except Exception:  # a call that never started: the ordered calls after it must not wait for it
                if self._concurrent.get(msg_id) is cell:
                    del self._concurrent[msg_id]
                    if turn is not None:
                        order.give_up(turn[1])
                raise
            except BaseException:  # stopped from outside: no ordered call starts from now on
                order.close()
                raise
            return None
        if reporter is None:
            return self._run_sync(msg_id, plan, name, args, revision, stateless)
        activate(reporter)
        try:
            return self._run_sync(msg_id, plan, name, args, revision, stateless)
        finally:
            reporter.close()  # nothing for this request may follow its response
            activate(None)

    def _reporter(self, meta: Any, revision: str) -> ProgressReporter | None:
        """A progress reporter for the call, when its request carries a token."""
        if meta is None or type(meta) is not dict:
            return None
        token = meta.get("progressToken")
        if type(token) is not str and type(token) is not int:
            return None
        return ProgressReporter(token, self._send_progress, has_progress_message(revision))

    def _run_sync(
        self, msg_id: Any, plan: _Plan, name: str, args: dict[str, Any], revision: str, stateless: bool
    ) -> bytes:
        """Run a sync tool inside the capture guard; its answer, the captured stderr appended."""
        # Timed only in a read of several lines, the one place answers may wait behind the call: a
        # tool seen only in lockstep meets its first such read as a new one (answers ahead go first).
        timed = not self._last_of_read or bool(self._pending)
        if self._pending and not plan.quick:
            self._flush()
        started = perf_counter() if timed else 0.0
        entry = plan.entry
        window = self._window
        if window is not None:
            window.begin()
        else:
            guard = self._capture(self.stderr_limit)  # type: ignore[misc]
            captured = guard.__enter__()
        failure = None
        output: Any
        try:
            direct = entry.direct
            if self._stdin_guard is None:
                output = direct(**args) if direct is not None else entry.run(args)
            else:
                with self._stdin_guard():
                    output = direct(**args) if direct is not None else entry.run(args)
            if type(output) is not str:  # a str is the report as it is
                output = as_output(output)
        except (Exception, SystemExit) as exc:
            failure = exc
            output = ToolOutput(_failure_text(name, exc), True)
        finally:
            if window is not None:
                captured = window.end(self.stderr_limit)
            else:
                guard.__exit__(None, None, None)
        if timed:
            plan.quick = perf_counter() - started < _QUICK_SECONDS
        if failure is not None:
            log_exception(failure)
            if window is not None:
                window.forward()  # the traceback reaches the host's log now, not at the next call
        return self._answer(msg_id, name, output, captured.text, revision, stateless)

    async def _run_async(
        self, msg_id: Any, entry: Entry, name: str, args: dict[str, Any], reporter: ProgressReporter | None,
        revision: str, stateless: bool,
    ) -> bytes:
        """Await an async tool on the lane (no capture: calls overlap); its answer."""
        activate(reporter)  # this task's own context: concurrent calls each see their reporter
        try:
            output = as_output(await entry.awaitable(args))  # type: ignore[misc]
        except (Exception, SystemExit) as exc:
            output = _failed(name, exc)
        finally:
            if reporter is not None:
                reporter.close()
        return self._answer(msg_id, name, output, "", revision, stateless)

    def _run_concurrent(
        self, msg_id: Any, run: Callable[[dict[str, Any]], Any], name: str, args: dict[str, Any],
        reporter: ProgressReporter | None, revision: str, stateless: bool,
        turn: tuple[CallOrder, int] | None = None,
    ) -> bytes | None:
        """A concurrent tool's call, beside the reading (no capture: calls overlap); its answer, None
        when it was cancelled meanwhile. An ordered call first waits for the calls of ordered tools
        read before it (`turn`: the run's order and the call's ticket), and is not run when it was
        cancelled while it waited."""
        try:
            if turn is not None and not turn[0].wait(turn[1]):  # cancelled while it waited, or stopped
                self._concurrent.pop(msg_id, None)
                if reporter is not None:
                    reporter.close()
                return None
            activate(reporter)
            try:
                output = as_output(run(args))
            except (Exception, SystemExit) as exc:
                output = _failed(name, exc)
            finally:
                if reporter is not None:
                    reporter.close()
                activate(None)
                cancelled = self._concurrent.pop(msg_id, _NOT_CANCELLED)[0]
        except (Exception, SystemExit):
            raise
        except BaseException:  # stopped from outside (a signal on the main thread): no ordered call starts now
            if turn is not None:
                turn[0].close()
            raise
        finally:
            if turn is not None:
                turn[0].end(turn[1])  # a no-op unless this call holds the turn
        return None if cancelled else self._answer(msg_id, name, output, "", revision, stateless)

    async def _on_worker(self, msg_id: Any, cell: list[Any], job: Callable[[], bytes | None]) -> bytes | None:
        """A concurrent call that cannot run beside the reading: on a worker thread, awaited on the lane."""
        import asyncio

        try:
            return await asyncio.to_thread(job)
        finally:  # cancelled before a worker took the job, the call never ran: its cancel cell goes here
            if self._concurrent.get(msg_id) is cell:
                del self._concurrent[msg_id]

    def _answer(
        self, msg_id: Any, name: str, output: ToolOutput | str, stderr: str, revision: str, stateless: bool
    ) -> bytes:
        """The tools/call result: the report (with the call's stderr), isError, structured content."""
        if type(output) is str:
            report, is_error, structured = output, False, None
        else:
            report, is_error, structured = output.report, output.is_error, output.structured  # type: ignore[union-attr]
        if stderr:
            report = f"{report}\n\n--- stderr ---\n{stderr}" if report else f"--- stderr ---\n{stderr}"
        result: dict[str, Any] = {"content": [{"type": "text", "text": report}], "isError": is_error}
        if structured is not None and has_structured_content(revision):
            result["structuredContent"] = structured
        if stateless:
            result["resultType"] = "complete"
            result["_meta"] = self._stamp
        try:
            return encode({"jsonrpc": "2.0", "id": msg_id, "result": result})
        except TypeError as exc:
            result.pop("structuredContent", None)
            result["content"] = [{"type": "text", "text": f"tool {name!r} returned a value that is not JSON: {exc}"}]
            result["isError"] = True
            return result_line(msg_id, result)

    def _send_progress(self, params: dict[str, Any]) -> None:
        if self._pending and self.turns.holder == get_ident():
            self._flush()  # answers queued ahead of this call go first (the reading's own: not from beside it)
        self.notify("notifications/progress", params)


def _refuse_hidden_fields(cls: type) -> None:
    """The compiled twin keeps the loop's state in C fields (descriptors on its type): a subclass's
    class attribute or property of the same name would hide the field from Python code while the loop
    went on using the field. Refused at construction rather than diverging quietly."""
    fields = vars(Server)
    hidden = sorted({name for klass in cls.__mro__[:cls.__mro__.index(Server)] for name in vars(klass)
                     if isinstance(fields.get(name), _FIELD_TYPES)})
    if hidden:
        raise TypeError(f"{cls.__name__} defines {', '.join(hidden)} at class level: the server's own "
                        "per-instance fields; set them in __init__ instead")


def _no_channel() -> list[Any] | None:
    return None





def log_exception(exc: BaseException) -> None:
    """The traceback goes to the host's log (stderr), the exception's text into the report."""
    import traceback  # only on failure: it costs start-up time

    traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)


def _failed(name: str, exc: BaseException) -> ToolOutput:
    """A tool's failure: its traceback to the host's log, its text as an error result."""
    log_exception(exc)
    return ToolOutput(_failure_text(name, exc), True)


def _failure_text(name: str, exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"tool {name!r} exited with status {exc.code!r}"
    text = str(exc)
    return f"tool {name!r} failed: {type(exc).__name__}: {text}" if text else f"tool {name!r} failed: {type(exc).__name__}"


def _check_cursor(params: Any) -> None:
    # One page holds every tool; a cursor is accepted and the whole list returned.
    if params is not None and params.get("cursor") is not None and type(params["cursor"]) is not str:
        raise InvalidParams("tools/list params.cursor must be a string",
                            fix="leave params.cursor out, or send the nextCursor string of an earlier answer")


def _decode(line: Any, max_line: int) -> tuple[Any, bytes]:
    """The one decoder: (the message, or the ProtocolError to answer; the raw line)."""
    if type(line) is bytes and len(line) <= max_line:
        try:
            msg = loads(line)
        except JSONDecodeError:
            try:
                return decode(line), line
            except ParseError as exc:
                return exc, line
        # orjson reads an integer beyond 64 bits as a float: read such a line again, exactly
        if type(msg) is dict and type(msg.get("id")) is float:
            return decode_exact(line), line
        return msg, line
    if type(line) is not bytes:
        return (line if isinstance(line, ProtocolError) else InvalidRequest("unreadable line")), b""
    return LineTooLong(max_line), b""


def _cancel_target(msg: Any) -> Any:
    """The request id a valid `notifications/cancelled` names; None for anything else (a malformed
    notification is absorbed and cancels nothing)."""
    if type(msg) is dict and msg.get("method") == "notifications/cancelled" and msg.get("id") is None \
            and msg.get("jsonrpc") == "2.0":
        params = msg.get("params")
        target = params.get("requestId") if type(params) is dict else None
        if type(target) in _ID_TYPES:
            return target
    return None
