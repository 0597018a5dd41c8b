"""Opening the database (SQLite, or PostgreSQL for a ``postgresql://`` URL) and bringing its
schema up to the newest numbered migration.

Migrations are ``storage/migrations/NNNN_name.sql`` for SQLite and
``storage/migrations/postgresql/NNNN_name.sql`` for PostgreSQL: one history, the same numbers,
each file the same change in its dialect (tests/storage/test_schemas.py compares the two
schemas). The applied number lives in the database: ``PRAGMA user_version`` in SQLite, the
``schema_migrations`` table in PostgreSQL. Each file runs in one transaction together with the
version bump, so a crash leaves either the old or the new schema.

The connection runs in autocommit mode and every repository method is a single
statement, so a write is committed when its ``await`` returns and two handlers
can never interleave inside one transaction. Contests write many rows at once;
they do it on a second connection of their own (see :mod:`storage.contests`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import aiosqlite

from storage.backend import ONE_BOT, Connection, PostgresConnection, Session, SqliteConnection, is_postgresql
from storage.contest_links import ContestLinkRepository, ReservationRepository
from storage.contest_sheets import ContestSheetRepository
from storage.contests import ContestRepository
from storage.outbox import OutboxRepository
from storage.records import RecordRepository
from storage.repositories import (
    ActionLog,
    ChatRepository,
    SeatRepository,
    TableRepository,
    UserRepository,
)
from storage.spectators import SpectatorRepository

MIGRATIONS_DIR: Final = Path(__file__).with_name("migrations")
POSTGRESQL_MIGRATIONS: Final = "postgresql"
"""The folder, inside a migrations folder, of the same migrations in PostgreSQL's dialect."""
MIGRATION_LOCK: Final = 0x6775616E  # "guan": the advisory lock two starting bots migrate under
DEFAULT_PATH: Final = "guandan.db"
_MIGRATION_NAME: Final = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
BUSY_TIMEOUT: Final = 5.0
"""Seconds a write waits for another process's lock (sqlite3's default). A press waits that
long at most before it is answered "not saved, try again"."""
PING: Final = "UPDATE game_tables SET status = status WHERE id = -1"
"""Matches no row (ids start at 1), yet takes the write lock: see :meth:`Database.ping`."""
FOREIGN_KEYS_OFF: Final = "-- foreign_keys: off"
"""A migration holding this line rebuilds a parent table: it runs with foreign keys off
(dropping the old table would otherwise cascade-delete its children) and commits only if
``PRAGMA foreign_key_check`` then finds nothing broken."""


@dataclass(frozen=True, slots=True, order=True)
class Migration:
    number: int
    path: Path


def migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """The migration files in order; numbers must run 1, 2, 3… without gaps."""
    found = sorted(
        Migration(int(match.group(1)), path)
        for path in directory.iterdir()
        if (match := _MIGRATION_NAME.match(path.name))
    )
    for expected, migration in enumerate(found, start=1):
        if migration.number != expected:
            raise RuntimeError(f"migration {expected:04d} is missing (found {migration.path.name})")
    return found


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
        self.contests = ContestRepository(conn, bot_id=bot_id)  # multi-row writes on its own connection
        self.reservations = ReservationRepository(conn)
        self.contest_links = ContestLinkRepository(conn)
        self.contest_sheets = ContestSheetRepository(conn)
        self.spectators = SpectatorRepository(conn)  # 观战 (migration 0017)
        # match records (issue 21); multi-row writes on its own connection
        self.records = RecordRepository(conn, bot_id=bot_id)

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
            conn = postgres = await PostgresConnection.connect(
                str(path), busy_timeout=busy_timeout, session=session
            )
            try:
                await _migrate_postgresql(postgres, migrations(migrations_dir / POSTGRESQL_MIGRATIONS))
                await _adopt(postgres, bot_id)
            except BaseException:
                await postgres.close()
                raise
            return cls(conn, bot_id=bot_id)
        sqlite = await SqliteConnection.connect(path, busy_timeout=busy_timeout)
        try:
            await sqlite.raw.execute("PRAGMA journal_mode = WAL")
            await _migrate(sqlite.raw, migrations(migrations_dir))
            await _adopt(sqlite, bot_id)
        except BaseException:
            await sqlite.close()
            raise
        return cls(sqlite, bot_id=bot_id)

    @property
    def sqlite(self) -> aiosqlite.Connection:
        """The SQLite connection itself, for what only SQLite has (PRAGMAs: the tests' storage
        faults, the load bench's timing)."""
        if not isinstance(self.conn, SqliteConnection):
            raise TypeError("not an SQLite database")
        return self.conn.raw

    async def schema_version(self) -> int:
        if isinstance(self.conn, SqliteConnection):
            return await _user_version(self.conn.raw)
        return await _postgresql_version(self.conn)

    async def ping(self) -> None:
        """Raise :class:`~storage.errors.StorageUnavailable` unless the store takes writes now
        (the health check). A write that changes nothing: it still needs the write lock, so a
        read-only, locked or failing database refuses it as it would a press's write."""
        await self.conn.execute(PING)

    async def close(self) -> None:
        await self.contests.close()
        await self.records.close()
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


async def _user_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def _migrate(conn: aiosqlite.Connection, pending: list[Migration]) -> None:
    current = await _user_version(conn)
    for migration in pending:
        if migration.number <= current:
            continue
        script = migration.path.read_text(encoding="utf-8")
        rebuild = FOREIGN_KEYS_OFF in script.splitlines()
        if rebuild:  # outside the transaction: SQLite ignores this pragma inside one
            await conn.execute("PRAGMA foreign_keys = OFF")
        await conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(script):
                await conn.execute(statement)
            if rebuild:
                await _check_foreign_keys(conn, migration)
            await conn.execute(f"PRAGMA user_version = {migration.number:d}")
            await conn.execute("COMMIT")
        except BaseException:
            await conn.execute("ROLLBACK")
            raise
        finally:
            if rebuild:
                await conn.execute("PRAGMA foreign_keys = ON")


async def _check_foreign_keys(conn: aiosqlite.Connection, migration: Migration) -> None:
    async with conn.execute("PRAGMA foreign_key_check") as cursor:
        broken = await cursor.fetchall()
    if broken:
        raise RuntimeError(f"{migration.path.name} leaves broken foreign keys: {list(broken)[:5]}")


async def _postgresql_version(conn: Connection) -> int:
    row = await conn.fetchone("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
    return int(row[0]) if row else 0


async def _migrate_postgresql(conn: PostgresConnection, pending: list[Migration]) -> None:
    """Each migration in its own transaction with its row in ``schema_migrations``; DDL is
    transactional in PostgreSQL, so a failure leaves the previous schema. Two bots starting
    at once take turns on an advisory lock, and the second finds the work done."""
    await conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
    )
    for migration in pending:
        await conn.begin()
        try:
            await conn.execute(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK:d})")
            if migration.number > await _postgresql_version(conn):
                for statement in _statements(migration.path.read_text(encoding="utf-8")):
                    await conn.execute(statement)
                await conn.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (?, ?)",
                    (migration.number, migration.path.name),
                )
        except BaseException:
            await conn.rollback()
            raise
        await conn.commit()


def _statements(script: str) -> list[str]:
    """Split a migration into statements (``executescript`` would commit on its own). A
    ``;`` inside a dollar-quoted body (``$$ … $$``: a PostgreSQL function) does not end one."""
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    statements, current = [], ""
    for index, part in enumerate(_DOLLAR_QUOTE.split("\n".join(lines))):
        if index % 2:  # a quoted body, with its $$ kept
            current += part
            continue
        first, *rest = part.split(";")
        current += first
        for piece in rest:
            statements.append(current)
            current = piece
    statements.append(current)
    return [statement.strip() for statement in statements if statement.strip()]


_DOLLAR_QUOTE: Final = re.compile(r"(\$\$.*?\$\$)", re.DOTALL)
