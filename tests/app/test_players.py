"""Whom the bot may message privately (app/players.py), and a table's stage asked as questions
(app/table/lifecycle.py): the answers a handler gets instead of rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.players import Reach
from app.table.lifecycle import active, in_lobby, playing, stopped
from app.table.tables import TableService
from engine.rules import Rules
from storage import Database


@pytest.fixture
async def db(tmp_path: Path):
    database = await Database.open(tmp_path / "p.db")
    yield database
    await database.close()


async def test_a_player_is_reachable_from_start_until_a_403(db: Database) -> None:
    reach = Reach(db.users)
    assert not await reach.reachable(5) and not await reach.known_unreachable(5)  # never seen
    await reach.mark(5, reachable=True)
    assert await reach.reachable(5) and not await reach.known_unreachable(5)
    await reach.mark(5, reachable=False)
    assert not await reach.reachable(5) and await reach.known_unreachable(5)


async def test_a_table_goes_from_lobby_to_play_to_stopped(db: Database) -> None:
    service = TableService(db)
    table = await service.create(chat_id=-1, creator_id=1, preset="x", rules=Rules.default())
    assert in_lobby(table) and active(table) and not playing(table)
    for seat in range(4):
        await service.take_seat(table, seat=seat, user_id=10 + seat, name=f"P{seat}", locale=None)
    await service.start(table)
    assert playing(table) and active(table) and not in_lobby(table)
    await service.stop(table)
    assert stopped(table) and not active(table)
