"""Writes joined by event-loop turn, in order: the first urgent message since the peer last wrote goes
out at once; what follows it waits for the end of its loop turn and goes out in one write. In
lockstep nothing is scheduled (no turn is spent on an empty queue); a burst costs two writes.

The LSP client writes to the analyzer through one (requests urgent, notifications not: they wait for
the end of the turn or for the next request to take them along); `ferrule serve` writes its answers
to the host through another.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class TurnWriter:
    __slots__ = ("_loop", "_emit", "_queue", "_sent", "turn_end_due")

    def __init__(self, loop: asyncio.AbstractEventLoop, emit: Callable[[bytes], None]) -> None:
        self._loop = loop
        self._emit = emit  # writes the joined bytes
        self._queue: list[bytes] = []  # not yet written, in order
        self._sent = False  # something urgent went out since the peer last wrote
        self.turn_end_due = False  # the end of this turn is scheduled to write the queue

    def post(self, data: bytes, urgent: bool = True) -> None:
        """Queue `data`; an urgent one takes the queue along at once unless something urgent went out
        since the peer last wrote, and then it goes with the rest at the end of the turn."""
        self._queue.append(data)
        if urgent and not self._sent:
            self._sent = True
            self.flush()
            return
        if not self.turn_end_due:
            self.turn_end_due = True
            self._loop.call_soon(self._end_turn)

    def peer_wrote(self) -> None:
        """The peer answered: the next urgent message goes at once."""
        self._sent = False

    def flush(self) -> None:
        """Write what is queued now."""
        queue = self._queue
        if not queue:
            return
        data = queue[0] if len(queue) == 1 else b"".join(queue)
        queue.clear()
        self._emit(data)

    def discard(self) -> None:
        """Drop what is queued (the peer is gone)."""
        self._queue.clear()

    def _end_turn(self) -> None:
        self.turn_end_due = self._sent = False
        self.flush()


__all__ = ["TurnWriter"]
