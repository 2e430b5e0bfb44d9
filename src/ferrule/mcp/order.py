"""Calls that run one at a time in the order they were read (the ordered tools of docs/MCP.md §4.4).

Concurrent calls run on whichever thread is free, so two calls read in one order could otherwise reach
a shared session (an edit, then the check of it) in the other. Each ordered call takes a ticket on the
reading thread, as it is read; whatever thread runs it waits for the ticket's turn, and passes the turn
on when the call ends. A ticket given up before its turn (its call cancelled while queued) is skipped.
"""

from __future__ import annotations

import threading

__all__ = ["CallOrder"]


class CallOrder:
    def __init__(self) -> None:
        self._turns = threading.Condition()
        self._issued = 0  # tickets taken so far
        self._next = 0  # the ticket whose turn it is (it may not have started yet)
        self._running: int | None = None  # the ticket whose call runs now
        self._given_up: set[int] = set()  # tickets after `_next` whose calls will not run
        self._closed = False  # the server was stopped: no call waiting for its turn starts

    def take(self) -> int:
        """A ticket for a call just read (on the reading thread, so tickets follow the wire's order)."""
        with self._turns:
            ticket = self._issued
            self._issued += 1
            return ticket

    def wait(self, ticket: int) -> bool:
        """Block until `ticket`'s turn, then hold it; False when the ticket was given up meanwhile, or
        the order closed."""
        with self._turns:
            try:
                while self._next != ticket or self._closed:
                    if ticket < self._next or ticket in self._given_up or self._closed:
                        return False
                    self._turns.wait()
            except BaseException:  # a signal's exception while waiting: the server stops, nothing starts now
                self._close()
                raise
            self._running = ticket
            return True

    def end(self, ticket: int) -> None:
        """The call holding the turn ended: the next ticket's call may run."""
        with self._turns:
            if self._running == ticket:
                self._running = None
                self._advance(ticket + 1)

    def close(self) -> None:
        """Stopped from outside: every call still waiting for its turn, and every later one, does not run."""
        with self._turns:
            self._close()

    def _close(self) -> None:
        self._closed = True
        self._turns.notify_all()

    def give_up(self, ticket: int) -> None:
        """The ticket's call will not run (it was cancelled before its turn); a no-op for a call that
        runs or ran."""
        with self._turns:
            if ticket < self._next or self._running == ticket:
                return
            if ticket == self._next:
                self._advance(ticket + 1)
            else:
                self._given_up.add(ticket)
                self._turns.notify_all()  # its own waiter, if any, returns False

    def _advance(self, ticket: int) -> None:
        while ticket in self._given_up:
            self._given_up.discard(ticket)
            ticket += 1
        self._next = ticket
        self._turns.notify_all()
