"""bench/miniapp_load.py's press → screen bookkeeping: each seat's page counts a move once, when
it first shows a state newer than the one the move was made on; the mover's page apart."""

from __future__ import annotations

from bench.miniapp_load import TableClock, Timings


def test_each_page_counts_a_move_once_when_it_first_shows_a_newer_state() -> None:
    timings = Timings()
    table = TableClock(timings)
    table.sent(2, (1, 10))
    table.shown(0, (1, 10), playing=True)  # the state the move was made on: not yet
    table.shown(0, (1, 11), playing=True)
    table.shown(0, (1, 12), playing=True)  # the same page again: counted once
    table.shown(2, (1, 11), playing=True)
    table.shown(3, (2, 0), playing=True)  # a new deal is newer too
    assert len(timings.own) == 1 and len(timings.others) == 2


def test_a_refused_move_and_the_warm_up_count_nothing() -> None:
    timings = Timings()
    table = TableClock(timings)
    table.sent(1, (1, 5))
    table.refused(1)
    table.shown(1, (1, 6), playing=True)
    table.sent(1, (1, 6))
    table.shown(0, (1, 7), playing=False)  # a page not yet playing: seen, not timed
    assert timings.own == [] and timings.others == []
