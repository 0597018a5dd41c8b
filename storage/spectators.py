"""Who watches which table (观战, migration 0015) and the private message each one follows
(one a deal: the latest is stored).

Every method is one statement (autocommit), like the other repositories.
"""

from __future__ import annotations

from dataclasses import dataclass

from storage.repositories import _Repository


@dataclass(frozen=True, slots=True)
class SpectatorRecord:
    table_id: int
    user_id: int
    name: str
    message_id: int | None  # None until the first look was sent
    deal: int | None  # the deal that message shows


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
            "SELECT table_id, user_id, name, message_id, deal FROM spectators"
            " WHERE table_id = ? ORDER BY rowid",
            (table_id,),
        )
        return [
            SpectatorRecord(
                int(t), int(u), str(n), None if m is None else int(m), None if d is None else int(d)
            )
            for t, u, n, m, d in rows
        ]
