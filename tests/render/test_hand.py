"""The hand image: only the observer's cards, selection, labels, size and determinism."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from engine.actions import Phase
from engine.cards import Card, Rank, parse_cards, sort_hand
from engine.classify import classify
from engine.observation import Observation, SeatView, TributeView
from render import samples
from render.arrange import hand_groups
from render.faces import STRIP
from render.hand import GROUP_GAP, WIDTH, hand_image, hand_layout, render_hand
from render.theme import HAND_CARD
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


# ---------------------------------------------------------------- 理牌: every corner in view, groups apart

FIFTEEN = "RJ SA HK CQ DJ ST H9 S8 C7 H6 S6 D5 C4 D3 S2"  # one row, a rank change at every card
GROUPED = "S9 H9 C9 D9 S9 H3 H4 H5 H6 H7 S5 S5 D5 C5 RJ RJ BJ BJ CT CJ CQ CK CA DA D2 S3 D3"


def layouts() -> list[tuple[str, list[Card], Rank, bool]]:
    """Seeded hands of every size, both arrangements, and the hands that crowd a row most."""
    cases = [
        (f"seed {seed}, {size} cards", samples.deal(seed, size)[2], Rank.SEVEN, group)
        for seed in range(6)
        for size in (1, 5, 14, 15, 16, 21, 27)
        for group in (False, True)
    ]
    crowded = [(text, parse_cards(text), Rank.TWO) for text in (FIFTEEN, GROUPED)]
    cases += [(*case, group) for case in crowded for group in (False, True)]
    return cases


@pytest.mark.parametrize(("name", "cards", "level", "group"), layouts())
def test_every_card_keeps_its_corner_in_view_and_groups_stand_apart(
    name: str, cards: list[Card], level: Rank, group: bool
) -> None:
    """Cards are drawn left to right: a card drawn later on the same row must not reach into
    an earlier card's corner strip (rank, suit and button label), and a card of another run
    (a bomb or straight flush set apart) must not touch it at all: bare felt between them."""
    hand = sort_hand(cards, level)
    slots = hand_layout(hand, level, group=group)
    assert sorted(s.position for s in slots) == list(range(len(hand)))
    strip, width = HAND_CARD.px(STRIP), HAND_CARD.width
    for k, card in enumerate(slots):
        assert card.x >= 0 and card.x + width <= WIDTH, (name, card)
        for later in slots[k + 1 :]:
            if later.row != card.row:
                continue
            reach = card.x + (strip if later.run == card.run else width + GROUP_GAP)
            assert later.x >= reach, f"{name}: {hand[later.position]} covers {hand[card.position]}"
    runs = [tuple(s.position for s in slots if s.run == run) for run in sorted({s.run for s in slots})]
    groups = hand_groups(hand, level, group=group)
    assert all(any(set(run) <= set(g) for g in groups) for run in runs)  # a run never mixes groups
