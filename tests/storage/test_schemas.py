"""SQLite and PostgreSQL follow one migration history: the same numbered files, and after them
the same schema (tables, columns in order with compatible types, nullability and defaults,
primary keys, unique rules, indexes and foreign keys). A migration added to one dialect only,
or written differently in the other, fails here.

Three differences are by design: PostgreSQL keeps the applied migrations in its
``schema_migrations`` table (SQLite in ``PRAGMA user_version``), gives the tables read in
insertion order a ``rowid`` identity column (SQLite has an implicit one on every table), and
alone has the lease's ``bot_lease`` table and the fence on every table (migration 0018: an
SQLite store is one process's; tests/storage/test_lease.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiosqlite
import pytest

from emulator.postgresql import Cluster
from storage import Database
from storage.backend import Connection
from storage.schema import migrations, twins

COMPATIBLE = {"INTEGER": {"integer", "bigint"}, "TEXT": {"text"}, "REAL": {"double precision"}}
"""SQLite's declared type → the PostgreSQL types that hold the same values."""
ON_DELETE = {"a": "NO ACTION", "c": "CASCADE", "r": "RESTRICT", "n": "SET NULL", "d": "SET DEFAULT"}

Schema = dict[str, dict[str, Any]]


def test_both_dialects_have_the_same_numbered_migrations() -> None:
    names = twins()
    assert names == [migration.path.name for migration in migrations()]
    assert names[:2] == ["0001_init.sql", "0002_match_clock.sql"]


def test_a_migration_in_one_dialect_only_is_refused(tmp_path: Path) -> None:
    (tmp_path / "postgresql").mkdir()
    for folder in (tmp_path, tmp_path / "postgresql"):
        (folder / "0001_first.sql").write_text("-- first\n")
    (tmp_path / "0002_sqlite_only.sql").write_text("-- late\n")
    with pytest.raises(RuntimeError, match=r"0002_sqlite_only\.sql"):
        twins(tmp_path)


async def test_both_dialects_end_in_the_same_schema(tmp_path: Path, postgresql_cluster: Cluster) -> None:
    sqlite_db = await Database.open(tmp_path / "schema.db")
    postgresql_db = await Database.open(postgresql_cluster.new_database())
    try:
        assert await sqlite_db.schema_version() == await postgresql_db.schema_version()
        sqlite = await _sqlite_schema(sqlite_db.sqlite)
        postgresql = await _postgresql_schema(postgresql_db.conn)
    finally:
        await sqlite_db.close()
        await postgresql_db.close()
    assert sorted(postgresql) == sorted(sqlite)
    for table, expected in sqlite.items():
        got = postgresql[table]
        assert [c[0] for c in got["columns"]] == [c[0] for c in expected["columns"]], table
        for (name, declared, notnull, default), (_, pg_type, pg_notnull, pg_default) in zip(
            expected["columns"], got["columns"], strict=True
        ):
            assert pg_type in COMPATIBLE[declared], f"{table}.{name}: {declared} vs {pg_type}"
            assert (pg_notnull, pg_default) == (notnull, default), f"{table}.{name}"
        for part in ("primary_key", "unique", "indexes", "foreign_keys"):
            assert got[part] == expected[part], f"{table} {part}"


async def _sqlite_schema(conn: aiosqlite.Connection) -> Schema:
    schema: Schema = {}
    for (table,) in await _rows(conn, "SELECT name FROM sqlite_master WHERE type = 'table'"):
        if table.startswith("sqlite_"):
            continue
        info = await _rows(conn, f"PRAGMA table_info({table})")
        columns = [(name, kind, bool(notnull or pk), default) for _, name, kind, notnull, default, pk in info]
        primary_key = tuple(column[1] for column in sorted((c for c in info if c[5]), key=lambda c: c[5]))
        unique, indexes = {(frozenset(primary_key), False)}, set()
        for _, name, is_unique, origin, partial in await _rows(conn, f"PRAGMA index_list({table})"):
            keys = tuple(row[2] for row in await _rows(conn, f"PRAGMA index_info({name})"))
            if is_unique:
                unique.add((frozenset(keys), bool(partial)))
            if origin == "c":
                indexes.add((name, bool(is_unique), keys, bool(partial)))
        foreign: dict[int, list[Any]] = {}
        for fk_id, _, parent, child_key, parent_key, _, on_delete, _ in await _rows(
            conn, f"PRAGMA foreign_key_list({table})"
        ):
            foreign.setdefault(fk_id, [parent, [], [], on_delete])
            foreign[fk_id][1].append(child_key)
            foreign[fk_id][2].append(parent_key)
        schema[table] = {
            "columns": [(name, kind, notnull, _default(default)) for name, kind, notnull, default in columns],
            "primary_key": primary_key,
            "unique": unique,
            "indexes": indexes,
            "foreign_keys": {(p, tuple(c), tuple(k), d) for p, c, k, d in foreign.values()},
        }
    return schema


async def _postgresql_schema(conn: Connection) -> Schema:
    schema: Schema = {}
    tables = await conn.fetchall(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        " AND table_name NOT IN ('schema_migrations', 'bot_lease')"
    )
    for (table,) in tables:
        columns = await conn.fetchall(
            "SELECT column_name, data_type, is_nullable = 'NO', column_default, is_identity = 'YES'"
            " FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ?"
            " AND column_name <> 'rowid' ORDER BY ordinal_position",
            (table,),
        )
        indexes = await conn.fetchall(
            "SELECT c.relname, i.indisunique, i.indisprimary, i.indpred IS NOT NULL,"
            " ARRAY(SELECT pg_get_indexdef(i.indexrelid, k + 1, true) FROM generate_subscripts(i.indkey, 1) k"
            " ORDER BY k)"
            " FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = ?::regclass",
            (table,),
        )
        foreign = await conn.fetchall(
            "SELECT confrelid::regclass::text, confdeltype::text,"
            " ARRAY(SELECT attname FROM unnest(conkey) WITH ORDINALITY k(n, o)"
            "  JOIN pg_attribute ON attrelid = conrelid AND attnum = k.n ORDER BY o),"
            " ARRAY(SELECT attname FROM unnest(confkey) WITH ORDINALITY k(n, o)"
            "  JOIN pg_attribute ON attrelid = confrelid AND attnum = k.n ORDER BY o)"
            " FROM pg_constraint WHERE contype = 'f' AND conrelid = ?::regclass",
            (table,),
        )
        primary = next(tuple(keys) for _, _, is_primary, _, keys in indexes if is_primary)
        schema[table] = {
            "columns": [
                (name, kind, notnull, None if identity else _default(default))
                for name, kind, notnull, default, identity in columns
            ],
            "primary_key": primary,
            "unique": {(frozenset(map(_plain, keys)), partial) for _, u, _, partial, keys in indexes if u},
            "indexes": {
                (name, unique, tuple(map(_plain, keys)), partial)
                for name, unique, is_primary, partial, keys in indexes
                if not is_primary and not name.endswith("_key")  # _key: a UNIQUE column's own index
            },
            "foreign_keys": {
                (parent, tuple(child_keys), tuple(parent_keys), ON_DELETE[kind])
                for parent, kind, child_keys, parent_keys in foreign
            },
        }
    return schema


def _default(text: str | None) -> str | None:
    """A column default as both dialects can spell it: ``'normal'`` (PostgreSQL: ``'normal'::text``)."""
    return text.removesuffix("::text") if text is not None else None


def _plain(key: str) -> str:
    """An index key: ``lower(username)`` indexes what SQLite's NOCASE ``username`` column does."""
    return key.removeprefix("lower(").removesuffix(")")


async def _rows(conn: aiosqlite.Connection, sql: str) -> list[Any]:
    async with conn.execute(sql) as cursor:
        return list(await cursor.fetchall())
