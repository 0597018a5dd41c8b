"""Opening the database: WAL mode, foreign keys and numbered migrations.

Migrations are ``storage/migrations/NNNN_name.sql``; the applied number lives in
``PRAGMA user_version``, and each file runs in one transaction together with the
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

from storage.contest_links import ContestLinkRepository, ReservationRepository
from storage.contest_sheets import ContestSheetRepository
from storage.contests import ContestRepository
from storage.outbox import OutboxRepository
from storage.records import RecordRepository
from storage.repositories import ActionLog, ChatRepository, SeatRepository, TableRepository, UserRepository
from storage.spectators import SpectatorRepository

MIGRATIONS_DIR: Final = Path(__file__).with_name("migrations")
DEFAULT_PATH: Final = "guandan.db"
_MIGRATION_NAME: Final = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
BUSY_TIMEOUT: Final = 5.0
"""Seconds a write waits for another process's lock (sqlite3's default). A press waits that
long at most before it is answered "not saved, try again"."""
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
    """The database file: ``$GUANDAN_DB`` or ``./guandan.db``."""
    return os.environ.get("GUANDAN_DB") or DEFAULT_PATH


class Database:
    """One SQLite connection and the repositories that use it."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn
        self.tables = TableRepository(conn)
        self.seats = SeatRepository(conn)
        self.actions = ActionLog(conn)
        self.users = UserRepository(conn)
        self.chats = ChatRepository(conn)
        self.outbox = OutboxRepository(conn)
        self.contests = ContestRepository(conn)  # multi-row writes on its own connection
        self.reservations = ReservationRepository(conn)
        self.contest_links = ContestLinkRepository(conn)
        self.contest_sheets = ContestSheetRepository(conn)
        self.spectators = SpectatorRepository(conn)  # 观战 (migration 0015)
        self.records = RecordRepository(
            conn
        )  # match records (issue 21); multi-row writes on its own connection

    @classmethod
    async def open(
        cls, path: str | Path, *, migrations_dir: Path = MIGRATIONS_DIR, busy_timeout: float = BUSY_TIMEOUT
    ) -> Database:
        """Connect, switch to WAL and bring the schema up to the newest migration.

        ``busy_timeout``: seconds a statement waits for another process's lock before it
        fails as :class:`~storage.errors.StorageUnavailable` (tests shorten it).
        """
        conn = await aiosqlite.connect(str(path), isolation_level=None, timeout=busy_timeout)
        try:
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")
            await conn.execute("PRAGMA foreign_keys = ON")
            await _migrate(conn, migrations(migrations_dir))
        except BaseException:
            await conn.close()
            raise
        return cls(conn)

    async def schema_version(self) -> int:
        return await _user_version(self.conn)

    async def close(self) -> None:
        await self.contests.close()
        await self.records.close()
        await self.conn.close()


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


def _statements(script: str) -> list[str]:
    """Split a migration into statements (``executescript`` would commit on its own)."""
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return [part.strip() for part in "\n".join(lines).split(";") if part.strip()]
