"""提示's suggestions are thought out when the turn begins, so the press finds them ready; a
thought the table has moved past is never used."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.table import hints
from app.table.hints import hints_for, suggestions, think_ahead
from app.table.settings import rules_from_args
from app.table.tables import LiveTable, TableService
from app.table.thinking import Lane, Thinking
from engine.match import observe
from handlers.table.play import _hint
from players.planner import choose_action
from storage import Database


class CountingThinking(Thinking):
    """The bot's lanes, noting which lane each piece of work went to."""

    def __init__(self) -> None:
        super().__init__()
        self.lanes: list[Lane] = []

    async def run(self, lane: Lane, work: Any, *args: object) -> Any:
        self.lanes.append(lane)
        return await super().run(lane, work, *args)


@pytest.fixture
async def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(hints, "AHEAD_DELAY", 0.0)  # the test waits for the thought, not for time
    db = await Database.open(tmp_path / "h.db")
    service = TableService(db, new_seed=lambda: 9)
    service.thinking = CountingThinking()
    preset, rules = rules_from_args(["wechat-6-deals", "points_deals=2"])
    live = await service.create(chat_id=-1, creator_id=1, preset=preset, rules=rules)
    for seat in range(4):
        await service.take_seat(live, seat=seat, user_id=100 + seat, name=f"H{seat}", locale=None)
    await service.start(live)
    yield live, service
    await service.thinking.close()
    await db.close()


async def _thought(live: LiveTable, seat: int) -> None:
    """Until the seat's suggestions have been thought out ahead (a state, not a duration)."""
    for _ in range(10_000):
        ahead = live.seats[seat].selection.ahead
        if ahead is not None and ahead[1].done():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the suggestions were never thought out ahead")


async def test_the_first_hint_of_a_turn_was_thought_out_when_the_turn_began(table) -> None:
    live, service = table
    seat = live.match.to_act[0]
    think_ahead(service, live)
    await _thought(live, seat)
    assert service.thinking.lanes == [Lane.AHEAD]
    assert await _hint(live, live.seats[seat], service) is None
    assert service.thinking.lanes == [Lane.AHEAD]  # the press did not think: it took the thought
    fresh = suggestions(live.version, observe(live.match, seat), live.rules, service.policy)
    assert live.seats[seat].selection.hints == fresh
    assert live.seats[seat].selection.hint_play == fresh.preferred


async def test_a_thought_the_table_moved_past_is_not_used(table) -> None:
    """A seat that is to act again after others moved (or a press at a later version) gets
    suggestions for the table as it is now."""
    live, service = table
    leader = live.match.to_act[0]
    think_ahead(service, live)
    await _thought(live, leader)
    stale = live.seats[leader].selection.ahead
    await service.act(live, seat=leader, action=choose_action(observe(live.match, leader), live.rules))
    seat = live.match.to_act[0]
    live.seats[seat].selection.ahead = stale  # as if a thought of the old version were left there
    got = await hints_for(service, live, live.seats[seat])
    assert got.version == live.version and service.thinking.lanes[-1] is Lane.HINTS
    assert got == suggestions(live.version, observe(live.match, seat), live.rules, service.policy)


async def test_nothing_is_thought_ahead_for_a_seat_the_bot_plays(table) -> None:
    live, service = table
    seat = live.match.to_act[0]
    state = live.seats[seat]
    state.record = replace(state.record, autoplay=True)  # 托管: the bot plays the seat
    think_ahead(service, live)
    await asyncio.sleep(0.01)
    assert state.selection.ahead is None and service.thinking.lanes == []
    state.record = replace(state.record, autoplay=False)
    think_ahead(service, live)
    await _thought(live, seat)
    assert service.thinking.lanes == [Lane.AHEAD]


async def test_a_press_does_not_wait_for_a_thought_still_queued_behind_other_turns(table) -> None:
    """Under load the lane runs behind: a thought not yet begun is taken off its queue and the
    press thinks in 提示's own lane; one already begun is awaited (tested above)."""
    live, service = table
    seat = live.match.to_act[0]
    busy = threading.Event()
    blocked = asyncio.ensure_future(service.thinking.run(Lane.AHEAD, busy.wait, 10))  # another table's turn
    think_ahead(service, live)
    for _ in range(10_000):
        if live.seats[seat].selection.ahead is not None:
            break
        await asyncio.sleep(0.001)
    queued = live.seats[seat].selection.ahead
    assert queued is not None and not queued.started.is_set()
    got = await hints_for(service, live, live.seats[seat])
    assert service.thinking.lanes[-1] is Lane.HINTS
    assert got == suggestions(live.version, observe(live.match, seat), live.rules, service.policy)
    busy.set()
    await blocked
    assert queued.thought.cancelled() and not queued.started.is_set()  # never thought twice
