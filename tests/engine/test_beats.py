"""beats(): same kind and size by rank, equal never beats, and the bomb ladder (docs/rules.md §1.5)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from engine import Play, beats, classify
from engine.plays import PlayKind


def play(text: str, level: str = "2", kind: PlayKind | None = None, rank: int | None = None) -> Play:
    """The only reading of ``text`` (or the one of the given kind / rank)."""
    found = [
        p
        for p in classify(text, level)
        if (kind is None or p.kind is kind) and (rank is None or p.rank == rank)
    ]
    assert len(found) == 1, (text, found)
    return found[0]


def strictly_above(high: Play, low: Play) -> bool:
    return beats(high, low) and not beats(low, high)


def neither(a: Play, b: Play) -> bool:
    return not beats(a, b) and not beats(b, a)


def test_bomb_ladder_from_four_to_four_jokers() -> None:
    ladder = [
        play("S3 C3 D3 H3"),
        play("SA CA DA HA", "K"),
        play("SK CK DK HK", "K"),  # level rank: the top 4-bomb
        play("S3 C3 D3 H3 S3"),
        play("S2 C2 D2 H2 S2"),  # level rank: the top 5-bomb
        play("SA S2 S3 S4 S5"),  # lowest straight flush
        play("ST SJ SQ SK SA"),  # highest straight flush
        play("S3 C3 D3 H3 S3 C3"),
        play("S2 C2 D2 H2 S2 C2"),
        play("S3 C3 D3 H3 S3 C3 D3"),
        play("S3 C3 D3 H3 S3 C3 D3 H3"),
        play("S3 C3 D3 H3 S3 C3 D3 H3 HT", "T"),
        play("S3 C3 D3 H3 S3 C3 D3 H3 HT HT", "T"),
        play("BJ BJ RJ RJ"),
    ]
    for i, low in enumerate(ladder):
        for high in ladder[i + 1 :]:
            assert strictly_above(high, low), (str(high), str(low))
        assert not beats(low, low)


def test_six_bomb_beats_straight_flush_beats_five_bomb_beats_four_bomb() -> None:
    six, flush = play("S2 C2 D2 H2 S2 C2", "A"), play("ST SJ SQ SK SA", "A")
    five, four = play("SA CA DA HA SA", "A"), play("SA CA DA HA", "A")
    assert strictly_above(six, flush) and strictly_above(flush, five) and strictly_above(five, four)


def test_ten_card_bomb_is_eight_naturals_and_both_wildcards() -> None:
    ten = play("S8 C8 D8 H8 S8 C8 D8 H8 H2 H2", "2")
    assert ten.kind is PlayKind.BOMB and ten.size == 10
    assert strictly_above(ten, play("S9 C9 D9 H9 S9 C9 D9 H9 H2", "2"))
    assert strictly_above(play("BJ BJ RJ RJ"), ten)


def test_four_jokers_beat_everything() -> None:
    jokers = play("BJ BJ RJ RJ")
    others = [
        play("RJ"),
        play("RJ RJ"),
        play("S2 C2 D2 S3 C3"),
        play("ST SJ SQ SK SA"),
        play("S3 C3 D3 H3 S3 C3 D3 H3 HT HT", "T"),
    ]
    for other in others:
        assert strictly_above(jokers, other)


def test_any_bomb_beats_any_non_bomb_and_never_the_reverse() -> None:
    bomb = play("S3 C3 D3 H3")
    for text in ["RJ", "RJ RJ", "S2 C2 D2", "SA CA DA SK SK", "ST CJ SQ SK SA", "SQ CQ SK CK SA CA"]:
        other = play(text, "3")
        assert strictly_above(bomb, other)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("S7", "S7 C7"),
        ("S3 C3 S4 C4 S5 C5", "S3 C3 D3 S4 C4 D4"),
        ("S3 C3 D3", "S3 C3 D3 S4 S4"),
        ("S3 C4 D5 S6 C7", "S8 C8 D8 S9 C9"),
    ],
)
def test_different_kinds_never_beat(a: str, b: str) -> None:
    assert neither(play(a), play(b))


def test_equal_never_beats() -> None:
    assert neither(play("S7 C7"), play("D7 H7"))
    assert neither(play("S6 C6 D6 S4 C4"), play("H6 C6 D6 S3 C3"))  # 66644 == 66633
    assert neither(play("S3 C4 D5 S6 C7"), play("C3 D4 S5 C6 D7"))
    assert neither(play("S3 S4 S5 S6 S7"), play("D3 D4 D5 D6 D7"))  # suits never rank
    assert neither(play("S9 C9 D9 H9"), play("S9 C9 D9 H2"))


def test_wildcard_version_equals_the_natural_one() -> None:
    natural = play("ST SJ SQ SK SA", "2")
    wild = play("ST SJ SQ H2 SA", "2", kind=PlayKind.STRAIGHT_FLUSH)
    assert natural.kind is wild.kind and natural.rank == wild.rank == 14
    assert neither(natural, wild)
    assert neither(play("S9 C9 D9 H9", "2"), play("S9 C9 D9 H2", "2"))


def test_singles_pairs_triples_follow_the_level_order() -> None:
    order = ["S3", "SA", "S5", "BJ", "RJ"]  # at level 5
    for low, high in pairwise(order):
        assert strictly_above(play(high, "5"), play(low, "5"))
    assert strictly_above(play("S5 C5", "5"), play("SA CA", "5"))
    assert strictly_above(play("BJ BJ", "5"), play("H5 H5", "5"))
    assert strictly_above(play("RJ RJ", "5"), play("BJ BJ", "5"))
    assert strictly_above(play("S5 C5 D5", "5"), play("SA CA DA", "5"))
    assert strictly_above(play("S2 C2 D2 S3 C3", "2"), play("SA CA DA SK CK", "2"))


@pytest.mark.parametrize(
    ("low", "high", "level"),
    [
        ("SA C2 D3 S4 C5", "S2 C3 D4 S5 C6", "T"),  # A2345 is the smallest straight
        ("S9 CT DJ SQ CK", "ST CJ DQ SK CA", "T"),  # 10JQKA the largest
        ("SA CA S2 C2 S3 C3", "S2 C2 S3 C3 S4 C4", "T"),  # AA2233 the smallest pair run
        ("SJ CJ SQ CQ SK CK", "SQ CQ SK CK SA CA", "T"),  # QQKKAA the largest
        ("SA CA DA S2 C2 D2", "S2 C2 D2 S3 C3 D3", "T"),  # AAA222 the smallest triple run
        ("SQ CQ DQ SK CK DK", "SK CK DK SA CA DA", "T"),  # KKKAAA the largest
        ("S3 C3 S4 C4 S5 C5", "S5 C5 S6 C6 S7 C7", "4"),  # level cards are natural inside runs
        ("S3 C4 D5 S6 C7", "S4 C5 D6 S7 C8", "4"),
        ("SA S2 S3 S4 S5", "S2 S3 S4 S5 S6", "T"),
        ("S9 ST SJ SQ SK", "DT DJ DQ DK DA", "T"),
    ],
)
def test_sequences_by_top_card(low: str, high: str, level: str) -> None:
    lows = [p for p in classify(low, level) if not p.is_bomb or p.kind is PlayKind.STRAIGHT_FLUSH]
    highs = [p for p in classify(high, level) if not p.is_bomb or p.kind is PlayKind.STRAIGHT_FLUSH]
    assert lows and highs
    assert all(strictly_above(h, lo) for h in highs for lo in lows if h.kind is lo.kind)
    assert any(h.kind is lo.kind for h in highs for lo in lows)
