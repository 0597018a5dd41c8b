"""The two databases behind one small connection interface: SQLite, embedded and the default,
and PostgreSQL, the production store (``GUANDAN_DB=postgresql://…``, docs/postgresql.md).

Repositories write each statement once, with ``?`` placeholders, and run it through a
:class:`Connection`; the PostgreSQL one numbers the placeholders (``$1``, ``$2``…) once per
statement text. Where the dialects must differ, the repository keeps both texts side by side
and picks one by :attr:`Connection.dialect`.

Both connections behave alike, which is what the repositories rely on:

* autocommit: a statement outside :meth:`Connection.begin` is committed when its ``await``
  returns, so a write is stored before its result is shown;
* one statement at a time, in the order they were asked for (aiosqlite's thread queue; an
  :class:`asyncio.Lock` for asyncpg, whose connection refuses overlapping queries), so two
  handlers never interleave inside one statement or transaction;
* errors split by cause: a broken uniqueness, check or foreign-key rule is
  :class:`~storage.errors.StorageConflict`, a storage fault (locked, read-only, full, the
  server gone) :class:`~storage.errors.StorageUnavailable`; anything else is a bug and stays
  the driver's own error.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Final, TypeVar

import aiosqlite
import asyncpg

from common import metrics
from storage.errors import StorageConflict, StorageUnavailable

POSTGRESQL_SCHEMES: Final = ("postgresql://", "postgres://")
T = TypeVar("T")
Row = tuple[Any, ...]


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
    async def close(self) -> None: ...

    async def begin(self) -> None:
        await self.execute("BEGIN")

    async def commit(self) -> None:
        await self.execute("COMMIT")

    async def rollback(self) -> None:
        await self.execute("ROLLBACK")


# ---------------------------------------------------------------- SQLite

SQLITE_UNAVAILABLE: Final = frozenset(
    {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR}
    | {sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN}
)
"""Primary result codes that say the storage, not the statement, is at fault: read-only,
locked beyond the busy timeout, full, or failing. Anything else (a missing table, bad SQL)
is a bug and stays an ``OperationalError``."""


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

    async def close(self) -> None:
        await self.raw.close()


# ---------------------------------------------------------------- PostgreSQL

Guard = Callable[[asyncpg.Connection], Awaitable[None]]
"""Run on a new session before its first statement; raises :class:`StorageUnavailable` to
refuse it (the lease's fence: :mod:`storage.lease`)."""
Check = Callable[[], None]
"""Run before every statement, on this process's clock; raises :class:`StorageUnavailable` to
refuse it (the lease's validity: :mod:`storage.lease`)."""


@dataclass(frozen=True)
class Session:
    """What a bot's PostgreSQL sessions are called and what each must pass before it is used.

    ``name`` is the ``application_name`` (``pg_stat_activity`` shows it; the lease's fence
    terminates an old leader's sessions by it). ``guard`` runs on every connection and
    reconnection (it gives the session its lease epoch, which the database's fence trigger
    checks on every write), ``check`` before every statement: a process whose lease is lost
    or stale stops using the store at once, before the database would refuse it."""

    name: str = "guandan-bot"
    guard: Guard | None = None
    check: Check | None = None


ONE_BOT: Final = Session()
"""A bot alone on its store: no lease, nothing to guard."""


POSTGRESQL_UNAVAILABLE: Final = (
    asyncpg.PostgresConnectionError,  # class 08: the connection failed
    asyncpg.InsufficientResourcesError,  # class 53: disk full, out of memory, too many connections
    asyncpg.OperatorInterventionError,  # class 57: shut down, restarting, statement cancelled
    asyncpg.ReadOnlySQLTransactionError,  # 25006: a standby, or default_transaction_read_only
    asyncpg.LockNotAvailableError,  # 55P03: waited lock_timeout (SQLite's busy timeout)
    asyncpg.TransactionRollbackError,  # class 40: deadlock or serialization failure
    asyncpg.PostgresSystemError,  # class 58: an I/O error
    asyncpg.InternalClientError,  # the server ended the session while the connection was idle
    OSError,  # the server cannot be reached
    TimeoutError,
)
"""Errors that say the server, not the statement, is at fault: the same request may succeed
once it is back. Anything else (bad SQL, a missing table, a value of the wrong type) is a bug
and stays as it is."""

SESSION_LOST: Final = (
    asyncpg.PostgresConnectionError,
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    asyncpg.InternalClientError,
    OSError,
    TimeoutError,
)
"""Of those, the ones after which the connection cannot be used again: it is dropped, and the
next statement connects afresh. (A session the server ended while it sat idle shows as
either asyncpg's "connection does not exist" or, if the notice arrives just as a query is
being sent, as its internal "another operation is in progress", after which the connection
is stuck: tests/storage/test_postgresql.py met both.)"""


FENCED: Final = "GF001"
"""The SQLSTATE of the fence trigger's refusal (migration 0018): the session's lease epoch is
not the current one, or the lease expired. Not saved, and never will be from this process."""


@contextmanager
def postgresql_errors() -> Iterator[None]:
    """asyncpg's errors by cause (a failed statement in autocommit mode changed nothing)."""
    try:
        yield
    except asyncpg.IntegrityConstraintViolationError as error:  # class 23
        raise StorageConflict(str(error)) from error
    except POSTGRESQL_UNAVAILABLE as error:
        raise StorageUnavailable(f"{type(error).__name__}: {error}") from error
    except asyncpg.PostgresError as error:
        if getattr(error, "sqlstate", None) == FENCED:
            raise StorageUnavailable(f"fenced: {error}") from error
        raise


@lru_cache(maxsize=2048)
def numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1``, ``$2``… (a ``?`` inside quotes is text)."""
    parts: list[str] = []
    count = 0
    quoted = False
    for char in sql:
        if char == "'":
            quoted = not quoted
        if char == "?" and not quoted:
            count += 1
            parts.append(f"${count}")
        else:
            parts.append(char)
    return "".join(parts)


def _rowcount(status: str) -> int:
    """Rows changed, from a command tag such as ``UPDATE 2`` or ``INSERT 0 1``."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else -1


class PostgresConnection(Connection):
    """An asyncpg connection used one statement at a time, reconnected after the server went away.

    A lost connection fails the statement under way as :class:`StorageUnavailable`; the next
    statement connects again, unless it belongs to a transaction the loss has undone (that
    one fails too until it is rolled back).
    """

    dialect = Dialect.POSTGRESQL

    def __init__(
        self, raw: asyncpg.Connection, dsn: str, busy_timeout: float, session: Session = ONE_BOT
    ) -> None:
        self.raw = raw
        self.dsn = dsn
        self.session = session
        self._busy_timeout = busy_timeout
        self._lock = asyncio.Lock()
        self._in_transaction = False

    @classmethod
    async def connect(
        cls, dsn: str, *, busy_timeout: float, session: Session = ONE_BOT
    ) -> PostgresConnection:
        return cls(await _connect(dsn, busy_timeout, session), dsn, busy_timeout, session)

    async def _run(self, call: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
        """One statement; its time, waiting for the connection included, goes to the metrics."""
        started = time.perf_counter()
        unavailable = False
        try:
            return await self._run_now(call)
        except StorageUnavailable:
            unavailable = True
            raise
        finally:
            metrics.store_answered(started, unavailable)

    async def _run_now(self, call: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
        async with self._lock:
            if self.session.check is not None:
                self.session.check()
            with postgresql_errors():
                if self.raw.is_closed():
                    if self._in_transaction:
                        raise StorageUnavailable("the connection was lost inside a transaction")
                    self.raw = await _connect(self.dsn, self._busy_timeout, self.session)
                try:
                    return await call(self.raw)
                except SESSION_LOST:
                    self.raw.terminate()
                    raise

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        row = await self._run(lambda raw: raw.fetchrow(numbered(sql), *params))
        return tuple(row) if row is not None else None

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        rows = await self._run(lambda raw: raw.fetch(numbered(sql), *params))
        return [tuple(row) for row in rows]

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        status = await self._run(lambda raw: raw.execute(numbered(sql), *params))
        return _rowcount(status)

    async def insert(self, sql: str, params: Sequence[Any]) -> None:
        await self.execute(sql, params)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        batch = [tuple(row) for row in rows]
        if batch:
            await self._run(lambda raw: raw.executemany(numbered(sql), batch))

    async def copy_records(self, table: str, columns: Sequence[str], records: Sequence[Row]) -> None:
        """Rows into ``table`` by ``COPY`` (``python -m storage copy``: far quicker than INSERTs)."""
        await self._run(lambda raw: raw.copy_records_to_table(table, records=records, columns=list(columns)))

    async def begin(self) -> None:
        await self.execute("BEGIN")
        self._in_transaction = True

    async def commit(self) -> None:
        """A failed COMMIT ends the transaction too (the server rolled it back)."""
        try:
            await self.execute("COMMIT")
        finally:
            self._in_transaction = False

    async def rollback(self) -> None:
        """Undo the transaction; on a lost connection the server has already undone it."""
        try:
            if not self.raw.is_closed():
                await self.execute("ROLLBACK")
        finally:
            self._in_transaction = False

    async def open_another(self, *, busy_timeout: float) -> PostgresConnection:
        return await PostgresConnection.connect(self.dsn, busy_timeout=busy_timeout, session=self.session)

    async def close(self) -> None:
        async with self._lock:
            await self.raw.close()


async def _connect(dsn: str, busy_timeout: float, session: Session) -> asyncpg.Connection:
    """``lock_timeout`` plays SQLite's busy timeout: a write waits that long for another
    connection's lock, then fails as :class:`StorageUnavailable`. The session's guard runs
    before the connection is handed out."""
    with postgresql_errors():
        raw = await asyncpg.connect(
            dsn,
            timeout=10,
            server_settings={
                "lock_timeout": str(max(1, round(busy_timeout * 1000))),
                "application_name": session.name,
            },
        )
    if session.guard is not None:
        try:
            with postgresql_errors():
                await session.guard(raw)
        except BaseException:
            await raw.close()
            raise
    return raw
