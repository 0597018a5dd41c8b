"""A deal's board keeps its header — 第 N 副 · 打 R · 比分 a:b — through every edit and in
every message the deal takes; and the pictures name a deal the way the texts do (副)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from PIL import ImageDraw

from app.table.texts import deal_header
from engine.actions import DealEnded, Event
from engine.cards import Rank
from engine.rules import Rules
from handlers.table.board import ChatBudget
from render import samples
from render.results import deal_result_image, match_summary_image
from storage import Database
from tests.handlers.test_board import FakeBot, db, play_fast, publisher, seated_table

__all__ = ["db"]  # the fixture

HEADER = re.compile(r"^🃏 <b>第 (\d+) 副</b> · 打 \S+ · 比分 (\d+):(\d+)$")


async def test_every_board_message_keeps_the_score_in_its_header(db: Database) -> None:
    """Each trick's message (GUANDAN_BOARD=trick) is edited once play moves on, and the deal's
    last one when it ends: all of them keep the score the deal is played at."""
    service, table = await seated_table(db, seed=5)
    published: list[Event] = []
    bot = FakeBot()
    board = publisher(
        bot, service, db, budget=ChatBudget(limit=18, window=0.3), interval=0.02, per_trick=True
    )  # type: ignore[arg-type]
    await play_fast(service, table, board, published)
    ended = [e for e in published if isinstance(e, DealEnded)]
    assert len(ended) >= 2
    score_before = {1: (0, 0), 2: ended[0].points}
    texts = [
        bot.texts[s.message_id] for s in bot.sent if s.kind == "text" and "🃏" in bot.texts[s.message_id]
    ]
    assert len(texts) > 4 and bot.edits > 0
    for text in texts:
        found = HEADER.match(text.split("\n")[0])
        assert found, text.split("\n")[0]
        deal, a, b = (int(g) for g in found.groups())
        assert (a, b) == score_before[deal]


def test_level_matches_keep_both_teams_levels_in_the_header() -> None:
    text = deal_header(3, Rank.FIVE, (Rank.FIVE, Rank.THREE), (0, 0), Rules.default(), "zh")
    assert text == "🃏 <b>第 3 副</b> · 打 5 · 南北 5 / 东西 3"


def test_pictures_call_a_deal_副_like_the_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str] = []
    original = ImageDraw.ImageDraw.text

    def text(self: ImageDraw.ImageDraw, xy: Any, words: Any, *args: Any, **kwargs: Any) -> None:
        drawn.append(str(words))
        original(self, xy, words, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", text)
    deal_result_image(samples.deal_result())
    match_summary_image(samples.match_summary())
    assert any(word.startswith("第 ") and "副" in word for word in drawn)
    assert "副" in drawn
    assert "局" not in drawn
    assert not any(re.search(r"第 ?\d+ ?局", word) for word in drawn)
