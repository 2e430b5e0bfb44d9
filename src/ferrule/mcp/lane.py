"""The async lane: one asyncio loop, in a thread of its own, on which async work runs concurrently.

The server's read loop stays a plain blocking loop on the main thread (what keeps lockstep calls of
sync tools fast); a request whose work is a coroutine is handed here and answered from here when it
finishes, so the read loop goes on reading: pings are answered and cancellations arrive while async
tools run. The lane starts with the first coroutine and lives until `close()`.

Every answer and notification written from the lane goes through the server's writer, which holds a
lock, so lines from the two threads never interleave. A cancelled call is not answered (every
revision: the receiver should not answer a cancelled request; 2026-07-28: must not).
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # asyncio is imported when the lane starts: a server of sync tools never pays for it
    import asyncio
    from concurrent.futures import Future

__all__ = ["AsyncLane"]


class AsyncLane:
    """Runs coroutines on a loop thread; `answer(line)` is called with each one's result (bytes)."""

    def __init__(self, answer: Callable[[bytes], None], report: Callable[[BaseException], None]) -> None:
        self._answer = answer
        self._report = report
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Future[None] | None = None
        self._thread: threading.Thread | None = None
        self._running: dict[Any, asyncio.Task[Any]] = {}  # request id -> task; touched on the loop only
        self._futures: set[Future[Any]] = set()
        self._lock = threading.Lock()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The lane's loop, started on first use."""
        with self._lock:
            if self._loop is None:
                import asyncio

                loop = asyncio.new_event_loop()
                self._stop = loop.create_future()
                ready = threading.Event()
                thread = threading.Thread(target=_serve, args=(loop, self._stop, ready), name="mcp-async", daemon=True)
                thread.start()
                ready.wait()
                self._loop, self._thread = loop, thread
            return self._loop

    @property
    def started(self) -> bool:
        return self._loop is not None

    def submit(self, msg_id: Any, work: Coroutine[Any, Any, bytes | None]) -> None:
        """Run `work` for request `msg_id`; its bytes (None: nothing) are the request's answer."""
        import asyncio

        future = asyncio.run_coroutine_threadsafe(self._serve(msg_id, work), self.loop)
        with self._lock:
            self._futures.add(future)
        future.add_done_callback(self._forget)
        # A call cancelled before its task first ran never started `work`: close it, quietly.
        future.add_done_callback(lambda done: work.close() if done.cancelled() else None)

    def call(self, work: Awaitable[Any]) -> Any:
        """Run `work` on the lane and wait for its value (start-up and shutdown steps)."""
        import asyncio

        return asyncio.run_coroutine_threadsafe(_awaited(work), self.loop).result()

    def spawn(self, work: Coroutine[Any, Any, Any]) -> Future[Any]:
        """Start `work` on the lane without waiting (a task that lives as long as the run)."""
        import asyncio

        return asyncio.run_coroutine_threadsafe(work, self.loop)

    def cancel(self, msg_id: Any) -> None:
        """Cancel the running call of `msg_id`, if there is one; it will not be answered."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._cancel_now, msg_id)

    def cancel_all(self) -> None:
        """Cancel every running call (the server is being stopped from outside); none is answered."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._cancel_all_now)

    def _cancel_all_now(self) -> None:
        for task in list(self._running.values()):
            task.cancel()

    def _cancel_now(self, msg_id: Any) -> None:
        task = self._running.get(msg_id)
        if task is not None:
            task.cancel()

    async def _serve(self, msg_id: Any, work: Coroutine[Any, Any, bytes | None]) -> None:
        import asyncio

        task = asyncio.current_task()
        assert task is not None
        self._running[msg_id] = task
        try:
            line = await work
        except asyncio.CancelledError:
            return  # cancelled by the client: no answer
        except BaseException as exc:  # a fault of the route, not of the tool: the server says how to answer
            self._report(exc)
            return
        finally:
            if self._running.get(msg_id) is task:
                del self._running[msg_id]
        if line is not None:
            self._answer(line)

    def _forget(self, future: Future[Any]) -> None:
        with self._lock:
            self._futures.discard(future)

    def drain(self) -> None:
        """Wait until every submitted call has answered (end of input: in-flight calls finish)."""
        while True:
            with self._lock:
                pending = list(self._futures)
            if not pending:
                return
            for future in pending:
                try:
                    future.result()
                except BaseException:  # noqa: S110 - reported by _serve already; a cancel needs nothing
                    pass

    def close(self) -> None:
        """Drain, then stop the loop and its thread."""
        self.drain()
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is None or thread is None:
            return
        assert self._stop is not None
        loop.call_soon_threadsafe(self._stop.set_result, None)
        thread.join()
        loop.close()


def _serve(loop: asyncio.AbstractEventLoop, stop: asyncio.Future[None], ready: threading.Event) -> None:
    import asyncio

    asyncio.set_event_loop(loop)
    loop.call_soon(ready.set)
    try:
        # One root task for the lane's life: anyio ties its worker threads to the root task, so with
        # one that lives this long a sync handler's thread is reused, not started per call.
        loop.run_until_complete(_until(stop))
    finally:
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())


async def _until(stop: asyncio.Future[None]) -> None:
    await stop


async def _awaited(work: Awaitable[Any]) -> Any:
    return await work
