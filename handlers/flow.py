"""After the table changed: private hands, the group board and the turn clocks.

Called with the table lock held, right after the table service has committed
the actions, so what players see always follows what was stored. :func:`post`
composes the messages under the lock and returns their delivery, which the caller
awaits after releasing the lock.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from telegram.error import TelegramError
from telegram.ext import ExtBot, JobQueue

from handlers import timers
from handlers.context import Context, Services
from handlers.hand_message import post_hands, refresh_hand
from handlers.table_service import LiveTable, Outcome

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
    services.board.publish(table, outcome.events)
    if job_queue is not None:
        timers.rearm(job_queue, table)
    return delivery


async def post_in(context: Context, table: LiveTable, outcome: Outcome) -> asyncio.Future[Any]:
    return await post(context.bot, context.services, context.job_queue, table, outcome)


async def show_in(context: Context, table: LiveTable, outcome: Outcome) -> None:
    await show(context.bot, context.services, context.job_queue, table, outcome)


async def refresh_hand_of(context: Context, table: LiveTable, seat: int) -> None:
    await refresh_hand(context.bot, context.services, table, seat)


async def close_hands(context: Context, table: LiveTable) -> None:
    """The table was stopped: hand messages lose their buttons."""
    for state in table.humans():
        message_id, user_id = state.record.dm_message_id, state.record.user_id
        if message_id is None or user_id is None:
            continue
        try:
            await context.bot.edit_message_reply_markup(
                chat_id=user_id, message_id=message_id, reply_markup=None
            )
        except TelegramError as error:
            log.info("hand message %s kept its buttons: %s", message_id, error)
