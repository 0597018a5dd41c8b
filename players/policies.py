"""The computer players by name: ``random``, ``greedy``, ``easy`` (简单), ``normal`` (标准),
``master`` (大师).

A policy sees only its seat's :class:`~engine.observation.Observation`, like a player
at the table, and draws any chance from the generator it is given, so a run is
reproducible from its seed. ``easy`` is the casual rule player of :mod:`players.easy`;
``normal`` the planning player of :mod:`players.planner`, which 提示 and 托管 use (托管 uses
``master`` when the table chose it); ``master`` the searching player of
:mod:`players.master`, which samples the hidden hands from its ``rng``.
``greedy`` is the yardstick of issue 12: it never passes when it can play, follows
with the smallest play that beats, leads its lowest non-bomb play, and pays and
returns the lowest allowed cards.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from engine.actions import Action, ChooseSeat, GiveTribute, Pass, Phase, PlayCards, ReturnTribute
from engine.cards import Card, card_order
from engine.moves import legal_plays
from engine.observation import Observation
from engine.plays import Play, PlayKind
from engine.rules import Rules
from players import easy, master, planner

Policy = Callable[[Observation, Rules, random.Random], Action]
"""A player: what it sees, the rules, and a generator for its chance moves."""


def _legal(obs: Observation, rules: Rules) -> list[Play]:
    plays = legal_plays(obs.hand, obs.level, obs.table_play)
    return [play for play in plays if play.kind is not PlayKind.BOMB or play.size <= rules.max_bomb_size]


def random_policy(obs: Observation, rules: Rules, rng: random.Random) -> Action:
    """A uniformly random legal action (passing counts as one option)."""
    if obs.phase is Phase.TRIBUTE:
        return GiveTribute(rng.choice(obs.must_tribute_from))
    if obs.phase is Phase.RETURN_TRIBUTE:
        return ReturnTribute(rng.choice(obs.may_return))
    if obs.choice is not None:
        return ChooseSeat(rng.choice(obs.choice[1]))
    plays = _legal(obs, rules)
    choice = rng.randrange(len(plays) + (obs.table_play is not None))
    return PlayCards(plays[choice]) if choice < len(plays) else Pass()


def greedy_policy(obs: Observation, rules: Rules, rng: random.Random) -> Action:
    """Never passes when it can play; the smallest play that beats; the lowest lead."""
    if obs.phase is Phase.TRIBUTE:
        return GiveTribute(_lowest(obs.must_tribute_from, obs))
    if obs.phase is Phase.RETURN_TRIBUTE:
        return ReturnTribute(_lowest(obs.may_return, obs))
    if obs.choice is not None:
        return ChooseSeat(obs.choice[1][0])
    plays = _legal(obs, rules)
    if obs.table_play is not None:
        if not plays:
            return Pass()
        return PlayCards(min(plays, key=lambda p: (p.bomb_power, p.rank, p.size, _indices(p))))
    ordinary = [play for play in plays if not play.is_bomb] or plays
    return PlayCards(min(ordinary, key=lambda p: (_low(p, obs), p.rank, p.size, _indices(p))))


def _lowest(cards: tuple[Card, ...], obs: Observation) -> Card:
    return min(cards, key=lambda card: (card_order(card, obs.level), card.index))


def _low(play: Play, obs: Observation) -> int:
    """The lowest card a play spends (a sequence's bottom rank, A low in A2345)."""
    if play.kind.is_sequence:
        return play.rank - len(play.sequence_ranks()) + 1
    return min(card_order(card, obs.level) for card in play.cards)


def _indices(play: Play) -> tuple[int, ...]:
    return tuple(card.index for card in play.cards)


def easy_policy(obs: Observation, rules: Rules, rng: random.Random) -> Action:
    """简单: the casual rule player of :mod:`players.easy` (deterministic)."""
    return easy.choose_action(obs, rules)


def normal_policy(obs: Observation, rules: Rules, rng: random.Random) -> Action:
    """标准: the planning player of :mod:`players.planner` (deterministic)."""
    return planner.choose_action(obs, rules)


def master_policy(obs: Observation, rules: Rules, rng: random.Random) -> Action:
    """大师: the searching player of :mod:`players.master` (deterministic given ``rng``)."""
    return master.choose_action(obs, rules, rng)


POLICIES: Final[dict[str, Policy]] = {
    "random": random_policy,
    "greedy": greedy_policy,
    "easy": easy_policy,
    "normal": normal_policy,
    "master": master_policy,
}

DIFFICULTIES: Final = ("easy", "normal", "master")
"""What the lobby offers an AI seat: 简单, 标准 and 大师; ``normal`` is the default, 托管 and 提示."""

DEFAULT: Final = "normal"

MASTER: Final = "master"
"""大师: 托管 plays it too at a table that chose it for an AI seat."""


def next_difficulty(current: str) -> str:
    """The lobby's button cycles 简单 → 标准 → 大师 → 简单; anything unknown becomes the default."""
    if current not in DIFFICULTIES:
        return DEFAULT
    return DIFFICULTIES[(DIFFICULTIES.index(current) + 1) % len(DIFFICULTIES)]


def seeded(name: str, seed: int = 0) -> Callable[[Observation, Rules], Action]:
    """The policy ``name`` as a two-argument player, its chance drawn per decision from
    (seed, deal, version, seat): the same observation always gets the same answer."""
    policy = POLICIES[name]

    def play(obs: Observation, rules: Rules) -> Action:
        rng = random.Random(f"{seed}:{obs.deal_number}:{obs.version}:{obs.seat}")
        return policy(obs, rules, rng)

    return play
