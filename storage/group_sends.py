"""The messages this bot sent into each group in the last minute (migration 0019), so that a
restarted bot, or a standby taking over, spends what is left of each group's minute instead of
starting it empty (Telegram counts the minute, whichever process sent; issue 40).

Each method is one statement (autocommit). :meth:`GroupSendRepository.record` writes any number
of sends in one INSERT: one commit for all the groups' messages that left together.
"""

from __future__ import annotations

from collections.abc import Sequence

from storage.repositories import _Repository

KEPT = 300.0
"""Seconds a send is kept: the last minute is read back, a few more are harmless."""


class GroupSendRepository(_Repository):
    async def record(self, *, sends: Sequence[tuple[int, float]]) -> None:
        """Store ``(chat_id, sent_at)`` pairs (sent_at in seconds since the epoch)."""
        if not sends:
            return
        values = ", ".join("(?, ?, ?)" for _ in sends)
        params = tuple(value for chat_id, at in sends for value in (self._bot_id, chat_id, at))
        insert = f"INSERT INTO group_sends (bot_id, chat_id, sent_at) VALUES {values}"
        await self._write(insert, params, "group sends")

    async def forget(self, *, now: float) -> None:
        """Drop this bot's sends older than :data:`KEPT` (indexed by time)."""
        old = "DELETE FROM group_sends WHERE bot_id = ? AND sent_at < ?"
        await self._write(old, (self._bot_id, now - KEPT), "old group sends")

    async def since(self, *, since: float) -> list[tuple[int, float]]:
        """This bot's sends at or after ``since`` (seconds since the epoch), oldest first."""
        rows = await self._all(
            "SELECT chat_id, sent_at FROM group_sends WHERE bot_id = ? AND sent_at >= ? ORDER BY sent_at",
            (self._bot_id, since),
        )
        return [(int(chat_id), float(at)) for chat_id, at in rows]
