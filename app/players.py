"""Whether the bot may write to a player's private chat: the ``users`` row's ``reachable``.

A player who never pressed Start in the private chat, or who blocked the bot, cannot be sent a
hand; seating them first sends them to the private chat, and a 403 puts their seats in 托管.
The row is read and written here, so the Telegram side asks a question and gets a yes or no.
"""

from __future__ import annotations

from common.faults import StorageUnavailable
from storage import NotFound
from storage.repositories import UserRepository


class Reach:
    """The players the bot may message privately, as stored."""

    def __init__(self, users: UserRepository) -> None:
        self._users = users

    async def reachable(self, user_id: int) -> bool:
        """True if the player opened the private chat and has not blocked the bot since (a
        player never seen is not reachable)."""
        try:
            return (await self._users.get(user_id=user_id)).reachable
        except NotFound:
            return False

    async def known_unreachable(self, user_id: int) -> bool:
        """True if the store already says the player cannot be reached (a restart meeting the
        same 403 again); False for a player never seen or when the store cannot say."""
        try:
            return not (await self._users.get(user_id=user_id)).reachable
        except (NotFound, StorageUnavailable):
            return False

    async def mark(self, user_id: int, *, reachable: bool) -> None:
        """Store what Telegram said (``/start`` or an unblock: reachable; a 403: not);
        :class:`~common.faults.StorageUnavailable` when the store cannot take it now."""
        await self._users.set_reachable(user_id=user_id, reachable=reachable)
