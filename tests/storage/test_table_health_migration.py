"""Migration 0003 rebuilds game_tables (a CHECK constraint cannot change in place): seats and
actions survive (with foreign keys on, dropping the old table would cascade-delete them),
ids are never reused, and a database with broken foreign keys is left untouched."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from storage import Database, TableStatus
from storage.schema import MIGRATIONS_DIR


async def version_2(tmp_path: Path) -> Path:
    """A database as the bot left it before 0003: a table (id 7, the highest ever 9) in play."""
    old = tmp_path / "old"
    old.mkdir()
    for name in ("0001_init.sql", "0002_match_clock.sql"):
        shutil.copy(MIGRATIONS_DIR / name, old / name)
    path = tmp_path / "g.db"
    await (await Database.open(path, migrations_dir=old)).close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(
            "INSERT INTO game_tables (id, chat_id, token, creator_id, status, preset, rules_json, seed,"
            " created_at, started_at) VALUES (7, -1, 'tok', 1, 'playing', 'default', '{}', 5, 'c',"
            " '2026-12-01T07:00:00+00:00')"
        )
        conn.executemany(
            "INSERT INTO seats (table_id, seat, name) VALUES (7, ?, 'n')", [(s,) for s in range(4)]
        )
        conn.executemany(
            "INSERT INTO actions (table_id, version, seat, action_json, created_at)"
            " VALUES (7, ?, 0, '{}', 'c')",
            [(v,) for v in range(1, 31)],
        )
        conn.execute("UPDATE sqlite_sequence SET seq = 9 WHERE name = 'game_tables'")
    return path


async def test_rebuild_keeps_children_and_ids(tmp_path: Path) -> None:
    db = await Database.open(await version_2(tmp_path))
    try:
        assert len(await db.seats.of_table(table_id=7)) == 4
        assert len(await db.actions.of_table(table_id=7)) == 30
        record = await db.tables.get(table_id=7)
        assert (record.status, record.seed, record.status_reason) == (TableStatus.PLAYING, 5, None)
        assert record.started_at is not None and record.started_at.hour == 7
        await db.tables.quarantine(table_id=7, reason="KeyError: 0")
        assert (await db.tables.get(table_id=7)).status_reason == "KeyError: 0"
        assert await db.tables.unfinished() == []
        new = await db.tables.create(
            chat_id=-1, token="t2", creator_id=1, preset="default", rules_json="{}", seed=1
        )
        assert new.id == 10  # after the highest id ever given, not after the highest kept
        async with db.sqlite.execute("PRAGMA foreign_keys") as cursor:
            assert (await cursor.fetchone())[0] == 1
    finally:
        await db.close()


async def test_broken_foreign_keys_stop_the_migration(tmp_path: Path) -> None:
    path = await version_2(tmp_path)
    with sqlite3.connect(path) as conn:  # an orphan seat, as foreign keys off once allowed
        conn.execute("INSERT INTO seats (table_id, seat, name) VALUES (99, 0, 'orphan')")
    with pytest.raises(RuntimeError, match=r"0003_table_health\.sql leaves broken foreign keys"):
        await Database.open(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        assert conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0] == 30
