"""A person's and a group's stored choices: /lang's language, and the on/off switches of
/fourcolor, /arrange and /autopass (issue 41: the general commands reach storage only here).

No Telegram here. A person the bot has not stored yet has every switch off.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from storage import Database, NotFound


class Switch(Enum):
    """An on/off choice a person turns the other way with its command."""

    FOUR_COLOR = "four_color"  # /fourcolor: four-colour suits in the hand pictures
    GROUP_HAND = "group_hand"  # /arrange (理牌): bombs and straight flushes set apart
    AUTO_PASS = "auto_pass"  # /autopass: pass by itself when nothing beats the table


@dataclass(frozen=True)
class Choices:
    """The stored choices of people and groups."""

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
