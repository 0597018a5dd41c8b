"""A player's card selection in the private hand message, without Telegram.

The selection is a multiset of card faces (two decks: a face may be held twice);
pressing a face's button cycles how many copies are selected. 提示 (hint) cycles
through suggested legal plays, the engine AI's pick first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from engine.actions import Action, Pass, PlayCards
from engine.cards import Card, Rank, sort_hand
from engine.classify import classify
from engine.errors import IllegalPlay, InvalidCards
from engine.moves import legal_plays, readings_for
from engine.plays import Play, PlayKind
from render.arrange import arrange_hand

_KIND_ORDER = {kind: i for i, kind in enumerate(PlayKind)}


def faces(hand: Iterable[Card], level: Rank) -> list[tuple[Card, int]]:
    """Distinct faces of a hand with their counts, in the hand image's order (strongest first)."""
    counts = Counter(hand)
    return [(card, counts[card]) for card in arrange_hand(list(counts), level)]


def toggle(selection: Counter[Card], card: Card, held: int) -> Counter[Card]:
    """One press on a face: select one more copy, or none after all are selected."""
    if held <= 0:
        raise InvalidCards(f"not in hand: {card}")
    updated = Counter(selection)
    updated[card] = (updated[card] + 1) % (held + 1)
    return +updated


def selected_cards(selection: Counter[Card]) -> list[Card]:
    return sorted(selection.elements(), key=lambda card: card.index)


def select_play(play: Play) -> Counter[Card]:
    return Counter(play.cards)


def readings(
    selection: Counter[Card], hand: Sequence[Card], level: Rank, previous: Play | None
) -> list[Play]:
    """The ways the selection may be played now; raises IllegalPlay with the cause."""
    cards = selected_cards(selection)
    if not cards:
        raise IllegalPlay("empty selection")
    found = readings_for(cards, hand, level, previous)
    if found:
        return found
    if previous is not None and classify(cards, level):
        raise IllegalPlay("does not beat")
    raise IllegalPlay("no such play")


def hint_order(plays: Iterable[Play], preferred: Play | None) -> list[Play]:
    """Suggested plays: the preferred (AI) play first, then small non-bombs before bombs."""
    ordered = sorted(plays, key=lambda p: (p.is_bomb, p.bomb_power, _KIND_ORDER[p.kind], p.rank, p.size))
    if preferred is not None and preferred in ordered:
        ordered.remove(preferred)
        ordered.insert(0, preferred)
    return ordered


def suggestions(
    hand: Sequence[Card], level: Rank, previous: Play | None, preferred: Play | None
) -> list[Play]:
    return hint_order(legal_plays(hand, level, previous), preferred)


def timeout_action(hand: Sequence[Card], level: Rank, previous: Play | None) -> Action:
    """A13: on timeout the leader plays the lowest single, a follower passes."""
    if previous is not None:
        return Pass()
    lowest = sort_hand(hand, level)[0]
    return PlayCards(classify([lowest], level)[0])


def lowest_card(cards: Iterable[Card], level: Rank) -> Card:
    """The default tribute/return choice when the clock runs out."""
    return sort_hand(cards, level)[0]
