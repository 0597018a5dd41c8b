"""A contest's JobQueue jobs: the self-scheduled round's reminders and deadline, and the table
clocks' 10-minute reminders and ends, named after the contest (``contest:{id}:deadline``,
``…:remind``, ``…:clock``) and re-armed from the stored contest on start and after every command that may
move them. Which jobs and when is :mod:`app.contest.due`'s; what a job does when it runs is the
desk's (:class:`AlarmTarget`); here only the scheduling.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from telegram.ext import ContextTypes, JobQueue

from app.contest.announcements import What
from app.contest.due import clock_alarms, deadline_alarms
from app.contest.store import HeldContest, StoreBusy

log = logging.getLogger(__name__)

JOB_RETRY = 30.0
"""Seconds before a deadline or reminder job whose database was busy runs again (a locked
database clears in seconds; the deadline's both-out and the reminders must not be lost)."""
DUE_NOW = 0.5
"""Seconds until a job whose moment has already passed runs (a deadline passed while the bot was
down is applied right after start)."""


class AlarmTarget(Protocol):
    """What the jobs call when their moment comes (the contest desk)."""

    async def deadline_passed(self, contest_id: int, number: int) -> None: ...

    async def remind(self, contest_id: int, number: int, left: int) -> None: ...

    async def clock_alarm(self, contest_id: int, number: int, end: str, what: str) -> None: ...


def clock_key(contest_id: int, number: int, end: str) -> str:
    return f"{contest_id}:{number}:{end}"


@dataclass
class ContestAlarms:
    job_queue: JobQueue[Any]
    target: AlarmTarget
    clock: Callable[[], datetime]
    clocks_done: set[str] = field(default_factory=set)
    """Clock ends handled by this process (after a restart a past end is handled once more, its
    announcement deduplicated by the outbox's key)."""

    def arm(self, stored: HeldContest) -> None:
        """(Re-)schedule the current round's reminders and deadline (none once it is settled),
        and its table clocks' 10-minute reminders and ends."""
        self._arm_clocks(stored)
        cid = stored.id
        for name in (f"contest:{cid}:deadline", f"contest:{cid}:remind"):
            for job in self.job_queue.get_jobs_by_name(name):
                job.schedule_removal()
        for alarm in deadline_alarms(stored.contest, self.clock()):
            if alarm.left is None:
                self._run_at(alarm.at, self._on_deadline, (cid, alarm.round), f"contest:{cid}:deadline")
            else:
                data = (cid, alarm.round, alarm.left)
                self._run_at(alarm.at, self._on_reminder, data, f"contest:{cid}:remind")

    def _run_at(self, at: datetime, callback: Any, data: tuple[object, ...], name: str) -> None:
        """Schedule ``callback`` for the moment ``at`` of the desk's clock (a moment past: at once).

        The JobQueue runs on the wall clock and drops a date job whose time it thinks has passed;
        the desk's times are on ``clock``. Handing the scheduler the interval from the desk's now
        makes the two agree whatever the distance between the clocks (tests move theirs; a host
        whose clock is corrected by NTP moves the other)."""
        delay = max((at - self.clock()).total_seconds(), DUE_NOW)
        self.job_queue.run_once(callback, when=delay, data=data, name=name)

    async def _on_deadline(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert context.job is not None
        assert isinstance(context.job.data, tuple)
        contest_id, number = context.job.data
        try:
            await self.target.deadline_passed(int(contest_id), int(number))
        except StoreBusy as error:  # the both-out must not be lost: try again soon
            self._retry(context.job.callback, context.job.data, f"contest:{contest_id}:deadline", error)

    async def _on_reminder(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert context.job is not None
        assert isinstance(context.job.data, tuple)
        contest_id, number, left = context.job.data
        try:
            await self.target.remind(int(contest_id), int(number), int(left))
        except StoreBusy as error:
            self._retry(context.job.callback, context.job.data, f"contest:{contest_id}:remind", error)

    def _retry(self, callback: Any, data: object, name: str, error: Exception) -> None:
        """A job whose database was busy runs again in ``JOB_RETRY`` seconds."""
        log.warning("%s: database busy (%s), trying again in %.0f s", name, error, JOB_RETRY)
        self.job_queue.run_once(callback, when=JOB_RETRY, data=data, name=name)

    def _arm_clocks(self, stored: HeldContest) -> None:
        """One job per end time of the running clocks (a late table's ends later), one per 10-minute
        reminder still ahead; a clock that ran out while the bot was down ends at once."""
        name = f"contest:{stored.id}:clock"
        for job in self.job_queue.get_jobs_by_name(name):
            job.schedule_removal()
        for alarm in clock_alarms(stored.contest, self.clock()):
            data = (stored.id, alarm.round, alarm.end)
            if alarm.what is What.TIME_UP and clock_key(*data) in self.clocks_done:
                continue
            self._run_at(alarm.at, self._on_clock, (*data, str(alarm.what)), name)

    async def _on_clock(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert context.job is not None
        assert isinstance(context.job.data, tuple)
        contest_id, number, end, what = context.job.data
        try:
            await self.target.clock_alarm(int(contest_id), int(number), str(end), str(what))
        except StoreBusy as error:
            self._retry(context.job.callback, context.job.data, f"contest:{contest_id}:clock", error)
