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

from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache
from itertools import chain, combinations, product
from operator import attrgetter
from typing import Final

from engine.cards import CARDS, SUITS, Card, Rank, level_order, parse_rank
from engine.classify import MAX_BOMB, STRAIGHT_LOWS, classify, natural_rank
from engine.errors import InvalidCards
from engine.plays import Play, PlayKind, beats

Cards = tuple[Card, ...]
Generator = Callable[["HandCounts", int, list[Play]], None]

_NATURAL_RANKS: Final = tuple(range(2, 15))
"""Natural values of the thirteen plain ranks, 2..A."""

_RUN_SHAPES: Final = {PlayKind.PAIR_RUN: (3, 2), PlayKind.TRIPLE_RUN: (2, 3)}
"""(number of ranks, cards per rank) of the two multi-rank runs."""

_NEW: Final = object.__new__
_SET_KIND: Final = Play.__dict__["kind"].__set__
_SET_RANK: Final = Play.__dict__["rank"].__set__
_SET_CARDS: Final = Play.__dict__["cards"].__set__


def _play(kind: PlayKind, rank: int, cards: Cards) -> Play:
    """``Play(kind, rank, cards)`` without the frozen dataclass ``__init__``, which sets each
    field through ``object.__setattr__``: a hand of 27 cards has hundreds of plays."""
    play: Play = _NEW(Play)
    _SET_KIND(play, kind)
    _SET_RANK(play, rank)
    _SET_CARDS(play, cards)
    return play


def _with_fill(cards: Cards, fill: Cards) -> Cards:
    """``cards`` (sorted by index, no wildcard among them) with the wildcards ``fill`` put in
    index order: one binary search instead of a sort."""
    at = bisect_left(cards, fill[0].index, key=_BY_INDEX)
    return cards[:at] + fill + cards[at:]


_SINGLE: Final = PlayKind.SINGLE
_STRAIGHT: Final = PlayKind.STRAIGHT
_BOMB: Final = PlayKind.BOMB
"""Enum members bound once: looking one up on its class is an ``EnumType`` call in hot loops."""

_SMALL_JOKER: Final = CARDS[52]
_BIG_JOKER: Final = CARDS[53]
_BY_INDEX: Final = attrgetter("index")


@lru_cache(maxsize=2048)
def _natural_groups(rank: int, pattern: tuple[int, int, int, int]) -> tuple[tuple[Cards, ...], ...]:
    """All sub-multisets of one rank's cards by size (0..8); ``pattern`` counts each suit.

    There are at most 13 x 81 keys (two copies of each suit), so the cache is bounded.
    """
    base = (rank - 2) * 4
    by_size: list[list[Cards]] = [[] for _ in range(9)]
    for take in product(*(range(n + 1) for n in pattern)):
        cards: Cards = ()
        for suit, n in enumerate(take):
            cards += (CARDS[base + suit],) * n
        by_size[sum(take)].append(cards)
    return tuple(tuple(group) for group in by_size)


@lru_cache(maxsize=64)
def _wild_spreads(length: int, wild: int) -> tuple[tuple[int, ...], ...]:
    """Ways to spend at most ``wild`` wildcards over the ``length`` ranks of a run."""
    spreads = product(range(wild + 1), repeat=length)
    return tuple(spread for spread in spreads if sum(spread) <= wild)


@lru_cache(maxsize=64)
def _window(low: int, length: int) -> tuple[int, ...]:
    """Natural values of a sequence's ranks ordered by card index (a low A goes last)."""
    values = tuple(int(natural_rank(v)) for v in range(low, low + length))
    return values[1:] + values[:1] if low == 1 else values


class HandCounts:
    """A hand counted per card face, with its wildcards (逢人配) set apart.

    ``shares(rank, size)`` lists, by number of wildcards used, every way to show
    ``size`` cards of one rank; it is computed once per hand and reused by pairs,
    triples, full houses, runs and bombs.
    """

    def __init__(self, hand: Iterable[Card], level: Rank) -> None:
        self.level = level
        self.wildcard = Card(level, SUITS[1])
        counts = [0] * 54
        for card in hand:
            counts[card.index] += 1
        self.wild = counts[self.wildcard.index]
        counts[self.wildcard.index] = 0
        self.counts = counts
        self._shares: dict[int, tuple[list[Cards], ...]] = {}

    def order(self, rank: int) -> int:
        """Singles order of a plain rank at this level."""
        return 15 if rank == self.level else rank

    def natural_count(self, rank: int) -> int:
        base = (rank - 2) * 4
        return sum(self.counts[base : base + 4])

    def shares(self, rank: int, size: int) -> tuple[list[Cards], ...]:
        """Entry ``u``: every ``size``-card share of ``rank`` using ``u`` wildcards, sorted by index.

        The last entry may be all wildcards; callers that read such a set as the
        level rank (pairs) or cannot use it skip it.
        """
        key = rank * 16 + size
        found = self._shares.get(key)
        if found is None:
            base = (rank - 2) * 4
            counts = self.counts
            by_size = _natural_groups(
                rank, (counts[base], counts[base + 1], counts[base + 2], counts[base + 3])
            )
            found = tuple(
                self._with_wildcards(by_size, size, used) for used in range(min(self.wild, size) + 1)
            )
            self._shares[key] = found
        return found

    def _with_wildcards(self, by_size: tuple[tuple[Cards, ...], ...], size: int, used: int) -> list[Cards]:
        if size - used >= len(by_size):
            return []
        if not used:
            return list(by_size[size])
        fill = (self.wildcard,) * used
        return [tuple(sorted(cards + fill, key=_BY_INDEX)) for cards in by_size[size - used]]

    def faces(self, rank: int) -> list[Card]:
        """The distinct natural cards of one rank in hand."""
        base = (rank - 2) * 4
        return [CARDS[i] for i in range(base, base + 4) if self.counts[i]]


def legal_plays(hand: Iterable[Card], level: Rank | str, previous: Play | None = None) -> list[Play]:
    """Every distinct play ``hand`` may make: any play when leading, else those beating ``previous``."""
    counts = HandCounts(hand, parse_rank(level))
    plays: list[Play] = []
    if previous is None:
        for generate in _LEAD_GENERATORS:
            generate(counts, 0, plays)
        _bombs(counts, (0, 0), plays)
    else:
        if not previous.is_bomb:
            _FOLLOW_GENERATORS[previous.kind](counts, previous.rank + 1, plays)
        _bombs(counts, previous.bomb_power, plays)
    return plays


def plays_of_kind(hand: HandCounts, kind: PlayKind) -> list[Play]:
    """Every play of one non-bomb ``kind`` in ``hand``, of any rank, in :func:`legal_plays` order."""
    plays: list[Play] = []
    _FOLLOW_GENERATORS[kind](hand, 0, plays)
    return plays


def bombs_of(hand: HandCounts) -> list[Play]:
    """Every bomb of ``hand`` (炸弹, 同花顺, 四王 in that order), in :func:`legal_plays` order."""
    plays: list[Play] = []
    _bombs(hand, (0, 0), plays)
    return plays


def _singles(hand: HandCounts, min_rank: int, plays: list[Play]) -> None:
    for index, n in enumerate(hand.counts):
        if n:
            card = CARDS[index]
            rank = level_order(card.rank, hand.level)
            if rank >= min_rank:
                plays.append(_play(_SINGLE, rank, (card,)))
    if hand.wild and min_rank <= 15:
        plays.append(_play(PlayKind.SINGLE, 15, (hand.wildcard,)))


def _same_rank(kind: PlayKind, size: int) -> Generator:
    """Pairs or triples; only the level rank may be shown by wildcards alone."""

    def generate(hand: HandCounts, min_rank: int, plays: list[Play]) -> None:
        for rank in _NATURAL_RANKS:
            order = hand.order(rank)
            if order >= min_rank:
                for used, shares in enumerate(hand.shares(rank, size)):
                    if used < size or order == 15:
                        plays.extend([_play(kind, order, cards) for cards in shares])
        if kind is PlayKind.PAIR:
            plays.extend(
                [_play(kind, order, pair) for order, pair in _joker_pairs(hand) if order >= min_rank]
            )

    return generate


def _joker_pairs(hand: HandCounts) -> list[tuple[int, Cards]]:
    return [
        (rank, (joker,) * 2)
        for rank, joker in ((16, _SMALL_JOKER), (17, _BIG_JOKER))
        if hand.counts[joker.index] == 2
    ]


def _pairs_by_wildcards(hand: HandCounts) -> list[list[tuple[int, Cards]]]:
    """Entry ``u``: (natural rank, cards) of every pair using ``u`` wildcards; ♥♥ once, as the level
    rank (their face), so that three level cards never take it: five level cards are a bomb (A25)."""
    pairs: list[list[tuple[int, Cards]]] = [[], [], []]
    for rank in _NATURAL_RANKS:
        for used, shares in enumerate(hand.shares(rank, 2)[:2]):
            pairs[used].extend((rank, cards) for cards in shares)
    if hand.wild == 2:
        pairs[2].append((int(hand.level), (hand.wildcard, hand.wildcard)))
    pairs[0].extend(_joker_pairs(hand))
    return pairs


def _full_houses(hand: HandCounts, min_rank: int, plays: list[Play]) -> None:
    """三带二: any triple with a pair of another rank (joker pairs and ♥♥ included)."""
    pairs = _pairs_by_wildcards(hand)
    kind = PlayKind.FULL_HOUSE
    for rank in _NATURAL_RANKS:
        order = hand.order(rank)
        if order < min_rank:
            continue
        for used, triples in enumerate(hand.shares(rank, 3)):
            for pair_used in range(hand.wild - used + 1):
                others = [(r, pair) for r, pair in pairs[pair_used] if r != rank]
                if used or pair_used:
                    plays.extend(
                        [
                            _play(kind, order, tuple(sorted(t + p, key=_BY_INDEX)))
                            for t in triples
                            for _, p in others
                        ]
                    )
                else:
                    plays.extend(
                        [_play(kind, order, p + t if r < rank else t + p) for t in triples for r, p in others]
                    )


def _straights(hand: HandCounts, min_rank: int, plays: list[Play]) -> None:
    """顺子 of exactly five; same-suit naturals without a wildcard are straight flushes instead (A23)."""
    wild = hand.wild
    fill = (hand.wildcard,) * wild
    for low in STRAIGHT_LOWS:
        top = low + 4
        if top < min_rank:
            continue
        faces = [hand.faces(rank) for rank in _window(low, 5)]
        if sum(1 for cards in faces if not cards) > wild:
            continue
        for used in range(wild + 1):
            for wild_at in combinations(range(5), used):
                lists = [cards for position, cards in enumerate(faces) if position not in wild_at]
                if used:
                    wilds = fill[:used]
                    plays.extend(
                        [_play(_STRAIGHT, top, _with_fill(cards, wilds)) for cards in product(*lists)]
                    )
                else:
                    flushes = _flushes(lists)
                    plays.extend([_play(_STRAIGHT, top, c) for c in product(*lists) if c not in flushes])


def _flushes(lists: list[list[Card]]) -> set[Cards]:
    """The single-suit choices of one card per list (each list holds distinct faces)."""
    found = set()
    for suit in SUITS:
        choice = []
        for cards in lists:
            same = [card for card in cards if card.suit is suit]
            if not same:
                break
            choice.append(same[0])
        else:
            found.add(tuple(choice))
    return found


def _runs(kind: PlayKind) -> Generator:
    length, per_rank = _RUN_SHAPES[kind]

    def generate(hand: HandCounts, min_rank: int, plays: list[Play]) -> None:
        spreads = _wild_spreads(length, hand.wild)
        for low in range(1, 16 - length):
            top = low + length - 1
            if top < min_rank:
                continue
            shares = [hand.shares(rank, per_rank) for rank in _window(low, length)]
            for spread in spreads:
                lists = [share[used] for share, used in zip(shares, spread, strict=True)]
                if sum(spread):
                    cards = (
                        tuple(sorted(chain.from_iterable(parts), key=_BY_INDEX)) for parts in product(*lists)
                    )
                else:
                    cards = (tuple(chain.from_iterable(parts)) for parts in product(*lists))
                plays.extend([_play(kind, top, c) for c in cards])

    return generate


_LOW_BOMB_TIERS: Final = {4: 3, 5: 4}


def _bomb_tier(size: int) -> int:
    return _LOW_BOMB_TIERS.get(size, size)


def _bombs(hand: HandCounts, above: tuple[int, int], plays: list[Play]) -> None:
    """Every bomb whose place on the ladder (:attr:`Play.bomb_power`) is above ``above``."""
    for rank in _NATURAL_RANKS:
        order = hand.order(rank)
        for size in range(4, min(hand.natural_count(rank) + hand.wild, MAX_BOMB) + 1):
            if (_bomb_tier(size), order) > above:
                for shares in hand.shares(rank, size):
                    plays.extend([_play(_BOMB, order, cards) for cards in shares])
    if above < (5, 14):
        _straight_flushes(hand, above[1] + 1 if above[0] == 5 else 0, plays)
    if hand.counts[52] == 2 and hand.counts[53] == 2:
        plays.append(_play(PlayKind.JOKER_BOMB, 17, (_SMALL_JOKER,) * 2 + (_BIG_JOKER,) * 2))


_SUIT_RUNS: Final = tuple(
    tuple((int(natural_rank(value)) - 2) * 4 + suit for value in range(1, 15)) for suit in range(4)
)
"""Per suit, the card indices at natural values 1 (low A) .. 14 (A)."""


def _straight_flushes(hand: HandCounts, min_rank: int, plays: list[Play]) -> None:
    """同花顺 suit by suit; a wildcard may fill a gap or replace a card held."""
    counts = hand.counts
    for suit in range(4):
        held_at = [counts[index] > 0 for index in _SUIT_RUNS[suit]]
        for low in STRAIGHT_LOWS:
            if low + 4 < min_rank or 5 - sum(held_at[low - 1 : low + 4]) > hand.wild:
                continue
            naturals = [CARDS[(rank - 2) * 4 + suit] for rank in _window(low, 5)]
            held = [card for card in naturals if hand.counts[card.index]]
            missing = 5 - len(held)
            for used in range(missing, hand.wild + 1):
                for replaced in combinations(held, used - missing):
                    kept = [card for card in held if card not in replaced]
                    cards = tuple(sorted(kept + [hand.wildcard] * used, key=_BY_INDEX))
                    plays.append(_play(PlayKind.STRAIGHT_FLUSH, low + 4, cards))


_FOLLOW_GENERATORS: Final[dict[PlayKind, Generator]] = {
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
    return sorted((card for card, n in left.items() if n > 0), key=_BY_INDEX)


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
