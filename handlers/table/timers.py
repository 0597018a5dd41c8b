"""Turn clocks: one JobQueue job per waiting seat, named ``turn:<table>:<seat>``; and the
match clock of timed formats, ``clock:<table>``.

On timeout the seat does the default (A13): the leader plays the lowest single, a
follower passes, a tribute pays the forced card, a return gives the lowest
allowed card. Two timeouts in a row put the seat in 托管 until 取消托管. A warning job,
``warn:<table>:<seat>``, rings once :func:`warning_lead` seconds before a clock: the hand
message gets one edit saying so (a countdown of edits would flood the private chat, which
takes about one message a second).
Clocks are re-armed after every change and on restart (with a full turn). What a clock does
when it rings is passed in (:class:`ClockCallbacks`, from :mod:`handlers.table.flow`), so
scheduling does not depend on showing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from telegram.ext import Job, JobQueue

from app.table.tables import LiveTable
from engine.actions import Passed, Phase, Played, TimeExpired
from engine.rules import TimeoutAction
from handlers.platform.context import Context

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TurnClock:
    """What a clock was armed for; it fires only if the seat is still waiting on it."""

    table_id: int
    seat: int
    phase: Phase
    deal: int
    version: int

    @property
    def key(self) -> tuple[int, Phase, int]:
        """The turn it times: a play turn ends with any action; an exchange clock runs on
        while the other seats exchange (see :func:`rearm`)."""
        return (self.deal, self.phase, self.version if self.phase is Phase.PLAY else -1)


def turn_key(table: LiveTable) -> tuple[int, Phase, int]:
    """The :attr:`TurnClock.key` of the turn the table waits on now."""
    match = table.match
    assert match is not None
    return (match.deal_number, match.phase, match.version if match.phase is Phase.PLAY else -1)


JobCallback = Callable[[Context], Coroutine[Any, Any, None]]


@dataclass(frozen=True, slots=True)
class ClockCallbacks:
    """What runs when a clock rings: a seat's turn clock, a timed match's clock, and the
    warning before a turn clock (none: no warning)."""

    on_turn: JobCallback
    on_match: JobCallback
    on_warning: JobCallback | None = None


WARNING_SECONDS = 10
"""How long before a turn clock rings its warning: long enough to find the chat and tap
(a pass is one tap), short enough not to nag a player who is only thinking."""


def warning_lead(seconds: int) -> int:
    """Seconds left when the warning rings: 10, or a third of a short clock (0: none)."""
    return min(WARNING_SECONDS, seconds // 3)


def job_name(table_id: int, seat: int) -> str:
    return f"turn:{table_id}:{seat}"


def warn_name(table_id: int, seat: int) -> str:
    return f"warn:{table_id}:{seat}"


def seconds_for(table: LiveTable) -> int | None:
    """The preset's limit: tribute time, the first play of a deal, or a normal turn."""
    assert table.match is not None
    rules = table.rules
    if rules.timeout_action is TimeoutAction.NONE:
        return None  # the referee handles it (V21): no clock
    if table.match.phase in (Phase.TRIBUTE, Phase.RETURN_TRIBUTE):
        return rules.tribute_seconds
    first = not any(isinstance(event, Played | Passed) for event in table.deal_events)
    if first and rules.first_turn_seconds:
        return rules.first_turn_seconds
    return rules.turn_seconds


def cancel(job_queue: JobQueue[Any], table_id: int) -> None:
    seats = range(4)
    names = [*(job_name(table_id, s) for s in seats), *(warn_name(table_id, s) for s in seats)]
    for name in [*names, clock_name(table_id)]:
        job = armed(job_queue, name)
        if job is not None:
            job.schedule_removal()


def armed(job_queue: JobQueue[Any], name: str) -> Job[Any] | None:
    """The clock of that name, if armed.

    Clocks are scheduled with their name as the scheduler's job id, so this is a lookup;
    ``get_jobs_by_name`` wraps and scans every job of every table, which at 100 tables
    made re-arming the clocks the costliest step of a press.
    """
    scheduled = job_queue.scheduler.get_job(name)
    return None if scheduled is None else Job.from_aps_job(scheduled)


def _arm(job_queue: JobQueue[Any], callback: Any, seconds: float, data: object, name: str) -> None:
    job_queue.run_once(
        callback, seconds, data=data, name=name, job_kwargs={"id": name, "replace_existing": True}
    )


def clock_name(table_id: int) -> str:
    return f"clock:{table_id}"


def arm_match_clock(job_queue: JobQueue[Any], table: LiveTable, on_match: JobCallback) -> None:
    """Timed formats: one job at the match's start + time limit (re-armed on restart)."""
    match, started = table.match, table.record.started_at
    minutes = table.rules.time_limit_minutes
    if match is None or match.is_over or minutes is None or started is None:
        return
    if armed(job_queue, clock_name(table.id)) is not None:
        return
    if any(isinstance(action, TimeExpired) for _, action in match.history):
        return
    left = (started + timedelta(minutes=minutes) - datetime.now(UTC)).total_seconds()
    _arm(job_queue, on_match, max(left, 0.0), table.id, clock_name(table.id))


def rearm(job_queue: JobQueue[Any], table: LiveTable, callbacks: ClockCallbacks) -> None:
    """Arm a clock for each human seat now expected to act; keep a running tribute clock."""
    match = table.match
    if match is None or match.is_over or not table.record.status.is_active:
        cancel(job_queue, table.id)
        return
    arm_match_clock(job_queue, table, callbacks.on_match)
    seconds = seconds_for(table)
    for seat in range(4):
        name = job_name(table.id, seat)
        job = armed(job_queue, name)
        state = table.seats.get(seat)
        waiting = seat in match.to_act and state is not None and not state.is_bot and seconds is not None
        clock = TurnClock(table.id, seat, match.phase, match.deal_number, match.version)
        if waiting and match.phase is not Phase.PLAY and job is not None and _same_exchange(job.data, clock):
            continue
        if waiting:
            assert seconds is not None
            _arm(job_queue, callbacks.on_turn, seconds, clock, name)  # replaces the old clock
            _arm_warning(job_queue, callbacks, seconds, clock)
            continue
        for stale in (job, armed(job_queue, warn_name(table.id, seat))):
            if stale is not None:
                stale.schedule_removal()


def _arm_warning(job_queue: JobQueue[Any], callbacks: ClockCallbacks, seconds: int, clock: TurnClock) -> None:
    """The warning before a clock, or none (a clock too short for one; no callback)."""
    name, lead = warn_name(clock.table_id, clock.seat), warning_lead(seconds)
    if callbacks.on_warning is not None and lead > 0:
        _arm(job_queue, callbacks.on_warning, seconds - lead, clock, name)
    elif (job := armed(job_queue, name)) is not None:
        job.schedule_removal()


def _same_exchange(data: object, clock: TurnClock) -> bool:
    return isinstance(data, TurnClock) and (data.phase, data.deal) == (clock.phase, clock.deal)
