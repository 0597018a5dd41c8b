"""``python -m storage copy``: an SQLite database with a match in progress, a drawn contest and
delivered outbox rows moves into PostgreSQL; the app opened on the copy resumes the match
where it stood and goes on numbering where SQLite left off."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from app.table.settings import rules_from_args
from app.table.tables import LiveTable, TableService
from emulator.postgresql import Cluster
from engine.contest import draw
from engine.match import observe
from players.easy import timeout_action
from storage import Database
from storage.copy import copy
from tests.engine.contest.support import ON_TIME, signed_up

ROOT = Path(__file__).resolve().parents[2]


async def _match_in_progress(db: Database) -> LiveTable:
    service = TableService(db)
    stopped = await service.create(chat_id=-2, creator_id=1, preset="default", rules=rules_from_args([])[1])
    await service.stop(stopped)
    preset, rules = rules_from_args(["wechat-6-deals", "points_deals=2"])
    table = await service.create(chat_id=-1, creator_id=1, preset=preset, rules=rules)
    for seat in range(2):
        await service.take_seat(table, seat=seat, user_id=100 + seat, name=f"玩家{seat}", locale=None)
    for seat in range(2, 4):
        await service.add_ai(table, seat=seat, name=f"AI{seat}")
    await service.start(table)
    for _ in range(7):
        seat = table.match.to_act[0]
        await service.act(table, seat=seat, action=timeout_action(observe(table.match, seat)))
    return table


async def _sqlite_with_everything(path: Path) -> tuple[LiveTable, int]:
    """A match in progress, a contest drawn with a bye, and an outbox whose rows were all
    delivered (so SQLite's id high-water mark is above every id left)."""
    db = await Database.open(path)
    try:
        table = await _match_in_progress(db)
        stored = await db.contests.create(chat_id=-1, contest=signed_up(pairs=5))
        _contest, events = draw(stored.contest, now=ON_TIME)
        await db.contests.record(contest_id=stored.id, events=events)
        await db.contest_links.add_message(chat_id=-1, message_id=7, contest_id=stored.id, round_=1)
        await db.contest_links.add_message(chat_id=-1, message_id=3, contest_id=stored.id, round_=1)
        for n in range(3):
            row = await db.outbox.add(chat_id=-1, kind="a", payload_json="{}", dedupe_key=f"k{n}")
            assert row is not None
            await db.outbox.done(id=row.id)
        return table, stored.id
    finally:
        await db.close()


async def test_a_match_in_progress_resumes_on_the_postgresql_copy(
    tmp_path: Path, postgresql_cluster: Cluster
) -> None:
    source = tmp_path / "guandan.db"
    table, contest_id = await _sqlite_with_everything(source)
    original = await Database.open(source)
    contest = (await original.contests.get(contest_id=contest_id)).contest
    logged = len(await original.actions.of_table(table_id=table.id))
    expected = await _counts(original)
    await original.close()
    url = postgresql_cluster.new_database()

    command = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "storage", "copy", str(source), url, cwd=ROOT, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await command.communicate()
    assert command.returncode == 0, out
    header, *lines = [line.split() for line in out.decode().splitlines()]
    assert header == ["table", "rows"]
    printed = {words[0]: int(words[1].replace(",", "")) for words in lines}
    assert printed == {**expected, "total": sum(expected.values())}
    assert (expected["seats"], expected["contest_byes"], expected["outbox"], expected["outbox_done"]) == (
        4,
        1,
        0,
        3,
    )

    db = await Database.open(url)
    try:
        [again] = (await TableService(db).restore_all()).tables
        assert (again.id, again.version, again.match.to_act) == (table.id, table.version, table.match.to_act)
        assert [again.match.hand(s) for s in range(4)] == [table.match.hand(s) for s in range(4)]
        seat = again.match.to_act[0]
        await TableService(db).act(again, seat=seat, action=timeout_action(observe(again.match, seat)))
        assert len(await db.actions.of_table(table_id=table.id)) > logged
        assert (await db.contests.get(contest_id=contest_id)).contest == contest
        assert await db.contest_links.messages_of(contest_id=contest_id, round_=1) == [(-1, 7), (-1, 3)]
        newer = await db.tables.create(
            chat_id=-3, token="new", creator_id=1, preset="default", rules_json="{}", seed=1
        )
        assert newer.id == table.id + 1
        row = await db.outbox.add(chat_id=-1, kind="a", payload_json="{}")
        assert row is not None and row.id == 4  # after the 3 delivered rows SQLite had numbered
    finally:
        await db.close()


async def test_copy_refuses_a_destination_with_rows(tmp_path: Path, postgresql_cluster: Cluster) -> None:
    source = tmp_path / "guandan.db"
    await _sqlite_with_everything(source)
    url = postgresql_cluster.new_database()
    await copy(source, url, report=lambda done: None)
    with pytest.raises(ValueError, match="already has rows"):
        await copy(source, url, report=lambda done: None)
    with pytest.raises(ValueError, match="not an SQLite database"):
        await copy(tmp_path / "missing.db", url, report=lambda done: None)


async def test_a_failed_copy_leaves_the_destination_empty(
    tmp_path: Path, postgresql_cluster: Cluster
) -> None:
    """A row PostgreSQL refuses (SQLite kept text in an INTEGER column) stops the copy, and
    nothing of it stays: a second attempt, once the row is mended, starts from empty."""
    source = tmp_path / "guandan.db"
    table, _ = await _sqlite_with_everything(source)
    db = await Database.open(source)
    logged = len(await db.actions.of_table(table_id=table.id))
    await db.sqlite.execute("UPDATE actions SET seat = 'north' WHERE version = 3")
    await db.close()
    url = postgresql_cluster.new_database()
    with pytest.raises(ValueError, match="actions: a row with rowid"):
        await copy(source, url, report=lambda done: None)
    db = await Database.open(source)
    await db.sqlite.execute("UPDATE actions SET seat = 0 WHERE version = 3")
    await db.close()
    copied = await copy(source, url, report=lambda done: None)
    assert {done.table: done.rows for done in copied}["actions"] == logged


async def _counts(db: Database) -> dict[str, int]:
    """Rows per table of an SQLite database."""
    async with db.sqlite.execute("SELECT name FROM sqlite_master WHERE type = 'table'") as cursor:
        tables = [str(row[0]) for row in await cursor.fetchall() if not str(row[0]).startswith("sqlite_")]
    counts = {}
    for table in tables:
        async with db.sqlite.execute(f"SELECT COUNT(*) FROM {table}") as cursor:
            row = await cursor.fetchone()
        assert row is not None
        counts[table] = int(row[0])
    return counts
