"""One seat's plays for one deal, each kind generated once and pruned as cards leave.

Cards only leave a hand during play, and a play is legal from a hand exactly when
its cards are still held, so the plays of a kind generated at one turn contain
every later play of that kind. Following needs only the table's kind (above the
table's rank) and the bombs above the table's bomb. This turns one full generation
per turn into at most one per kind per seat per deal plus cheap filtering, which is
what makes self-play fast.

A play's cards are held as one integer with two bits per face, the sum of one
``01`` per card, so a face used once reads ``01`` and twice ``10`` (two packs give
at most two copies). The hand is held as what it lacks: per face, ``11`` when it
has none and ``10`` when it has one. "Are this play's cards still held" is then
one AND.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from itertools import compress
from operator import attrgetter
from typing import Final

from engine.cards import CARDS, Card, Rank
from engine.moves import HandCounts, bombs_of, plays_of_kind
from engine.plays import Play, PlayKind

_ONE: Final[dict[Card, int]] = {card: 1 << (2 * card.index) for card in CARDS}
"""One copy of a face (a dict: a Card hashes by identity, in C)."""

_LACKS_ALL: Final = (1 << (2 * len(CARDS))) - 1

_KINDS: Final = tuple(PlayKind)
_BOMBS: Final = (PlayKind.BOMB, PlayKind.STRAIGHT_FLUSH, PlayKind.JOKER_BOMB)
_RANK: Final[Callable[[Play], int]] = attrgetter("rank")


def _ladder(play: Play) -> int:
    """:attr:`Play.bomb_power` as one int (ranks are below 32), so bisection compares ints."""
    tier, rank = play.bomb_power
    return tier * 32 + rank


def _lacking(hand: Iterable[Card]) -> int:
    """What a hand lacks: the first copy of a face clears its ``01`` bit, the second its ``10``."""
    lacking = _LACKS_ALL
    for card in hand:
        one = _ONE[card]
        lacking &= ~(one if lacking & one else one << 1)
    return lacking


class _Shelf:
    """The plays of one kind, sorted (stably) by their comparison key, with what they need.

    Non-bomb kinds have a fixed size, so their key is the rank; bombs use the bomb ladder.
    """

    __slots__ = ("keys", "needs", "plays", "pruned_at")

    def __init__(self, plays: list[Play], key: Callable[[Play], int], size: int) -> None:
        """``plays`` are those of a hand of ``size`` cards."""
        ordered = sorted(plays, key=key)
        self.plays = ordered
        self.keys = list(map(key, ordered))
        one = _ONE.__getitem__
        self.needs = [sum(map(one, play.cards)) for play in ordered]  # see the module docstring
        self.pruned_at = size  # hand size when last pruned

    def prune(self, lacking: int, size: int) -> None:
        """Drop plays whose cards have left the hand (they never come back this deal)."""
        if self.pruned_at == size:
            return
        held = [not (lacking & need) for need in self.needs]
        self.plays = list(compress(self.plays, held))
        self.keys = list(compress(self.keys, held))
        self.needs = list(compress(self.needs, held))
        self.pruned_at = size

    def above(self, key: int) -> list[Play]:
        return self.plays[bisect_right(self.keys, key) :]


class PlayCache:
    """The plays of one seat's hand, by kind; :meth:`plays` answers for the hand as it shrinks.

    A kind is generated the first time it is asked for, from the hand as it is then:
    followers ask for one kind and the bombs, and a later lead generates from fewer cards.
    Generation order is consistent between a hand and its sub-hands, so the answers are
    those of a full generation at the start of the deal, pruned.
    """

    def __init__(self, level: Rank) -> None:
        self._level = level
        self._shelves: dict[int, _Shelf] = {}  # by id(kind), an enum's hash being a Python call
        self._kept: list[Play] = []  # every play handed out, alive so that their ids stay unique
        self._generated: set[int] = set()
        self._size = -1  # size of the hand ``_lacks`` was computed for
        self._lacks = 0
        self._counts: HandCounts | None = None  # for generating, with the size it was counted at
        self._counts_size = -1

    def generated(self, play: Play) -> bool:
        """Whether this very object came from the cache, so it is a true reading of its cards."""
        return id(play) in self._generated

    def plays(self, hand: Sequence[Card], previous: Play | None) -> list[Play]:
        """Every play of ``hand`` (a sub-hand of the hands seen before) that may follow ``previous``.

        Only the shelves asked about are pruned; a hand's size identifies it, as it only shrinks.
        """
        size = len(hand)
        if size != self._size:
            self._size, self._lacks = size, _lacking(hand)
        if previous is None:
            found: list[Play] = []
            for kind in _KINDS:
                found += self._shelf(kind, hand).plays
            return found
        kind = previous.kind
        found = [] if kind in _BOMBS else self._shelf(kind, hand).above(previous.rank)
        power = _ladder(previous)
        for kind in _BOMBS:
            found += self._shelf(kind, hand).above(power)
        return found

    def _shelf(self, kind: PlayKind, hand: Sequence[Card]) -> _Shelf:
        """The pruned shelf of ``kind``, generating it (bombs: all three bomb kinds) on first use."""
        shelf = self._shelves.get(id(kind))
        if shelf is not None:
            shelf.prune(self._lacks, self._size)
            return shelf
        if self._counts is None or self._counts_size != self._size:  # shared by kinds generated together
            self._counts, self._counts_size = HandCounts(hand, self._level), self._size
        if kind in _BOMBS:
            self._stock(bombs_of(self._counts), _BOMBS, _ladder)
        else:
            self._stock(plays_of_kind(self._counts, kind), (kind,), _RANK)
        return self._shelves[id(kind)]

    def _stock(self, plays: list[Play], kinds: tuple[PlayKind, ...], key: Callable[[Play], int]) -> None:
        self._kept += plays
        self._generated.update(map(id, plays))
        for kind in kinds:
            of_kind = plays if len(kinds) == 1 else [play for play in plays if play.kind is kind]
            self._shelves[id(kind)] = _Shelf(of_kind, key, self._size)
