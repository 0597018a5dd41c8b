"""legal_plays(), is_legal() and readings_for(): soundness, completeness and golden counts."""

from __future__ import annotations

import json
from collections import Counter
from itertools import product
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    CARDS,
    Card,
    InvalidCards,
    Play,
    Rank,
    beats,
    classify,
    is_legal,
    legal_plays,
    parse_cards,
    readings_for,
)
from engine.cards import PLAIN_RANKS
from engine.plays import PlayKind

GOLDEN = Path(__file__).parent.parent / "data" / "legal_play_counts.json"


def brute_force(hand: list[Card], level: Rank, previous: Play | None) -> set[Play]:
    """Every reading of every sub-multiset of the hand that may be played now."""
    faces = sorted(Counter(hand).items(), key=lambda item: item[0].index)
    found: set[Play] = set()
    for take in product(*(range(n + 1) for _, n in faces)):
        cards = [card for (card, _), k in zip(faces, take, strict=True) for _ in range(k)]
        found.update(p for p in classify(cards, level) if previous is None or beats(p, previous))
    return found


def wildcard(level: Rank) -> Card:
    return CARDS[(level - 2) * 4 + 1]


@st.composite
def hands(draw: st.DrawFn, max_size: int) -> tuple[list[Card], Rank]:
    """Hands packed into a few adjacent ranks (plus jokers and wildcards) so runs and bombs occur."""
    level = draw(st.sampled_from(PLAIN_RANKS))
    low = draw(st.integers(2, 11))
    pool = [card for card in CARDS if low <= card.rank <= low + 3 or card.rank == Rank.ACE or card.is_joker]
    pool.append(wildcard(level))
    cards = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=max_size))
    counts = Counter(cards)
    return [
        card for card, n in sorted(counts.items(), key=lambda i: i[0].index) for _ in range(min(n, 2))
    ], level


@st.composite
def table_plays(draw: st.DrawFn, level: Rank) -> Play | None:
    """None (leading) or a play some other hand at this level could make."""
    if draw(st.booleans()):
        return None
    other, _ = draw(hands(10))
    plays = legal_plays(other, level)
    return draw(st.sampled_from(plays)) if plays else None


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_every_offered_play_is_sound(data: st.DataObject) -> None:
    hand, level = data.draw(hands(16))
    previous = data.draw(table_plays(level))
    plays = legal_plays(hand, level, previous)
    assert len(plays) == len(set(plays))
    held = Counter(hand)
    for play in plays:
        assert not Counter(play.cards) - held
        assert list(play.cards) == sorted(play.cards, key=lambda card: card.index)
        assert play in classify(play.cards, level)
        assert previous is None or beats(play, previous)
        assert is_legal(play, hand, level, previous)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_small_hands_match_brute_force(data: st.DataObject) -> None:
    hand, level = data.draw(hands(8))
    previous = data.draw(table_plays(level))
    assert set(legal_plays(hand, level, previous)) == brute_force(hand, level, previous)


@st.composite
def wildcard_hands(draw: st.DrawFn) -> tuple[list[Card], Rank]:
    """10–12 cards holding both wildcards and 1–3 natural level cards, the rest packed into a
    few adjacent ranks (plus aces and jokers): where full houses, runs and bombs meet wildcards."""
    level = draw(st.sampled_from(PLAIN_RANKS))
    wild = wildcard(level)
    naturals = [card for card in CARDS if card.rank == level and card is not wild]
    hand = [wild, wild, *draw(st.lists(st.sampled_from(naturals), min_size=1, max_size=3))]
    low = draw(st.integers(2, 11))
    pool = [card for card in CARDS if (low <= card.rank <= low + 3 or card.rank == Rank.ACE or card.is_joker)]
    pool = [card for card in pool if card.rank != level]
    size = draw(st.integers(10, 12))
    while len(hand) < size:
        card = draw(st.sampled_from(pool))
        if hand.count(card) < 2:
            hand.append(card)
    return sorted(hand, key=lambda card: card.index), level


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.large_base_example, HealthCheck.too_slow],
)
@given(st.data())
def test_wildcard_hands_of_ten_to_twelve_cards_match_brute_force(data: st.DataObject) -> None:
    """Issue 10: the contract is every distinct (kind, rank, card multiset), wildcards included;
    about 4,000 sub-multisets per hand keep this at a few seconds."""
    hand, level = data.draw(wildcard_hands())
    previous = data.draw(table_plays(level))
    assert set(legal_plays(hand, level, previous)) == brute_force(hand, level, previous)


def test_five_level_cards_are_a_bomb_not_a_full_house() -> None:
    """A25: a full house needs two different ranks; C8 D8 S8 with ♥8♥8 is five 8s."""
    cards = parse_cards("C8 D8 H8 H8 S8")
    assert [(p.kind, p.rank) for p in classify(cards, "8")] == [(PlayKind.BOMB, 15)]
    assert [p for p in legal_plays(cards, "8") if p.kind is PlayKind.FULL_HOUSE] == []
    houses = {
        str(p) for p in legal_plays(parse_cards("C8 D8 H8 H8 S8 S3"), "8") if p.kind is PlayKind.FULL_HOUSE
    }
    assert "S3 H8 H8 C8 D8" in houses  # 888 + 3♥8: two ranks, still a full house
    assert {(p.kind, p.rank) for p in classify("S3 C3 D3 H8 H8", "8")} == {
        (PlayKind.BOMB, 3),
        (PlayKind.FULL_HOUSE, 3),
    }


@pytest.mark.parametrize(
    ("level", "hand", "house", "lower"),
    [
        ("2", "S3 C3 D3 D2 H2 C2 S9 SK BJ", "H2 D2 S3 C3 D3", None),
        ("2", "S3 C3 D3 D2 H2 H2 C2 S9", "H2 D2 S3 C3 D3", None),
        ("8", "S6 C6 D6 D8 H8 S8 S9 RJ", "S6 C6 D6 H8 D8", "S2 C2"),
        ("8", "S6 C6 D6 D8 H8 H8 S8 C8", "S6 C6 D6 H8 D8", "S2 C2"),
    ],
)
def test_full_houses_with_the_wildcard_at_face_value_beside_level_cards(
    level: str, hand: str, house: str, lower: str | None
) -> None:
    """Issue 10 item 2: 333 + D2♥2 at level 2, 666 + D8♥8 at level 8, leading and following
    a lower full house (its triple is ``lower``'s rank, its pair 5s; at level 2 none is lower)."""
    cards = parse_cards(hand)
    leads = {str(p) for p in legal_plays(cards, level) if p.kind is PlayKind.FULL_HOUSE}
    assert house in leads
    if lower is None:
        return
    table = classify(parse_cards(f"{lower} D{lower[1]} S5 C5"), level)[0]
    assert table.kind is PlayKind.FULL_HOUSE
    assert house in {str(p) for p in legal_plays(cards, level, table)}


def test_suit_choices_are_distinct_plays() -> None:
    plays = legal_plays(parse_cards("S7 H7 C7"), "2")
    pairs = [str(p) for p in plays if p.kind is PlayKind.PAIR]
    assert sorted(pairs) == ["H7 C7", "S7 C7", "S7 H7"]
    assert len(plays) == 3 + 3 + 1


def test_wildcard_plays() -> None:
    plays = legal_plays(parse_cards("S7 HT HT"), "T")
    assert {(p.kind, p.rank, str(p)) for p in plays} == {
        (PlayKind.SINGLE, 7, "S7"),
        (PlayKind.SINGLE, 15, "HT"),
        (PlayKind.PAIR, 7, "S7 HT"),
        (PlayKind.PAIR, 15, "HT HT"),
        (PlayKind.TRIPLE, 7, "S7 HT HT"),
    }


def test_following_builds_only_higher_same_kind_and_bombs() -> None:
    hand = parse_cards("S3 C3 S9 C9 D9 H9 SQ CQ BJ")
    previous = classify("S8 C8", "2")[0]
    plays = legal_plays(hand, "2", previous)
    assert {(p.kind, p.rank) for p in plays} == {(PlayKind.PAIR, 9), (PlayKind.PAIR, 12), (PlayKind.BOMB, 9)}
    bomb = classify("S5 C5 D5 H5", "2")[0]
    assert {str(p) for p in legal_plays(hand, "2", bomb)} == {"S9 H9 C9 D9"}
    assert legal_plays(hand, "2", classify("BJ BJ RJ RJ", "2")[0]) == []


def test_straight_followed_by_straight_flush_as_a_bomb_only() -> None:
    hand = parse_cards("S9 ST SJ SQ SK")
    previous = classify("S3 C4 D5 S6 C7", "2")[0]
    assert [(p.kind, p.rank) for p in legal_plays(hand, "2", previous)] == [(PlayKind.STRAIGHT_FLUSH, 13)]


def test_readings_for_filters_and_checks_the_hand() -> None:
    hand = parse_cards("S3 C3 S5 C5 HT S9")
    selection = parse_cards("S3 C3 S5 C5 HT")
    assert sorted(p.rank for p in readings_for(selection, hand, "T")) == [3, 5]
    previous = classify("S4 C4 D4 S2 C2", "T")[0]
    assert [p.rank for p in readings_for(selection, hand, "T", previous)] == [5]
    with pytest.raises(InvalidCards):
        readings_for(parse_cards("S3 C3 S3"), hand, "T")
    assert readings_for(parse_cards("S3 S9"), hand, "T") == []


def test_is_legal() -> None:
    hand = parse_cards("S3 C3 S5 C5 HT S9")
    (three, five) = sorted(classify("S3 C3 S5 C5 HT", "T"), key=lambda p: p.rank)
    assert is_legal(three, hand, "T") and is_legal(five, hand, "T")
    assert not is_legal(three, parse_cards("S3 C3 S5 C5 S9"), "T")
    previous = classify("S4 C4 D4 S2 C2", "T")[0]
    assert not is_legal(three, hand, "T", previous) and is_legal(five, hand, "T", previous)
    forged = Play(PlayKind.FULL_HOUSE, 9, five.cards)
    assert not is_legal(forged, hand, "T")


def golden_cases() -> list[dict[str, object]]:
    cases = json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]
    assert isinstance(cases, list)
    return cases


@pytest.mark.parametrize("case", golden_cases(), ids=lambda case: str(case["name"]))
def test_golden_counts(case: dict[str, object]) -> None:
    """Like perft counts: per-kind numbers of distinct plays for fixed 27-card hands."""
    level = str(case["level"])
    previous = case["previous"]
    table = None
    if isinstance(previous, dict):
        table = Play(PlayKind(previous["kind"]), int(previous["rank"]), tuple(parse_cards(previous["cards"])))
        assert table in classify(table.cards, level)
    plays = legal_plays(parse_cards(str(case["hand"])), level, table)
    counts = Counter(play.kind.value for play in plays)
    assert dict(counts) == case["counts"]
    assert len(plays) == case["total"]
