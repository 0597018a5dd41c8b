"""复盘点评: a seat's costliest decisions of one deal, judged by 大师 from where the seat stood.

At every play decision the seat had (a lead, or a follow it could have beaten; tribute and
return are 标准's for 大师 too and are not judged) the judge takes the seat's
:class:`~engine.observation.Observation` then — nothing the finished deal revealed later:

1. the suggestion is 大师's action there, exactly as a table seats 大师
   (:func:`~engine.players.policies.seeded`), so where 大师 itself sat, the suggestion is
   what it played and the deal costs nothing (before ~15 cards a seat 大师 plays 标准's
   choice, which is then the suggestion);
2. if the seat did something else, the hidden hands are drawn ``samples`` times from what
   was public (:func:`~engine.players.master.draw_hands`, as 大师 draws them), and on each
   draw the deal is played out twice by 标准 in all four seats, after the suggestion and
   after the seat's own action — the same draws for both, so the difference is not luck;
3. the cost is the mean difference of the two endings in levels for the seat's team
   (:func:`~engine.players.master.deal_levels`: the winners' level-up from the rules'
   ``level_ups``, negative when the other team wins), with its standard error.

The decisions that look costliest on those draws (above :data:`MIN_COST` and ``confidence``
standard errors) are the candidates; but the largest of ~20 noisy estimates is the luckiest
(the winner's curse: the costs so picked were about four times the true gain). So each
candidate is **priced again on fresh draws** (``Budget.recheck``, independent of the ones that
picked it): that price is unbiased, it is the cost shown, and a candidate whose fresh price is
not above zero is not shown. A price is :attr:`Decision.sure` when it is at least
:data:`SURE` standard errors and :data:`MIN_COST` above zero; the 点评 gives the figure only
then, and otherwise says the suggestion is probably, not surely, better. How often the
suggested play really did better with the true hidden hands, and how the prices compare with
the true gains, is measured by ``bench/coaching.py`` (docs/review.md).

Deterministic: the draws come from a generator seeded by the match's seed, the deal and the
seat, so the same log gives the same 点评 wherever and whenever it is computed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from engine.actions import Action, DealStarted, Pass, Phase, PlayCards
from engine.match import Match, observe
from engine.observation import Observation
from engine.players import master
from engine.players.policies import MASTER, seeded
from engine.plays import Play
from engine.rules import Rules

_MASTER: Final = seeded(MASTER)
"""大师 exactly as a table seats it: its draws seeded by the deal, the version and the seat, so
where 大师 itself sat the suggestion is what it played."""

SHOWN: Final = 3
"""Decisions a 点评 shows: the three costliest."""

CANDIDATES: Final = 5
"""Decisions priced on fresh draws, costliest first on the first draws, until :data:`SHOWN`
are confirmed: a candidate whose fresh price is not above zero makes room for the next."""

SURE: Final = 1.64
"""Standard errors of the fresh price above zero (one-sided 95%) for the 点评 to state the
price: below that it says the suggestion is probably better, without a figure."""

MIN_COST: Final = 0.25
"""Levels a deal below which a decision is not shown as a mistake: 大师's own
:data:`~engine.players.master.MARGIN`, the edge it needs to leave 标准's choice."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How hard the judge looks at a decision where the seat left 大师's choice: ``samples``
    draws of the hidden hands, both actions played out on each. ``confidence``: a decision is
    shown only when the suggestion's edge is that many standard errors of the paired
    differences above zero (the draws are few and a deal's result swings by ±4)."""

    samples: int = 12
    confidence: float = 1.0
    recheck: int = 12
    """Fresh draws pricing each candidate (0: price on the first draws, the old, biased way)."""


DEFAULT_BUDGET: Final = Budget()


@dataclass(frozen=True, slots=True)
class Decision:
    """One judged decision: where it was in the deal, what was played, what 大师 suggests.

    ``trick`` is the 0-based index of the trick in :attr:`engine.review.DealReview.tricks`
    and ``turn`` the index of the seat's turn in that trick's ``turns``. ``played`` and
    ``suggested`` are plays, ``None`` for 不出. ``cost`` is in levels a deal (> 0 when shown:
    the fresh price), ``spread`` its standard error over the draws."""

    trick: int
    turn: int
    played: Play | None
    suggested: Play | None
    cost: float
    spread: float = 0.0

    @property
    def sure(self) -> bool:
        """The price is clear of noise: :data:`SURE` standard errors and :data:`MIN_COST` above
        zero. Only then does the 点评 give the figure."""
        return self.cost >= max(MIN_COST, SURE * self.spread)


@dataclass(frozen=True, slots=True)
class Coaching:
    """A seat's 点评 of one deal (``deal``: 0-based, as :func:`engine.review.review` counts
    them): at most :data:`SHOWN` decisions, in the order they were made, and how many
    decisions were weighed."""

    deal: int
    seat: int
    decisions: tuple[Decision, ...]
    weighed: int


@dataclass(frozen=True, slots=True)
class Position:
    """One decision of the seat: what it saw, what it did, and where in the deal."""

    observation: Observation
    action: Action
    trick: int
    turn: int


def coach_deal(
    rules: Rules,
    seed: int,
    history: Sequence[tuple[int | None, Action]],
    deal: int,
    seat: int,
    budget: Budget = DEFAULT_BUDGET,
) -> Coaching:
    """The 点评 of ``seat`` for deal ``deal`` of the match ``history`` plays."""
    rng = random.Random(f"coach:{seed}:{deal}:{seat}")
    found = positions(rules, seed, history, deal, seat)
    judged = [judge(p, rules, rng, budget) for p in found]
    if not budget.recheck:
        return Coaching(deal, seat, costliest(judged, budget.confidence), len(judged))
    at = {(p.trick, p.turn): p for p in found}

    def priced(candidate: Decision) -> Decision:
        fresh = random.Random(f"coach-price:{seed}:{deal}:{seat}:{candidate.trick}:{candidate.turn}")
        return price(at[candidate.trick, candidate.turn], candidate, rules, fresh, budget.recheck)

    candidates = costliest(judged, budget.confidence, CANDIDATES, by_cost=True)
    return Coaching(deal, seat, confirmed(candidates, priced), len(judged))


def confirmed(candidates: Sequence[Decision], priced: Callable[[Decision], Decision]) -> tuple[Decision, ...]:
    """The first :data:`SHOWN` ``candidates`` (costliest first) whose fresh price is above zero,
    with that price, in the deal's order; each is priced only when needed (priced is the slow
    part)."""
    shown: list[Decision] = []
    for candidate in candidates:
        fresh = priced(candidate)
        if fresh.cost > 0:
            shown.append(fresh)
        if len(shown) == SHOWN:
            break
    return tuple(sorted(shown, key=lambda d: (d.trick, d.turn)))


def costliest(
    judged: Sequence[Decision], confidence: float, shown: int = SHOWN, by_cost: bool = False
) -> tuple[Decision, ...]:
    """The ``shown`` costliest decisions that cost at least :data:`MIN_COST` and ``confidence``
    standard errors, in the deal's order (``by_cost``: costliest first)."""
    worth_showing = [d for d in judged if d.cost >= max(MIN_COST, confidence * d.spread)]
    top = sorted(worth_showing, key=lambda d: -d.cost)[:shown]
    return tuple(top if by_cost else sorted(top, key=lambda d: (d.trick, d.turn)))


def price(position: Position, decision: Decision, rules: Rules, rng: random.Random, samples: int) -> Decision:
    """``decision`` priced again on ``samples`` fresh draws: independent of the draws that made it a
    candidate, so its mean is not inflated by having been picked as the largest."""
    suggestion: Action = Pass() if decision.suggested is None else PlayCards(decision.suggested)
    cost, spread = _weigh(position.observation, rules, rng, samples, (suggestion, position.action))
    return replace(decision, cost=cost, spread=spread)


def positions(
    rules: Rules, seed: int, history: Sequence[tuple[int | None, Action]], deal: int, seat: int
) -> list[Position]:
    """Every play decision ``seat`` had in deal ``deal``: a lead, or a follow where it could
    have beaten the table (a forced 不出 is no decision)."""
    match = Match.new(rules, seed)
    dealt = sum(1 for event in match.events if isinstance(event, DealStarted)) - 1
    found: list[Position] = []
    for actor, action in history:
        if dealt > deal:
            break
        if dealt == deal and actor == seat and match.phase is Phase.PLAY:
            obs = observe(match, seat)
            if isinstance(action, (PlayCards, Pass)) and _had_a_choice(match, obs, seat):
                trick, turn = _place(obs)
                found.append(Position(obs, action, trick, turn))
        events = match.apply(actor, action)
        dealt += sum(1 for event in events if isinstance(event, DealStarted))
    return found


def _had_a_choice(match: Match, obs: Observation, seat: int) -> bool:
    plays = match.legal_plays(seat)
    return len(plays) > 1 or (obs.table_play is not None and len(plays) == 1)


def _place(obs: Observation) -> tuple[int, int]:
    """(trick, turn) of the decision ``obs`` is taken before, as :mod:`engine.review` counts."""
    if not obs.history:
        return 0, 0
    trick = obs.history[-1].trick + (obs.table_play is None)
    return trick, sum(1 for turn in obs.history if turn.trick == trick)


def judge(position: Position, rules: Rules, rng: random.Random, budget: Budget = DEFAULT_BUDGET) -> Decision:
    """One decision weighed: 大师's choice there, and what the seat's own action cost against it."""
    obs, done = position.observation, position.action
    assert obs.seat is not None
    suggestion = _MASTER(obs, rules)
    if suggestion == done:
        return Decision(position.trick, position.turn, _play(done), _play(done), 0.0)
    cost, spread = _weigh(obs, rules, rng, budget.samples, (suggestion, done))
    return Decision(position.trick, position.turn, _play(done), _play(suggestion), cost, spread)


def _weigh(
    obs: Observation, rules: Rules, rng: random.Random, samples: int, actions: tuple[Action, Action]
) -> tuple[float, float]:
    """The first action's edge over the second on ``samples`` draws (both on each): mean and
    standard error in levels a deal."""
    assert obs.seat is not None
    results: tuple[list[int], list[int]] = ([], [])
    for _ in range(samples):
        hands = master.draw_hands(obs, rules, rng)
        if hands is None:
            break
        for got, action in zip(results, actions, strict=True):
            order = master.finish_order(obs, rules, hands, action)
            got.append(0 if order is None else master.deal_levels(rules, order, obs.seat))
    return _edge(*results)


def _edge(better: Sequence[int], played: Sequence[int]) -> tuple[float, float]:
    """Mean and standard error of the paired differences (levels a deal)."""
    n = len(played)
    if n == 0:
        return 0.0, 0.0
    diffs = [a - b for a, b in zip(better, played, strict=True)]
    mean = sum(diffs) / n
    if n == 1:
        return mean, 0.0
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, math.sqrt(variance / n)


def _play(action: Action) -> Play | None:
    return action.play if isinstance(action, PlayCards) else None
