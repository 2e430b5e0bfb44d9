"""Worker threads for sync tool calls, each writing its own answer, the answers batched.

A sync tool that its framework runs on a worker thread must not hold up the calls and pings that
arrive while it runs. Most such calls run on the thread that read them, the reading handed on
(sdk.py); the rest (past the limit of calls so run, or members of a JSON-RPC batch) get a thread of
this pool (a new one while every thread is busy, up to `limit`). What this adds over
`concurrent.futures.ThreadPoolExecutor` is the way answers leave: a thread hands its answer to an
outbox, and whichever thread finds no write under way writes everything waiting, so a burst of
calls finishing together costs a few writes rather than one locked write each (with 40 threads, the
lock's hand-offs cost more than the calls), and no `Future` is made for an answer nobody waits on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any

__all__ = ["ToolThreads"]

Job = Callable[..., "bytes | None"]


class ToolThreads:
    """Runs `job(*args)` on a worker thread; the line it returns (None: no answer) is written
    with `write`. `log` gets what a job raised."""

    def __init__(self, limit: int, write: Callable[[list[bytes]], None], log: Callable[[BaseException], None],
                 name: str = "mcp-tool") -> None:
        self._limit = limit
        self._write = write
        self._log = log
        self._name = name
        self._jobs: SimpleQueue[tuple[Job, tuple[Any, ...]] | None] = SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        # threads free for the next job, so none is started for it (it may run high while jobs wait at
        # the limit, when none would be started anyway)
        self._idle = 0
        self._outbox: list[bytes] = []
        self._writing = False

    def submit(self, job: Job, *args: Any) -> None:
        with self._lock:
            if self._idle:
                self._idle -= 1  # a waiting thread takes it
            elif len(self._threads) < self._limit:
                thread = threading.Thread(target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True)
                self._threads.append(thread)
                thread.start()
            # else: the next thread to finish takes it, in order
        self._jobs.put((job, args))

    def shutdown(self) -> None:
        """Run what was submitted to its end (answers written), then stop the threads."""
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join()

    def _work(self) -> None:
        take = self._jobs.get
        while (item := take()) is not None:
            job, args = item
            try:
                line = job(*args)
            except BaseException as exc:  # noqa: BLE001 - nothing else would see it
                self._log(exc)
                line = None
            if line is not None:
                self._send(line)
            with self._lock:
                self._idle += 1

    def _send(self, line: bytes) -> None:
        with self._lock:
            self._outbox.append(line)
            if self._writing:
                return  # the thread writing takes this line with its next batch
            self._writing = True
        while True:
            with self._lock:
                lines, self._outbox = self._outbox, []
                if not lines:
                    self._writing = False
                    return
            try:
                self._write(lines)
            except BaseException as exc:  # noqa: BLE001 - the writer role must pass on
                self._log(exc)
