"""记牌器 (card counter): the cards still out per rank, as the phone apps show it, without Telegram.

"Out" means in the other three hands: two decks' cards less those played this deal (the
public history every seat saw, :attr:`Observation.history`) and less the viewer's own hand,
which the viewer sees anyway. No other hidden card is used, so the counter tells a seat
nothing a player with a good memory could not know. The level's two ♥ cards (逢人配, the
wildcards) are counted apart from the other cards of the level's rank.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine.cards import Card, Rank, iter_ranks_high_to_low
from engine.observation import Observation

DECKS = 2


@dataclass(frozen=True, slots=True)
class CardsOut:
    """Per rank, strongest first in the level's order, how many are still out; and the wildcards."""

    ranks: tuple[tuple[Rank, int], ...]
    wildcards: int


def cards_out(obs: Observation) -> CardsOut:
    """What the seat ``obs`` belongs to may count as still out (see the module docstring)."""
    gone = Counter(_key(card, obs.level) for card in obs.hand)
    for turn in obs.history:
        if turn.play is not None:
            gone.update(_key(card, obs.level) for card in turn.play.cards)
    ranks = tuple((rank, _total(rank, obs.level) - gone[rank]) for rank in iter_ranks_high_to_low(obs.level))
    return CardsOut(ranks, DECKS - gone[None])


def _key(card: Card, level: Rank) -> Rank | None:
    """A card's counter: its rank, or None for a wildcard."""
    return None if card.is_wildcard(level) else card.rank


def _total(rank: Rank, level: Rank) -> int:
    """Cards of a rank in two decks: 2 of each joker, 8 of a rank, 6 of the level (its ♥ are wild)."""
    if rank.is_joker:
        return DECKS
    return 4 * DECKS - (DECKS if rank is level else 0)
