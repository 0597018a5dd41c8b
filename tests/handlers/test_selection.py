"""Selecting cards: toggles over duplicate faces, readings, hints and timeout defaults."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.actions import Pass, PlayCards
from engine.cards import Card, Rank, parse_cards
from engine.classify import classify
from engine.errors import IllegalPlay, InvalidCards
from engine.plays import PlayKind
from handlers.selection import faces, hint_order, readings, suggestions, timeout_action, toggle

LEVEL = Rank.TWO


def test_toggle_cycles_through_the_copies_held() -> None:
    card = Card.parse("S9")
    selection: Counter[Card] = Counter()
    counts = []
    for _ in range(3):
        selection = toggle(selection, card, held=2)
        counts.append(selection[card])
    assert counts == [1, 2, 0]
    assert card not in selection


def test_toggle_refuses_a_card_not_held() -> None:
    with pytest.raises(InvalidCards):
        toggle(Counter(), Card.parse("S9"), held=0)


def test_faces_group_duplicates_strongest_first() -> None:
    hand = parse_cards("S3 S3 H9 RJ D4")
    assert faces(hand, LEVEL) == [
        (Card.parse("RJ"), 1),
        (Card.parse("H9"), 1),
        (Card.parse("D4"), 1),
        (Card.parse("S3"), 2),
    ]


def test_straight_selection_reads_as_one_straight() -> None:
    hand = parse_cards("S3 H4 C5 D6 S7 S9")
    found = readings(Counter(parse_cards("S3 H4 C5 D6 S7")), hand, LEVEL, None)
    assert [(p.kind, p.rank) for p in found] == [(PlayKind.STRAIGHT, 7)]


def test_wildcard_selection_has_several_readings() -> None:
    hand = parse_cards("H2 S5 C5 D9")
    found = readings(Counter(parse_cards("H2 S5 C5")), hand, LEVEL, None)
    assert len(found) >= 1
    pair_with_wild = readings(Counter(parse_cards("H2 S5")), hand, LEVEL, None)
    assert {p.kind for p in pair_with_wild} == {PlayKind.PAIR}


def test_selection_that_does_not_beat_says_so() -> None:
    hand = parse_cards("S3 S8")
    previous = classify(parse_cards("S9"), LEVEL)[0]
    with pytest.raises(IllegalPlay, match="does not beat"):
        readings(Counter(parse_cards("S8")), hand, LEVEL, previous)
    with pytest.raises(IllegalPlay, match="no such play"):
        readings(Counter(parse_cards("S3 S8")), hand, LEVEL, previous)
    with pytest.raises(IllegalPlay, match="empty"):
        readings(Counter(), hand, LEVEL, previous)


def test_hints_put_the_preferred_play_first_and_bombs_last() -> None:
    hand = parse_cards("S3 S4 S4 S4 S4 H9")
    plays = suggestions(hand, LEVEL, None, None)
    assert plays[0].kind is PlayKind.SINGLE and plays[0].rank == 3
    assert plays[-1].is_bomb
    preferred = plays[5]
    assert hint_order(plays, preferred)[0] == preferred


def test_nothing_beats_means_no_hint() -> None:
    previous = classify(parse_cards("RJ"), LEVEL)[0]
    assert suggestions(parse_cards("S3 H9"), LEVEL, previous, None) == []


def test_timeout_leader_plays_lowest_single_follower_passes() -> None:
    hand = parse_cards("HA S3 RJ")
    action = timeout_action(hand, LEVEL, None)
    assert isinstance(action, PlayCards)
    assert action.play.cards == (Card.parse("S3"),)
    assert isinstance(timeout_action(hand, LEVEL, classify(parse_cards("S9"), LEVEL)[0]), Pass)
