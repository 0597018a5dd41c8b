"""The group board against a recording fake bot: coalesced redraws, the send budget,
a result picture per deal and the match result at the end."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from engine.actions import DealEnded
from engine.ai import timeout_action
from engine.match import observe
from handlers.board import BoardPublisher, ChatBudget
from handlers.table_service import TableService, rules_from_args
from storage import Database


@dataclass
class Sent:
    kind: str
    at: float
    text: str


@dataclass
class FakeBot:
    sent: list[Sent] = field(default_factory=list)
    edits: int = 0
    next_id: int = 100

    async def send_message(self, chat_id: int, text: str, **_: Any) -> Any:
        return self._record("text", text)

    async def send_photo(self, chat_id: int, photo: bytes, caption: str = "", **_: Any) -> Any:
        assert photo.startswith(b"\x89PNG")
        return self._record("photo", caption)

    async def edit_message_text(self, text: str, **_: Any) -> None:
        self.edits += 1

    def _record(self, kind: str, text: str) -> Any:
        self.next_id += 1
        self.sent.append(Sent(kind, time.monotonic(), text))
        return type("Message", (), {"message_id": self.next_id})()


@pytest.fixture
async def db(tmp_path: Path):
    database = await Database.open(tmp_path / "b.db")
    yield database
    await database.close()


async def test_board_keeps_within_the_budget_and_posts_results(db: Database) -> None:
    service = TableService(db, new_seed=lambda: 3)
    _, rules = rules_from_args(["wechat-6-deals", "points_deals=2"])
    table = await service.create(chat_id=-5, creator_id=1, preset="x", rules=rules)
    for seat in range(4):
        await service.take_seat(table, seat=seat, user_id=10 + seat, name=f"P{seat}", locale=None)
    bot = FakeBot()
    window, limit = 0.5, 4
    board = BoardPublisher(
        bot, service, db, budget=ChatBudget(limit=limit, window=window), interval=0.01, reserve=2
    )  # type: ignore[arg-type]
    outcome = await service.start(table)
    board.publish(table, outcome.events)
    deals = 0
    while not table.match.is_over:
        seat = table.match.to_act[0]
        outcome = await service.act(table, seat=seat, action=timeout_action(observe(table.match, seat)))
        deals += sum(isinstance(e, DealEnded) for e in outcome.events)
        board.publish(table, outcome.events)
        await asyncio.sleep(0.002)
    await board.drain(table.id)
    times = [s.at for s in bot.sent]
    assert max(sum(1 for t in times if start <= t < start + window) for start in times) <= limit
    photos = [s for s in bot.sent if s.kind == "photo"]
    assert len(photos) == deals + 1
    assert "🏆" in bot.sent[-1].text
    assert bot.edits > 0
