"""The computer players a seat can be given, by name: ``ai``, ``easy``, ``random``.

A policy sees only its seat's :class:`~engine.observation.Observation` (never the match),
like a player at the table; ``random`` draws from a generator the referee seeds, so a run
is reproducible from its seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from engine.actions import Action, ChooseSeat, GiveTribute, Pass, Phase, PlayCards, ReturnTribute
from engine.ai import choose_action
from engine.moves import legal_plays
from engine.observation import Observation
from engine.plays import PlayKind
from engine.rules import Rules

Policy = Callable[[Observation, Rules, random.Random], Action]


def _easy(obs: Observation, rules: Rules, rng: random.Random) -> Action:
    """Today's rule player (engine.ai), the 简单 difficulty."""
    return choose_action(obs, rules)


def random_policy(obs: Observation, rules: Rules, rng: random.Random) -> Action:
    """A uniformly random legal action (passing counts as one option)."""
    if obs.phase is Phase.TRIBUTE:
        return GiveTribute(rng.choice(obs.must_tribute_from))
    if obs.phase is Phase.RETURN_TRIBUTE:
        return ReturnTribute(rng.choice(obs.may_return))
    if obs.choice is not None:
        return ChooseSeat(rng.choice(obs.choice[1]))
    plays = [
        play
        for play in legal_plays(obs.hand, obs.level, obs.table_play)
        if play.kind is not PlayKind.BOMB or play.size <= rules.max_bomb_size
    ]
    choice = rng.randrange(len(plays) + (obs.table_play is not None))
    return PlayCards(plays[choice]) if choice < len(plays) else Pass()


POLICIES: Final[dict[str, Policy]] = {"ai": _easy, "easy": _easy, "random": random_policy}
"""Seat names → players. ``ai`` is the strongest we have (today the rule player, ``easy``)."""

FALLBACK: Final = "ai"
"""Plays for an outside client that keeps answering wrongly, times out or leaves."""
