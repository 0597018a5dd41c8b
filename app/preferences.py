"""Whose language a message is written in, and a player's display choices: read and stored in one place.

A private message (a hand, an alert, a timeout note) is in its reader's language as set with
``/lang`` in the private chat (the ``users`` row); a group message (the board, the lobby,
results) in the group's, set with ``/lang`` in the group (the ``chats`` row). Nothing set means
the default, Chinese. The lookups live here, beside the store they read, so a front end asks
for a language and never for a row (``handlers/platform/locales.py`` adds the Telegram chat).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple, Protocol

from app.i18n import normalize_locale
from storage import Database, NotFound
from storage.repositories import ChatRepository, UserRepository


class Preferences(NamedTuple):
    """A user's display choices."""

    locale: str
    four_color: bool = False
    group_hand: bool = False  # 理牌: bombs and straight flushes set apart in the hand picture


class Directory(Protocol):
    """Where the choices are read: the store's users and chats (a ``storage.Database``, which the
    services hold), named by what the lookups need."""

    @property
    def users(self) -> UserRepository: ...

    @property
    def chats(self) -> ChatRepository: ...


async def user_preferences(db: Directory, user_id: int | None) -> Preferences:
    """The user's language and suit colours (defaults for an unknown user or an AI seat)."""
    if user_id is None:
        return Preferences(normalize_locale(None))
    try:
        user = await db.users.get(user_id=user_id)
    except NotFound:
        return Preferences(normalize_locale(None))
    return Preferences(normalize_locale(user.locale), user.four_color, user.group_hand)


async def user_locale(db: Directory, user_id: int) -> str:
    """The language of the user's private chat with the bot."""
    return (await user_preferences(db, user_id)).locale


async def chat_locale(db: Directory, chat_id: int) -> str:
    """The language of a group's messages."""
    try:
        return normalize_locale((await db.chats.get(chat_id=chat_id)).locale)
    except NotFound:
        return normalize_locale(None)


class Languages:
    """The lookups bound to the store: what a front end asks (``services.languages``), never
    holding the store itself."""

    def __init__(self, db: Directory) -> None:
        self._db = db

    async def preferences(self, user_id: int | None) -> Preferences:
        """The user's language and display choices (defaults for an unknown user or an AI seat)."""
        return await user_preferences(self._db, user_id)

    async def of_user(self, user_id: int) -> str:
        """The language of the user's private chat with the bot."""
        return await user_locale(self._db, user_id)

    async def of_chat(self, chat_id: int) -> str:
        """The language of a group's messages."""
        return await chat_locale(self._db, chat_id)


class Switch(Enum):
    """An on/off choice a person turns the other way with its command."""

    FOUR_COLOR = "four_color"  # /fourcolor: four-colour suits in the hand pictures
    GROUP_HAND = "group_hand"  # /arrange (理牌): bombs and straight flushes set apart
    AUTO_PASS = "auto_pass"  # /autopass: pass by itself when nothing beats the table


@dataclass(frozen=True)
class Choices:
    """The stored choices of people and groups: /lang's language, and the on/off switches of
    /fourcolor, /arrange and /autopass. A person the bot has not stored yet has every switch off."""

    db: Database

    async def is_on(self, user_id: int, switch: Switch) -> bool:
        """The person's stored choice; off for someone new."""
        try:
            user = await self.db.users.get(user_id=user_id)
        except NotFound:
            return False
        match switch:
            case Switch.FOUR_COLOR:
                return user.four_color
            case Switch.GROUP_HAND:
                return user.group_hand
            case Switch.AUTO_PASS:
                return user.auto_pass

    async def turn(self, user_id: int, switch: Switch) -> bool:
        """Turn the person's choice the other way; the choice now."""
        now = not await self.is_on(user_id, switch)
        users = self.db.users
        match switch:
            case Switch.FOUR_COLOR:
                await users.set_four_color(user_id=user_id, four_color=now)
            case Switch.GROUP_HAND:
                await users.set_group_hand(user_id=user_id, group_hand=now)
            case Switch.AUTO_PASS:
                await users.set_auto_pass(user_id=user_id, auto_pass=now)
        return now

    async def set_person_locale(self, user_id: int, locale: str) -> None:
        """The language of the person's private chat with the bot."""
        await self.db.users.set_locale(user_id=user_id, locale=locale)

    async def set_group_locale(self, chat_id: int, locale: str) -> None:
        """The language of a group's messages."""
        await self.db.chats.set_locale(chat_id=chat_id, locale=locale)
