"""Deal results, match summaries, standings and brackets render from their views."""

from __future__ import annotations

import dataclasses

import pytest

from engine.cards import Card
from engine.observation import TributeView
from render import samples
from render.contest import (
    BracketMatch,
    BracketRound,
    BracketView,
    StandingsView,
    bracket_image,
    render_standings,
)
from render.results import deal_result_image, match_summary_image, render_deal_result, tribute_line
from tests.render.helpers import decode


def test_tribute_line_words() -> None:
    names = ("李四", "王五", "张三", "赵六")
    assert tribute_line(TributeView(1, 2, Card.parse("HA"), False), names) == "西 王五 → 南 张三 进贡 ♥A"
    assert tribute_line(TributeView(2, 1, None, True), (), "en") == "South → West returns"


@pytest.mark.parametrize("locale", ["zh", "en"])
def test_deal_result_renders(locale: str) -> None:
    data = render_deal_result(samples.deal_result(locale == "en"), locale=locale)
    assert decode(data).width == 1080


def test_more_sections_make_a_taller_board() -> None:
    plain = dataclasses.replace(samples.deal_result(), tribute_lines=())
    winner = dataclasses.replace(plain, winner_team=0, notes=("南北 打 A 失败 1 次",), points=(3, 1))
    assert deal_result_image(winner).height > deal_result_image(plain).height


def test_match_summary_keeps_to_the_last_deals() -> None:
    summary = samples.match_summary()
    long = dataclasses.replace(summary, deals=summary.deals * 5)
    assert match_summary_image(long).height > match_summary_image(summary).height
    assert (
        match_summary_image(long).height
        == match_summary_image(dataclasses.replace(long, deals=long.deals * 2)).height
    )


def test_standings_and_empty_standings_render() -> None:
    assert render_standings(samples.standings(), locale="en")
    assert render_standings(StandingsView("空", (), ()))


def test_bracket_places_a_match_between_the_two_it_follows() -> None:
    first = BracketRound("半决赛", (BracketMatch(("A", "B"), ("1", "0"), 0), BracketMatch(("C", "D"))))
    final = BracketRound("决赛", (BracketMatch(("A", None)),))
    image = bracket_image(BracketView("淘汰赛", (first, final)))
    assert image.width >= 1080
    assert bracket_image(samples.bracket()).height > image.height
