"""AI seats play at the difficulty chosen in the lobby (issue 12), stored on the seat (migration 0007)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from app.table.callback_data import Op, Press
from app.table.selection import Hints
from app.table.settings import rules_from_args
from app.table.tables import TableError, TableService
from engine.cards import Rank, parse_cards
from engine.moves import legal_plays
from handlers.table.keyboards import lobby_keyboard
from players import easy, planner
from players.policies import next_difficulty
from storage import Database, StorageConflict


@pytest.fixture
async def db(tmp_path: Path):
    database = await Database.open(tmp_path / "t.db")
    yield database
    await database.close()


async def test_difficulty_is_stored_picks_the_player(db: Database, tmp_path: Path) -> None:
    service = TableService(db)
    preset, rules = rules_from_args([])
    table = await service.create(chat_id=-1, creator_id=1, preset=preset, rules=rules)
    await service.take_seat(table, seat=0, user_id=100, name="H", locale=None)
    for seat in (1, 2, 3):
        await service.add_ai(table, seat=seat, name=f"AI{seat}")
    assert table.seats[1].record.difficulty == "normal"  # 标准 unless changed
    await service.set_difficulty(table, seat=1, difficulty="easy")
    stored = await db.seats.get(table_id=table.id, seat=1)
    assert stored.difficulty == "easy" and table.seats[1].record.difficulty == "easy"
    with pytest.raises(TableError):
        await service.set_difficulty(table, seat=0, difficulty="easy")  # a human seat has none
    with pytest.raises(TableError):
        await service.set_difficulty(table, seat=2, difficulty="grandmaster")
    with pytest.raises(StorageConflict):  # the column's CHECK
        await db.seats.set_difficulty(table_id=table.id, seat=2, difficulty="grandmaster")

    await service.start(table)
    assert table.match is not None
    seat = table.match.to_act[0]
    obs = table.observe(seat)
    for ai_seat, module in ((1, easy), (2, planner)):
        answer = service.seat_policy(table.seats[ai_seat])(obs, table.rules)
        assert answer == module.choose_action(obs, table.rules)
    human = service.seat_policy(table.seats[0])  # 托管 plays 标准
    assert human(obs, table.rules) == planner.choose_action(obs, table.rules)


async def test_master_is_stored_and_then_托管_plays_it_too(db: Database) -> None:
    """Issue 22: 大师 per AI seat; 托管 uses 标准 unless the table chose 大师."""
    service = TableService(db)
    preset, rules = rules_from_args([])
    table = await service.create(chat_id=-1, creator_id=1, preset=preset, rules=rules)
    await service.take_seat(table, seat=0, user_id=100, name="H", locale=None)
    for seat in (1, 2, 3):
        await service.add_ai(table, seat=seat, name=f"AI{seat}")
    assert service.seat_policy(table.seats[0], table) is service.policy  # 标准
    await service.set_difficulty(table, seat=3, difficulty=next_difficulty("normal"))
    stored = await db.seats.get(table_id=table.id, seat=3)
    assert stored.difficulty == "master" == table.seats[3].record.difficulty
    assert service.seat_policy(table.seats[3]) is service.seat_policy(table.seats[0], table)
    assert service.seat_policy(table.seats[0], table) is not service.policy
    assert next_difficulty("master") == "easy"


async def test_master_seats_think_off_the_event_loop(db: Database) -> None:
    """Issue 22: a computer player's move runs in a worker thread, so no group waits behind it."""
    service = TableService(db)
    preset, rules = rules_from_args([])
    table = await service.create(chat_id=-1, creator_id=1, preset=preset, rules=rules)
    await service.take_seat(table, seat=0, user_id=100, name="H", locale=None)
    for seat in (1, 2, 3):
        await service.add_ai(table, seat=seat, name=f"AI{seat}")
        await service.set_difficulty(table, seat=seat, difficulty="master")
    threads: set[str] = set()
    original = service.computer._bot_action

    def spy(*args: Any) -> Any:
        threads.add(threading.current_thread().name)
        return original(*args)

    service.computer._bot_action = spy  # type: ignore[method-assign]
    await service.start(table)
    assert table.match is not None
    if not threads:  # the human leads: the bots answer the lead
        obs = table.observe(0)
        await service.act(table, seat=0, action=planner.choose_action(obs, table.rules))
    assert threads and threading.main_thread().name not in threads
    assert table.match.to_act == (0,)


def test_lobby_keyboard_offers_a_difficulty_button_per_ai_seat() -> None:
    keyboard = lobby_keyboard(
        table_id=7,
        names={0: "H", 1: "AI 乙", 3: "AI 丁"},
        deep_link=None,
        locale="zh",
        difficulties={1: "easy", 2: "master", 3: "normal"},
    )
    buttons = [button for row in keyboard.inline_keyboard for button in row]
    levels = [
        b
        for b in buttons
        if isinstance(b.callback_data, str) and Press.decode(b.callback_data).op is Op.DIFFICULTY
    ]
    assert [Press.decode(str(b.callback_data)).arg for b in levels] == [1, 2, 3]
    assert "简单" in levels[0].text and "大师" in levels[1].text and "标准" in levels[2].text
    plain = lobby_keyboard(table_id=7, names={0: "H"}, deep_link=None, locale="en")
    assert all("▸" not in b.text or "Rules" in b.text for row in plain.inline_keyboard for b in row)


def test_hints_offer_the_ai_choice_then_its_other_sensible_plays() -> None:
    hand = tuple(parse_cards("S3 D3 S5 S9 D9 SK"))
    obs_plays = legal_plays(hand, "2")
    preferred, *ranked = [play for play in obs_plays if str(play) in ("S3 D3", "S9 D9", "SK")]
    hints = Hints(1, hand, Rank.TWO, None, preferred, tuple(ranked))
    assert [hints.pick(i) for i in range(3)] == [preferred, *ranked]
    assert {hints.pick(i) for i in range(len(obs_plays))} == set(obs_plays)
