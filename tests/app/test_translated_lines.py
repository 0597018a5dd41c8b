"""Tribute and return lines are worded by the catalogs (issue 8, finding 8)."""

from __future__ import annotations

from app.table.texts import exchange_line
from engine.cards import Card, Rank
from engine.observation import TributeView

NAMES = {0: "Ann", 1: "Bo", 2: "Cy", 3: "Dan"}
BLACK_JOKER = Card(Rank.SMALL_JOKER, None)


def test_a_tribute_reads_chinese_on_a_chinese_board() -> None:
    tribute = TributeView(giver=3, receiver=0, card=BLACK_JOKER, is_return=False)
    assert exchange_line(tribute, NAMES, "zh") == "进贡：东 Dan → 北 Ann 小王"
    assert exchange_line(tribute, NAMES, "en") == "Tribute: East Dan → North Ann Black Joker"


def test_a_return_reads_chinese_and_hides_its_card_from_the_group() -> None:
    back = TributeView(giver=0, receiver=3, card=None, is_return=True)
    assert exchange_line(back, NAMES, "zh") == "还贡：北 Ann → 东 Dan 🂠"
    assert exchange_line(back, NAMES, "en") == "Return: North Ann → East Dan 🂠"
