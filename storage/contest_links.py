"""What ties contests to Telegram (migration 0006): reserved seats, contest tables, pairing
messages, the WeChat mirror's webhook and known @usernames.

Kept apart from :mod:`storage.contests`, which stores only the pure contest's facts: these
rows are the Telegram side's own bookkeeping. Every method is one statement (autocommit).
``ORDER BY rowid`` is the order rows were added: SQLite's own rowid, a column of that name in
PostgreSQL (storage/migrations/postgresql/0006_contest_links.sql).
"""

from __future__ import annotations

from dataclasses import dataclass

from storage.backend import Dialect
from storage.repositories import _now, _Repository


@dataclass(frozen=True, slots=True)
class ContestTable:
    """A bot table opened for a contest match (``/newgame match=CODE``)."""

    table_id: int
    contest_id: int
    code: str
    team0_pair: int  # the group number seated at 0 and 2 (engine team 0)


class ReservationRepository(_Repository):
    """Seats kept for named players: user → side (0: seats 0/2, 1: seats 1/3)."""

    async def reserve(self, *, table_id: int, sides: dict[int, int]) -> None:
        await self._conn.executemany(
            "INSERT INTO table_reservations (table_id, user_id, side) VALUES (?, ?, ?)",
            [(table_id, user_id, side) for user_id, side in sides.items()],
        )

    async def of_table(self, *, table_id: int) -> dict[int, int]:
        rows = await self._all("SELECT user_id, side FROM table_reservations WHERE table_id = ?", (table_id,))
        return {int(user_id): int(side) for user_id, side in rows}


class ContestLinkRepository(_Repository):
    """Contest tables, pairing messages, mirrors and usernames."""

    async def add_table(self, link: ContestTable) -> None:
        await self._insert(
            "INSERT INTO contest_tables (table_id, contest_id, code, team0_pair) VALUES (?, ?, ?, ?)",
            (link.table_id, link.contest_id, link.code, link.team0_pair),
            f"contest table {link.table_id}",
        )

    async def table(self, *, table_id: int) -> ContestTable | None:
        rows = await self._all(
            "SELECT table_id, contest_id, code, team0_pair FROM contest_tables WHERE table_id = ?",
            (table_id,),
        )
        return ContestTable(*rows[0]) if rows else None

    async def tables_of_code(self, *, code: str) -> list[tuple[ContestTable, str, int]]:
        """The tables opened for a match, with each table's status and group, oldest first."""
        rows = await self._all(
            "SELECT c.table_id, c.contest_id, c.code, c.team0_pair, t.status, t.chat_id"
            " FROM contest_tables c JOIN game_tables t ON t.id = c.table_id"
            " WHERE c.code = ? ORDER BY c.table_id",
            (code,),
        )
        return [(ContestTable(*row[:4]), str(row[4]), int(row[5])) for row in rows]

    async def add_message(
        self, *, chat_id: int, message_id: int, contest_id: int, round_: int | None
    ) -> None:
        await self._write(
            "INSERT INTO contest_messages (chat_id, message_id, contest_id, round) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (chat_id, message_id) DO UPDATE SET contest_id = excluded.contest_id,"
            " round = excluded.round",
            (chat_id, message_id, contest_id, round_),
            f"contest message {message_id}",
        )

    async def message(self, *, chat_id: int, message_id: int) -> tuple[int, int | None] | None:
        """(contest id, round) of a pairing message (round None: a contest card), or None."""
        rows = await self._all(
            "SELECT contest_id, round FROM contest_messages WHERE chat_id = ? AND message_id = ?",
            (chat_id, message_id),
        )
        return (int(rows[0][0]), rows[0][1]) if rows else None

    async def messages_of(self, *, contest_id: int, round_: int | None) -> list[tuple[int, int]]:
        """(chat id, message id) of a round's pairing messages, or (``round_`` None) of the
        contest's cards, oldest first."""
        same_round = "round IS ?" if self._conn.dialect is Dialect.SQLITE else "round IS NOT DISTINCT FROM ?"
        rows = await self._all(
            f"SELECT chat_id, message_id FROM contest_messages WHERE contest_id = ? AND {same_round}"
            " ORDER BY rowid",
            (contest_id, round_),
        )
        return [(int(chat_id), int(message_id)) for chat_id, message_id in rows]

    async def set_mirror(self, *, contest_id: int, url: str | None, set_by: int) -> None:
        if url is None:
            await self._write("DELETE FROM contest_mirrors WHERE contest_id = ?", (contest_id,), "mirror")
            return
        await self._write(
            "INSERT INTO contest_mirrors (contest_id, url, set_by, set_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (contest_id) DO UPDATE SET url = excluded.url, set_by = excluded.set_by,"
            " set_at = excluded.set_at",
            (contest_id, url, set_by, _now()),
            f"mirror of contest {contest_id}",
        )

    async def mirror(self, *, contest_id: int) -> str | None:
        rows = await self._all("SELECT url FROM contest_mirrors WHERE contest_id = ?", (contest_id,))
        return str(rows[0][0]) if rows else None

    async def remember_username(self, *, username: str, user_id: int, name: str) -> None:
        await self._write(
            "INSERT INTO known_usernames (username, user_id, name) VALUES (?, ?, ?)"
            " ON CONFLICT (username) DO UPDATE SET user_id = excluded.user_id, name = excluded.name",
            (username.lower().lstrip("@"), user_id, name),
            f"username {username}",
        )

    async def user_by_username(self, *, username: str) -> tuple[int, str] | None:
        rows = await self._all(
            "SELECT user_id, name FROM known_usernames WHERE username = ?", (username.lower().lstrip("@"),)
        )
        return (int(rows[0][0]), str(rows[0][1])) if rows else None
