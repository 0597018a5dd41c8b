"""Storage on a real SQLite file and a PostgreSQL database: migrations, repositories, NotFound, conflicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.table.tables import decode_action, encode_action
from engine.match import Match, observe
from engine.rules import Rules
from players.easy import choose_action
from storage import Database, NotFound, StorageConflict, TableStatus
from storage.schema import POSTGRESQL_MIGRATIONS, migrations


@pytest.fixture
async def db(store: str):
    database = await Database.open(store)
    yield database
    await database.close()


async def _table(db: Database, chat_id: int = -100, token: str = "tok1"):
    return await db.tables.create(
        chat_id=chat_id, token=token, creator_id=7, preset="default", rules_json="{}", seed=42
    )


async def test_migrations_set_user_version_and_wal(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "a.db")
    try:
        assert await db.schema_version() == len(migrations())
        async with db.sqlite.execute("PRAGMA journal_mode") as cursor:
            assert (await cursor.fetchone())[0] == "wal"
    finally:
        await db.close()
    again = await Database.open(tmp_path / "a.db")
    assert await again.schema_version() == len(migrations())
    await again.close()


async def test_failed_migration_rolls_back(tmp_path: Path, store: str) -> None:
    folder = tmp_path / "migrations"
    dialects = (folder, folder / POSTGRESQL_MIGRATIONS)
    for dialect in dialects:
        dialect.mkdir(parents=True)
        (dialect / "0001_ok.sql").write_text("-- ok\nCREATE TABLE a (x INTEGER);\n")
        (dialect / "0002_broken.sql").write_text("-- broken\nCREATE TABLE b (y INTEGER);\nNOT SQL;\n")
    with pytest.raises(Exception, match="syntax"):
        await Database.open(store, migrations_dir=folder)
    for dialect in dialects:
        (dialect / "0002_broken.sql").write_text("-- fixed\nCREATE TABLE b (y INTEGER);\n")
    db = await Database.open(store, migrations_dir=folder)
    assert await db.schema_version() == 2
    await db.close()


def test_migration_gap_is_refused(tmp_path: Path) -> None:
    (tmp_path / "0002_late.sql").write_text("-- late\n")
    with pytest.raises(RuntimeError, match="0001"):
        migrations(tmp_path)


async def test_table_lifecycle(db: Database) -> None:
    table = await _table(db)
    assert table.status is TableStatus.LOBBY
    assert (await db.tables.by_token(token="tok1")).id == table.id
    assert (await db.tables.active_in_chat(chat_id=-100)).id == table.id
    await db.tables.set_status(table_id=table.id, status=TableStatus.PLAYING)
    assert (table.board_deal, table.board_first) == (None, 0)  # 0014_board_range's defaults
    await db.tables.set_board_message(table_id=table.id, message_id=55, deal=3, first=2)
    await db.tables.set_rules(table_id=table.id, preset="short", rules_json='{"a": 1}')
    got = await db.tables.get(table_id=table.id)
    assert (got.status, got.board_message_id, got.preset, got.rules_json) == (
        TableStatus.PLAYING,
        55,
        "short",
        '{"a": 1}',
    )
    assert (got.board_deal, got.board_first) == (3, 2)
    assert await db.tables.unfinished() == [(table.id, -100)]
    await db.tables.set_status(table_id=table.id, status=TableStatus.FINISHED)
    assert await db.tables.unfinished() == []
    with pytest.raises(NotFound):
        await db.tables.active_in_chat(chat_id=-100)


async def test_one_active_table_per_chat(db: Database) -> None:
    first = await _table(db)
    with pytest.raises(StorageConflict):
        await _table(db, token="tok2")
    await db.tables.set_status(table_id=first.id, status=TableStatus.STOPPED)
    second = await _table(db, token="tok2")
    assert second.id != first.id


async def test_missing_rows_raise_not_found(db: Database) -> None:
    with pytest.raises(NotFound):
        await db.tables.get(table_id=99)
    with pytest.raises(NotFound):
        await db.tables.by_token(token="nope")
    with pytest.raises(NotFound):
        await db.tables.set_status(table_id=99, status=TableStatus.STOPPED)
    with pytest.raises(NotFound):
        await db.seats.get(table_id=1, seat=0)
    with pytest.raises(NotFound):
        await db.users.get(user_id=5)
    with pytest.raises(NotFound):
        await db.chats.get(chat_id=5)


async def test_seats(db: Database) -> None:
    table = await _table(db)
    await db.seats.take(table_id=table.id, seat=0, user_id=7, name="Ann", locale="en")
    await db.seats.take(table_id=table.id, seat=1, user_id=None, name="AI", is_ai=True)
    with pytest.raises(StorageConflict):
        await db.seats.take(table_id=table.id, seat=0, user_id=8, name="Bob")
    with pytest.raises(StorageConflict):
        await db.seats.take(table_id=table.id, seat=2, user_id=7, name="Ann again")
    await db.seats.set_dm_message(table_id=table.id, seat=0, message_id=9)
    await db.seats.set_autoplay(table_id=table.id, seat=0, autoplay=True, timeouts=2)
    seats = await db.seats.of_table(table_id=table.id)
    assert [(s.seat, s.user_id, s.is_ai) for s in seats] == [(0, 7, False), (1, None, True)]
    assert (seats[0].dm_message_id, seats[0].autoplay, seats[0].timeouts, seats[0].locale) == (
        9,
        True,
        2,
        "en",
    )
    await db.seats.leave(table_id=table.id, seat=1)
    with pytest.raises(NotFound):
        await db.seats.leave(table_id=table.id, seat=1)


async def test_action_log_is_ordered_and_versions_unique(db: Database) -> None:
    table = await _table(db)
    for version in (2, 1, 3):
        await db.actions.append(
            table_id=table.id, version=version, seat=version % 4, action_json=f'"{version}"'
        )
    with pytest.raises(StorageConflict):
        await db.actions.append(table_id=table.id, version=2, seat=0, action_json='"again"')
    assert [a.version for a in await db.actions.of_table(table_id=table.id)] == [1, 2, 3]


async def test_action_survives_reopen(store: str) -> None:
    db = await Database.open(store)
    table = await _table(db)
    await db.actions.append(table_id=table.id, version=1, seat=0, action_json='{"pass": true}')
    await db.close()
    reopened = await Database.open(store)
    assert [a.action_json for a in await reopened.actions.of_table(table_id=table.id)] == ['{"pass": true}']
    await reopened.close()


async def test_users_and_chats(db: Database) -> None:
    await db.users.set_reachable(user_id=5, reachable=True)
    await db.users.set_locale(user_id=5, locale="en")
    await db.users.set_four_color(user_id=5, four_color=True)
    user = await db.users.get(user_id=5)
    assert (user.reachable, user.locale, user.four_color) == (True, "en", True)
    await db.chats.set_locale(chat_id=-1, locale="en")
    assert (await db.chats.get(chat_id=-1)).locale == "en"


async def test_start_records_when_the_match_began(db: Database) -> None:
    table = await _table(db)
    assert table.started_at is None
    await db.tables.start(table_id=table.id)
    started = await db.tables.get(table_id=table.id)
    assert started.status is TableStatus.PLAYING and started.started_at is not None


async def test_action_log_replays_the_match(store: str) -> None:
    """What the log holds is enough to rebuild a match exactly (hands, turn, version)."""
    rules = Rules.default()
    match = Match.new(rules, seed=11)
    db = await Database.open(store)
    table = await _table(db)
    for _ in range(60):
        seat = match.to_act[0]
        action = choose_action(observe(match, seat), rules)
        match.apply(seat, action)
        await db.actions.append(
            table_id=table.id, version=match.version, seat=seat, action_json=encode_action(action)
        )
    await db.close()
    reopened = await Database.open(store)
    rows = await reopened.actions.of_table(table_id=table.id)
    await reopened.close()
    again = Match.replay(rules, 11, [(row.seat, decode_action(row.action_json)) for row in rows])
    assert again.version == match.version and again.to_act == match.to_act
    assert [again.hand(seat) for seat in range(4)] == [match.hand(seat) for seat in range(4)]


async def test_append_many_writes_in_order_across_chunks(db: Database) -> None:
    table = await _table(db)
    rows = [(version, version % 4, f'"{version}"') for version in range(1, 1203)]
    await db.actions.append_many(table_id=table.id, actions=rows)
    logged = await db.actions.of_table(table_id=table.id)
    assert [(a.version, a.seat, a.action_json) for a in logged] == rows
    with pytest.raises(StorageConflict):
        await db.actions.append_many(table_id=table.id, actions=[(1203, 0, "{}"), (5, 0, "{}")])
    assert len(await db.actions.of_table(table_id=table.id)) == 1202
