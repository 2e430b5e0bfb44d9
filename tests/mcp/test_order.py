"""CallOrder: tickets run one at a time in the order taken; tickets given up are skipped, never waited for."""

from __future__ import annotations

import threading

from ferrule.mcp.order import CallOrder

BOUND = 10.0  # seconds: only reached when a turn never comes


def _waiting(order: CallOrder, ticket: int, log: list[tuple[int, bool]]) -> threading.Thread:
    """A thread waiting for `ticket`'s turn, returned once it blocks (CPython's Condition keeps its waiters)."""
    thread = threading.Thread(target=lambda: log.append((ticket, order.wait(ticket))))
    before = len(order._turns._waiters)  # type: ignore[attr-defined]
    thread.start()
    blocked = threading.Event()
    while not blocked.wait(0.001):
        assert thread.is_alive() or log, "the thread ended instead of waiting"
        if len(order._turns._waiters) > before or not thread.is_alive():  # type: ignore[attr-defined]
            blocked.set()
    return thread


def test_tickets_given_up_behind_the_running_one_are_skipped_when_it_ends():
    order = CallOrder()
    tickets = [order.take() for _ in range(4)]
    assert tickets == [0, 1, 2, 3]
    assert order.wait(0)
    log: list[tuple[int, bool]] = []
    last = _waiting(order, 3, log)
    order.give_up(1)
    order.give_up(2)
    assert log == []  # ticket 3 waits while ticket 0 runs
    order.end(0)
    last.join(BOUND)
    assert log == [(3, True)]


def test_a_ticket_given_up_while_its_call_waits_answers_false_and_passes_nothing_by():
    order = CallOrder()
    first, second, third = order.take(), order.take(), order.take()
    assert order.wait(first)
    log: list[tuple[int, bool]] = []
    waiter = _waiting(order, second, log)
    order.give_up(second)
    waiter.join(BOUND)
    assert log == [(second, False)]
    order.give_up(second)  # twice: nothing more happens
    order.end(first)
    _waiting(order, third, log).join(BOUND)
    assert log == [(second, False), (third, True)]


def test_giving_up_or_ending_a_ticket_that_ran_or_runs_changes_nothing():
    order = CallOrder()
    first, second = order.take(), order.take()
    assert order.wait(first)
    order.give_up(first)  # it runs: its end passes the turn on, not this
    log: list[tuple[int, bool]] = []
    waiter = _waiting(order, second, log)
    order.end(second)  # not its turn yet: no effect
    order.end(first)
    waiter.join(BOUND)
    assert log == [(second, True)]
    order.give_up(first)  # ran already
    order.end(second)
    _waiting(order, order.take(), log).join(BOUND)
    assert log == [(second, True), (2, True)]


def test_closing_stops_the_waiting_calls_and_the_later_ones_but_not_the_running_one():
    order = CallOrder()
    first, second, third = order.take(), order.take(), order.take()
    assert order.wait(first)
    log: list[tuple[int, bool]] = []
    waiter = _waiting(order, third, log)
    order.close()
    waiter.join(BOUND)
    assert log == [(third, False)]
    order.end(first)  # the turn passes to a call that is not waiting yet: it must not start either
    _waiting(order, second, log).join(BOUND)
    _waiting(order, order.take(), log).join(BOUND)
    assert log == [(third, False), (second, False), (3, False)]
