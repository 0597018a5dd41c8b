"""What a contest's due moment still calls for (``app/contest/due.py``), without Telegram or a
database (issue 41): a deadline job closes its round only when the round is still in play and the
deadline has passed; a reminder names the matches with no result and their players, under a key
that changes with the deadline; a clock job names the tables whose clock ends then and whose
match has no result yet; and which jobs a contest arms, and when."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from app.contest.announcements import ClockNote, Reminder, What
from app.contest.due import (
    CLOCK_WARNING,
    AtDeadline,
    ClockAlarm,
    DeadlineAlarm,
    at_deadline,
    clock_alarms,
    clock_due,
    deadline_alarms,
    reminding,
)
from app.contest.store import HeldContest
from engine.contest import (
    Contest,
    Deadline,
    Schedule,
    ScheduleKind,
    draw,
    move_deadline,
    record_lateness,
    start_clock,
)
from tests.engine.contest.support import DEADLINE, ON_TIME, decide_win, signed_up

LEFT = int(timedelta(hours=48).total_seconds())
VENUE_OPENS = ON_TIME + timedelta(days=15, hours=18)
AT_VENUE = Schedule(ScheduleKind.FIXED, starts_at=VENUE_OPENS, venue="6楼")
STARTED = VENUE_OPENS + timedelta(minutes=5)
LATER = Deadline.before_day(DEADLINE.closes_at.date() + timedelta(days=7))
"""A deadline moved a week on (the tests' one contest clock: tests/engine/contest/support.py)."""


def drawn(pairs: int) -> Contest:
    """Round 1 self-scheduled before :data:`DEADLINE`, in play."""
    return draw(signed_up(pairs), now=ON_TIME).contest


def held(contest: Contest) -> HeldContest:
    return HeldContest(7, -9, contest)


def test_a_deadline_closes_its_round_once_it_has_passed() -> None:
    contest = drawn(4)
    assert at_deadline(contest, 1, DEADLINE.closes_at) is AtDeadline.CLOSE_ROUND
    assert at_deadline(contest, 1, DEADLINE.closes_at + timedelta(days=3)) is AtDeadline.CLOSE_ROUND


def test_a_deadline_moved_later_is_armed_again() -> None:
    contest = drawn(4)
    assert at_deadline(contest, 1, DEADLINE.closes_at - timedelta(seconds=1)) is AtDeadline.ARM_AGAIN
    later = move_deadline(contest, LATER).contest
    assert at_deadline(later, 1, DEADLINE.closes_at) is AtDeadline.ARM_AGAIN


def test_a_deadline_of_another_round_or_a_settled_round_does_nothing() -> None:
    contest = drawn(4)
    assert at_deadline(contest, 2, DEADLINE.closes_at) is AtDeadline.NOTHING
    first, second = contest.rounds[0].matches
    settled = decide_win(decide_win(contest, first.code, first.pairs[0]), second.code, second.pairs[0])
    assert at_deadline(settled, 1, DEADLINE.closes_at) is AtDeadline.NOTHING


def test_a_reminder_names_the_matches_with_no_result_and_their_players() -> None:
    contest = drawn(4)
    first, second = contest.rounds[0].matches
    contest = decide_win(contest, first.code, first.pairs[0])
    found = reminding(held(contest), 1, LEFT)
    assert found is not None
    assert found.announcement == Reminder((second.code,), LEFT)
    assert found.key == f"remind:1:{DEADLINE.closes_at.isoformat()}:{LEFT}"
    players = [p.user_id for number in second.pairs for p in contest.pair(number).players]
    assert [r.user_id for r in found.private] == players and len(players) == 4
    assert {r.code for r in found.private} == {second.code}
    assert [r.key for r in found.private] == [f"contest:7:{found.key}:dm:{user}" for user in players]
    assert found.payload(7, found.private[0]) == {"contest_id": 7, "code": second.code, "left": LEFT}


def test_a_moved_deadline_reminds_under_a_new_key() -> None:
    contest = drawn(2)
    before = reminding(held(contest), 1, LEFT)
    moved = move_deadline(contest, LATER).contest
    after = reminding(held(moved), 1, LEFT)
    assert before is not None and after is not None
    assert before.key != after.key and before.announcement == after.announcement
    assert {r.key for r in before.private}.isdisjoint(r.key for r in after.private)


def test_no_reminder_for_another_round_or_when_every_match_has_a_result() -> None:
    contest = drawn(2)
    assert reminding(held(contest), 2, LEFT) is None
    (only,) = contest.rounds[0].matches
    assert reminding(held(decide_win(contest, only.code, only.pairs[0])), 1, LEFT) is None


def at_tables(pairs: int, format_name: str) -> Contest:
    return draw(signed_up(pairs, format_name=format_name), now=ON_TIME, schedule=AT_VENUE).contest


def test_a_clock_job_names_the_tables_whose_clock_ends_then() -> None:
    contest = at_tables(4, "five-round-knockout")  # 004-A: 40 minutes
    first, second = contest.rounds[0].matches
    contest = start_clock(contest, now=STARTED, table=first.table).contest
    late = STARTED + timedelta(minutes=5)
    contest = start_clock(contest, now=late, table=second.table).contest
    end = (late + timedelta(minutes=40)).isoformat()
    warning = clock_due(contest, 1, end, What.CLOCK_WARNING)
    assert warning is not None and not warning.time_up
    assert warning.note == ClockNote(What.CLOCK_WARNING, 1, (second.table,))
    assert warning.key == f"clock_warning:1:{end}"
    time_up = clock_due(contest, 1, end, What.TIME_UP)
    assert time_up is not None and time_up.time_up and time_up.tables == (second.table,)
    assert time_up.key == f"time_up:1:{end}"
    assert [clock.table for clock in time_up.clocks] == [second.table]
    assert f"时间到：第 1 轮 {second.table}号桌" in time_up.mirror_text(contest)


def test_no_clock_job_for_another_round_another_end_or_tables_with_a_result() -> None:
    contest = at_tables(4, "score-knockout")
    contest = start_clock(contest, now=STARTED).contest
    end = (STARTED + timedelta(minutes=60)).isoformat()
    assert clock_due(contest, 2, end, What.TIME_UP) is None
    assert clock_due(contest, 1, STARTED.isoformat(), What.TIME_UP) is None
    first, second = contest.rounds[0].matches
    late = first.pairs[0]
    contest = record_lateness(contest, code=first.code, late_pair=late, minutes=11, by=1, now=STARTED).contest
    due = clock_due(contest, 1, end, What.TIME_UP)
    assert due is not None and due.tables == (second.table,)
    settled = decide_win(contest, second.code, second.pairs[0])
    assert clock_due(settled, 1, end, What.TIME_UP) is None


def test_the_round_is_the_one_armed_for() -> None:
    """A job armed for round 1 finds round 1 current only while no later round is drawn."""
    contest = drawn(2)
    later = replace(contest, rounds=(*contest.rounds, replace(contest.rounds[0], number=2)))
    assert at_deadline(later, 1, DEADLINE.closes_at) is AtDeadline.NOTHING
    assert reminding(held(later), 1, LEFT) is None


def test_a_self_scheduled_round_arms_its_reminders_ahead_and_its_deadline() -> None:
    contest = drawn(4)
    closes = DEADLINE.closes_at
    day = int(timedelta(hours=24).total_seconds())
    assert deadline_alarms(contest, ON_TIME) == (
        DeadlineAlarm(closes - timedelta(hours=48), 1, LEFT),
        DeadlineAlarm(closes - timedelta(hours=24), 1, day),
        DeadlineAlarm(closes, 1),
    )
    between = closes - timedelta(hours=30)  # the 48-hour reminder has passed
    assert deadline_alarms(contest, between) == (
        DeadlineAlarm(closes - timedelta(hours=24), 1, day),
        DeadlineAlarm(closes, 1),
    )
    assert deadline_alarms(contest, closes + timedelta(days=3)) == (DeadlineAlarm(closes, 1),)


def test_no_deadline_alarm_for_a_settled_or_a_bot_round() -> None:
    contest = drawn(2)
    (only,) = contest.rounds[0].matches
    assert deadline_alarms(decide_win(contest, only.code, only.pairs[0]), ON_TIME) == ()
    assert deadline_alarms(at_tables(4, "five-round-knockout"), ON_TIME) == ()


def test_each_clock_end_arms_its_warning_while_ahead_and_its_end() -> None:
    contest = at_tables(4, "five-round-knockout")  # 004-A: 40 minutes
    first, second = contest.rounds[0].matches
    contest = start_clock(contest, now=STARTED, table=first.table).contest
    late = STARTED + timedelta(minutes=5)
    contest = start_clock(contest, now=late, table=second.table).contest
    ends = (STARTED + timedelta(minutes=40), late + timedelta(minutes=40))
    assert clock_alarms(contest, late) == (
        ClockAlarm(ends[0] - CLOCK_WARNING, 1, ends[0].isoformat(), What.CLOCK_WARNING),
        ClockAlarm(ends[0], 1, ends[0].isoformat(), What.TIME_UP),
        ClockAlarm(ends[1] - CLOCK_WARNING, 1, ends[1].isoformat(), What.CLOCK_WARNING),
        ClockAlarm(ends[1], 1, ends[1].isoformat(), What.TIME_UP),
    )
    after_warnings = ends[1] - timedelta(minutes=5)  # past both warnings: only the ends are left
    assert [a.what for a in clock_alarms(contest, after_warnings)] == [What.TIME_UP, What.TIME_UP]
    settled = decide_win(contest, first.code, first.pairs[0])
    assert [a.end for a in clock_alarms(settled, late)] == [ends[1].isoformat()] * 2
