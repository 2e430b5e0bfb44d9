"""Reading the channel by turns, so that a blocking job can run on the thread that read its line.

One thread at a time holds the turn: it reads the channel and serves what it read, in order. A
handler whose job blocks (a tool its app runs on a thread of its own) may run the job `beside` the
reading: the turn is handed on for the job's duration. Nobody takes it while the job is quick, so
the job runs where its line was read, with no hop to another thread and its wake-up; a job still
running after `HAND_ON_S` gets a follower thread, which takes the turn and reads on, so a `ping` or a
cancellation sent meanwhile is answered. A thread whose job ended takes the turn back if it is
free; if a follower holds it, the thread parks until the watch needs a follower again, so calls in
lockstep stay on one thread instead of handing the turn to and fro (each handover a wake-up).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from queue import Empty, SimpleQueue
from threading import get_ident
from typing import Any, TypeVar

__all__ = ["HAND_ON_S", "MainThreadJobs", "ReadTurns"]

HAND_ON_S = 0.002  # how long the reading may wait behind a job before a follower takes it on
_IDLE_S = 1.0  # a watch that saw no job beside the reading for this long sleeps until the next one

T = TypeVar("T")


class ReadTurns:
    """Turns at `serve_one` (one read and its serving; False when the channel ended). `limit` bounds
    the jobs beside the reading at once: a caller checks `can_hand_on` first."""

    def __init__(self, serve_one: Callable[[], bool], limit: int) -> None:
        self._serve_one = serve_one
        self._limit = limit
        self._turn = threading.Lock()
        # The ident of the thread holding the turn (None: nobody). Only the holder writes it, so a
        # thread reading its own ident there does hold the turn; cheaper than a threading.local.
        # Read-only outside this class.
        self.holder: int | None = None
        self.ended = False  # a plain attribute: the read loop tests it on every read
        # The threads running a job with the turn handed on (a thread runs one at a time). A set's
        # add and discard are atomic under the GIL, so counting costs no lock on every job;
        # `wait_beside` asks to be told when the last ends by setting `_draining`.
        self._beside: set[int] = set()
        self._draining = False
        self._handed_at = 0.0  # when the turn was last handed on
        self._followers: list[threading.Thread] = []
        self._following = False  # a follower was started or recalled and has not taken the turn yet
        self._park = threading.Condition()
        # Threads that lost the turn during their job: counted from that moment, not from when they
        # reach the wait, so the watch recalls one still writing its answer instead of starting another.
        self._parked = 0
        self._recalls = 0  # recalls not yet taken up by a parked thread
        self._watch: threading.Thread | None = None
        self._watch_idle = False
        self._wake = threading.Event()
        self._done = threading.Condition()

    @property
    def can_hand_on(self) -> bool:
        return len(self._beside) < self._limit

    def run(self) -> None:
        """Take turns until the channel ends (on the thread that serves it, and on each follower)."""
        me = get_ident()
        try:
            while True:
                self._turn.acquire()
                self.holder = me
                self._following = False
                try:
                    # Reads follow one another on this thread while it keeps the turn: a job beside
                    # the reading is the only way to lose it, and a thread waiting for it waits for that.
                    while self.holder == me:
                        if self.ended or not self._serve_one():
                            self._end()
                            return
                finally:
                    kept = self.holder == me
                    if kept:
                        self.holder = None
                        self._turn.release()
                if not kept and not self._wait_for_recall():
                    return
        except BaseException:
            self._end()  # stopped from outside: no follower reads on
            raise

    def _wait_for_recall(self) -> bool:
        """Parked after a job whose turn a follower took (counted by `beside`); True when recalled,
        False at the end."""
        with self._park:
            try:
                self._park.wait_for(lambda: self._recalls or self.ended)
                if self.ended:
                    return False
                self._recalls -= 1
                return True
            finally:
                self._parked -= 1

    def _end(self) -> None:
        self.ended = True
        with self._park:
            self._park.notify_all()

    def beside(self, job: Callable[..., T], *args: Any, lost: Callable[[T], Any] | None = None) -> T:
        """`job(*args)` with the turn handed on, by the thread holding it; the turn is taken back
        after, unless a follower holds it or the turns ended. Then `lost`, when given, gets the job's
        value while the job still counts as beside the reading, so what it writes is written before
        `wait_beside` (and so a stop) returns."""
        self.holder = None
        me = get_ident()
        self._beside.add(me)
        self._handed_at = time.monotonic()
        self._turn.release()
        if self._watch is None:
            self._watch = threading.Thread(target=self._watching, name="mcp-turns", daemon=True)
            self._watch.start()
        elif self._watch_idle:
            self._wake.set()
        finished = returned = False
        try:
            result = job(*args)
            finished = returned = True
            return result
        except Exception:
            finished = True
            raise
        finally:
            try:
                if not finished:
                    self._end()  # stopped from outside, mid-job: leave the turn to nobody
                elif not self.ended and self._turn.acquire(blocking=False):
                    self.holder = me
                else:  # a follower holds the turn (or the turns ended): this thread parks once back in `run`
                    with self._park:
                        self._parked += 1
                    if lost is not None and returned:
                        lost(result)
            finally:
                self._beside.discard(me)
                if self._draining:
                    with self._done:
                        self._done.notify_all()

    def finish(self, timeout: float | None = None) -> None:
        """After `run` returned: wait for the jobs beside the reading, the watch and the followers."""
        self.wait_beside(timeout)
        self._stop_watching(timeout)
        for follower in list(self._followers):
            follower.join(timeout)

    def stop(self, timeout: float | None = None) -> None:
        """Stopped from outside: no turn is served from now on (a read under way is dropped); the jobs
        beside the reading end and write their answers, and the watch stops. A follower blocked in a
        read is left there (a daemon thread)."""
        self._end()
        self.wait_beside(timeout)
        self._stop_watching(timeout)

    def wait_beside(self, timeout: float | None = None) -> None:
        with self._done:
            self._draining = True  # before the test: a job ending after it finds the flag and tells
            self._done.wait_for(lambda: not self._beside, timeout)

    def _stop_watching(self, timeout: float | None) -> None:
        self._end()
        self._wake.set()  # an idle watch sees the end
        if self._watch is not None:
            self._watch.join(timeout)  # not left asleep into the interpreter's exit

    def _watching(self) -> None:
        idle_since = time.monotonic()
        while not self.ended:
            if self._watch_idle:
                if not self._beside:  # beside() counts its job before it looks whether to wake us
                    self._wake.wait()
                    self._wake.clear()
                self._watch_idle = False
                idle_since = time.monotonic()
            time.sleep(HAND_ON_S)
            now = time.monotonic()
            if self._beside:
                idle_since = now
                if (not self._following and not self._turn.locked() and now - self._handed_at >= HAND_ON_S
                        and not self.ended):
                    self._follow()
            elif now - idle_since >= _IDLE_S:
                self._watch_idle = True

    def _follow(self) -> None:
        """A thread to take the turn: a parked one recalled, else a new one (up to the limit)."""
        with self._park:
            if self._parked > self._recalls:
                self._following = True
                self._recalls += 1
                self._park.notify()
                return
        if len(self._followers) < self._limit:
            self._following = True
            follower = threading.Thread(target=self.run, name=f"mcp-reader-{len(self._followers)}", daemon=True)
            follower.start()
            self._followers.append(follower)  # started: `finish` may join it


class MainThreadJobs:
    """Jobs that must run on the main thread, while the reading runs on others: `serve()` runs them
    there until `stop()`; `run(job)` from another thread waits for the job's value."""

    def __init__(self) -> None:
        self._jobs: SimpleQueue[tuple[Callable[[], Any], Future[Any]] | None] = SimpleQueue()
        self._closed = False

    def run(self, job: Callable[[], T]) -> T:
        if threading.current_thread() is threading.main_thread():
            return job()
        done: Future[T] = Future()
        self._jobs.put((job, done))
        if self._closed:  # nobody serves the queue any more: the job is refused, not left waiting
            self._refuse_waiting()
        return done.result()

    def serve(self) -> None:
        try:
            while (item := self._jobs.get()) is not None:
                job, done = item
                try:
                    done.set_result(job())
                except BaseException as exc:
                    done.set_exception(exc)
                    if not isinstance(exc, Exception):
                        raise
        finally:
            self._closed = True
            self._refuse_waiting()

    def stop(self) -> None:
        self._jobs.put(None)

    def _refuse_waiting(self) -> None:
        while True:
            try:
                item = self._jobs.get_nowait()
            except Empty:
                return
            if item is not None:
                item[1].set_exception(RuntimeError("the server is stopping"))
