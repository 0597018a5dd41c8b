"""The group board's state and texts without Telegram (app/table/boards.py): which results a
table owes, what a redraw shows, and a table replayed from the store after a restart."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.table.boards import DEAL_RESULT, Boards, owed, result_key, split_tricks
from app.table.settings import rules_from_args
from app.table.tables import LiveTable, Outcome, TableService
from engine.actions import DealEnded
from players.easy import timeout_action
from storage import Database


@pytest.fixture
async def db(tmp_path: Path):
    database = await Database.open(tmp_path / "b.db")
    yield database
    await database.close()


async def _started(db: Database) -> tuple[TableService, LiveTable, Outcome]:
    service = TableService(db, new_seed=lambda: 3)
    _, rules = rules_from_args(["wechat-6-deals", "points_deals=2"])
    table = await service.create(chat_id=-5, creator_id=1, preset="x", rules=rules)
    for seat in range(4):
        await service.take_seat(table, seat=seat, user_id=10 + seat, name=f"P{seat}", locale=None)
    return service, table, await service.start(table)


async def _first_deal_played(service: TableService, table: LiveTable) -> Outcome:
    assert table.match is not None
    while True:
        seat = table.match.to_act[0]
        outcome = await service.act(table, seat=seat, action=timeout_action(table.observe(seat)))
        if any(isinstance(e, DealEnded) for e in outcome.events):
            return outcome


def test_ranges_of_tricks_fit_the_limit() -> None:
    sizes = [300, 300, 300, 300, 300, 300]
    assert split_tricks(sizes, 0, 5, 800) == [(0, 1), (2, 3), (4, 5)]
    assert split_tricks([900, 10], 0, 1, 500) == [(0, 0), (1, 1)]


async def test_a_deal_played_out_owes_its_result_once_and_is_drawn_from_its_first_trick(db: Database) -> None:
    service, table, outcome = await _started(db)
    boards = Boards(service, db)
    assert boards.publish(table, outcome.events) == []
    board = boards.get(table.id)
    assert board is not None and board.dirty and board.snapshot is not None
    [shown] = boards.draw(table, board, board.snapshot, "zh", room=True)
    assert (shown.first, shown.last) == (0, 0) and "🃏" in shown.text
    [(result, fresh)] = boards.publish(table, (await _first_deal_played(service, table)).events)
    assert isinstance(result, DealEnded) and fresh
    assert owed(table.id, result) == (DEAL_RESULT, {"table_id": table.id, "deal": 1})
    assert result_key(table.id, result) == f"table:{table.id}:deal:1"
    assert boards.take_results(board) == [result] and boards.take_results(board) == []


async def test_a_table_seen_first_after_a_restart_owes_its_latest_result_again(db: Database) -> None:
    service, table, _outcome = await _started(db)
    await _first_deal_played(service, table)
    boards = Boards(service, db)  # a new run: the table is seen for the first time
    [(result, fresh)] = boards.publish(table, ())
    assert isinstance(result, DealEnded) and not fresh
    found = await boards.match_of(table.id)
    assert found is not None and found[1] == {seat: f"P{seat}" for seat in range(4)}
    assert await boards.match_of(table.id + 100) is None
