"""classify(): every hand kind, every wildcard reading, the exact sizes and the edge cases."""

from __future__ import annotations

import pytest

from engine import Rank, classify, parse_cards
from engine.plays import PlayKind

S = PlayKind.SINGLE
P = PlayKind.PAIR
T = PlayKind.TRIPLE
FH = PlayKind.FULL_HOUSE
ST = PlayKind.STRAIGHT
PR = PlayKind.PAIR_RUN
TR = PlayKind.TRIPLE_RUN
B = PlayKind.BOMB
SF = PlayKind.STRAIGHT_FLUSH
JB = PlayKind.JOKER_BOMB


def readings(text: str, level: str = "2") -> set[tuple[PlayKind, int]]:
    return {(play.kind, play.rank) for play in classify(text, level)}


@pytest.mark.parametrize(
    ("cards", "level", "expected"),
    [
        # singles: natural order, level rank above A, jokers on top; a lone wildcard is the level rank
        ("S3", "2", {(S, 3)}),
        ("SA", "2", {(S, 14)}),
        ("S2", "2", {(S, 15)}),
        ("ST", "T", {(S, 15)}),
        ("HT", "T", {(S, 15)}),
        ("HT", "2", {(S, 10)}),
        ("BJ", "2", {(S, 16)}),
        ("RJ", "2", {(S, 17)}),
        # pairs
        ("S7 C7", "2", {(P, 7)}),
        ("S7 S7", "2", {(P, 7)}),
        ("S7 HT", "T", {(P, 7)}),
        ("HT HT", "T", {(P, 15)}),
        ("ST HT", "T", {(P, 15)}),
        ("BJ BJ", "2", {(P, 16)}),
        ("RJ RJ", "2", {(P, 17)}),
        ("BJ RJ", "2", set()),
        ("S7 S8", "2", set()),
        # triples
        ("S9 C9 D9", "2", {(T, 9)}),
        ("S9 C9 HT", "T", {(T, 9)}),
        ("S9 HT HT", "T", {(T, 9)}),
        ("SA HA H5", "5", {(T, 14)}),
        ("S5 C5 H5", "5", {(T, 15)}),
        ("S9 C9 D8", "2", set()),
        # full houses: the triple's rank counts; the pair may be jokers; ranks must differ (A25)
        ("S5 C5 D5 SQ HQ", "2", {(FH, 5)}),
        ("S6 C6 D6 S4 C4", "2", {(FH, 6)}),
        ("S3 C3 D3 BJ BJ", "2", {(FH, 3)}),
        ("S3 C3 D3 RJ RJ", "2", {(FH, 3)}),
        ("S4 C4 H5 RJ RJ", "5", {(FH, 4)}),
        ("S3 C3 D3 BJ RJ", "2", set()),
        ("S3 C3 D3 S3 C4", "2", set()),
        ("S2 C2 D2 SA CA", "2", {(FH, 15)}),
        ("SA CA DA S2 C2", "2", {(FH, 14)}),
        # two pairs and a wildcard read both ways; the wildcard never joins a joker
        ("S3 C3 S5 C5 HT", "T", {(FH, 3), (FH, 5)}),
        ("S3 C3 BJ BJ HT", "T", {(FH, 3)}),
        ("S3 C3 BJ HT HT", "T", set()),
        # straights: exactly five; A low only as A2345, high only as 10JQKA; no wrap
        ("SA C2 D3 S4 C5", "T", {(ST, 5)}),
        ("ST CJ DQ SK CA", "2", {(ST, 14)}),
        ("S9 CT DJ SQ CK", "2", {(ST, 13)}),
        ("SJ CQ DK SA C2", "T", set()),
        ("SQ CK DA S2 C3", "T", set()),
        ("S3 C4 D5 S6", "T", set()),
        ("S3 C4 D5 S6 C7 D8", "T", set()),
        ("SA C3 D4 S5 C6", "T", set()),
        ("HT S4 C5 D6 S7", "T", {(ST, 7), (ST, 8)}),
        ("HT S3 C4 D6 S7", "T", {(ST, 7)}),
        ("HT HT SJ CQ DK", "T", {(ST, 13), (ST, 14)}),
        ("HT HT SA C2 D3", "T", {(ST, 5)}),
        ("S3 C4 D5 S6 BJ", "T", set()),
        # same-suit runs of five: a straight flush only (A23); with a wildcard also a straight
        ("S3 S4 S5 S6 S7", "2", {(SF, 7)}),
        ("SA S2 S3 S4 S5", "T", {(SF, 5)}),
        ("HT HJ HQ HK HA", "2", {(SF, 14)}),
        ("S3 S4 S5 S6 HT", "T", {(ST, 6), (ST, 7), (SF, 6), (SF, 7)}),
        ("ST SJ SQ H2 SA", "2", {(ST, 14), (SF, 14)}),
        ("C2 C3 C4 C6 HT", "T", {(ST, 6), (SF, 6)}),
        # pair runs: exactly three pairs; AA2233 lowest, QQKKAA highest, level cards natural
        ("S3 C3 S4 C4 S5 C5", "2", {(PR, 5)}),
        ("SA CA S2 C2 S3 C3", "T", {(PR, 3)}),
        ("SQ CQ SK CK SA CA", "2", {(PR, 14)}),
        ("SK CK SA CA S2 C2", "T", set()),
        ("S3 C3 S4 C4 S5 C5 S6 C6", "2", set()),
        ("S3 C3 S4 C4", "2", set()),
        ("S3 C3 S4 C4 S4 S5", "2", set()),
        ("S3 C3 S4 C4 S5 C5", "4", {(PR, 5)}),
        ("S3 C3 S5 C5 HT HT", "T", {(PR, 5)}),
        ("S3 C3 S4 C4 HT HT", "T", {(PR, 4), (PR, 5), (TR, 4)}),
        # triple runs: exactly two triples; AAA222 lowest, KKKAAA highest, nothing attached
        ("S3 C3 D3 S4 C4 D4", "2", {(TR, 4)}),
        ("SA CA DA S2 C2 D2", "T", {(TR, 2)}),
        ("SK CK DK SA CA DA", "T", {(TR, 14)}),
        ("SA CA DA SK CK DK", "T", {(TR, 14)}),
        ("S3 C3 D3 S5 C5 D5", "2", set()),
        ("S3 C3 D3 S4 C4 D4 S5 S5", "2", set()),
        ("S3 C3 S4 C4 D4 H5", "5", {(TR, 4)}),
        # bombs of one rank, four to ten cards, wildcards filling; the ladder's rank is the singles order
        ("S8 C8 D8 H8", "2", {(B, 8)}),
        ("S8 C8 D8 H8 S8", "2", {(B, 8)}),
        ("S8 C8 D8 H8 S8 C8 D8 H8", "2", {(B, 8)}),
        ("S8 C8 D8 H8 S8 C8 D8 H8 HT", "T", {(B, 8)}),
        ("S8 C8 D8 H8 S8 C8 D8 H8 HT HT", "T", {(B, 8)}),
        ("S8 C8 HT HT", "T", {(B, 8)}),
        ("S8 C8 D8 HT", "T", {(B, 8)}),
        ("S5 C5 D5 S5", "5", {(B, 15)}),
        ("S5 C5 D5 S5 C5 D5 H5 H5", "5", {(B, 15)}),
        ("S8 C8 D8 H8 S7", "2", set()),
        # three of a rank and two wildcards: a bomb, or the wildcards as a pair of another rank
        ("S3 C3 D3 HT HT", "T", {(B, 3), (FH, 3)}),
        ("S3 C3 D3 S3 HT", "T", {(B, 3)}),
        # four jokers, and the wildcard never makes a joker
        ("BJ BJ RJ RJ", "2", {(JB, 17)}),
        ("BJ BJ RJ HT", "T", set()),
        ("BJ BJ HT HT", "T", set()),
        ("RJ HT", "T", set()),
        ("BJ BJ HT", "T", set()),
        ("BJ BJ RJ RJ HT", "T", set()),
        ("", "2", set()),
    ],
)
def test_readings(cards: str, level: str, expected: set[tuple[PlayKind, int]]) -> None:
    assert readings(cards, level) == expected


def test_plays_keep_the_real_cards_sorted_by_index() -> None:
    (play,) = classify(parse_cards("HT S4 C5 D6 S7"), "T")[:1]
    assert [card.index for card in play.cards] == sorted(card.index for card in play.cards)
    assert sorted(str(card) for card in play.cards) == sorted(["HT", "S4", "C5", "D6", "S7"])


def test_level_accepts_rank_or_text() -> None:
    text_readings = readings("HT S4 C5 D6 S7", "10")
    assert text_readings == readings("HT S4 C5 D6 S7", "T")
    assert {(p.kind, p.rank) for p in classify(parse_cards("HT S4 C5 D6 S7"), Rank.TEN)} == text_readings


def test_wildcards_are_only_the_level_hearts() -> None:
    assert readings("ST S4 C5 D6 S7", "T") == set()
    assert readings("HT S4 C5 D6 S7", "9") == set()
    assert readings("H9 S4 C5 D6 S7", "9") == {(ST, 7), (ST, 8)}


def test_sequence_ranks_follow_the_reading() -> None:
    plays = {play.rank: play for play in classify("HT S4 C5 D6 S7", "T")}
    assert [r.char for r in plays[7].sequence_ranks()] == list("34567")
    assert [r.char for r in plays[8].sequence_ranks()] == list("45678")
    (low,) = classify("SA CA S2 C2 S3 C3", "T")
    assert [r.char for r in low.sequence_ranks()] == list("A23")
