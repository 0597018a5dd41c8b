"""The two databases behind one small connection interface: SQLite, embedded and the default
(:mod:`storage.sqlite`), and PostgreSQL, the production store (``GUANDAN_DB=postgresql://…``,
:mod:`storage.postgresql`, docs/postgresql.md).

Repositories write each statement once, with ``?`` placeholders, and run it through a
:class:`Connection`; the PostgreSQL one numbers the placeholders (``$1``, ``$2``…) once per
statement text. Where the dialects must differ, the repository keeps both texts side by side
and picks one by :attr:`Connection.dialect`.

Both connections behave alike, which is what the repositories rely on:

* autocommit: a statement outside :meth:`Connection.transaction` is committed when its
  ``await`` returns, so a write is stored before its result is shown;
* one statement at a time, in the order they were asked for (aiosqlite's thread queue; an
  :class:`asyncio.Lock` for asyncpg, whose connection refuses overlapping queries), so two
  handlers never interleave inside one statement or transaction;
* errors split by cause: a broken uniqueness, check or foreign-key rule is
  :class:`~storage.errors.StorageConflict`, a storage fault (locked, read-only, full, the
  server gone) :class:`~storage.errors.StorageUnavailable`; anything else is a bug and stays
  the driver's own error;
* each brings its own schema up to date (:meth:`Connection.migrate`) from the one migration
  history of :mod:`storage.schema`.

A write of several rows that must land together goes through a :class:`Writer`: its own
connection, its own lock, one transaction (contests, match records).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from enum import Enum
from pathlib import Path
from typing import Any, ClassVar, Final

POSTGRESQL_SCHEMES: Final = ("postgresql://", "postgres://")
Row = tuple[Any, ...]
WRITER_BUSY_TIMEOUT: Final = 5.0
"""Seconds a :class:`Writer`'s transaction waits for another connection's lock, as the shared
connection's (storage/database.py); a transaction is a few milliseconds."""


class Dialect(Enum):
    SQLITE = "sqlite"
    POSTGRESQL = "postgresql"


def is_postgresql(target: str | Path) -> bool:
    """A ``postgresql://`` (or ``postgres://``) URL; anything else is an SQLite file."""
    return str(target).startswith(POSTGRESQL_SCHEMES)


class Connection(ABC):
    """One database connection as the repositories use it."""

    dialect: ClassVar[Dialect]

    @abstractmethod
    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...

    @abstractmethod
    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    @abstractmethod
    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; return how many rows it changed."""

    @abstractmethod
    async def insert(self, sql: str, params: Sequence[Any]) -> None:
        """Run one INSERT the quickest way (the action log's write, on every press's path)."""

    @abstractmethod
    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    @abstractmethod
    async def open_another(self, *, busy_timeout: float) -> Connection:
        """A second connection to the same database, for transactions nobody else may join."""

    @abstractmethod
    async def migrate(self, directory: Path) -> None:
        """Bring the schema up to the newest of this dialect's migrations in ``directory``
        (the SQLite files, with PostgreSQL's in its ``postgresql/`` folder)."""

    @abstractmethod
    async def schema_version(self) -> int:
        """The number of the last migration applied."""

    @abstractmethod
    async def close(self) -> None: ...

    async def begin(self) -> None:
        await self.execute("BEGIN")

    async def commit(self) -> None:
        await self.execute("COMMIT")

    async def rollback(self) -> None:
        await self.execute("ROLLBACK")

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """``BEGIN`` … ``COMMIT`` on this connection; any error rolls back, and goes on.

        Only on a connection nobody else writes through at the same time (a :class:`Writer`'s,
        a migration's, a copy's): on the shared one, another handler's statement would be
        pulled into the transaction, and undone with it."""
        await self.begin()
        try:
            yield
        except BaseException:
            await self.rollback()
            raise
        await self.commit()


class Writer:
    """A connection of its own for transactions of several statements, and the lock that
    lets one of them run at a time.

    Why not the shared connection: it runs in autocommit mode and other handlers'
    single-statement writes go through it at any moment. A ``BEGIN`` on it would silently pull
    their writes into our transaction (and our ``ROLLBACK`` would undo them), and guarding it
    would mean every repository taking a lock. The writer's connection cannot be joined by
    anyone: the database's own lock serialises it against the shared connection (SQLite in
    WAL: readers are never blocked, a competing single-statement write waits in the busy
    handler; PostgreSQL locks only the rows written), and :attr:`lock` serialises the writer's
    transactions among themselves. It is opened on first use, as another connection to the
    shared one's database (on PostgreSQL with the same session: its lease epoch, which the
    fence trigger checks on every write).
    """

    def __init__(self, shared: Connection) -> None:
        self._shared = shared
        self._conn: Connection | None = None
        self.lock = asyncio.Lock()
        """Held by each transaction; a repository that reads a value in several statements
        holds it too, so it never reads half before and half after a write."""

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[Connection]:
        """A transaction on the writer's connection (SQLite: ``BEGIN IMMEDIATE``); any error
        rolls back.

        Inside it, use only the connection it yields: a statement on the shared connection
        would queue behind another handler's write that is itself waiting for our lock (a
        deadlock until the busy timeout). Never await the network inside it either."""
        async with self.lock:
            if self._conn is None:
                self._conn = await self._shared.open_another(busy_timeout=WRITER_BUSY_TIMEOUT)
            conn = self._conn
            async with conn.transaction():
                yield conn

    async def close(self) -> None:
        async with self.lock:
            if self._conn is not None:
                await self._conn.close()
                self._conn = None
