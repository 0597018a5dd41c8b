"""How a deal's 108 cards reach the four hands: shuffled, or 不洗牌 (no shuffle).

A shuffled deal is a uniform permutation of the two packs. 不洗牌, the phone apps' most
played casual mode, deals the next hands from the last deal's cards as they lie on the
table, so the bombs and runs that were played come back together and hands are wild. The
procedure, exactly (README, "不洗牌"; ``/rules``):

1. **Gather (收牌).** The cards played in the deal, in the order they were played and,
   within one play, in the order the play lists them, are stacked face down: the first
   play at the bottom. On top of them go the cards still in hands, hand by hand in
   finishing order (the 末游's hand last, so on top), each hand sorted as its player
   held it.
2. **Cut (切牌).** Once: between :data:`CUT_MIN` and ``108 − CUT_MIN`` cards (a seeded
   number) are lifted off the top and put underneath.
3. **Deal (发牌).** From the top, :data:`PACKET` cards at a time, counter-clockwise (the
   order of play), the last deal's 末游 served first (after a deal the clock cut short,
   the seat whose hand went on top), until everyone holds 27.

The first deal of a match has no last deal: it is shuffled. Everything is derived from
the match's history and the deal's seed, so a restart, a 复盘 and a transcript rebuild
an unshuffled deal exactly as they rebuild a shuffled one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from engine.cards import Card, Rank, full_deck, sort_hand

CARDS_PER_SEAT: Final = 27
DECK_SIZE: Final = 4 * CARDS_PER_SEAT

PACKET: Final = 9
"""Cards dealt to a seat at a time in 不洗牌. One at a time would send the four cards of a
played bomb to four different hands, the opposite of what the mode is played for; the apps
deal in packets. Nine (three packets a hand) keeps a played bomb or run whole about as often
as it is cut (``bench/noshuffle.py`` prints the bombs a hand this gives)."""

CUT_MIN: Final = 27
"""The cut leaves at least a hand's worth of cards on either side, as a person cuts near
the middle (V19: never cut off or leave a single card)."""


def shuffled_hands(rng: random.Random) -> list[list[Card]]:
    """Four hands from a uniform shuffle of the two packs."""
    deck = full_deck()
    rng.shuffle(deck)
    return [deck[i * CARDS_PER_SEAT : (i + 1) * CARDS_PER_SEAT] for i in range(4)]


def gather(
    played: Sequence[Card], hands: Sequence[Sequence[Card]], order: Sequence[int], level: Rank
) -> list[Card]:
    """The face-down stack after a deal, bottom card first (step 1).

    ``order`` lists seats by finishing place; seats it lacks (a deal cut short by the
    clock) follow in seat order. ``level`` sorts the hands as their players held them.
    """
    stack = list(played)
    for seat in _ranked(order):
        stack.extend(sort_hand(hands[seat], level))
    if len(stack) != DECK_SIZE:
        raise ValueError(f"a gathered stack holds {len(stack)} cards, not {DECK_SIZE}")
    return stack


def _ranked(order: Sequence[int]) -> list[int]:
    """All four seats by finishing place; seats a cut-short deal did not place, in seat order."""
    return [*order, *(seat for seat in range(4) if seat not in order)]


def cut(stack: Sequence[Card], rng: random.Random) -> list[Card]:
    """The stack cut once (step 2): the top ``n`` cards go underneath."""
    n = rng.randint(CUT_MIN, len(stack) - CUT_MIN)
    top = len(stack) - n
    return [*stack[top:], *stack[:top]]


def deal_in_packets(stack: Sequence[Card], first: int) -> list[list[Card]]:
    """Four hands dealt off the top of ``stack`` (its last card), :data:`PACKET` at a time,
    ``first`` served first and the others in the order of play (step 3)."""
    hands: list[list[Card]] = [[], [], [], []]
    top = len(stack)
    seat = first
    while top > 0:
        hands[seat].extend(reversed(stack[max(0, top - PACKET) : top]))
        top -= PACKET
        seat = (seat + 1) % 4
    return hands


def unshuffled_hands(
    played: Sequence[Card],
    hands: Sequence[Sequence[Card]],
    order: Sequence[int],
    level: Rank,
    rng: random.Random,
) -> list[list[Card]]:
    """不洗牌: the next deal's hands from the last deal's table (gather, cut, deal)."""
    first = _ranked(order)[3]
    return deal_in_packets(cut(gather(played, hands, order, level), rng), first)
