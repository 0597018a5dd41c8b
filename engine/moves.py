"""Legal plays (出牌生成): every distinct play a hand may make now.

Two plays are distinct when kind, rank or the multiset of cards differ, so suit
choices are listed one by one: which ♠7 or ♥7 a pair uses decides which bombs and
straight flushes stay in hand. The generator never calls :func:`classify`; it builds
each kind from per-rank card counts, and when following it only builds the table's
kind above the table's rank plus the bombs that beat the table.

:func:`is_legal` and :func:`readings_for` check one selection without listing the
hand's plays (python-chess's ``board.is_legal(move)`` next to ``board.legal_moves``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from itertools import product
from typing import Final

from engine.cards import CARDS, SUITS, Card, Rank, level_order, parse_rank
from engine.classify import MAX_BOMB, STRAIGHT_LOWS, classify, natural_rank
from engine.errors import InvalidCards
from engine.plays import Play, PlayKind, beats

_NATURAL_RANKS: Final = tuple(range(2, 15))
"""Natural values of the thirteen plain ranks, 2..A."""

_RUN_LOWS: Final = {PlayKind.PAIR_RUN: range(1, 13), PlayKind.TRIPLE_RUN: range(1, 14)}
_RUN_SHAPE: Final = {PlayKind.PAIR_RUN: (3, 2), PlayKind.TRIPLE_RUN: (2, 3)}
_SMALL_JOKER_INDEX: Final = 52
_BIG_JOKER_INDEX: Final = 53

Group = tuple[tuple[Card, ...], int]
"""Cards making one rank's share of a play, and how many of them are wildcards."""


def _index(card: Card) -> int:
    return card.index


@lru_cache(maxsize=2048)
def _natural_groups(
    rank: int, pattern: tuple[int, int, int, int]
) -> tuple[tuple[tuple[Card, ...], ...], ...]:
    """All sub-multisets of one rank's cards, by size; ``pattern`` counts each suit.

    There are at most 13 x 81 keys (two copies of each suit), so the cache is bounded.
    """
    base = (rank - 2) * 4
    by_size: list[list[tuple[Card, ...]]] = [[] for _ in range(9)]
    for take in product(*(range(n + 1) for n in pattern)):
        cards: tuple[Card, ...] = ()
        for suit, n in enumerate(take):
            cards += (CARDS[base + suit],) * n
        by_size[sum(take)].append(cards)
    return tuple(tuple(group) for group in by_size)


class _HandCounts:
    """A hand counted per card face and per rank, with its wildcards set apart."""

    def __init__(self, hand: Iterable[Card], level: Rank) -> None:
        self.level = level
        self.wildcard = Card(level, SUITS[1])
        counts = [0] * 54
        for card in hand:
            counts[card.index] += 1
        self.wild = counts[self.wildcard.index]
        counts[self.wildcard.index] = 0
        self.counts = counts

    def order(self, rank: int) -> int:
        """Singles order of a plain rank at this level."""
        return 15 if rank == self.level else rank

    def naturals(self, rank: int, size: int) -> tuple[tuple[Card, ...], ...]:
        """Sub-multisets of ``size`` natural (non-wildcard) cards of ``rank``."""
        if size > 8:
            return ()
        base = (rank - 2) * 4
        counts = self.counts
        pattern = (counts[base], counts[base + 1], counts[base + 2], counts[base + 3])
        return _natural_groups(rank, pattern)[size]

    def groups(self, rank: int, size: int, all_wild: bool = False) -> list[Group]:
        """Ways to show ``size`` cards of ``rank``, wildcards standing in for naturals.

        ``all_wild`` allows a share made only of wildcards (inside runs, or a pair
        of the level rank); elsewhere such a set reads as the level rank instead.
        """
        groups: list[Group] = []
        for used in range(min(self.wild, size) + 1):
            if used == size and not all_wild:
                break
            fill = (self.wildcard,) * used
            for cards in self.naturals(rank, size - used):
                groups.append((tuple(sorted(cards + fill, key=_index)) if used else cards, used))
        return groups


def legal_plays(hand: Iterable[Card], level: Rank | str, previous: Play | None = None) -> list[Play]:
    """Every distinct play ``hand`` may make: any play when leading, else those beating ``previous``."""
    counts = _HandCounts(hand, parse_rank(level))
    if previous is None:
        plays: list[Play] = []
        for generate in _LEAD_GENERATORS:
            plays.extend(generate(counts, 0))
        plays.extend(_bombs(counts, (0, 0)))
        return plays
    plays = []
    if not previous.is_bomb:
        plays.extend(_FOLLOW_GENERATORS[previous.kind](counts, previous.rank + 1))
    plays.extend(_bombs(counts, previous.bomb_power))
    return plays


def _singles(hand: _HandCounts, min_rank: int) -> Iterator[Play]:
    for index, n in enumerate(hand.counts):
        if n:
            card = CARDS[index]
            rank = level_order(card.rank, hand.level)
            if rank >= min_rank:
                yield Play(PlayKind.SINGLE, rank, (card,))
    if hand.wild and min_rank <= 15:
        yield Play(PlayKind.SINGLE, 15, (hand.wildcard,))


def _same_rank(kind: PlayKind, size: int) -> Callable[[_HandCounts, int], Iterator[Play]]:
    def generate(hand: _HandCounts, min_rank: int) -> Iterator[Play]:
        for rank in _NATURAL_RANKS:
            order = hand.order(rank)
            if order >= min_rank:
                for cards, _ in hand.groups(rank, size, all_wild=order == 15):
                    yield Play(kind, order, cards)
        if kind is PlayKind.PAIR:
            yield from _joker_pairs(hand, min_rank)

    return generate


def _joker_pairs(hand: _HandCounts, min_rank: int) -> Iterator[Play]:
    for index, rank in ((_SMALL_JOKER_INDEX, 16), (_BIG_JOKER_INDEX, 17)):
        if hand.counts[index] == 2 and rank >= min_rank:
            yield Play(PlayKind.PAIR, rank, (CARDS[index],) * 2)


def _full_houses(hand: _HandCounts, min_rank: int) -> Iterator[Play]:
    """三带二: any triple with a pair of another rank (joker pairs and ♥♥ included)."""
    pairs: list[tuple[int, Group]] = []
    for rank in _NATURAL_RANKS:
        pairs.extend((rank, group) for group in hand.groups(rank, 2))
    if hand.wild == 2:
        pairs.append((0, ((hand.wildcard, hand.wildcard), 2)))
    pairs.extend((0, (play.cards, 0)) for play in _joker_pairs(hand, 0))
    for rank in _NATURAL_RANKS:
        order = hand.order(rank)
        if order < min_rank:
            continue
        for triple, used in hand.groups(rank, 3):
            for pair_rank, (pair, pair_used) in pairs:
                if pair_rank != rank and used + pair_used <= hand.wild:
                    cards = tuple(sorted(triple + pair, key=_index))
                    yield Play(PlayKind.FULL_HOUSE, order, cards)


def _sequence_options(hand: _HandCounts, low: int, length: int, per_rank: int) -> list[list[Group]]:
    return [hand.groups(natural_rank(v), per_rank, all_wild=True) for v in range(low, low + length)]


def _combine(options: list[list[Group]], wild: int) -> Iterator[tuple[tuple[Card, ...], int]]:
    """Pick one group per rank of a run, spending at most ``wild`` wildcards."""
    for choice in product(*options):
        used = sum(n for _, n in choice)
        if used <= wild:
            cards: tuple[Card, ...] = ()
            for part, _ in choice:
                cards += part
            yield tuple(sorted(cards, key=_index)), used


def _straights(hand: _HandCounts, min_rank: int, flushes: bool = False) -> Iterator[Play]:
    """顺子 (and, with ``flushes``, only the 同花顺 among the same cards)."""
    for low in STRAIGHT_LOWS:
        top = low + 4
        if top < min_rank:
            continue
        for cards, used in _combine(_sequence_options(hand, low, 5, 1), hand.wild):
            suits = {card.suit for card in cards if card is not hand.wildcard}
            flush = len(suits) == 1
            if flushes and flush:
                yield Play(PlayKind.STRAIGHT_FLUSH, top, cards)
            if not flushes and (used or not flush):
                yield Play(PlayKind.STRAIGHT, top, cards)


def _runs(kind: PlayKind) -> Callable[[_HandCounts, int], Iterator[Play]]:
    length, per_rank = _RUN_SHAPE[kind]

    def generate(hand: _HandCounts, min_rank: int) -> Iterator[Play]:
        for low in _RUN_LOWS[kind]:
            top = low + length - 1
            if top >= min_rank:
                for cards, _ in _combine(_sequence_options(hand, low, length, per_rank), hand.wild):
                    yield Play(kind, top, cards)

    return generate


def _bomb_tier(size: int) -> int:
    return {4: 3, 5: 4}.get(size, size)


def _bombs(hand: _HandCounts, above: tuple[int, int]) -> Iterator[Play]:
    """Every bomb whose place on the ladder (:attr:`Play.bomb_power`) is above ``above``."""
    for rank in _NATURAL_RANKS:
        order = hand.order(rank)
        top = sum(hand.counts[(rank - 2) * 4 : (rank - 1) * 4]) + hand.wild
        for size in range(4, min(top, MAX_BOMB) + 1):
            if (_bomb_tier(size), order) > above:
                for cards, _ in hand.groups(rank, size):
                    yield Play(PlayKind.BOMB, order, cards)
    if above < (5, 14):
        yield from (play for play in _straights(hand, 0, flushes=True) if (5, play.rank) > above)
    if hand.counts[_SMALL_JOKER_INDEX] == 2 and hand.counts[_BIG_JOKER_INDEX] == 2:
        yield Play(PlayKind.JOKER_BOMB, 17, (CARDS[_SMALL_JOKER_INDEX],) * 2 + (CARDS[_BIG_JOKER_INDEX],) * 2)


_FOLLOW_GENERATORS: Final[dict[PlayKind, Callable[[_HandCounts, int], Iterator[Play]]]] = {
    PlayKind.SINGLE: _singles,
    PlayKind.PAIR: _same_rank(PlayKind.PAIR, 2),
    PlayKind.TRIPLE: _same_rank(PlayKind.TRIPLE, 3),
    PlayKind.FULL_HOUSE: _full_houses,
    PlayKind.STRAIGHT: _straights,
    PlayKind.PAIR_RUN: _runs(PlayKind.PAIR_RUN),
    PlayKind.TRIPLE_RUN: _runs(PlayKind.TRIPLE_RUN),
}
_LEAD_GENERATORS: Final = tuple(_FOLLOW_GENERATORS.values())


def _missing(cards: Iterable[Card], hand: Iterable[Card]) -> list[Card]:
    """Cards of the selection beyond what the hand holds (as a multiset)."""
    left = Counter(cards)
    left.subtract(Counter(hand))
    return sorted((card for card, n in left.items() if n > 0), key=_index)


def readings_for(
    cards: Iterable[Card], hand: Iterable[Card], level: Rank | str, previous: Play | None = None
) -> list[Play]:
    """The readings of a player's selection that may be played now.

    Raises :class:`InvalidCards` when the selection uses cards the hand does not hold.
    """
    selection = list(cards)
    missing = _missing(selection, hand)
    if missing:
        raise InvalidCards("not in hand: " + " ".join(str(card) for card in missing))
    readings = classify(selection, level)
    if previous is None:
        return readings
    return [play for play in readings if beats(play, previous)]


def is_legal(play: Play, hand: Iterable[Card], level: Rank | str, previous: Play | None = None) -> bool:
    """Whether ``play`` is a true reading of its cards, held by ``hand`` and beating ``previous``."""
    if _missing(play.cards, hand):
        return False
    if previous is not None and not beats(play, previous):
        return False
    return play in classify(play.cards, level)
