"""理牌: the order cards are shown in, for a hand and for one play.

A hand is shown strongest first (大王 on the left, as in Chinese card apps): jokers,
then the level rank, then A down to 2, suits ♠♥♣♦ inside a rank. With ``group``
bombs and straight flushes a player holds are set apart at the right end, the way
players pull them out of the fan. The bot orders its card buttons with the same
function, so button N and the card labelled N are the same card.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Final

from engine.cards import SUITS, Card, Rank, card_order
from engine.plays import Play, PlayKind

_SEQUENCE_SHAPE: Final = {
    PlayKind.STRAIGHT: 1,
    PlayKind.STRAIGHT_FLUSH: 1,
    PlayKind.PAIR_RUN: 2,
    PlayKind.TRIPLE_RUN: 3,
}
"""Cards per rank in each sequence kind."""


def _strength(card: Card, level: Rank) -> tuple[int, int]:
    """Sort key: strongest first, suits ♠♥♣♦ inside a rank."""
    return (-card_order(card, level), card.index)


def hand_groups(cards: Sequence[Card], level: Rank, *, group: bool = False) -> list[tuple[int, ...]]:
    """Positions in ``cards`` in display order, split into the groups shown apart.

    The first group is the rest of the hand; with ``group`` every bomb (4+ of a
    rank, or the four jokers) and then every straight flush found among the
    remaining cards follows as its own group.
    """
    order = sorted(range(len(cards)), key=lambda i: _strength(cards[i], level))
    if not group:
        return [tuple(order)] if order else []
    bombs = _bomb_groups(cards, order, level)
    taken = {i for bomb in bombs for i in bomb}
    flushes = _flush_groups(cards, [i for i in order if i not in taken])
    taken |= {i for flush in flushes for i in flush}
    rest = tuple(i for i in order if i not in taken)
    return [g for g in [rest, *bombs, *flushes] if g]


def arrange_positions(cards: Sequence[Card], level: Rank, *, group: bool = False) -> list[int]:
    """Positions in ``cards`` in display order: label button N with position ``[N-1]``."""
    return [i for g in hand_groups(cards, level, group=group) for i in g]


def arrange_hand(cards: Sequence[Card], level: Rank, *, group: bool = False) -> list[Card]:
    """The cards in the order the hand image shows them (and the buttons list them)."""
    return [cards[i] for i in arrange_positions(cards, level, group=group)]


def _bomb_groups(cards: Sequence[Card], order: list[int], level: Rank) -> list[tuple[int, ...]]:
    by_order: dict[int, list[int]] = defaultdict(list)
    for i in order:
        by_order[card_order(cards[i], level)].append(i)
    jokers = by_order.get(16, []) + by_order.get(17, [])
    bombs = [tuple(jokers)] if len(jokers) == 4 else []
    ranked = sorted((g for o, g in by_order.items() if o < 16 and len(g) >= 4), key=lambda g: (-len(g), g))
    return bombs + [tuple(g) for g in ranked]


def _flush_groups(cards: Sequence[Card], order: list[int]) -> list[tuple[int, ...]]:
    """Straight flushes of natural cards, highest first, taken greedily."""
    free: dict[tuple[object, int], list[int]] = defaultdict(list)
    for i in order:
        card = cards[i]
        if card.suit is not None:
            free[(card.suit, int(card.rank))].append(i)
    flushes: list[tuple[int, ...]] = []
    for suit in SUITS:
        top = 14
        while top >= 5:
            values = [14 if v == 1 else v for v in range(top, top - 5, -1)]
            if all(free[(suit, v)] for v in values):
                flushes.append(tuple(free[(suit, v)].pop(0) for v in values))
            else:
                top -= 1
    return flushes


def arrange_play(play: Play, level: Rank) -> list[Card]:
    """The cards of one play as read aloud: runs low to high with each wildcard in
    the gap it fills, a full house triple first, anything else by rank."""
    if play.kind in _SEQUENCE_SHAPE:
        per_rank = _SEQUENCE_SHAPE[play.kind]
        slots = [rank for rank in play.sequence_ranks() for _ in range(per_rank)]
        return _fill(slots, play.cards, level)
    if play.kind is PlayKind.FULL_HOUSE:
        return _full_house(play, level)
    return sorted(play.cards, key=lambda c: (c.is_wildcard(level), _strength(c, level)))


def _fill(slots: list[Rank], cards: Sequence[Card], level: Rank) -> list[Card]:
    """Put each natural card in a slot of its rank, then wildcards in the gaps."""
    spare = sorted(cards, key=lambda c: (c.is_wildcard(level), c.index))
    placed: list[Card | None] = []
    for rank in slots:
        match = next((c for c in spare if c.rank == rank and not c.is_wildcard(level)), None)
        if match is not None:
            spare.remove(match)
        placed.append(match)
    return [card if card is not None else spare.pop(0) for card in placed] + spare


def _full_house(play: Play, level: Rank) -> list[Card]:
    naturals = [c for c in play.cards if not c.is_wildcard(level)]
    wild = [c for c in play.cards if c.is_wildcard(level)]
    triple = [c for c in naturals if card_order(c, level) == play.rank]
    pair = [c for c in naturals if card_order(c, level) != play.rank]
    if len(triple) > 3:
        pair, triple = triple[3:] + pair, triple[:3]
    need = 3 - len(triple)
    return (
        sorted(triple, key=lambda c: c.index)
        + wild[:need]
        + sorted(pair, key=lambda c: c.index)
        + wild[need:]
    )
