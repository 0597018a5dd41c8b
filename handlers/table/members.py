"""Players who block the bot or leave the group: their seat goes into 托管 at once and the
group is told once; ``/start`` in the private chat, or rejoining the group, brings the hand back.

How the bot learns it:

* Blocked: Telegram sends the bot a ``my_chat_member`` update for the private chat (member →
  kicked; :func:`on_my_chat_member`), and any send or edit there fails with 403 (Forbidden;
  :mod:`handlers.table.hand_message` calls :func:`unreachable`). Either is enough, so a
  table without a turn clock does not wait for the blocked player. While the player is
  away for that reason no more hand messages are attempted; unblocking (kicked → member)
  lets the hand message be edited again.
* Left: Telegram posts a ``left_chat_member`` service message, which every bot in the
  group receives, privacy mode or not (:func:`on_left_message`); a bot that is an
  administrator and asks for ``chat_member`` updates also gets one (:func:`on_chat_member`).
  Either is enough and both are handled once. In a lobby the seat is simply freed.

The group's notice goes through the outbox with a key of its own, so it is sent once, even
across a restart; after a restart the 403 of a player already known as blocked, whose seat
is already in 托管, is not announced again.

Coming back does not take the seat out of 托管 by itself: the hand comes back (a new message)
with a line saying 托管 is on and the 取消托管 button. A player who just unblocked the bot or
rejoined the group is not dropped into a running turn clock, and one press gets them back.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from telegram import Chat, ChatMember, ChatMemberUpdated, Update, User
from telegram.ext import ExtBot

from app.preferences import Languages
from app.table.lifecycle import in_lobby
from app.table.tables import Away, LiveTable, TableError
from app.table.texts import away_text, back_note
from common.faults import StorageUnavailable
from handlers.platform.chats import ChatBudget
from handlers.platform.context import Context, Services
from handlers.platform.outbox import Payload, Sender
from handlers.platform.sender import sent
from handlers.table import flow
from handlers.table.lobby import redraw_lobby, welcome_back

log = logging.getLogger(__name__)

AWAY_NOTICE = "seat_away"
"""Outbox kind of the group's notice: ``{"table_id", "seat", "name", "reason"}``."""

_PRESENT = (ChatMember.OWNER, ChatMember.ADMINISTRATOR, ChatMember.MEMBER, ChatMember.RESTRICTED)


def away_sender(bot: ExtBot[None], languages: Languages, budget: ChatBudget) -> Sender:
    """Sends the outbox's :data:`AWAY_NOTICE` rows, in the group's language of the moment."""

    async def send(chat_id: int, payload: Payload) -> None:
        blocked = payload["reason"] == Away.BLOCKED.value
        text = away_text(str(payload["name"]), blocked, await languages.of_chat(chat_id))
        await budget.acquire(chat_id)
        await bot.send_message(chat_id, text)

    return send


# ---------------------------------------------------------------- going away


async def unreachable(bot: ExtBot[None], services: Services, user_id: int) -> None:
    """A 403 from the user's private chat: every table of theirs plays on with the seat in 托管.

    Runs as a task of its own (the 403 is met while a hand message is being delivered, and
    showing the change delivers hand messages again).
    """
    known = await services.reach.known_unreachable(user_id)
    try:
        await services.reach.mark(user_id, reachable=False)
    except StorageUnavailable as error:
        log.warning("user %s: unreachable not stored: %s", user_id, error)
    for table, seat in services.tables.tables_of_user(user_id):
        if table.match is None:
            continue
        async with table.lock:
            quiet = known and table.seats[seat].is_bot  # a restart met the same 403 again
            delivery = await hand_over(bot, services, table, seat, Away.BLOCKED, tell=not quiet)
        await delivery


async def left_group(context: Context, chat_id: int, user: User) -> None:
    """The user left (or was removed from) the group: a lobby frees their seat; a match plays
    on with the seat in 托管 and the group is told."""
    services = context.services
    try:
        table = services.tables.in_chat(chat_id)
    except TableError:
        return
    async with table.lock:  # the seat as it is under the lock: a lobby seat may change hands
        seat = table.seat_of(user.id)
        if seat is None:
            return
        if in_lobby(table):
            await _free_lobby_seat(context, table, seat)
            return
        delivery = await hand_over(context.bot, services, table, seat, Away.LEFT, tell=True)
    await delivery


async def hand_over(
    bot: ExtBot[None], services: Services, table: LiveTable, seat: int, reason: Away, *, tell: bool
) -> asyncio.Future[Any]:
    """托管 at once (bots act now if it is the seat's turn), the group told once; table lock held."""
    key = (table.id, seat)
    if key in services.tables.away or table.match is None or table.match.is_over:
        return sent()
    services.tables.away[key] = reason
    log.info("table %s: seat %s is away (%s); 托管", table.id, seat, reason.value)
    outcome = await services.tables.hand_to_bot(table, seat=seat)
    if tell:
        payload = {
            "table_id": table.id,
            "seat": seat,
            "name": table.seats[seat].record.name,
            "reason": reason.value,
        }
        key_text = f"table:{table.id}:away:{seat}:{table.version}"
        services.outbox.post(table.record.chat_id, AWAY_NOTICE, payload, key=key_text)
    return await flow.post(bot, services, services.job_queue, table, outcome)


async def _free_lobby_seat(context: Context, table: LiveTable, seat: int) -> None:
    try:
        await context.services.tables.leave(table, seat=seat)
    except (TableError, StorageUnavailable) as error:
        log.warning("table %s: seat %s of a departed player kept: %s", table.id, seat, error)
        return
    await redraw_lobby(context, table)


async def unblocked(context: Context, user_id: int) -> None:
    """The user unblocked the bot: their hand message is kept up to date again (edited in
    place, with a line saying 托管 is on); ``/start`` also sends it anew."""
    services = context.services
    try:
        await services.reach.mark(user_id, reachable=True)
    except StorageUnavailable as error:
        log.warning("user %s: reachable not stored: %s", user_id, error)
    for table, seat in services.tables.tables_of_user(user_id):
        if services.tables.away.get((table.id, seat)) is not Away.BLOCKED:
            continue
        async with table.lock:
            if services.tables.come_back(table, seat):
                table.seats[seat].message.note = back_note(await services.languages.of_user(user_id))
            await flow.refresh_hand_of(context, table, seat)


# ---------------------------------------------------------------- updates


async def on_my_chat_member(update: Update, context: Context) -> None:
    """The bot's membership of a chat changed: in a private chat, the user blocked it
    (member → kicked) or unblocked it (kicked → member)."""
    change = update.my_chat_member
    if change is None or change.chat.type != Chat.PRIVATE:
        return
    gone = (ChatMember.BANNED, ChatMember.LEFT)
    if change.new_chat_member.status in gone:
        await unreachable(context.bot, context.services, change.from_user.id)
    elif change.old_chat_member.status in gone:
        await unblocked(context, change.from_user.id)


async def on_left_message(update: Update, context: Context) -> None:
    """The ``left_chat_member`` service message of a group."""
    message = update.effective_message
    if message is None or message.left_chat_member is None or message.left_chat_member.is_bot:
        return
    await left_group(context, message.chat_id, message.left_chat_member)


async def on_joined_message(update: Update, context: Context) -> None:
    """The ``new_chat_members`` service message: a seated player who rejoined gets the hand back."""
    message = update.effective_message
    if message is None:
        return
    for user in message.new_chat_members:
        if not user.is_bot:
            await welcome_back(context, user.id, rejoined=message.chat_id)


async def on_chat_member(update: Update, context: Context) -> None:
    """A ``chat_member`` update (bots that are administrators): left, or came back."""
    change = update.chat_member
    if change is None:
        return
    user = change.new_chat_member.user
    if user.is_bot:
        return
    was, now = _present(change, old=True), _present(change, old=False)
    if was and not now:
        await left_group(context, change.chat.id, user)
    elif now and not was:
        await welcome_back(context, user.id, rejoined=change.chat.id)


def _present(change: ChatMemberUpdated, *, old: bool) -> bool:
    member = change.old_chat_member if old else change.new_chat_member
    if member.status == ChatMember.RESTRICTED:
        return bool(getattr(member, "is_member", False))
    return member.status in _PRESENT
