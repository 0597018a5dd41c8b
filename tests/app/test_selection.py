"""Selecting cards: toggles over duplicate faces, readings, hints and timeout defaults."""

from __future__ import annotations

from collections import Counter

import pytest

from app.table.selection import Hints, faces, hint_order, readings, suggestions, toggle
from engine.cards import Card, Rank, parse_cards
from engine.classify import classify
from engine.errors import InvalidCards
from engine.plays import PlayKind

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


def test_selection_that_cannot_be_played_has_no_reading() -> None:
    hand = parse_cards("S3 S8 SJ")
    previous = classify(parse_cards("S9"), LEVEL)[0]
    assert readings(Counter(parse_cards("S8")), hand, LEVEL, previous) == []
    assert readings(Counter(parse_cards("S3 S8")), hand, LEVEL, previous) == []
    assert readings(Counter(), hand, LEVEL, previous) == []
    assert len(readings(Counter(parse_cards("SJ")), hand, LEVEL, previous)) == 1
    with pytest.raises(InvalidCards):
        readings(Counter(parse_cards("HA")), hand, LEVEL, previous)


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


def test_hints_cycle_from_the_preferred_play_and_build_the_list_only_when_asked() -> None:
    hand = tuple(parse_cards("S3 S4 S4 S4 S4 H9"))
    full = suggestions(hand, LEVEL, None, None)
    preferred = full[5]
    hints = Hints(1, hand, LEVEL, None, preferred)
    assert hints.pick(0) == preferred and hints._all is None  # the first hint costs no list
    ordered = hint_order(full, preferred)
    assert [hints.pick(i) for i in range(len(ordered) + 1)] == [*ordered, ordered[0]]
    previous = classify(parse_cards("RJ"), LEVEL)[0]
    assert Hints(1, tuple(parse_cards("S3 H9")), LEVEL, previous, None).pick(0) is None
