"""``python -m storage backup``: a consistent copy of a store in use, and clear refusals that
touch nothing (issue 33). Real SQLite files throughout."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from storage import Database
from storage.__main__ import main
from storage.backup import BackupRefused, backup


async def store_with_tables(path: Path, count: int) -> Database:
    db = await Database.open(path)
    for n in range(count):
        await db.tables.create(
            chat_id=-100 - n, token=f"t{n}", creator_id=1, preset="default", rules_json="{}", seed=n
        )
    return db


def table_count(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM game_tables").fetchone()[0])


async def test_a_backup_holds_what_is_committed_in_the_log_and_not_what_is_uncommitted(tmp_path: Path):
    live = tmp_path / "live.db"
    db = await store_with_tables(live, 3)
    await db.conn.execute("PRAGMA wal_autocheckpoint = 0")  # what the bot wrote stays in the -wal file
    await db.tables.create(chat_id=-9, token="late", creator_id=1, preset="default", rules_json="{}", seed=9)
    writer = sqlite3.connect(live, isolation_level=None)  # another writer, mid-transaction
    writer.execute("BEGIN IMMEDIATE")
    writer.execute(
        "INSERT INTO game_tables (chat_id, token, creator_id, status, preset, rules_json, seed, created_at)"
        " VALUES (-10, 'half', 1, 'lobby', 'default', '{}', 0, '')"
    )
    try:
        copied = backup(str(live), tmp_path / "copy.db")
    finally:
        writer.execute("ROLLBACK")
        writer.close()
        await db.close()
    assert table_count(tmp_path / "copy.db") == 4  # the committed rows, in the log or not; not the half
    assert copied.rows >= 4 and copied.tables >= 3 and copied.bytes == (tmp_path / "copy.db").stat().st_size
    with sqlite3.connect(tmp_path / "copy.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one self-contained file
    reopened = await Database.open(tmp_path / "copy.db")  # the bot opens a restored copy as its store
    assert len(await reopened.tables.unfinished()) == 4
    await reopened.close()


async def test_the_command_says_what_it_copied(tmp_path: Path, monkeypatch, capsys):
    live = tmp_path / "live.db"
    await (await store_with_tables(live, 2)).close()
    monkeypatch.setenv("GUANDAN_DB", str(live))
    assert main(["backup", str(tmp_path / "copy.db")]) == 0
    said = capsys.readouterr().out
    assert f"backed up {live} to {tmp_path / 'copy.db'}:" in said
    for what in ("tables", "rows", "bytes", " s"):
        assert what in said
    assert table_count(tmp_path / "copy.db") == 2


async def test_an_existing_dest_is_refused_unless_forced(tmp_path: Path, monkeypatch, capsys):
    live, dest = tmp_path / "live.db", tmp_path / "copy.db"
    await (await store_with_tables(live, 2)).close()
    dest.write_bytes(b"last week's backup")
    monkeypatch.setenv("GUANDAN_DB", str(live))
    assert main(["backup", str(dest)]) == 2
    assert "exists: pass --force" in capsys.readouterr().err
    assert dest.read_bytes() == b"last week's backup"
    assert main(["backup", "--force", str(dest)]) == 0
    assert table_count(dest) == 2


def refusal(source: str, dest: Path) -> str:
    with pytest.raises(BackupRefused) as refused:
        backup(source, dest)
    return str(refused.value)


async def test_bad_input_is_refused_plainly_and_nothing_is_written(tmp_path: Path):
    live = tmp_path / "live.db"
    await (await store_with_tables(live, 1)).close()
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    text = tmp_path / "notes.txt"
    text.write_text("not a database")
    before = sorted(os.listdir(tmp_path))

    assert "not this bot's database" in refusal(str(other), tmp_path / "a.db")
    assert "not an SQLite database" in refusal(str(text), tmp_path / "a.db")
    assert "no database at" in refusal(str(tmp_path / "missing.db"), tmp_path / "a.db")
    assert "is not a directory" in refusal(str(live), tmp_path / "no-such-dir" / "a.db")
    assert "is not a directory" in refusal(str(live), text / "a.db")
    assert "is a directory" in refusal(str(live), tmp_path)
    assert "pg_dump" in refusal("postgresql://bot@db/guandan", tmp_path / "a.db")
    assert sorted(os.listdir(tmp_path)) == before


async def test_an_unwritable_directory_is_refused(tmp_path: Path):
    live = tmp_path / "live.db"
    await (await store_with_tables(live, 1)).close()
    if os.geteuid() == 0:  # root writes anywhere chmod allows nothing; /proc takes no new files
        folder = Path("/proc")
    else:
        folder = tmp_path / "locked"
        folder.mkdir(mode=0o500)
    assert f"cannot write in {folder}" in refusal(str(live), folder / "a.db")
    assert not (folder / "a.db").exists()
