"""Seats and first leaders at physical tables: the referee's draws, reproducible from the seed.

**Seats** (V17, :class:`~engine.rules.SeatAssignment`), for the match with code ``C``:

- ``card_draw`` (000-L "双方从牌中各抽一张，摸到小牌坐南北"): each pair draws a card
  valued 1–13 (A = 1, A27) from the label ``f"seats:{C}"``, first pair first; equal
  cards draw again; the smaller card sits North–South.
- ``movement_table`` (001-B "排前坐南北") and ``table_number`` (002-C, 004-A): the pair
  listed first sits North–South.
- ``lot`` (抓阄): ``below(2)`` from ``f"seats:{C}"`` — 0: the first pair sits NS.

**First leader, mod-4 card turn** (002-A, docs/rules.md §4.9, A20), label ``f"leader:{C}:{deal}"``:
a card of the 108 is turned (``below(108)``: 0–103 the four suits twice A…K, 104–107
jokers → turn again). Its value (A = 1, J = 11, Q = 12, K = 13) mod 4 (0 → 4) is the
number of the player who draws first, the turner being No. 1 and counting on
counter-clockwise; the player who then draws the turned card leads.

**First leader, face-up card** (001-A, V16 ``marker_card``), label ``f"marker:{C}:{deal}"``:
a card position of the 108 (``below(108) + 1``, counted from the top of the stack after
the cut) is turned face up; the players draw one card at a time counter-clockwise, so the
player who draws it is No. ``(position - 1) % 4 + 1`` counting from the first drawer
(001-A: North in the first deal, then the 下游), and that player leads.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.contest.lots import DrawSeed
from engine.contest.results import ContestMatch
from engine.rules import SeatAssignment

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("♠", "♥", "♣", "♦")
_DECK = 108
_JOKERS = 4


@dataclass(frozen=True, slots=True)
class Seating:
    """Who sits North–South at a table, and the cards that decided it (card draw only)."""

    ns: int  # group number
    ew: int
    cards: tuple[int, ...] = ()  # card_draw: the values drawn, pairs in match order, redraws included


def seating(seed: DrawSeed, match: ContestMatch, method: SeatAssignment) -> Seating:
    first, second = match.pairs
    lots = seed.lots(f"seats:{match.code}")
    if method is SeatAssignment.CARD_DRAW:
        cards: list[int] = []
        while True:
            a, b = lots.below(13) + 1, lots.below(13) + 1
            cards += [a, b]
            if a != b:
                return Seating(first, second, tuple(cards)) if a < b else Seating(second, first, tuple(cards))
    if method is SeatAssignment.LOT and lots.below(2) == 1:
        return Seating(second, first)
    return Seating(first, second)


@dataclass(frozen=True, slots=True)
class FirstLeaderDraw:
    """The mod-4 card turn (002-A): the turned card and the player (1–4) who draws first."""

    card: str  # e.g. "♠K"
    value: int  # A = 1 … K = 13
    drawer: int  # 1–4, counting counter-clockwise from the turner (No. 1)
    jokers_turned: int  # jokers turned (and turned again) before this card


def first_leader_draw(seed: DrawSeed, code: str, deal: int = 1) -> FirstLeaderDraw:
    lots = seed.lots(f"leader:{code}:{deal}")
    jokers = 0
    while (position := lots.below(_DECK)) >= _DECK - _JOKERS:
        jokers += 1
    value = position % 13 + 1
    card = SUITS[(position // 13) % 4] + RANKS[value - 1]
    return FirstLeaderDraw(card, value, value % 4 or 4, jokers)


@dataclass(frozen=True, slots=True)
class MarkerCardDraw:
    """The face-up card (001-A): its position in the stack and the player (1–4) who draws it."""

    position: int  # 1–108, from the top of the stack
    drawer: int  # 1–4, counting counter-clockwise from the first drawer (No. 1)


def marker_card_draw(seed: DrawSeed, code: str, deal: int = 1) -> MarkerCardDraw:
    position = seed.lots(f"marker:{code}:{deal}").below(_DECK) + 1
    return MarkerCardDraw(position, (position - 1) % 4 + 1)
