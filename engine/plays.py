"""Plays (牌型) and how they compare: the ten hand kinds and the bomb ladder.

A :class:`Play` is one reading of a set of cards: its kind, its comparable rank
and the cards themselves. With wildcards (逢人配) one set of cards can have
several readings, so the same cards may appear in two plays with different ranks.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engine.cards import Card, Rank, format_cards


class PlayKind(Enum):
    """The ten hand kinds; sizes are exact (no 三带一, no 6-card straight)."""

    SINGLE = "single"  # 单张
    PAIR = "pair"  # 对子
    TRIPLE = "triple"  # 三张 / 三不带
    FULL_HOUSE = "full_house"  # 三带二 (a triple and a pair of another rank)
    STRAIGHT = "straight"  # 顺子, exactly 5
    PAIR_RUN = "pair_run"  # 三连对, exactly 3 consecutive pairs
    TRIPLE_RUN = "triple_run"  # 钢板, exactly 2 consecutive triples
    BOMB = "bomb"  # 炸弹, 4–10 of one rank
    STRAIGHT_FLUSH = "straight_flush"  # 同花顺, exactly 5
    JOKER_BOMB = "joker_bomb"  # 四王 / 天炸

    @property
    def is_bomb(self) -> bool:
        return self in _BOMB_KINDS

    @property
    def is_sequence(self) -> bool:
        """Kinds ranked by natural values where A may be low (A2345, AA2233, AAA222)."""
        return self in _SEQUENCE_KINDS


_BOMB_KINDS = frozenset({PlayKind.BOMB, PlayKind.STRAIGHT_FLUSH, PlayKind.JOKER_BOMB})
_SEQUENCE_KINDS = frozenset(
    {PlayKind.STRAIGHT, PlayKind.PAIR_RUN, PlayKind.TRIPLE_RUN, PlayKind.STRAIGHT_FLUSH}
)

_SEQUENCE_LENGTH = {
    PlayKind.STRAIGHT: 5,
    PlayKind.STRAIGHT_FLUSH: 5,
    PlayKind.PAIR_RUN: 3,
    PlayKind.TRIPLE_RUN: 2,
}


@dataclass(frozen=True, slots=True)
class Play:
    """One play: ``kind``, comparable ``rank`` and the ``cards`` (sorted by index).

    ``rank`` means, by kind:

    - single, pair, triple, full house (its triple), bomb: the singles order at the
      deal's level (2..14 natural, 15 the level rank, 16 小王, 17 大王);
    - straight, straight flush, pair run, triple run: the natural value of the
      *top* rank of the sequence, A counting 1 when joined to 2 (A2345 → 5,
      AA2233 → 3, AAA222 → 2, 10JQKA → 14). Level cards sit at their natural place;
    - joker bomb: 17.

    Two plays are equal when kind, rank and the multiset of cards are equal.
    """

    kind: PlayKind
    rank: int
    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return format_cards(self.cards)

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def is_bomb(self) -> bool:
        return self.kind.is_bomb

    @property
    def bomb_power(self) -> tuple[int, int]:
        """Position on the bomb ladder (四王 > ≥6 cards by count > 同花顺 > 5 > 4)."""
        if self.kind is PlayKind.JOKER_BOMB:
            return (11, self.rank)
        if self.kind is PlayKind.STRAIGHT_FLUSH:
            return (5, self.rank)
        if self.kind is PlayKind.BOMB:
            tier = {4: 3, 5: 4}.get(self.size, self.size)
            return (tier, self.rank)
        return (0, self.rank)

    def sequence_ranks(self) -> tuple[Rank, ...]:
        """For sequence kinds, the face ranks low to high (A as low when it is)."""
        length = _SEQUENCE_LENGTH.get(self.kind)
        if length is None:
            return ()
        return tuple(Rank(14 if v == 1 else v) for v in range(self.rank - length + 1, self.rank + 1))


def beats(play: Play, previous: Play) -> bool:
    """Strictly greater under the rules; equal never beats, kinds only via bombs.

    Non-bombs need the same kind and size and a higher rank; any bomb beats any
    non-bomb; bombs compare on the ladder (:attr:`Play.bomb_power`).
    """
    if play.is_bomb or previous.is_bomb:
        return play.is_bomb and play.bomb_power > previous.bomb_power
    return play.kind is previous.kind and play.size == previous.size and play.rank > previous.rank
