"""Opening the database (SQLite, or PostgreSQL for a ``postgresql://`` URL), bringing its
schema up to the newest numbered migration (each backend runs its dialect's:
:meth:`Connection.migrate <storage.backend.Connection.migrate>`, from :mod:`storage.schema`),
and the repositories that use it.

The connection runs in autocommit mode and every repository method is a single
statement, so a write is committed when its ``await`` returns and two handlers
can never interleave inside one transaction. Contests and match records write many rows at
once; they do it through the database's one :class:`~storage.backend.Writer`, a second
connection of its own.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import aiosqlite

from storage.backend import Connection, Writer, is_postgresql
from storage.contest_links import ContestLinkRepository, ReservationRepository
from storage.contest_sheets import ContestSheetRepository
from storage.contests import ContestRepository
from storage.group_sends import GroupSendRepository
from storage.outbox import OutboxRepository
from storage.postgresql import ONE_BOT, PostgresConnection, Session
from storage.records import RecordRepository
from storage.repositories import (
    ActionLog,
    ChatRepository,
    SeatRepository,
    TableRepository,
    UserRepository,
)
from storage.schema import MIGRATIONS_DIR
from storage.spectators import SpectatorRepository
from storage.sqlite import SqliteConnection

DEFAULT_PATH: Final = "guandan.db"
BUSY_TIMEOUT: Final = 5.0
"""Seconds a write waits for another process's lock (sqlite3's default). A press waits that
long at most before it is answered "not saved, try again"."""
PING: Final = "UPDATE game_tables SET status = status WHERE id = -1"
"""Matches no row (ids start at 1), yet takes the write lock: see :meth:`Database.ping`."""


def default_path() -> str:
    """The database: ``$GUANDAN_DB`` (a file, or a ``postgresql://`` URL) or ``./guandan.db``."""
    return os.environ.get("GUANDAN_DB") or DEFAULT_PATH


class Database:
    """One connection (SQLite or PostgreSQL) and the repositories that use it."""

    def __init__(self, conn: Connection, *, bot_id: int = 0) -> None:
        self.conn = conn
        self.bot_id = bot_id
        self.tables = TableRepository(conn, bot_id=bot_id)
        self.seats = SeatRepository(conn)
        self.actions = ActionLog(conn)
        self.users = UserRepository(conn)
        self.chats = ChatRepository(conn)
        self.outbox = OutboxRepository(conn, bot_id=bot_id)
        self.writer = Writer(conn)  # the transactions of several statements, one at a time
        self.contests = ContestRepository(conn, self.writer, bot_id=bot_id)
        self.reservations = ReservationRepository(conn)
        self.contest_links = ContestLinkRepository(conn)
        self.contest_sheets = ContestSheetRepository(conn)
        self.spectators = SpectatorRepository(conn)  # 观战 (migration 0017)
        self.group_sends = GroupSendRepository(conn, bot_id=bot_id)  # each group's minute (0019)
        self.records = RecordRepository(conn, self.writer, bot_id=bot_id)  # match records (issue 21)

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        migrations_dir: Path = MIGRATIONS_DIR,
        busy_timeout: float = BUSY_TIMEOUT,
        bot_id: int = 0,
        session: Session = ONE_BOT,
    ) -> Database:
        """Connect and bring the schema up to the newest migration. ``path``: an SQLite file
        (switched to WAL), or a ``postgresql://`` URL.

        ``busy_timeout``: seconds a statement waits for another connection's lock before it
        fails as :class:`~storage.errors.StorageUnavailable` (tests shorten it). ``bot_id``:
        the bot whose tables, contests and outbox rows are read and written (the token's
        digits before its colon); rows from before migration 0015 are adopted by it.
        ``session``: the PostgreSQL sessions' name and guard (the lease, bot.py).
        """
        conn: Connection
        if is_postgresql(path):
            conn = await PostgresConnection.connect(str(path), busy_timeout=busy_timeout, session=session)
        else:
            conn = await SqliteConnection.connect(path, busy_timeout=busy_timeout)
        try:
            await conn.migrate(migrations_dir)
            await _adopt(conn, bot_id)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, bot_id=bot_id)

    @property
    def sqlite(self) -> aiosqlite.Connection:
        """The SQLite connection itself, for what only SQLite has (PRAGMAs: the tests' storage
        faults, the load bench's timing)."""
        if not isinstance(self.conn, SqliteConnection):
            raise TypeError("not an SQLite database")
        return self.conn.raw

    async def schema_version(self) -> int:
        return await self.conn.schema_version()

    async def ping(self) -> None:
        """Raise :class:`~storage.errors.StorageUnavailable` unless the store takes writes now
        (the health check). A write that changes nothing: it still needs the write lock, so a
        read-only, locked or failing database refuses it as it would a press's write."""
        await self.conn.execute(PING)

    async def close(self) -> None:
        await self.writer.close()
        await self.conn.close()


OWNED_BY_A_BOT: Final = ("game_tables", "contests", "outbox")
"""The tables whose rows belong to one bot (migration 0015)."""


async def _adopt(conn: Connection, bot_id: int) -> None:
    """Rows stored before the store knew bots (``bot_id`` 0) become ``bot_id``'s: an upgraded
    store's one bot keeps its tables, contests and undelivered messages. With several bots,
    the first to start after the upgrade takes them (docs/postgresql.md)."""
    if bot_id:
        for table in OWNED_BY_A_BOT:
            await conn.execute(f"UPDATE {table} SET bot_id = ? WHERE bot_id = 0", (bot_id,))
