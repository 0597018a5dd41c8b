"""A player's card selection in the private hand message, without Telegram.

The selection is a multiset of card faces (two decks: a face may be held twice);
pressing a face's button cycles how many copies are selected. Each button names the
count it selects (:func:`next_count` of what its keyboard showed), so a press means the
same whether or not the newest keyboard had reached the phone. 提示 (hint) cycles
through the engine AI's choice first — 不出 (pass) included, so that 提示 → 出牌 never
bombs a partner's winning play the 标准 player would let stand — then the legal plays.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from hashlib import blake2b

from engine.actions import Pass
from engine.cards import Card, Rank
from engine.errors import InvalidCards
from engine.moves import legal_plays, readings_for
from engine.plays import Play, PlayKind
from render.arrange import arrange_hand

_KIND_ORDER = {kind: i for i, kind in enumerate(PlayKind)}


def faces(hand: Iterable[Card], level: Rank) -> list[tuple[Card, int]]:
    """Distinct faces of a hand with their counts, in the hand image's order (strongest first)."""
    counts = Counter(hand)
    return [(card, counts[card]) for card in arrange_hand(list(counts), level)]


def next_count(selected: int, held: int) -> int:
    """What one press on a face selects: one more copy, or none after all are selected."""
    return (selected + 1) % (held + 1)


def toggle(selection: Counter[Card], card: Card, held: int) -> Counter[Card]:
    """One press on a face of the selection as it is now (see :func:`next_count`)."""
    return with_count(selection, card, next_count(selection[card], held), held)


def with_count(selection: Counter[Card], card: Card, count: int, held: int) -> Counter[Card]:
    """The selection with exactly ``count`` copies of ``card`` (0 ≤ count ≤ held)."""
    if held <= 0:
        raise InvalidCards(f"not in hand: {card}")
    if not 0 <= count <= held:
        raise InvalidCards(f"{count} copies of {card}, {held} held")
    updated = Counter(selection)
    updated[card] = count
    return +updated


def digest(selection: Counter[Card]) -> int:
    """A 32-bit digest of a selection (0 for none), carried by 出牌 so that the press plays
    only the selection its label named. Two different selections share a digest with
    probability 2⁻³², and then only the player's own current selection would be played."""
    if not selection:
        return 0
    text = ",".join(str(card.index) for card in selected_cards(selection))
    return int.from_bytes(blake2b(text.encode(), digest_size=4).digest(), "big") or 1


def selected_cards(selection: Counter[Card]) -> list[Card]:
    return sorted(selection.elements(), key=lambda card: card.index)


def select_play(play: Play) -> Counter[Card]:
    return Counter(play.cards)


def readings(
    selection: Counter[Card], hand: Sequence[Card], level: Rank, previous: Play | None
) -> list[Play]:
    """The ways the selection may be played now ([] if none); names the play button."""
    cards = selected_cards(selection)
    return list(_readings(tuple(cards), tuple(hand), level, previous)) if cards else []


@lru_cache(maxsize=256)
def _readings(
    cards: tuple[Card, ...], hand: tuple[Card, ...], level: Rank, previous: Play | None
) -> tuple[Play, ...]:
    """Kept for the next caller: composing a hand message asks twice (the play button's
    label, and whether to draw the hand the play would leave)."""
    return tuple(readings_for(list(cards), hand, level, previous))


@lru_cache(maxsize=256)
def can_beat(hand: tuple[Card, ...], level: Rank, previous: Play) -> bool:
    """Whether any play of ``hand`` beats ``previous`` (要不起 when not): decides whether the
    play button reads 不出 and whether auto-pass passes. Cached: a hand message asks it on
    every refresh of the same turn."""
    return bool(legal_plays(hand, level, previous))


Hint = Play | Pass
"""One 提示 suggestion: a play, or 不出 when the AI would pass."""


def hint_order(plays: Iterable[Play], preferred: Play | None, ranked: Sequence[Play] = ()) -> list[Play]:
    """Suggested plays: the preferred (AI) play first, then the AI's other sensible plays
    (``ranked``, best first), then small non-bombs before bombs."""
    ordered = sorted(plays, key=lambda p: (p.is_bomb, p.bomb_power, _KIND_ORDER[p.kind], p.rank, p.size))
    sensible = [play for play in dict.fromkeys(ranked) if play in ordered]
    ordered = sensible + [play for play in ordered if play not in sensible]
    if preferred is not None and preferred in ordered:
        ordered.remove(preferred)
        ordered.insert(0, preferred)
    return ordered


def suggestions(
    hand: Sequence[Card],
    level: Rank,
    previous: Play | None,
    preferred: Play | None,
    ranked: Sequence[Play] = (),
) -> list[Play]:
    return hint_order(legal_plays(hand, level, previous), preferred, ranked)


@dataclass
class Hints:
    """The 提示 suggestions of one table version, the AI's choice first.

    When the AI would pass (``pass_first``), 不出 is the first suggestion and the plays
    follow; cycling comes back to it. Most players take the first suggestion, so the full
    list (every legal play, sorted: a few milliseconds for a 27-card lead) is only built
    when they ask for a second one.
    """

    version: int
    hand: tuple[Card, ...]
    level: Rank
    previous: Play | None
    preferred: Play | None
    ranked: tuple[Play, ...] = ()  # the AI's other sensible plays, best first, offered next
    pass_first: bool = False  # the AI's choice is 不出
    _all: tuple[Play, ...] | None = field(default=None, repr=False)

    def pick(self, index: int) -> Hint | None:
        """The ``index``-th suggestion, cycling; None if there is nothing to suggest."""
        if index == 0 and self.pass_first:
            return Pass()
        if index == 0 and self.preferred is not None:
            return self.preferred
        if self._all is None:
            self._all = tuple(suggestions(self.hand, self.level, self.previous, self.preferred, self.ranked))
        cycle: tuple[Hint, ...] = ((Pass(),) if self.pass_first else ()) + self._all
        return cycle[index % len(cycle)] if cycle else None
