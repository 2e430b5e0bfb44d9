"""The server loop (MCP-CORE section 2): `(name, version, ToolSet)` over a Transport.

One thread, no event loop: read whatever the channel holds (many pipelined lines at once), handle
every complete line in order, and write the answers of one read in one write. Tools run one at a
time inside the capture guard (MCP-CORE section 4), which is what licenses a process-global redirect.
Over stdio the redirect is made once for the run (`CaptureSession`) and each call reads its own window
of the capture file; over other transports each call is captured on its own (`capture_stderr`).
A `notifications/cancelled` for a request still queued in the same read suppresses that request: it
is neither run nor answered. A request already running cannot be interrupted (the loop is busy
running it), and one already answered is past cancelling; both are ignored, as the protocol allows.

Answers wait for the batch's single write only behind tools that ran quickly last time; before a tool
that is new or was slow, the answers queued so far are written first, so a quick `ping` is not held
up by a long build in the same read.

A JSON-RPC batch (one line holding an array of messages) is served only when `initialize`
negotiated 2025-03-26, the one revision that has them: its members are handled in order as lines of
their own and the answers to its requests written as one array line. Every other revision refuses
an array with one -32600, as JSON-RPC does for anything that is not an object. Arrays are told apart
only after a frame failed the test of a well-formed request, so single frames pay nothing for them.

Methods and eras are described in `eras.py`; the wire rules in `wire.py`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from time import perf_counter
from typing import Any

from orjson import JSONDecodeError, dumps, loads

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
from .output import ToolOutput, as_output
from .progress import ProgressReporter, activate
from .tools import ToolSet, _Entry
from .transport import DEFAULT_MAX_LINE, StdioTransport
from .wire import (
    REQUEST,
    classify,
    decode,
    decode_exact,
    encode,
    error_line,
    notification_line,
    raw_result_line,
    result_line,
)

__all__ = ["Server"]

DEFAULT_STDERR_LIMIT = 64 * 1024
_QUICK_SECONDS = 0.002  # a tool faster than this lets the answers ahead of it wait for the batch write
_CAPABILITIES = {"tools": {"listChanged": False}}
_MODERN = MODERN_REVISIONS[-1]
_ID_TYPES = frozenset({int, str})  # exactly: a bool is not an id
# A plain text answer, in the bytes orjson gives for {"jsonrpc", "id", "result": {"content", "isError"}}.
_ANSWER_HEAD = b'{"jsonrpc":"2.0","id":'
_ANSWER_TEXT = b',"result":{"content":[{"type":"text","text":'
_ANSWER_TAIL = b'}],"isError":false}}'


class Server:
    """An MCP stdio server for a set of tools.

    `tools` is a ToolSet, or an iterable of Tools and typed functions. `run()` serves stdio until
    end of input; `run(transport)` serves any Transport. `stderr_limit` bounds the stderr text a
    call's report carries (the tail is kept); `max_line` bounds one input line.
    """

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
        self.name = name
        self.version = version
        self.tools = tools if isinstance(tools, ToolSet) else ToolSet(tools or ())
        self.instructions = instructions
        self.max_line = max_line
        self.stderr_limit = stderr_limit
        self.revision = NEWEST_HANDSHAKE  # the handshake era's revision until `initialize` says otherwise
        self._info = {"name": name, "version": version}
        self._stamp = {SERVER_INFO_KEY: self._info}
        self._entries = self.tools._entries
        self._tool_entry = self._entries.get
        self._lists: tuple[int, bytes, bytes] | None = None
        self._discover = self._discover_result()
        self._pending: list[bytes] = []
        self._write: Callable[[list[bytes]], None] = _no_writer
        self._dead = False
        self._stdin_guard: Callable[[], Any] | None = None
        self._capture: Callable[..., Any] | None = None
        self._window: Any = None  # the run's CaptureSession, when the transport lets one stay open
        self._handshake: dict[str, Callable[[Any, Any], bytes]] = {
            "tools/call": self._tools_call,
            "tools/list": self._tools_list,
            "ping": self._ping,
            "initialize": self._initialize,
        }
        self._stateless: dict[str, Callable[[Any, Any], bytes]] = {
            "tools/call": self._tools_call_stateless,
            "tools/list": self._tools_list_stateless,
            "server/discover": self._server_discover,
        }

    def tool(self, fn: Callable[..., Any] | None = None, **options: Any) -> Any:
        """Decorator registering a typed function on this server's ToolSet."""
        return self.tools.tool(fn, **options)

    # -- the loop ---------------------------------------------------------------------------------

    def run(self, transport: Any = None) -> None:
        """Serve until end of input or a dead channel (stdio when no transport is given)."""
        from ferrule.capture import CaptureBusy, CaptureSession, capture_stderr, stdin_from_devnull

        own = transport is None
        if own:
            try:
                transport = StdioTransport(max_line=self.max_line)
            except OSError as exc:  # fd 0 or fd 1 closed: no input to serve, or no channel to answer on
                print(f"{self.name}: no stdio channel to serve ({exc}); exiting", file=sys.stderr)
                return
        self._capture = capture_stderr
        self._stdin_guard = None if getattr(transport, "stdin_is_private", False) else stdin_from_devnull
        read_batch = getattr(transport, "read_batch", None) or _line_reader(transport)
        self._write = getattr(transport, "write_lines", None) or _line_writer(transport)
        self._dead = False
        max_line = self.max_line
        fast_call = self._fast_call
        write = self._write
        window = None
        try:
            if getattr(transport, "session_capture", False):
                window = CaptureSession()
                try:
                    window.__enter__()
                except CaptureBusy:  # a capture is active: each call meets the refusal on its own
                    window = None
            self._window = window
            while not self._dead:
                try:
                    batch = read_batch()
                except ChannelClosed:
                    return
                if batch is None:
                    return
                self._pending = []
                if len(batch) == 1:
                    line = batch[0]
                    try:  # the common case of _decode, inline
                        msg = loads(line) if type(line) is bytes and len(line) <= max_line else None
                    except JSONDecodeError:
                        msg = None
                    if msg is None:
                        msg, line = _decode(line, max_line)
                    answer = fast_call(msg)
                    if answer is not None:  # a lone answer: written as it is, nothing else queued
                        try:
                            write([answer])
                        except ChannelClosed:
                            self._dead = True
                        continue
                    self._handle(msg, line, 0, None)
                else:
                    self._handle_batch(batch)
                if self._pending and not self._dead:  # the read's answers in one write
                    try:
                        write(self._pending)
                    except ChannelClosed:
                        self._dead = True
        finally:
            self._window = None
            try:
                if window is not None:
                    window.__exit__(None, None, None)  # what the run left in the file reaches stderr
            finally:
                if own:
                    transport.close()

    def _flush(self) -> None:
        lines, self._pending = self._pending, []
        try:
            self._write(lines)
        except ChannelClosed:
            self._dead = True

    def _handle_batch(self, batch: list[Any]) -> None:
        """Decode the whole read first, so a cancellation can reach a request queued before it."""
        max_line = self.max_line
        items = []
        cancels: dict[Any, int] | None = None
        for index, line in enumerate(batch):
            item = _decode(line, max_line)
            items.append(item)
            msg = item[0]
            # Only a valid JSON-RPC 2.0 notification acts; a malformed one is absorbed and cancels nothing.
            if (type(msg) is dict and msg.get("method") == "notifications/cancelled" and msg.get("id") is None
                    and msg.get("jsonrpc") == "2.0"):
                params = msg.get("params")
                target = params.get("requestId") if type(params) is dict else None
                if type(target) is str or type(target) is int:
                    if cancels is None:
                        cancels = {}
                    cancels[target] = index
        fast_call = self._fast_call if cancels is None else None
        for index, (msg, line) in enumerate(items):
            if self._dead:
                return
            if fast_call is not None:
                answer = fast_call(msg)
                if answer is not None:
                    self._pending.append(answer)  # after the call: a flush inside it swaps the list
                    continue
            self._handle(msg, line, index, cancels)

    def _handle(self, msg: Any, line: bytes, index: int, cancels: dict[Any, int] | None) -> None:
        """Answer one decoded line (or drop it, for notifications and responses)."""
        msg_id = None
        try:
            # A well-formed request passes this one test; anything else takes classify()'s rules.
            if not (
                type(msg) is dict
                and (type(msg_id := msg.get("id")) is int or type(msg_id) is str)
                and type(method := msg.get("method")) is str
                and ((params := msg.get("params")) is None or type(params) is dict)
                and msg.get("jsonrpc") == "2.0"
            ):
                msg_id = None
                if isinstance(msg, ProtocolError):
                    raise msg
                if type(msg) is list and accepts_batches(self.revision):  # off the path of single frames
                    self._serve_batch(msg, line)
                    return
                if type(msg) is dict and type(msg.get("id")) is float:
                    msg = decode_exact(line)  # an integer id beyond 64 bits: read it exactly
                kind, msg_id, method, params = classify(msg)
                if kind != REQUEST:
                    return  # notifications are absorbed, responses to requests we never sent dropped
            if cancels is not None and cancels.get(msg_id, -1) > index and method != "initialize":
                return  # cancelled while still queued: not run, not answered
            if params is not None and is_stateless(method, params):
                check_envelope(params)
                handler = self._stateless.get(method)
                if handler is None:
                    raise MethodNotFound(f"{method!r} is not a 2026-07-28 method", data=method)
                answer = handler(msg_id, params)
                self._pending.append(answer)  # after the handler: a flush inside it swaps the list
                return
            if method == "tools/call":  # the hot path, without the table
                answer = self._call(msg_id, params, self.revision, False)
            else:
                handler = self._handshake.get(method)
                if handler is None:
                    raise MethodNotFound(repr(method), data=method)
                answer = handler(msg_id, params)
            self._pending.append(answer)
        except ProtocolError as exc:
            msg_id = getattr(exc, "id", msg_id)  # classify() names the id of a request it refused
            self._pending.append(error_line(msg_id, exc.to_error()))
        except Exception as exc:  # a fault of ours answers -32603; the loop goes on
            _log_exception(exc)
            if msg_id is not None:
                self._pending.append(error_line(msg_id, InternalError(repr(exc)).to_error()))

    def _serve_batch(self, batch: list[Any], line: bytes) -> None:
        """A JSON-RPC batch (2025-03-26): each member handled as a line of its own, the answers to its
        requests sent as one array; nothing at all when it held only notifications and responses."""
        if not batch:
            raise InvalidRequest("an empty batch", fix="put at least one request or notification in a batch")
        if any(type(m) is dict and type(m.get("id")) is float for m in batch):
            batch = decode_exact(line)  # an integer id beyond 64 bits: read them all exactly
        if self._pending:
            self._flush()  # answers to earlier lines need not wait for the whole batch
        answers: list[bytes] = []
        for member in batch:
            if self._dead:
                return
            self._pending = []  # the member's answer alone (progress it sends is flushed on its own)
            if type(member) is list:
                answers.append(error_line(None, InvalidRequest("a batch cannot hold a batch").to_error()))
            elif type(member) is dict and member.get("method") == "initialize" and type(member.get("id")) in _ID_TYPES:
                # 2025-03-26 lifecycle: initialize is never part of a batch (it would renegotiate mid-batch)
                refusal = InvalidRequest("initialize cannot be part of a batch", fix="send initialize alone")
                answers.append(error_line(member["id"], refusal.to_error()))
            else:
                exact = encode(member) if type(member) is dict and type(member.get("id")) is float else b""
                self._handle(member, exact, 0, None)
                answers += self._pending
        self._pending = [b"[" + b",".join(answers) + b"]"] if answers else []

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

    def _tools_call(self, msg_id: Any, params: Any) -> bytes:
        return self._call(msg_id, params, self.revision, False)

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

    def _tools_call_stateless(self, msg_id: Any, params: Any) -> bytes:
        return self._call(msg_id, params, _MODERN, True)

    def _list_answers(self) -> tuple[int, bytes, bytes]:
        """The tools/list results, serialised once per change of the ToolSet."""
        lists = self._lists
        if lists is None or lists[0] != self.tools.revision:
            tools = self.tools.descriptors()
            modern = {"tools": tools, "resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                      "_meta": self._stamp}
            self._lists = lists = (self.tools.revision, encode({"tools": tools}), encode(modern))
        return lists

    # -- tools/call -------------------------------------------------------------------------------

    def _fast_call(self, msg: Any) -> bytes | None:
        """The common `tools/call` (handshake era, no `_meta`, valid arguments) answered without the
        general dispatch; None, before anything ran, for every other message: `_handle` takes it."""
        try:  # orjson gives plain dicts: a missing key or a value of another kind ends the short path
            if msg["method"] != "tools/call" or msg["jsonrpc"] != "2.0":
                return None
            params = msg["params"]
            msg_id = msg["id"]
            name = params["name"]
            entry = self._entries[name]  # only str names are registered: a found name is a str
        except (KeyError, TypeError):
            return None
        if type(params) is not dict or "_meta" in params or type(msg_id) not in _ID_TYPES:
            return None
        args = params.get("arguments")
        if args is None:
            args = {}
        elif type(args) is not dict:
            return None
        if entry.check(args) is not None:
            return None
        try:
            return self._execute(msg_id, entry, name, args, self.revision, False)
        except Exception as exc:  # a fault of ours (the capture refused, say) answers -32603, as in _handle
            _log_exception(exc)
            return error_line(msg_id, InternalError(repr(exc)).to_error())

    def _call(self, msg_id: Any, params: Any, revision: str, stateless: bool) -> bytes:
        if params is None or type(name := params.get("name")) is not str:
            raise InvalidParams("tools/call needs params.name (a string)")
        entry = self._tool_entry(name)
        if entry is None:
            raise MethodNotFound(f"no tool named {name!r}; tools/list names the tools", data=name)
        args = params.get("arguments")
        if args is None:
            args = {}
        elif type(args) is not dict:
            raise InvalidParams("tools/call params.arguments must be an object")
        reason = entry.check(args)
        if reason is not None:
            report = f"invalid arguments for tool {name!r}: {reason}"
            return self._answer(msg_id, name, report, True, None, revision, stateless)
        return self._run(msg_id, entry, name, args, params.get("_meta"), revision, stateless)

    def _answer(
        self, msg_id: Any, name: str, report: str, is_error: bool, structured: Any, revision: str, stateless: bool
    ) -> bytes:
        result: dict[str, Any] = {"content": [{"type": "text", "text": report}], "isError": is_error}
        if structured is not None and has_structured_content(revision):
            result["structuredContent"] = structured
        if stateless:
            result["resultType"] = "complete"
            result["_meta"] = self._stamp
        try:
            return dumps({"jsonrpc": "2.0", "id": msg_id, "result": result})
        except TypeError:
            pass
        try:  # an id beyond 64 bits, or a lone surrogate in the report
            return result_line(msg_id, result)
        except TypeError as exc:
            result.pop("structuredContent", None)
            result["content"] = [{"type": "text", "text": f"tool {name!r} returned a value that is not JSON: {exc}"}]
            result["isError"] = True
            return result_line(msg_id, result)

    def _run(
        self, msg_id: Any, entry: _Entry, name: str, args: dict[str, Any], meta: Any, revision: str, stateless: bool
    ) -> bytes:
        """`_execute`, with a progress reporter for the run when the request carries a token."""
        reporter = None
        if meta is not None and type(meta) is dict:
            token = meta.get("progressToken")
            if type(token) is str or type(token) is int:
                reporter = ProgressReporter(token, self._send_progress, has_progress_message(revision))
                activate(reporter)
        try:
            return self._execute(msg_id, entry, name, args, revision, stateless)
        finally:
            if reporter is not None:
                reporter.close()  # nothing for this request may follow its response
                activate(None)

    def _execute(
        self, msg_id: Any, entry: _Entry, name: str, args: dict[str, Any], revision: str, stateless: bool
    ) -> bytes:
        """Run a tool inside the capture guard; its answer, the captured stderr appended to the report."""
        if self._pending and not entry.quick:
            self._flush()
        started = perf_counter()
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
            if type(output) is not str:
                output = as_output(output)  # a ToolOutput comes back as it is
        except (Exception, SystemExit) as exc:
            failure = exc
            output = ToolOutput(_failure_text(name, exc), True)
        finally:
            if window is not None:
                captured = window.end(self.stderr_limit)
            else:
                guard.__exit__(None, None, None)
        entry.quick = perf_counter() - started < _QUICK_SECONDS
        if failure is not None:
            _log_exception(failure)
            if window is not None:
                window.forward()  # the traceback reaches the host's log now, not at the next call
        text = captured.text
        if type(output) is str:
            if not text and not stateless:
                try:  # the common answer, in the bytes orjson gives for the whole object
                    return b"".join((_ANSWER_HEAD, dumps(msg_id), _ANSWER_TEXT, dumps(output), _ANSWER_TAIL))
                except TypeError:  # an id beyond 64 bits, a lone surrogate: the general encoder says how
                    pass
            report, is_error, structured = output, False, None
        else:
            report, is_error, structured = output.report, output.is_error, output.structured
        if text:
            report = f"{report}\n\n--- stderr ---\n{text}" if report else f"--- stderr ---\n{text}"
        return self._answer(msg_id, name, report, is_error, structured, revision, stateless)

    def _send_progress(self, params: dict[str, Any]) -> None:
        if self._dead:
            return
        self._pending.append(notification_line("notifications/progress", params))
        self._flush()


def _log_exception(exc: BaseException) -> None:
    """The traceback goes to the host's log (stderr), the exception's text into the report."""
    import traceback  # only on failure: it costs start-up time

    traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)


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
    """(decoded message or the ProtocolError to answer, the raw line)."""
    if type(line) is bytes and len(line) <= max_line:
        try:
            return loads(line), line
        except JSONDecodeError:
            pass
    elif type(line) is not bytes:
        return (line if isinstance(line, ProtocolError) else InvalidRequest("unreadable line")), b""
    else:
        return LineTooLong(max_line), b""
    try:
        return decode(line), line
    except ParseError as exc:
        return exc, line


def _line_reader(transport: Any) -> Callable[[], list[Any] | None]:
    def read_batch() -> list[Any] | None:
        try:
            line = transport.read_line()
        except LineTooLong as exc:
            return [exc]
        return None if line is None else [line]

    return read_batch


def _line_writer(transport: Any) -> Callable[[list[bytes]], None]:
    def write_lines(lines: list[bytes]) -> None:
        for line in lines:
            transport.write_line(line)

    return write_lines


def _no_writer(lines: list[bytes]) -> None:
    raise ChannelClosed("the server is not running")
