"""The referee's steps at physical tables: table clocks (/round start), lateness (docs/rules.md §4.7) and
leave requests (请假) refused once a match has begun."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engine.contest import (
    ClockStarted,
    Contest,
    ContestError,
    MatchNote,
    MatchUpdated,
    PairWithdrew,
    Refusal,
    Schedule,
    ScheduleKind,
    WithdrawReason,
    draw,
    record_lateness,
    running_clocks,
    start_clock,
    withdraw,
)
from engine.rules import TimeUp

from .support import ON_TIME, report_win, signed_up

AT_VENUE = Schedule(ScheduleKind.FIXED, starts_at=datetime(2026, 12, 26, 6, 0, tzinfo=UTC), venue="6楼")
STARTED = datetime(2026, 12, 26, 6, 5, tzinfo=UTC)


def at_tables(pairs: int, format_name: str, **settings: object) -> Contest:
    return draw(signed_up(pairs, format_name=format_name, **settings), now=ON_TIME, schedule=AT_VENUE).contest


def refusal(call: object) -> Refusal:
    assert callable(call)
    with pytest.raises(ContestError) as refused:
        call()
    return refused.value.code


# ---------------------------------------------------------------- table clocks


def test_round_start_starts_every_table_with_the_rules_time_limit() -> None:
    """001-B: 60-minute rounds stopped at once; both tables of a group start together."""
    contest = at_tables(8, "movement")
    assert contest.rules().time_up is TimeUp.STOP_AT_ONCE
    step = start_clock(contest, now=STARTED)
    (event,) = step.events
    assert isinstance(event, ClockStarted) and event.round_number == 1
    assert [c.table for c in event.clocks] == [m.table for m in contest.rounds[0].matches]
    assert {c.ends_at for c in event.clocks} == {STARTED + timedelta(minutes=60)}
    assert [c for c, _m in running_clocks(step.contest)] == list(event.clocks)


def test_a_second_start_is_refused_but_a_late_table_starts_alone() -> None:
    contest = at_tables(4, "five-round-knockout")  # 004-A: 40 minutes
    first, second = contest.rounds[0].matches
    contest = start_clock(contest, now=STARTED, table=first.table).contest
    assert refusal(lambda: start_clock(contest, now=STARTED, table=first.table)) is Refusal.CLOCK_STARTED
    later = STARTED + timedelta(minutes=7)
    (event,) = start_clock(contest, now=later).events  # the other table only
    assert isinstance(event, ClockStarted)
    assert [(c.table, c.ends_at) for c in event.clocks] == [(second.table, later + timedelta(minutes=40))]
    contest = start_clock(contest, now=later).contest
    assert refusal(lambda: start_clock(contest, now=later)) is Refusal.CLOCK_STARTED
    assert refusal(lambda: start_clock(contest, now=later, table=9)) is Refusal.UNKNOWN_TABLE


def test_a_table_with_a_result_keeps_no_running_clock() -> None:
    contest = at_tables(4, "score-knockout")
    first = contest.rounds[0].matches[0]
    contest = start_clock(contest, now=STARTED).contest
    contest = report_win(contest, first.pairs[0], at=STARTED)
    assert [m.code for _c, m in running_clocks(contest)] == [contest.rounds[0].matches[1].code]


def test_clocks_need_a_timed_physical_round() -> None:
    bot_round = draw(signed_up(4, format_name="movement"), now=ON_TIME).contest
    assert refusal(lambda: start_clock(bot_round, now=STARTED)) is Refusal.NOT_PHYSICAL
    untimed = at_tables(4, "redraw-knockout")
    assert refusal(lambda: start_clock(untimed, now=STARTED)) is Refusal.NOT_TIMED
    assert refusal(lambda: start_clock(signed_up(4), now=STARTED)) is Refusal.NOT_DRAWN


# ---------------------------------------------------------------- lateness and leave


def test_lateness_below_the_threshold_is_noted_and_at_it_a_walkover() -> None:
    """004-A: "超过15分钟" loses; 14 minutes is no forfeit."""
    contest = at_tables(4, "five-round-knockout")
    match = contest.rounds[0].matches[0]
    late, opponent = match.pairs
    under = record_lateness(contest, code=match.code, late_pair=late, minutes=14, by=1, now=STARTED)
    assert under.events == ()
    step = record_lateness(contest, code=match.code, late_pair=late, minutes=15, by=1, now=STARTED)
    (event,) = step.events
    assert isinstance(event, MatchUpdated) and event.note is MatchNote.WALKOVER
    assert event.match.winner == opponent and event.fact.reason == "late:15"


def test_one_lateness_disqualifies_when_the_settings_say_so() -> None:
    """002-E: "迟到10分钟及以上…取消比赛资格" — late_disqualify_after=1."""
    contest = at_tables(4, "slot-groups", late_disqualify_after=1)
    match = contest.rounds[0].matches[0]
    step = record_lateness(contest, code=match.code, late_pair=match.pairs[1], minutes=10, by=1, now=STARTED)
    walkover, out = step.events
    assert isinstance(walkover, MatchUpdated) and isinstance(out, PairWithdrew)
    assert out.withdrawal.reason is WithdrawReason.LATE and out.withdrawal.number == match.pairs[1]
    assert match.pairs[1] not in step.contest.alive


def test_leave_before_the_match_is_a_walkover_with_its_reason() -> None:
    contest = at_tables(4, "score-knockout")
    match = contest.rounds[0].matches[0]
    leaver = contest.pair(match.pairs[0]).user_ids[1]
    step = withdraw(contest, leaver, now=STARTED, reason=WithdrawReason.LEAVE)
    out, walkover = step.events
    assert isinstance(out, PairWithdrew) and out.withdrawal.reason is WithdrawReason.LEAVE
    assert isinstance(walkover, MatchUpdated) and walkover.match.winner == match.pairs[1]


def test_leave_is_refused_once_the_match_has_a_result_or_its_clock_runs() -> None:
    contest = at_tables(4, "score-knockout")
    first, second = contest.rounds[0].matches
    contest = report_win(contest, first.pairs[1], at=STARTED)
    after_result = contest.pair(first.pairs[0]).user_ids[0]
    leave = WithdrawReason.LEAVE
    too_late = Refusal.LEAVE_TOO_LATE
    assert refusal(lambda: withdraw(contest, after_result, now=STARTED, reason=leave)) is too_late
    contest = start_clock(contest, now=STARTED).contest
    playing = contest.pair(second.pairs[0]).user_ids[0]
    assert refusal(lambda: withdraw(contest, playing, now=STARTED, reason=leave)) is too_late
    assert withdraw(contest, playing, now=STARTED).events  # /withdraw (弃权) still can
