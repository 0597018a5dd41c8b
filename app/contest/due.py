"""A contest's due moments: when a self-scheduled round's deadline, a reminder before it, a table
clock's 10-minute warning and its end come due, and what each does then.

A JobQueue job is armed for a round and a moment, and by the time it runs the contest may have
moved on (the round settled, the next one drawn, the deadline moved, a table's result in). So
each job asks here, with the contest as stored now, what is still to be done; the answer is a
value (nothing, arm again, close the round; which announcement under which outbox key, whom to
remind privately, which tables' time is up). Which jobs to arm is asked here too
(:func:`deadline_alarms`, :func:`clock_alarms`). Pure and Telegram-free (issue 41): the desk
(``handlers/contest/desk.py``) and its JobQueue (``handlers/contest/alarms.py``) load the contest,
schedule, run the command and send what this decides; a second front end would ask the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum

from app.contest import texts
from app.contest.announcements import ClockNote, Reminder, What
from app.contest.store import HeldContest
from app.contest.views import plain
from engine.contest import Contest, ContestPhase, Round, ScheduleKind, TableClock, running_clocks, unreported

CLOCK_WARNING = timedelta(minutes=10)
"""A table clock's reminder: 10 minutes before the end, time to finish the deal (docs/rules.md §1.13)."""


@dataclass(frozen=True, slots=True)
class DeadlineAlarm:
    """A job of a self-scheduled round: the reminder ``left`` seconds before its deadline, or
    (``left`` None) the deadline itself."""

    at: datetime
    round: int
    left: int | None = None


def deadline_alarms(contest: Contest, now: datetime) -> tuple[DeadlineAlarm, ...]:
    """The current round's reminders still ahead of ``now``, then its deadline (a deadline already
    past is due at once); none unless a self-scheduled round with a deadline is in play."""
    current = contest.current_round
    if contest.phase is not ContestPhase.ROUND_IN_PLAY or current is None:
        return ()
    deadline = current.schedule.deadline
    if current.schedule.kind is not ScheduleKind.SELF_SCHEDULED or deadline is None:
        return ()
    reminders = tuple(
        DeadlineAlarm(at, current.number, int((deadline.closes_at - at).total_seconds()))
        for at in deadline.reminders(now)
    )
    return (*reminders, DeadlineAlarm(deadline.closes_at, current.number))


@dataclass(frozen=True, slots=True)
class ClockAlarm:
    """A job of the table clocks ending at ``end``: their 10-minute warning or their end."""

    at: datetime
    round: int
    end: str  # the clocks' end, ISO: the job's data, and the announcement's key
    what: What  # CLOCK_WARNING or TIME_UP


def clock_alarms(contest: Contest, now: datetime) -> tuple[ClockAlarm, ...]:
    """Per end time of the running clocks (a late table's ends later): its warning while still
    ahead of ``now``, and its end (a clock that ran out while the bot was down ends at once)."""
    current = contest.current_round
    found: list[ClockAlarm] = []
    for end in sorted({clock.ends_at for clock, _match in running_clocks(contest)}):
        assert current is not None
        if end - CLOCK_WARNING > now:
            found.append(ClockAlarm(end - CLOCK_WARNING, current.number, end.isoformat(), What.CLOCK_WARNING))
        found.append(ClockAlarm(end, current.number, end.isoformat(), What.TIME_UP))
    return tuple(found)


class AtDeadline(Enum):
    """What a round's deadline job does when it runs."""

    NOTHING = "nothing"  # the job's round is no longer the one in play: it settled or another was drawn
    ARM_AGAIN = "arm_again"  # the organiser moved the deadline later meanwhile: its job is re-armed
    CLOSE_ROUND = "close_round"  # 000-E: every match with nothing reported puts both pairs out


def at_deadline(contest: Contest, number: int, now: datetime) -> AtDeadline:
    """The deadline of round ``number`` came due at ``now`` (the desk's clock)."""
    current = _current(contest, number)
    if current is None or contest.phase is not ContestPhase.ROUND_IN_PLAY:
        return AtDeadline.NOTHING
    deadline = current.schedule.deadline
    if deadline is not None and deadline.is_on_time(now):
        return AtDeadline.ARM_AGAIN
    return AtDeadline.CLOSE_ROUND


@dataclass(frozen=True, slots=True)
class PrivateReminder:
    """One player of a match with no result, reminded in their private chat."""

    user_id: int
    code: str  # the match's code
    key: str  # the outbox key: sent once per player and reminder


@dataclass(frozen=True, slots=True)
class Reminding:
    """A reminder before a deadline: a mention in the group and a private message per player."""

    announcement: Reminder
    key: str  # the group announcement's key within the contest (``remind:…``)
    private: tuple[PrivateReminder, ...]

    def payload(self, contest_id: int, reminder: PrivateReminder) -> dict[str, object]:
        """The stored JSON of one private reminder (what the private sender composes from)."""
        return {"contest_id": contest_id, "code": reminder.code, "left": self.announcement.left}


def reminding(held: HeldContest, number: int, left: int) -> Reminding | None:
    """The reminder ``left`` seconds before round ``number``'s deadline, or None when the round is
    no longer current or every match has a result. Its key names the deadline, so a deadline the
    organiser moved reminds again, and a reminder run twice (a restart) is sent once."""
    current = _current(held.contest, number)
    pending = unreported(held.contest)
    if current is None or not pending:
        return None
    deadline = current.schedule.deadline
    closes = deadline.closes_at.isoformat() if deadline is not None else ""
    key = f"remind:{number}:{closes}:{left}"
    private = tuple(
        PrivateReminder(player.user_id, match.code, f"contest:{held.id}:{key}:dm:{player.user_id}")
        for match in pending
        for pair in match.pairs
        for player in held.contest.pair(pair).players
    )
    return Reminding(Reminder(tuple(m.code for m in pending), left), key, private)


@dataclass(frozen=True, slots=True)
class ClockDue:
    """10 minutes left, or time up, at the tables whose clock ends at the job's moment."""

    note: ClockNote
    key: str  # the group announcement's key within the contest: announced once
    clocks: tuple[TableClock, ...]

    @property
    def time_up(self) -> bool:
        """The end itself: the score sheets' time-up entry and the WeChat mirror follow."""
        return self.note.what is What.TIME_UP

    @property
    def tables(self) -> tuple[int, ...]:
        return self.note.tables

    def mirror_text(self, contest: Contest) -> str:
        """The time-up line for the WeChat mirror, in Chinese like every mirrored line."""
        return plain(texts.time_up_text(contest, self.note.round, self.clocks, "zh"))


def clock_due(contest: Contest, number: int, end: str, what: What) -> ClockDue | None:
    """The clock job of round ``number`` for the clocks ending at ``end`` (ISO, as armed) came due:
    ``what`` is :attr:`What.CLOCK_WARNING` or :attr:`What.TIME_UP`. None when the round is no
    longer current, or every table of that end already has a result."""
    ends_at = datetime.fromisoformat(end)
    clocks = tuple(clock for clock, _match in running_clocks(contest) if clock.ends_at == ends_at)
    if _current(contest, number) is None or not clocks:
        return None
    tables = tuple(clock.table for clock in clocks)
    return ClockDue(ClockNote(what, number, tables), f"{what}:{number}:{end}", clocks)


def _current(contest: Contest, number: int) -> Round | None:
    """The current round when it is round ``number`` (the one the job was armed for)."""
    current = contest.current_round
    return current if current is not None and current.number == number else None
