"""After the table changed: private hands, the group board and the turn clocks; and what the
clocks do when they ring (act for the seat, or end a timed match), which is shown the same way.

Called with the table lock held, right after the table service has committed
the actions, so what players see always follows what was stored. :func:`post`
composes the messages under the lock and returns their delivery, which the caller
awaits after releasing the lock.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from telegram.ext import ExtBot, JobQueue

from app.table.hints import think_ahead
from app.table.seat_choices import seat_locale
from app.table.tables import LiveTable, Outcome, TableError
from app.table.texts import _
from common.faults import StorageUnavailable
from engine.actions import Phase
from handlers.platform.context import Context, Services
from handlers.table import timers
from handlers.table.hand_message import post_hand, post_hands, refresh_hand
from handlers.table.timers import TurnClock
from players.easy import timeout_action

log = logging.getLogger(__name__)


async def show(
    bot: ExtBot[None],
    services: Services,
    job_queue: JobQueue[Any] | None,
    table: LiveTable,
    outcome: Outcome,
) -> None:
    """Refresh every human's hand message, schedule a board redraw, re-arm the clocks."""
    await (await post(bot, services, job_queue, table, outcome))


async def post(
    bot: ExtBot[None],
    services: Services,
    job_queue: JobQueue[Any] | None,
    table: LiveTable,
    outcome: Outcome,
) -> asyncio.Future[Any]:
    """What :func:`show` does; the hand edits are returned undelivered."""
    delivery = await post_hands(bot, services, table)
    think_ahead(services.tables, table)
    services.board.publish(table, outcome.events)
    if services.spectators is not None:
        services.spectators.publish(table, outcome.events)
    if services.miniapp is not None:
        services.miniapp.publish(table, outcome.events)
    if job_queue is not None:
        timers.rearm(job_queue, table, CLOCKS)
        if services.tables.needs_recovery:
            recover_later(job_queue)
    return delivery


async def post_in(context: Context, table: LiveTable, outcome: Outcome) -> asyncio.Future[Any]:
    return await post(context.bot, context.services, context.job_queue, table, outcome)


async def show_in(context: Context, table: LiveTable, outcome: Outcome) -> None:
    await show(context.bot, context.services, context.job_queue, table, outcome)


async def refresh_hand_of(context: Context, table: LiveTable, seat: int) -> None:
    await refresh_hand(context.bot, context.services, table, seat)


async def close_table(context: Context, table: LiveTable) -> None:
    """The table was stopped (table lock held): each hand message says so and loses its buttons,
    sent in the seat's mailbox after any look still queued, and the group's board loses its
    turn line. Nothing is left saying whose turn it is or counting down a clock."""
    await post_hands(context.bot, context.services, table)
    context.services.board.publish(table)
    if context.services.spectators is not None:  # their last look says the table was stopped
        context.services.spectators.publish(table)
    if context.services.miniapp is not None:
        context.services.miniapp.publish(table)


# ---------------------------------------------------------------- clocks ringing


async def on_match_clock(context: Context) -> None:
    """Time is up for a timed match: tell the engine, then show what it decided."""
    assert context.job is not None and isinstance(context.job.data, int)
    try:
        table = context.services.tables.get(context.job.data)
    except TableError:
        return
    async with table.lock:
        if table.match is None or table.match.is_over:
            return
        try:
            outcome = await context.services.tables.expire(table)
        except StorageUnavailable as error:
            log.warning("table %s: match clock not stored (%s); it rings again", table.id, error)
            _ring_again(context, timers.clock_name(table.id))
            return
        delivery = await post_in(context, table, outcome)
    await delivery


async def on_turn_timeout(context: Context) -> None:
    """The clock ran out: act for the seat if it is still the one the clock waited for."""
    assert context.job is not None
    clock = context.job.data
    assert isinstance(clock, TurnClock)
    try:
        table = context.services.tables.get(clock.table_id)
    except TableError:
        return
    async with table.lock:
        match = table.match
        if match is None or clock.seat not in match.to_act or match.deal_number != clock.deal:
            return
        if match.phase is Phase.PLAY and match.version != clock.version:
            return
        state = table.seats[clock.seat]
        locale = await seat_locale(context.services.languages, state)
        try:
            outcome = await context.services.tables.act(
                table, seat=clock.seat, action=timeout_action(table.observe(clock.seat)), timed_out=True
            )
        except StorageUnavailable as error:  # nothing changed: the same clock rings again soon
            log.warning("table %s: timeout of seat %s not stored (%s)", table.id, clock.seat, error)
            _ring_again(context, timers.job_name(table.id, clock.seat))
            return
        state.message.note = _("⏰ Time ran out: the bot acted for you.", locale)
        delivery = await post_in(context, table, outcome)
    await delivery


async def on_turn_warning(context: Context) -> None:
    """A turn clock is about to ring: one edit of the seat's hand message says so."""
    assert context.job is not None
    clock = context.job.data
    assert isinstance(clock, TurnClock)
    try:
        table = context.services.tables.get(clock.table_id)
    except TableError:
        return
    async with table.lock:
        match = table.match
        if match is None or clock.seat not in match.to_act or timers.turn_key(table) != clock.key:
            return
        state = table.seats[clock.seat]
        seconds = timers.seconds_for(table)
        if state.is_bot or seconds is None:
            return
        state.message.warned = (clock.key, timers.warning_lead(seconds))
        delivery = await post_hand(context.bot, context.services, table, clock.seat)
    await delivery


CLOCKS = timers.ClockCallbacks(on_turn=on_turn_timeout, on_match=on_match_clock, on_warning=on_turn_warning)
"""What the clocks armed by :func:`post` do when they ring."""


# ---------------------------------------------------------------- storage faults

RETRY_SECONDS = 5.0
"""While storage is unavailable (read-only, locked, disk full): how soon a clock whose action
could not be stored rings again, and how often the recovery job tries again. Each try is one
failed write; play resumes at most this long after storage is back."""

RECOVERY_JOB = "storage:recover"


def _ring_again(context: Context, name: str) -> None:
    """Arm the clock that just rang again, with the same data, in :data:`RETRY_SECONDS`."""
    job = context.job
    assert job is not None and context.job_queue is not None
    context.job_queue.run_once(
        job.callback,
        RETRY_SECONDS,
        data=job.data,
        name=name,
        job_kwargs={"id": name, "replace_existing": True},
    )


def recover_later(job_queue: JobQueue[Any]) -> None:
    """Schedule :func:`on_recover` (once: an armed recovery job covers every table)."""
    if timers.armed(job_queue, RECOVERY_JOB) is None:
        job_queue.run_once(
            on_recover,
            RETRY_SECONDS,
            name=RECOVERY_JOB,
            job_kwargs={"id": RECOVERY_JOB, "replace_existing": True},
        )


async def on_recover(context: Context) -> None:
    """Storage failed earlier: store the writes that lag behind memory, let the bots of stalled
    tables act (and show it); again later while storage is still unavailable."""
    tables = context.services.tables
    await tables.catch_up()
    for table_id in sorted(tables.stalled):
        try:
            table = tables.get(table_id)
        except TableError:
            tables.stalled.discard(table_id)
            continue
        async with table.lock:
            outcome = await tables.resume(table)
            delivery = await post_in(context, table, outcome)
        await delivery
    if tables.needs_recovery and context.job_queue is not None:
        recover_later(context.job_queue)
