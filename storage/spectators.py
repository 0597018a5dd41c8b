"""Who watches which table (观战, migration 0017) and the private message each one follows
(one a deal: the latest is stored).

Every method is one statement (autocommit), like the other repositories, written so that it
runs on PostgreSQL as well: ``?`` placeholders, ``ON CONFLICT … excluded``, and ``ORDER BY
rowid`` (the order spectators came: SQLite's own rowid, an identity column of that name in
storage/migrations/postgresql/0017_spectators.sql).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from storage.repositories import _Repository


@dataclass(frozen=True, slots=True)
class SpectatorRecord:
    table_id: int
    user_id: int
    name: str
    message_id: int | None  # None until the first look was sent
    deal: int | None  # the deal that message shows
    seat: int | None = None  # whose hand they follow a trick behind (watch_hand=on)


class SpectatorRepository(_Repository):
    async def watch(self, *, table_id: int, user_id: int, name: str) -> None:
        """Start watching (again): a watcher already there keeps the message."""
        await self._write(
            "INSERT INTO spectators (table_id, user_id, name) VALUES (?, ?, ?)"
            " ON CONFLICT (table_id, user_id) DO UPDATE SET name = excluded.name",
            (table_id, user_id, name),
            f"spectator {user_id} of table {table_id}",
        )

    async def set_message(self, *, table_id: int, user_id: int, message_id: int, deal: int) -> None:
        await self._write(
            "UPDATE spectators SET message_id = ?, deal = ? WHERE table_id = ? AND user_id = ?",
            (message_id, deal, table_id, user_id),
            f"spectator {user_id} of table {table_id}",
        )

    async def follow(self, *, table_id: int, user_id: int, seat: int | None) -> None:
        """The seat whose hand the spectator follows a trick behind (None: none)."""
        await self._write(
            "UPDATE spectators SET seat = ? WHERE table_id = ? AND user_id = ?",
            (seat, table_id, user_id),
            f"spectator {user_id} of table {table_id}",
        )

    async def leave(self, *, table_id: int, user_id: int) -> None:
        await self._write(
            "DELETE FROM spectators WHERE table_id = ? AND user_id = ?",
            (table_id, user_id),
            f"spectator {user_id} of table {table_id}",
        )

    async def end(self, *, table_id: int) -> None:
        """The match is over (or stopped): nobody watches it any more."""
        await self._write("DELETE FROM spectators WHERE table_id = ?", (table_id,), f"table {table_id}")

    async def of_table(self, *, table_id: int) -> list[SpectatorRecord]:
        rows = await self._all(
            "SELECT table_id, user_id, name, message_id, deal, seat FROM spectators"
            " WHERE table_id = ? ORDER BY rowid",
            (table_id,),
        )
        return [
            SpectatorRecord(int(t), int(u), str(n), _number(m), _number(d), _number(s))
            for t, u, n, m, d, s in rows
        ]


def _number(value: Any) -> int | None:
    return None if value is None else int(value)
