"""Reading a set of cards as plays (牌型识别), wildcards (逢人配) included.

A set of cards can have several readings when it holds wildcards: ``33 55 ♥T`` at
level 10 is both 333+55 and 555+33, and a straight with a wildcard may have two
heights. :func:`classify` returns every reading; choosing one is the caller's job
(docs/rules.md A24: an explicit interpretation, else the lowest legal one).

Reading conventions (docs/rules.md §1.2–§1.5; A7, A23, A25):

- A wildcard stands for any non-joker card of any rank and suit, or for itself.
- A set made only of wildcards (one ♥T, or ♥T♥T at level 10) reads as the level rank
  only: every lower reading is beaten by it and beats nothing it does not, so the
  lower readings are dominated and left out.
- A same-suit run of five without wildcards is always a straight flush (A23); with a
  wildcard it is also a plain straight, because the wildcard may take another suit.
- Level cards sit at their natural place inside straights and runs; A is low only
  when joined to 2 (A2345, AA2233, AAA222); there is no wrap-around.
- Three of a rank and both wildcards (``333 ♥T♥T``) are a 5-card bomb and also the full
  house 333+TT; both readings are kept, as the full house may follow a full house where
  the bomb would waste a bomb. Three level cards and both wildcards (``TTT ♥T♥T``) are
  five of one rank: a bomb only, as a full house needs two different ranks (A25).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from engine.cards import Card, Rank, level_order, parse_cards, parse_rank
from engine.plays import Play, PlayKind

MAX_BOMB: Final = 10
"""Eight naturals plus the two wildcards (A7)."""

STRAIGHT_LOWS: Final = range(1, 11)
"""Lowest natural value of a straight: 1 (A2345) .. 10 (10JQKA)."""

_RUN_SHAPES: Final = ((PlayKind.PAIR_RUN, 3, 2), (PlayKind.TRIPLE_RUN, 2, 3))
"""(kind, number of ranks, cards per rank) of the two multi-rank runs."""


def natural_rank(value: int) -> Rank:
    """The face rank at a natural sequence value (1 is the low A)."""
    return Rank.ACE if value == 1 else Rank(value)


def window_ranks(low: int, length: int) -> tuple[Rank, ...]:
    """The face ranks of a sequence starting at natural value ``low`` (1 = low A)."""
    return tuple(natural_rank(v) for v in range(low, low + length))


def classify(cards: Iterable[Card] | str, level: Rank | str) -> list[Play]:
    """Every reading of exactly these cards as one play; ``[]`` when there is none.

    >>> [p.rank for p in classify("S3 S3 C5 D5 HT", "T")]
    [3, 5]
    """
    level = parse_rank(level)
    hand = parse_cards(cards) if isinstance(cards, str) else list(cards)
    ordered = tuple(sorted(hand, key=_index))
    wild = sum(1 for card in ordered if card.is_wildcard(level))
    naturals = [card for card in ordered if not card.is_wildcard(level)]
    size = len(ordered)
    if size == 0:
        return []
    readings = _same_rank_readings(naturals, wild, level)
    if size == 5:
        readings.extend(_full_house_readings(naturals, wild, level))
        readings.extend(_straight_readings(naturals, wild))
    if size == 6:
        readings.extend(_run_readings(naturals))
    return [Play(kind, rank, ordered) for kind, rank in readings]


def _index(card: Card) -> int:
    return card.index


_SAME_RANK_KINDS: Final = {1: PlayKind.SINGLE, 2: PlayKind.PAIR, 3: PlayKind.TRIPLE}


def _same_rank_readings(naturals: list[Card], wild: int, level: Rank) -> list[tuple[PlayKind, int]]:
    """Singles, pairs, triples, bombs and the joker bomb: all cards of one rank."""
    size = len(naturals) + wild
    if size == 4 and wild == 0 and _is_joker_bomb(naturals):
        return [(PlayKind.JOKER_BOMB, 17)]
    ranks = {card.rank for card in naturals}
    if len(ranks) > 1 or size > MAX_BOMB:
        return []
    rank = ranks.pop() if ranks else level
    if rank.is_joker and (wild or size > 2):
        return []
    kind = _SAME_RANK_KINDS.get(size, PlayKind.BOMB)
    return [(kind, level_order(rank, level))]


def _is_joker_bomb(naturals: list[Card]) -> bool:
    ranks = sorted(card.rank for card in naturals)
    return ranks == [Rank.SMALL_JOKER, Rank.SMALL_JOKER, Rank.BIG_JOKER, Rank.BIG_JOKER]


def _rank_counts(naturals: list[Card]) -> dict[Rank, int]:
    counts: dict[Rank, int] = {}
    for card in naturals:
        counts[card.rank] = counts.get(card.rank, 0) + 1
    return counts


def _full_house_readings(naturals: list[Card], wild: int, level: Rank) -> list[tuple[PlayKind, int]]:
    """三带二: a triple and a pair of another rank; the pair may be two equal jokers (A25)."""
    counts = _rank_counts(naturals)
    if len(counts) > 2:
        return []
    readings = []
    for triple_rank, count in counts.items():
        if triple_rank.is_joker or count > 3:
            continue
        others = [(rank, n) for rank, n in counts.items() if rank != triple_rank]
        if not others:
            fits = count == 3 and wild == 2 and triple_rank != level  # five level cards: a bomb only
        else:
            pair_rank, pair_count = others[0]
            fits = pair_count <= 2 and not (pair_rank.is_joker and pair_count < 2)
        if fits:
            readings.append((PlayKind.FULL_HOUSE, level_order(triple_rank, level)))
    return sorted(readings, key=lambda reading: reading[1])


def _covers(counts: dict[Rank, int], low: int, length: int, per_rank: int) -> bool:
    """Whether every natural fits the window with at most ``per_rank`` of each rank."""
    window = window_ranks(low, length)
    return all(rank in window and n <= per_rank for rank, n in counts.items())


def _straight_readings(naturals: list[Card], wild: int) -> list[tuple[PlayKind, int]]:
    """顺子 and 同花顺 of exactly five; wildcards fill the gaps (and may take another suit)."""
    counts = _rank_counts(naturals)
    if any(rank.is_joker for rank in counts):
        return []
    flush = len({card.suit for card in naturals}) == 1
    readings = []
    for low in STRAIGHT_LOWS:
        if _covers(counts, low, 5, 1):
            if not flush or wild:
                readings.append((PlayKind.STRAIGHT, low + 4))
            if flush:
                readings.append((PlayKind.STRAIGHT_FLUSH, low + 4))
    return readings


def _run_readings(naturals: list[Card]) -> list[tuple[PlayKind, int]]:
    """三连对 and 钢板: three consecutive pairs or two consecutive triples."""
    counts = _rank_counts(naturals)
    if any(rank.is_joker for rank in counts):
        return []
    readings = []
    for kind, length, per_rank in _RUN_SHAPES:
        for low in range(1, 16 - length):
            if _covers(counts, low, length, per_rank):
                readings.append((kind, low + length - 1))
    return readings
