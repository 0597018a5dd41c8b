"""One seat's plays for one deal, generated once and pruned as its cards leave.

Cards only leave a hand during play, and a play is legal from a hand exactly when
its cards are still held, so the plays of the hand at the start of play contain
every later play. Following needs only the table's kind (above the table's rank)
and the bombs above the table's bomb. This turns one full generation per turn into
one per seat per deal plus cheap filtering, which is what makes self-play fast.

A hand is held as two 54-bit masks (faces held at least once, and twice: two
packs give at most two copies of a face), so "are this play's cards still held"
is two integer operations.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from engine.cards import Card, Rank
from engine.moves import legal_plays
from engine.plays import Play, PlayKind

_BOMBS = (PlayKind.BOMB, PlayKind.STRAIGHT_FLUSH, PlayKind.JOKER_BOMB)


@dataclass(slots=True)
class _Shelf:
    """The plays of one kind, sorted by their comparison key, with the card masks they need."""

    plays: list[Play] = field(default_factory=list)
    keys: list[tuple[int, int]] = field(default_factory=list)
    masks: list[tuple[int, int]] = field(default_factory=list)
    pruned_at: int = -1  # hand size when last pruned

    @classmethod
    def of(cls, plays: list[Play]) -> _Shelf:
        keys = [_key(play) for play in plays]
        order = sorted(range(len(plays)), key=keys.__getitem__)
        return cls(
            [plays[i] for i in order], [keys[i] for i in order], [_masks(plays[i].cards) for i in order]
        )

    def prune(self, held: tuple[int, int], size: int) -> None:
        """Drop plays whose cards have left the hand (they never come back this deal)."""
        if self.pruned_at == size:
            return
        once, twice = held
        keep = [i for i, (m1, m2) in enumerate(self.masks) if not (m1 & ~once or m2 & ~twice)]
        self.plays = [self.plays[i] for i in keep]
        self.keys = [self.keys[i] for i in keep]
        self.masks = [self.masks[i] for i in keep]
        self.pruned_at = size

    def above(self, key: tuple[int, int]) -> list[Play]:
        return self.plays[bisect_right(self.keys, key) :]


class PlayCache:
    """The plays of one hand, by kind; :meth:`plays` answers for any sub-hand of it."""

    def __init__(self, hand: Iterable[Card], level: Rank) -> None:
        groups: dict[int, list[Play]] = {id(kind): [] for kind in PlayKind}
        for play in legal_plays(hand, level):
            groups[id(play.kind)].append(play)
        self._shelves = {kind: _Shelf.of(groups[id(kind)]) for kind in PlayKind}

    def plays(self, hand: Sequence[Card], previous: Play | None) -> list[Play]:
        """Every play of ``hand`` (a sub-hand of the cached one) that may follow ``previous``."""
        held, size = _masks(hand), len(hand)
        for shelf in self._shelves.values():
            shelf.prune(held, size)
        if previous is None:
            return [play for shelf in self._shelves.values() for play in shelf.plays]
        found = [] if previous.is_bomb else self._shelves[previous.kind].above(_key(previous))
        for kind in _BOMBS:
            found.extend(self._shelves[kind].above(previous.bomb_power))
        return found


def _key(play: Play) -> tuple[int, int]:
    """Bombs by the bomb ladder; other kinds by rank (their size is fixed by the kind)."""
    kind = play.kind  # identity tests: an enum's hash is a Python-level call
    if kind is PlayKind.BOMB or kind is PlayKind.STRAIGHT_FLUSH or kind is PlayKind.JOKER_BOMB:
        return play.bomb_power
    return (0, play.rank)


def _masks(cards: Iterable[Card]) -> tuple[int, int]:
    """Faces present at least once, and twice."""
    once = twice = 0
    for card in cards:
        bit = 1 << card.index
        if once & bit:
            twice |= bit
        once |= bit
    return once, twice
