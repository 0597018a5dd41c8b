"""legal_plays(), is_legal() and readings_for(): soundness, completeness and golden counts."""

from __future__ import annotations

import json
from collections import Counter
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given, settings
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
