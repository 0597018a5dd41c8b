"""The hand image: only the observer's cards, selection, labels, size and determinism."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from engine.actions import Phase
from engine.cards import Rank, parse_cards
from engine.classify import classify
from engine.observation import Observation, SeatView, TributeView
from render import samples
from render.hand import WIDTH, hand_image, render_hand
from tests.render.helpers import decode, mean_difference, record_drawn_cards


def test_draws_exactly_the_cards_in_obs_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = record_drawn_cards(monkeypatch)
    obs = with_other_seats_visible(samples.hand_observation(seed=3))
    render_hand(obs)
    assert Counter(drawn) == Counter(obs.hand)


def with_other_seats_visible(obs: Observation) -> Observation:
    """The same view with other seats' plays and tributes filled in."""
    others = samples.deal(3)[1]
    play = classify(others[:1], obs.level)[0]
    seats = tuple(dataclasses.replace(s, last_action=play) for s in obs.seats)
    return dataclasses.replace(
        obs,
        table_play=play,
        table_seat=1,
        seats=(seats[0], seats[1], seats[2], seats[3]),
        tributes=(TributeView(1, 2, others[5], False),),
        must_tribute_from=tuple(others[6:8]),
    )


def test_nothing_but_the_own_hand_changes_the_picture() -> None:
    obs = samples.hand_observation(seed=3)
    assert render_hand(obs) == render_hand(with_other_seats_visible(obs))


def test_same_input_same_bytes() -> None:
    obs = samples.hand_observation(seed=5)
    labels = samples.display_labels(obs)
    assert render_hand(obs, selected={1}, labels=labels) == render_hand(obs, selected={1}, labels=labels)


def test_full_hand_is_phone_sized_and_under_150_kb() -> None:
    obs = samples.hand_observation(seed=1)
    data = render_hand(obs, selected={0, 5, 9}, labels=samples.display_labels(obs), four_color=True)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) <= 150_000
    assert decode(data).width == WIDTH


def test_selection_changes_the_picture() -> None:
    obs = samples.hand_observation(seed=1)
    plain, chosen = hand_image(obs), hand_image(obs, selected={4})
    assert mean_difference(plain, chosen) > 0.1


def test_labels_are_drawn() -> None:
    obs = samples.hand_observation(seed=1)
    assert mean_difference(hand_image(obs), hand_image(obs, labels=samples.display_labels(obs))) > 0.1


def test_short_hands_use_one_row_and_long_hands_two() -> None:
    one = hand_image(samples.hand_observation(seed=1, size=12))
    two = hand_image(samples.hand_observation(seed=1, size=16))
    assert two.height > one.height


@pytest.mark.parametrize("size", [0, 1, 2, 15, 16, 27, 28, 40])
def test_any_hand_size_renders(size: int) -> None:
    assert render_hand(samples.hand_observation(seed=2, size=size))


@pytest.mark.parametrize(
    "names",
    [None, ("😀", "", "\u200d\x00", "x" * 200), ("赵六长长长长长长长长长长长长长长长长长长名字",) * 4, ()],
)
def test_odd_names_never_crash(names: tuple[str, ...] | None) -> None:
    assert render_hand(samples.hand_observation(seed=2), names=names, locale="en")


def test_the_public_view_renders_without_a_hand() -> None:
    seats = tuple(SeatView(s, 27, None, None, False) for s in range(4))
    obs = Observation(
        seat=None,
        hand=(),
        level=Rank.TWO,
        team_levels=(Rank.TWO, Rank.TWO),
        declarer_team=0,
        deal_number=1,
        phase=Phase.PLAY,
        to_act=(0,),
        table_play=None,
        table_seat=None,
        seats=(seats[0], seats[1], seats[2], seats[3]),
        finish_order=(),
        tributes=(),
        points=(0, 0),
        a_failures=(0, 0),
        version=0,
    )
    assert render_hand(obs)


def test_wildcards_in_hand_render_in_both_locales() -> None:
    obs = samples.observation(parse_cards("H7 H7 S7 BJ RJ S3"), Rank.SEVEN)
    assert render_hand(obs, locale="zh") != render_hand(obs, locale="en")


def test_the_fixed_palette_keeps_the_picture_faithful() -> None:
    obs = samples.hand_observation(seed=6)
    labels = samples.display_labels(obs)
    for four_color in (False, True):
        image = hand_image(obs, selected={2, 7}, labels=labels, four_color=four_color)
        data = render_hand(obs, selected={2, 7}, labels=labels, four_color=four_color)
        assert mean_difference(image, decode(data)) < 0.8
