"""A simple, deterministic Guandan player that works from an :class:`Observation` only.

The policy is the one a casual player follows: lead the lowest combination and
shed as many small cards with it as possible, follow with the cheapest play that
beats the table, leave the partner's plays alone unless beating them is cheap,
keep bombs (and wildcards) for when an opponent is about to go out, pay the
allowed tribute card and give back the lowest allowed card. It sees exactly what
a human in that seat sees, so it can take over (托管) for anyone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.actions import Action, GiveTribute, Pass, Phase, PlayCards, ReturnTribute, partner_of
from engine.cards import Card, Rank, card_order
from engine.errors import NotYourTurn
from engine.moves import legal_plays
from engine.observation import Observation
from engine.plays import Play, PlayKind
from engine.rules import Rules

DANGER = 6
"""An opponent with this many cards or fewer is about to go out: bombs come out."""

CHEAP = 10
"""Beating the partner is fine when no card above 10 is spent."""


def choose_action(obs: Observation, rules: Rules) -> Action:
    """The action this seat takes now; raises :class:`NotYourTurn` if it is not to act."""
    if obs.seat is None or obs.seat not in obs.to_act:
        raise NotYourTurn(f"seat {obs.seat} is not to act")
    if obs.phase is Phase.TRIBUTE:
        return GiveTribute(obs.must_tribute_from[0])
    if obs.phase is Phase.RETURN_TRIBUTE:
        return ReturnTribute(_lowest(obs.may_return, obs.level))
    plays = [p for p in legal_plays(obs.hand, obs.level, obs.table_play) if _allowed(p, rules)]
    if obs.table_play is None:
        return PlayCards(_lead(plays, obs))
    choice = _follow(plays, obs)
    return Pass() if choice is None else PlayCards(choice)


def _allowed(play: Play, rules: Rules) -> bool:
    return play.kind is not PlayKind.BOMB or play.size <= rules.max_bomb_size


def _lead(plays: Sequence[Play], obs: Observation) -> Play:
    finishing = [p for p in plays if p.size == len(obs.hand)]
    if finishing:
        return finishing[0]
    ordinary = [p for p in plays if not p.is_bomb]
    if ordinary:
        return min(ordinary, key=lambda p: _lead_key(p, obs))
    return min(plays, key=_bomb_key)


def _follow(plays: Sequence[Play], obs: Observation) -> Play | None:
    finishing = [p for p in plays if p.size == len(obs.hand)]
    if finishing:
        return min(finishing, key=_bomb_key)
    assert obs.seat is not None
    clean = sorted((p for p in plays if not p.is_bomb and _spares(p, obs)), key=lambda p: _follow_key(p, obs))
    if obs.table_seat == partner_of(obs.seat):
        cheap = [p for p in clean if _top(p, obs.level) <= CHEAP]
        return cheap[0] if cheap else None
    if clean:
        return clean[0]
    if not _opponent_in_danger(obs):
        return None
    costly = [p for p in plays if not p.is_bomb]
    if costly:
        return min(costly, key=lambda p: _follow_key(p, obs))
    bombs = [p for p in plays if p.is_bomb]
    return min(bombs, key=_bomb_key) if bombs else None


def _opponent_in_danger(obs: Observation) -> bool:
    assert obs.seat is not None
    opponents = ((obs.seat + 1) % 4, (obs.seat + 3) % 4)
    counts = [obs.seats[s].cards_left for s in opponents if obs.seats[s].place is None]
    return any(n is not None and n <= DANGER for n in counts)


def _spares(play: Play, obs: Observation) -> bool:
    """The play uses no wildcard and breaks no bomb (4+ of a rank) in the hand."""
    if any(card.is_wildcard(obs.level) for card in play.cards):
        return False
    held = Counter(card.rank for card in obs.hand)
    used = Counter(card.rank for card in play.cards)
    return all(held[rank] < 4 or used[rank] == held[rank] for rank in used)


def _lead_key(play: Play, obs: Observation) -> tuple[int, ...]:
    """Spare bombs and wildcards, then the lowest start, then the most cards."""
    return (not _spares(play, obs), _low(play, obs.level), -play.size, _top(play, obs.level), *_indices(play))


def _follow_key(play: Play, obs: Observation) -> tuple[int, ...]:
    return (play.rank, _top(play, obs.level), play.size, *_indices(play))


def _bomb_key(play: Play) -> tuple[int, ...]:
    return (*play.bomb_power, play.size, *_indices(play))


def _low(play: Play, level: Rank) -> int:
    """The lowest card the play spends (A counts 1 at the bottom of a sequence)."""
    if play.kind.is_sequence:
        return play.rank - len(play.sequence_ranks()) + 1
    return min(card_order(card, level) for card in play.cards)


def _top(play: Play, level: Rank) -> int:
    """The highest natural card the play spends (a wildcard costs as a level card)."""
    naturals = [card_order(card, level) for card in play.cards if not card.is_wildcard(level)]
    return max(naturals) if naturals else card_order(play.cards[0], level)


def _indices(play: Play) -> tuple[int, ...]:
    return tuple(card.index for card in play.cards)


def _lowest(cards: Sequence[Card], level: Rank) -> Card:
    return min(cards, key=lambda card: (card_order(card, level), card.index))


def timeout_action(obs: Observation) -> Action:
    """What the clock plays for a seat out of time (V21 / A13, 002-E).

    A leader plays its lowest single (the §1.5 order never picks a wildcard while a
    natural non-level card remains), a follower passes; tribute pays the first allowed
    card and a return gives the lowest allowed card. Used when ``rules.timeout_action``
    is ``LOWEST_OR_PASS``.
    """
    if obs.phase is Phase.TRIBUTE:
        return GiveTribute(obs.must_tribute_from[0])
    if obs.phase is Phase.RETURN_TRIBUTE:
        return ReturnTribute(_lowest(obs.may_return, obs.level))
    if obs.table_play is not None:
        return Pass()
    card = _lowest(obs.hand, obs.level)
    return PlayCards(Play(PlayKind.SINGLE, card_order(card, obs.level), (card,)))
