"""观战's state and decisions without Telegram (app/table/spectators.py): who may watch, what a
spectator is shown and that the screen's answers (a message sent, a block) are kept."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.table.refusals import TableRefusal
from app.table.settings import rules_from_args
from app.table.spectators import Buttons, Look, Spectators
from app.table.tables import LiveTable, TableService
from storage import Database

SPECTATOR = 99


class Screen:
    """Keeps every look it is handed."""

    def __init__(self) -> None:
        self.looks: list[Look] = []

    def show(self, look: Look) -> None:
        self.looks.append(look)


class Board:
    def __init__(self) -> None:
        self.published: list[int] = []

    def publish(self, table: LiveTable) -> None:
        self.published.append(table.id)


@pytest.fixture
async def db(tmp_path: Path):
    database = await Database.open(tmp_path / "s.db")
    yield database
    await database.close()


async def _playing(db: Database, *args: str, chat_id: int = -3) -> LiveTable:
    service = TableService(db, new_seed=lambda: 7)
    _, rules = rules_from_args(["wechat-6-deals", *args])
    table = await service.create(chat_id=chat_id, creator_id=1, preset="x", rules=rules)
    for seat in range(4):
        await service.take_seat(table, seat=seat, user_id=10 + seat, name=f"P{seat}", locale=None)
    await service.start(table)
    return table


async def _looks(spectators: Spectators, screen: Screen, count: int) -> list[Look]:
    for _ in range(200):
        if len(screen.looks) >= count:
            return screen.looks
        await asyncio.sleep(0.01)
    raise AssertionError(f"{len(screen.looks)} looks, {count} expected")


async def test_a_spectator_gets_the_public_look_with_buttons_and_the_board_names_them(db: Database) -> None:
    table, screen, board = await _playing(db), Screen(), Board()
    spectators = Spectators(db, board, interval=0.01, screen=screen)
    async with table.lock:
        assert await spectators.watch(table, SPECTATOR, "Carol") is None
    [look] = await _looks(spectators, screen, 1)
    assert look.watcher.user_id == SPECTATOR and look.first
    assert look.buttons == Buttons(followed=None, locale="zh", seats=False)
    assert spectators.names(table.id) == ["Carol"] and board.published == [table.id]
    assert spectators.open_to_watch(table)
    await spectators.close()


async def test_seated_players_and_tables_without_spectators_are_refused(db: Database) -> None:
    spectators = Spectators(db, Board(), interval=0.01, screen=Screen())
    table = await _playing(db)
    async with table.lock:
        assert await spectators.watch(table, 10, "P0") is TableRefusal.PLAYING_HERE
        assert await spectators.follow(table, SPECTATOR, 1) is TableRefusal.NOT_WATCHING
    closed = await _playing(db, "spectators=off", chat_id=-4)
    async with closed.lock:
        assert await spectators.watch(closed, SPECTATOR, "Carol") is TableRefusal.NO_SPECTATORS
    assert not spectators.open_to_watch(closed)
    await spectators.close()


async def test_a_sent_message_is_stored_and_a_blocked_spectator_forgotten(db: Database) -> None:
    table, screen = await _playing(db), Screen()
    spectators = Spectators(db, Board(), interval=0.01, screen=screen)
    async with table.lock:
        await spectators.watch(table, SPECTATOR, "Carol")
    [look] = await _looks(spectators, screen, 1)
    await spectators.delivered(look, 555)
    [row] = await db.spectators.of_table(table_id=table.id)
    assert (row.message_id, row.deal) == (555, look.deal)
    await spectators.forget(table.id, SPECTATOR)
    assert not spectators.watching(table.id, SPECTATOR)
    assert await db.spectators.of_table(table_id=table.id) == []
    await spectators.close()


async def test_leaving_shows_a_last_look_without_buttons(db: Database) -> None:
    table, screen = await _playing(db), Screen()
    spectators = Spectators(db, Board(), interval=0.01, screen=screen)
    async with table.lock:
        await spectators.watch(table, SPECTATOR, "Carol")
    await _looks(spectators, screen, 1)
    async with table.lock:
        assert await spectators.leave(table, SPECTATOR)
        assert not await spectators.leave(table, SPECTATOR)
    last = screen.looks[-1]
    assert last.buttons is None and last.text == "👀 你已停止观战本桌。"
    await spectators.close()
