"""The seat's view the page draws: the 记牌器 travels as counts per rank, in the seat's view only
and only where the table's rules turn it on (as the chat's hand caption shows it)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.table.settings import rules_from_args
from app.table.tables import LiveTable, TableService
from engine.actions import PlayCards
from engine.cards import Rank
from players.easy import timeout_action
from storage import Database
from webapp.view import seat_state

STRONGEST_FIRST_AT_TWO = ["RJ", "BJ", "2", "A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3"]


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "v.db")
    yield database
    await database.close()


async def started(db: Database, *settings: str, chat: int = -7) -> tuple[TableService, LiveTable]:
    service = TableService(db, new_seed=lambda: 7)
    _, rules = rules_from_args(list(settings))
    table = await service.create(chat_id=chat, creator_id=1, preset="x", rules=rules)
    for seat in range(4):
        await service.take_seat(table, seat=seat, user_id=20 + seat, name=f"P{seat}", locale=None)
    await service.start(table)
    return service, table


def counts(view: dict[str, object]) -> dict[str, int]:
    counter = view["counter"]
    assert isinstance(counter, dict)
    return {rank: left for rank, left in counter["ranks"]} | {"wild": counter["wild"]}


async def test_the_counter_is_the_cards_out_per_rank_strongest_first(db: Database) -> None:
    service, table = await started(db)
    assert table.match is not None and table.match.level is Rank.TWO
    seat = table.match.to_act[0]
    view = seat_state(table, seat, "zh")
    assert view["counter"] is not None
    assert [rank for rank, _ in view["counter"]["ranks"]] == STRONGEST_FIRST_AT_TWO
    hand = [card for group in view["hand"] for card in group]
    out = counts(view)
    assert sum(out.values()) == 108 - 27  # two decks, less the seat's own hand
    assert out["RJ"] == 2 - hand.count("RJ") and out["K"] == 8 - sum(card[1] == "K" for card in hand)
    assert out["wild"] == 2 - hand.count("H2") and out["2"] == 6 - sum(
        c[1] == "2" and c != "H2" for c in hand
    )
    action = timeout_action(table.observe(seat))
    assert isinstance(action, PlayCards)
    await service.act(table, seat=seat, action=action)
    later = counts(seat_state(table, (seat + 2) % 4, "en"))  # the partner saw the play go
    assert sum(later.values()) == 108 - 27 - len(action.play.cards)


async def test_no_counter_for_a_spectator_or_where_the_rules_turn_it_off(db: Database) -> None:
    _, table = await started(db)
    assert seat_state(table, None, "zh")["counter"] is None
    _, contest = await started(db, "wechat-6-deals", chat=-8)
    assert not contest.rules.card_counter
    assert all(seat_state(contest, seat, "zh")["counter"] is None for seat in range(4))
    _, switched = await started(db, "card_counter=off", chat=-9)
    assert seat_state(switched, 0, "zh")["counter"] is None
