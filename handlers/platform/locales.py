"""Whose language a message is written in, looked up in one place.

A private message (a hand, an alert, a timeout note) is in its reader's language as
set with ``/lang`` in the private chat (the ``users`` row); a group message (the
board, the lobby, results) in the group's, set with ``/lang`` in the group (the
``chats`` row). Nothing set means the default, Chinese. A seat's player's choices are
cached on the seat (``/lang``, ``/fourcolor`` and ``/arrange`` clear the cache), so a hand refresh
does not read the database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from telegram import Chat

from app.i18n import normalize_locale
from storage import Database, NotFound

if TYPE_CHECKING:
    from app.table.seats import SeatState


class Preferences(NamedTuple):
    """A user's display choices."""

    locale: str
    four_color: bool = False
    group_hand: bool = False  # 理牌: bombs and straight flushes set apart in the hand picture


async def user_preferences(db: Database, user_id: int | None) -> Preferences:
    """The user's language and suit colours (defaults for an unknown user or an AI seat)."""
    if user_id is None:
        return Preferences(normalize_locale(None))
    try:
        user = await db.users.get(user_id=user_id)
    except NotFound:
        return Preferences(normalize_locale(None))
    return Preferences(normalize_locale(user.locale), user.four_color, user.group_hand)


async def user_locale(db: Database, user_id: int) -> str:
    """The language of the user's private chat with the bot."""
    return (await user_preferences(db, user_id)).locale


async def chat_locale(db: Database, chat_id: int) -> str:
    """The language of a group's messages."""
    try:
        return normalize_locale((await db.chats.get(chat_id=chat_id)).locale)
    except NotFound:
        return normalize_locale(None)


async def reply_locale(db: Database, chat: Chat) -> str:
    """A command's answer: in the user's language in a private chat (whose id is the user's),
    in the group's in a group."""
    return await (user_locale(db, chat.id) if chat.type == Chat.PRIVATE else chat_locale(db, chat.id))


async def seat_preferences(db: Database, state: SeatState) -> Preferences:
    """The seated player's choices, read once per seat (``state.message.preferences`` is the cache)."""
    if state.message.preferences is None:
        state.message.preferences = await user_preferences(db, state.record.user_id)
    return Preferences(*state.message.preferences)


async def seat_locale(db: Database, state: SeatState) -> str:
    """The language of the seat's hand message, alerts and notes."""
    return (await seat_preferences(db, state)).locale
