"""``python -m storage copy SRC DST``: an SQLite database moved into PostgreSQL, every row
counted.

Both are first brought up to the newest migration (the same numbers in both dialects), so
their tables and columns match (tests/storage/test_schemas.py). DST must be empty: the copy
never merges. Rows are read from one snapshot of SRC (a read transaction: a bot still
writing to it cannot tear the copy, though what it writes afterwards is not copied — stop
it first) and written in one PostgreSQL transaction, parents before children, with
``COPY``; each table's count is checked against SRC's before the commit, so DST ends with
all of it or nothing. Then every identity sequence is moved past the highest id SRC ever
handed out (SQLite's ``sqlite_sequence``), so the bot on DST goes on numbering tables,
contests and outbox rows where it left off and never reuses an id.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import aiosqlite
import asyncpg

from storage.backend import is_postgresql
from storage.database import Database
from storage.postgresql import PostgresConnection
from storage.sqlite import SqliteConnection

BATCH: Final = 5000  # rows read from SQLite and sent to PostgreSQL at a time


@dataclass(frozen=True, slots=True)
class Copied:
    table: str
    rows: int


async def copy(source: str | Path, destination: str, *, report: Callable[[Copied], None]) -> list[Copied]:
    """Copy every row of the SQLite file ``source`` into the empty PostgreSQL ``destination``;
    ``report`` hears of each table once its rows are in."""
    if is_postgresql(source) or not Path(source).is_file():
        raise ValueError(f"{source}: not an SQLite database file")
    if not is_postgresql(destination):
        raise ValueError(f"{destination}: not a postgresql:// URL")
    src, dst = await Database.open(source), await Database.open(destination)
    try:
        assert isinstance(src.conn, SqliteConnection) and isinstance(dst.conn, PostgresConnection)
        return await _copy(src.conn.raw, dst.conn, report)
    finally:
        await src.close()
        await dst.close()


async def _copy(
    src: aiosqlite.Connection, dst: PostgresConnection, report: Callable[[Copied], None]
) -> list[Copied]:
    tables = await _parents_first(src)
    await _refuse_rows(dst, tables)
    copied = []
    await src.execute("BEGIN")  # one snapshot of every table
    try:
        async with dst.transaction():
            for table in tables:
                done = Copied(table, await _copy_table(src, dst, table))
                copied.append(done)
                report(done)
            await _resume_identities(src, dst, tables)
    finally:
        await src.execute("ROLLBACK")
    return copied


async def _parents_first(src: aiosqlite.Connection) -> list[str]:
    """SQLite's tables, each after the tables its foreign keys name."""
    names = [row[0] for row in await _rows(src, "SELECT name FROM sqlite_master WHERE type = 'table'")]
    parents = {
        name: {str(row[2]) for row in await _rows(src, f"PRAGMA foreign_key_list({name})")} - {name}
        for name in names
        if not name.startswith("sqlite_")
    }
    ordered: list[str] = []
    while parents:
        ready = sorted(name for name, needs in parents.items() if needs <= set(ordered))
        if not ready:
            raise RuntimeError(f"foreign keys in a cycle: {sorted(parents)}")
        ordered.extend(ready)
        for name in ready:
            del parents[name]
    return ordered


async def _refuse_rows(dst: PostgresConnection, tables: list[str]) -> None:
    for table in tables:
        row = await dst.fetchone(f"SELECT COUNT(*) FROM {table}")
        if row is None or row[0]:
            raise ValueError(f"the destination already has rows in {table}: copy only into an empty database")


async def _copy_table(src: aiosqlite.Connection, dst: PostgresConnection, table: str) -> int:
    """Every row of ``table`` in rowid order (PostgreSQL's ``rowid`` column, where it has one,
    takes SQLite's); the count in DST must then equal SRC's."""
    columns = [
        str(row[0])
        for row in await dst.fetchall(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public'"
            " AND table_name = ? ORDER BY ordinal_position",
            (table,),
        )
    ]
    listed = ", ".join(f'"{column}"' for column in columns)  # quoted: contest_sheet_entries has "by"
    last, sent = 0, 0
    while True:
        rows = await _rows(
            src,
            f"SELECT rowid, {listed} FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT {BATCH}",
            (last,),
        )
        if not rows:
            break
        first, last = rows[0][0], rows[-1][0]
        records = [tuple(row[1:]) for row in rows]
        try:
            await dst.copy_records(table, columns, records)
        except (TypeError, ValueError, asyncpg.DataError) as error:  # SQLite keeps any type anywhere
            raise ValueError(
                f"{table}: a row with rowid {first}..{last} has a value its column cannot take ({error})"
            ) from error
        sent += len(records)
    expected = (await _rows(src, f"SELECT COUNT(*) FROM {table}"))[0][0]
    stored = await dst.fetchone(f"SELECT COUNT(*) FROM {table}")
    if not sent == expected == (stored[0] if stored else -1):
        raise RuntimeError(f"{table}: {expected} rows in the source, {sent} sent, {stored} stored")
    return sent


async def _resume_identities(src: aiosqlite.Connection, dst: PostgresConnection, tables: list[str]) -> None:
    """Each identity sequence past the highest id SQLite gave out (``sqlite_sequence`` keeps
    AUTOINCREMENT's high-water mark, above the highest id left when rows were deleted)."""
    high = {str(name): int(seq) for name, seq in await _rows(src, "SELECT name, seq FROM sqlite_sequence")}
    identities = await dst.fetchall(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = 'public' AND is_identity = 'YES'"
    )
    for table, column in identities:
        if table not in tables:
            continue
        row = await dst.fetchone(f"SELECT COALESCE(MAX({column}), 0) FROM {table}")
        top = max(int(row[0]) if row else 0, high.get(table, 0) if column == "id" else 0)
        if top > 0:
            await dst.execute("SELECT setval(pg_get_serial_sequence(?, ?), ?)", (table, column, top))


async def _rows(src: aiosqlite.Connection, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    async with src.execute(sql, params) as cursor:
        return list(await cursor.fetchall())
