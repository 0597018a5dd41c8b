"""Seeded pictures compared with stored PNGs (UPDATE_GOLDEN=1 rewrites them)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.cards import Rank, parse_cards
from render import samples
from render.contest import render_bracket, render_standings
from render.hand import render_hand
from render.play import render_play
from render.results import render_deal_result, render_match_summary
from tests.render.helpers import assert_matches_golden


def hand_zh() -> bytes:
    obs = samples.hand_observation(seed=1)
    return render_hand(obs, selected={3, 4}, labels=samples.display_labels(obs), names=samples.NAMES)


def hand_en_grouped() -> bytes:
    hand = parse_cards("RJ BJ H7 S7 D7 SA HA CK SQ DJ S9 H9 C9 D9 C9 D8 C3 C4 C5 C6 C2 DT S5 H4 S2 D2 HT")
    obs = samples.observation(hand, Rank.SEVEN)
    return render_hand(
        obs,
        labels=samples.display_labels(obs, group=True),
        locale="en",
        four_color=True,
        names=samples.ENGLISH_NAMES,
        group=True,
    )


CASES: dict[str, Callable[[], bytes]] = {
    "hand_zh": hand_zh,
    "hand_en_grouped": hand_en_grouped,
    "play_straight_flush": lambda: render_play(samples.play("straight_flush"), Rank.SEVEN, caption="南 张三"),
    "play_full_house_en": lambda: render_play(samples.play("full_house"), Rank.SEVEN, locale="en"),
    "deal_result": lambda: render_deal_result(samples.deal_result()),
    "match_summary": lambda: render_match_summary(samples.match_summary()),
    "standings": lambda: render_standings(samples.standings()),
    "bracket": lambda: render_bracket(samples.bracket()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_golden(name: str) -> None:
    assert_matches_golden(name, CASES[name]())
