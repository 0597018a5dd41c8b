"""PostgreSQL, the production store (``GUANDAN_DB=postgresql://…``, docs/postgresql.md): an
asyncpg connection behind the :class:`~storage.backend.Connection` interface, the sessions a
bot's lease guards, and the migration runner (the ``schema_migrations`` table holds the
numbers applied). asyncpg ships no type information; this module and :mod:`storage.lease` are
the ones that call it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Final, TypeVar

import asyncpg

from common import metrics
from storage.backend import Connection, Dialect, Row
from storage.errors import StorageConflict, StorageUnavailable
from storage.schema import POSTGRESQL_MIGRATIONS, Migration, migrations, statements

T = TypeVar("T")
MIGRATION_LOCK: Final = 0x6775616E  # "guan": the advisory lock two starting bots migrate under

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

    async def migrate(self, directory: Path) -> None:
        """Each migration in its own transaction with its row in ``schema_migrations``; DDL is
        transactional in PostgreSQL, so a failure leaves the previous schema. Two bots starting
        at once take turns on an advisory lock, and the second finds the work done."""
        await self.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
            " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        for migration in migrations(directory / POSTGRESQL_MIGRATIONS):
            async with self.transaction():
                await self.execute(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK:d})")
                if migration.number > await self.schema_version():
                    await self._apply(migration)

    async def _apply(self, migration: Migration) -> None:
        for statement in statements(migration.path.read_text(encoding="utf-8")):
            await self.execute(statement)
        row = (migration.number, migration.path.name)
        await self.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", row)

    async def schema_version(self) -> int:
        row = await self.fetchone("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
        return int(row[0]) if row else 0

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
