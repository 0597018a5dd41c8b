"""Whose language a message is written in: the lookups are the application's
(:mod:`app.preferences`); here a Telegram chat says which one a command's answer takes.

A seat's player's choices are cached on the seat (``app/table/seat_choices.py``), so a hand
refresh does not read the database.
"""

from __future__ import annotations

from telegram import Chat

from app.preferences import Languages


async def reply_locale(languages: Languages, chat: Chat) -> str:
    """A command's answer: in the user's language in a private chat (whose id is the user's),
    in the group's in a group."""
    return await (languages.of_user(chat.id) if chat.type == Chat.PRIVATE else languages.of_chat(chat.id))
