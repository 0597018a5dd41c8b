"""SQLite, embedded and the default store: a file beside the bot, in WAL mode, and its
migration runner (``PRAGMA user_version`` holds the number applied)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import aiosqlite

from common import metrics
from storage.backend import Connection, Dialect, Row
from storage.errors import StorageConflict, StorageUnavailable
from storage.schema import Migration, migrations, statements

SQLITE_UNAVAILABLE: Final = frozenset(
    {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR}
    | {sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN}
)
"""Primary result codes that say the storage, not the statement, is at fault: read-only,
locked beyond the busy timeout, full, or failing. Anything else (a missing table, bad SQL)
is a bug and stays an ``OperationalError``."""
FOREIGN_KEYS_OFF: Final = "-- foreign_keys: off"
"""A migration holding this line rebuilds a parent table: it runs with foreign keys off
(dropping the old table would otherwise cascade-delete its children) and commits only if
``PRAGMA foreign_key_check`` then finds nothing broken."""


@contextmanager
def sqlite_errors() -> Iterator[None]:
    """SQLite's errors by cause (a failed statement changed nothing: in autocommit mode SQLite
    rolls it back). Every statement's time goes to the metrics."""
    started = time.perf_counter()
    unavailable = False
    try:
        yield
    except sqlite3.IntegrityError as error:
        raise StorageConflict(str(error)) from error
    except sqlite3.OperationalError as error:
        code = getattr(error, "sqlite_errorcode", None)
        if code is None or code & 0xFF not in SQLITE_UNAVAILABLE:
            raise
        unavailable = True
        raise StorageUnavailable(str(error)) from error
    finally:
        metrics.store_answered(started, unavailable)


class SqliteConnection(Connection):
    """An aiosqlite connection in autocommit mode with foreign keys on."""

    dialect = Dialect.SQLITE

    def __init__(self, raw: aiosqlite.Connection) -> None:
        self.raw = raw

    @classmethod
    async def connect(cls, path: str | Path, *, busy_timeout: float) -> SqliteConnection:
        raw = await aiosqlite.connect(str(path), isolation_level=None, timeout=busy_timeout)
        try:
            await raw.execute("PRAGMA synchronous = NORMAL")
            await raw.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            await raw.close()
            raise
        return cls(raw)

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        with sqlite_errors():
            async with self.raw.execute(sql, tuple(params)) as cursor:
                row = await cursor.fetchone()
        return tuple(row) if row is not None else None

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with sqlite_errors():
            async with self.raw.execute(sql, tuple(params)) as cursor:
                return [tuple(row) for row in await cursor.fetchall()]

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        with sqlite_errors():
            cursor = await self.raw.execute(sql, tuple(params))
        await cursor.close()
        return cursor.rowcount

    async def insert(self, sql: str, params: Sequence[Any]) -> None:
        """One trip to the database thread (``execute`` takes two: the statement, then closing
        its cursor); each trip waits for the event loop to hand over the GIL."""
        with sqlite_errors():
            await self.raw.execute_insert(sql, tuple(params))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with sqlite_errors():
            await self.raw.executemany(sql, [tuple(row) for row in rows])

    async def begin(self) -> None:
        """``IMMEDIATE``: take the write lock now, so the transaction never fails half-way
        because another connection wrote first."""
        await self.execute("BEGIN IMMEDIATE")

    async def open_another(self, *, busy_timeout: float) -> SqliteConnection:
        rows = await self.fetchall("PRAGMA database_list")
        path = next((str(row[2]) for row in rows if row[1] == "main"), "")
        if not path:
            raise RuntimeError("a second connection needs a database file, not :memory:")
        return await SqliteConnection.connect(path, busy_timeout=busy_timeout)

    async def migrate(self, directory: Path) -> None:
        """The file in WAL mode (readers never wait for the writer), then each migration not
        applied yet, in its own ``BEGIN IMMEDIATE`` transaction with the ``user_version`` bump.
        On the driver's own connection: a failing migration raises SQLite's error as it is."""
        await self.raw.execute("PRAGMA journal_mode = WAL")
        current = await self.schema_version()
        for migration in migrations(directory):
            if migration.number > current:
                await self._apply(migration)

    async def _apply(self, migration: Migration) -> None:
        script = migration.path.read_text(encoding="utf-8")
        rebuild = FOREIGN_KEYS_OFF in script.splitlines()
        if rebuild:  # outside the transaction: SQLite ignores this pragma inside one
            await self.raw.execute("PRAGMA foreign_keys = OFF")
        await self.raw.execute("BEGIN IMMEDIATE")
        try:
            for statement in statements(script):
                await self.raw.execute(statement)
            if rebuild:
                await self._check_foreign_keys(migration)
            await self.raw.execute(f"PRAGMA user_version = {migration.number:d}")
            await self.raw.execute("COMMIT")
        except BaseException:
            await self.raw.execute("ROLLBACK")
            raise
        finally:
            if rebuild:
                await self.raw.execute("PRAGMA foreign_keys = ON")

    async def _check_foreign_keys(self, migration: Migration) -> None:
        async with self.raw.execute("PRAGMA foreign_key_check") as cursor:
            broken = await cursor.fetchall()
        if broken:
            raise RuntimeError(f"{migration.path.name} leaves broken foreign keys: {list(broken)[:5]}")

    async def schema_version(self) -> int:
        async with self.raw.execute("PRAGMA user_version") as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def close(self) -> None:
        await self.raw.close()
