"""复盘点评: a seat's costliest decisions of one deal, judged by 大师 from where the seat stood.

At every play decision the seat had (a lead, or a follow it could have beaten; tribute and
return are 标准's for 大师 too and are not judged) the judge takes the seat's
:class:`~engine.observation.Observation` then — nothing the finished deal revealed later:

1. the suggestion is 大师's action there, exactly as a table seats 大师
   (:func:`~players.policies.seeded`), so where 大师 itself sat, the suggestion is
   what it played and the deal costs nothing (before ~15 cards a seat 大师 plays 标准's
   choice, which is then the suggestion);
2. if the seat did something else, the hidden hands are drawn ``samples`` times from what
   was public (:func:`~players.master.draw_hands`, as 大师 draws them), and on each
   draw the deal is played out twice by 标准 in all four seats, after the suggestion and
   after the seat's own action — the same draws for both, so the difference is not luck;
3. the cost is the mean difference of the two endings in levels for the seat's team
   (:func:`~players.master.deal_levels`: the winners' level-up from the rules'
   ``level_ups``, negative when the other team wins), with its standard error.

The decisions that look costliest on those draws (above :data:`MIN_COST` and ``confidence``
standard errors; a decision within a standard error of that bar gets ``Budget.closer`` draws
more) are the candidates; but the largest of ~20 noisy estimates is the luckiest (the winner's
curse: the costs so picked were about four times the true gain). So each candidate is **weighed
again on fresh draws** (``Budget.recheck``, independent of the ones that picked it, and
``Budget.more`` more where that is not yet sure): a candidate is shown only where its fresh mean
is above zero **and** the suggestion ended better on most fresh draws whose endings differed
(:data:`AHEAD`: a mean can stand on one or two big swings, and the true hands are one deal,
not the average of many), and the cost shown (:attr:`Decision.price`) is the fresh mean shrunk
by its noise toward what a candidate is worth on average (empirical Bayes). A price is
:attr:`Decision.sure` when it is :data:`SURE` standard errors and :data:`MIN_COST` above zero;
the 点评 gives the figure only then, and otherwise says the suggestion is probably, not surely,
better. How often the suggested play really did better with the true hidden hands, and how the
prices compare with the true gains, is measured by ``bench/coaching.py`` (docs/review.md).

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
from engine.plays import Play
from engine.rules import Rules
from players import master
from players.policies import MASTER, seeded

_MASTER: Final = seeded(MASTER)
"""大师 exactly as a table seats it: its draws seeded by the deal, the version and the seat, so
where 大师 itself sat the suggestion is what it played."""

SHOWN: Final = 3
"""Decisions a 点评 shows: the three costliest."""

CANDIDATES: Final = 5
"""Decisions weighed again on fresh draws, costliest first on the first draws, until :data:`SHOWN`
are confirmed: a candidate whose fresh mean is not above zero makes room for the next."""

SURE: Final = 1.64
"""Posterior standard errors of the price above zero (one-sided 95%) for the 点评 to state
it: below that it says the suggestion is probably better, without a figure."""

PRIOR_MEAN: Final = 0.4
PRIOR_SPREAD: Final = 0.45
"""What a candidate's suggestion is worth, in levels a deal, before its fresh draws: mean and
spread over candidates. Measured on 40 deals of a weak player (match seeds 1001–1040, not the
seeds ``bench/coaching.py`` reports on): 60 candidates weighed on 12 fresh draws averaged +0.43,
with a variance of 0.52 of which 0.33 was the draws' own noise (so 0.19 ≈ 0.43² is the spread
of what they are worth); 60 deals (1001–1060, 94 candidates) gave +0.41 and 0.42."""

AHEAD: Final = 0.65
"""Share of a candidate's fresh draws whose two endings differed on which the suggestion must have
ended better for the 点评 to show it. A mean above zero is not enough: a deal's result swings
by up to ±4 levels, so a mean can stand on a few big swings while the suggestion ends worse on
most draws, and then, with the true hands, it is right about as often as a coin. On 36 draws
of 403 decisions (match seeds 1001–1060, apart from the bench's), a mean of 0.25 or more whose
draws were ahead on at least 70% of those that differed was right in 18 of the 23 whose true
endings differed; draws ahead on 60–80%, whatever the mean, in 28 of 48. On the bench's 200
deals the rule took "better where the endings differed" from 71% to 77%, and the marks from
1.15 to 0.86 a deal (docs/review.md)."""

MIN_COST: Final = 0.25
"""Levels a deal below which a decision is not shown as a mistake: 大师's own
:data:`~players.master.MARGIN`, the edge it needs to leave 标准's choice."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How hard the judge looks at a decision where the seat left 大师's choice: ``samples``
    draws of the hidden hands, both actions played out on each. ``confidence``: a decision is
    a candidate only when the suggestion's edge is that many standard errors of the paired
    differences above zero (the draws are few and a deal's result swings by ±4); a candidate
    is then priced on fresh draws (``recheck``, ``more``)."""

    samples: int = 12
    confidence: float = 1.0
    closer: int = 12
    """Draws more for a decision within a standard error of the candidates' bar."""
    recheck: int = 12
    """Fresh draws pricing each candidate (0: price on the first draws, the old, biased way)."""
    more: int = 12
    """Fresh draws more where the price is above zero but not sure, or not yet :data:`AHEAD`
    (sequential stopping)."""
    ahead: float = AHEAD
    """:data:`AHEAD` (0: a fresh mean above zero is enough, the judge before)."""
    candidates: int = CANDIDATES
    """Decisions weighed again on fresh draws at most (:data:`CANDIDATES`)."""


DEFAULT_BUDGET: Final = Budget()


@dataclass(frozen=True, slots=True)
class Decision:
    """One judged decision: where it was in the deal, what was played, what 大师 suggests.

    ``trick`` is the 0-based index of the trick in :attr:`engine.review.DealReview.tricks`
    and ``turn`` the index of the seat's turn in that trick's ``turns``. ``played`` and
    ``suggested`` are plays, ``None`` for 不出. ``cost`` is the mean edge of the suggestion in
    levels a deal over the draws (for a shown decision: its fresh draws, > 0), ``spread`` its
    standard error; :attr:`price` is what the 点评 shows."""

    trick: int
    turn: int
    played: Play | None
    suggested: Play | None
    cost: float
    spread: float = 0.0
    ahead: float = 1.0
    """Of the draws whose two endings differed, the share on which the suggestion ended better."""

    @property
    def price(self) -> float:
        """The cost the 点评 shows: ``cost`` shrunk toward what a candidate costs on average,
        the more the noisier it is (empirical Bayes with the prior :data:`PRIOR_MEAN`,
        :data:`PRIOR_SPREAD`): twelve draws are mostly noise, and a mean picked for being
        above zero is, on average, above its truth."""
        return PRIOR_MEAN + self._weight * (self.cost - PRIOR_MEAN)

    @property
    def sure(self) -> bool:
        """The price is clear of noise: :data:`SURE` posterior standard errors and
        :data:`MIN_COST` above zero. Only then does the 点评 give the figure."""
        return self.price >= max(MIN_COST, SURE * math.sqrt(self._weight) * self.spread)

    @property
    def _weight(self) -> float:
        return PRIOR_SPREAD**2 / (PRIOR_SPREAD**2 + self.spread**2)


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
        return price(at[candidate.trick, candidate.turn], candidate, rules, fresh, budget)

    candidates = costliest(judged, budget.confidence, budget.candidates, by_cost=True)
    return Coaching(deal, seat, confirmed(candidates, priced, budget.ahead), len(judged))


def confirmed(
    candidates: Sequence[Decision], priced: Callable[[Decision], Decision], ahead: float = AHEAD
) -> tuple[Decision, ...]:
    """The first :data:`SHOWN` ``candidates`` (costliest first) whose fresh mean is above zero and
    whose fresh draws were ``ahead`` (:data:`AHEAD`) where they differed, priced so, in the deal's
    order; each is priced only when needed (pricing is the slow part)."""
    shown: list[Decision] = []
    for candidate in candidates:
        fresh = priced(candidate)
        if fresh.cost > 0 and fresh.ahead >= ahead:
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


def price(
    position: Position, decision: Decision, rules: Rules, rng: random.Random, budget: Budget
) -> Decision:
    """``decision`` priced again on ``budget.recheck`` fresh draws, independent of the draws that
    made it a candidate, so its mean is not inflated by having been picked as the largest. A price
    above zero but not :attr:`~Decision.sure`, or not yet ``budget.ahead``, gets ``budget.more``
    draws more: a close call is where more draws change what the 点评 says (shown or not, with a
    figure or without)."""
    suggestion: Action = Pass() if decision.suggested is None else PlayCards(decision.suggested)
    actions = (suggestion, position.action)
    diffs = _differences(position.observation, rules, rng, budget.recheck, actions)
    fresh = _weighed(decision, diffs)
    if fresh.cost <= 0 or (fresh.sure and fresh.ahead >= budget.ahead) or not budget.more:
        return fresh
    diffs += _differences(position.observation, rules, rng, budget.more, actions)
    return _weighed(decision, diffs)


def _weighed(decision: Decision, diffs: Sequence[int]) -> Decision:
    """``decision`` at the mean, the standard error and the share ahead of ``diffs``."""
    return replace(decision, cost=_mean(diffs), spread=_spread(diffs), ahead=share_ahead(diffs))


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
    diffs = _differences(obs, rules, rng, budget.samples, (suggestion, done))
    if _close(diffs, budget.confidence) and budget.closer:
        diffs += _differences(obs, rules, rng, budget.closer, (suggestion, done))
    return Decision(
        position.trick, position.turn, _play(done), _play(suggestion), _mean(diffs), _spread(diffs)
    )


def _differences(
    obs: Observation, rules: Rules, rng: random.Random, samples: int, actions: tuple[Action, Action]
) -> list[int]:
    """The first action's edge over the second on each of ``samples`` draws (both played out on
    the same draw, so the difference is not the luck of the draw), in levels a deal."""
    assert obs.seat is not None
    diffs: list[int] = []
    for _ in range(samples):
        hands = master.draw_hands(obs, rules, rng)
        if hands is None:
            break
        better, played = (master.finish_order(obs, rules, hands, action) for action in actions)
        diffs.append(_levels(rules, better, obs.seat) - _levels(rules, played, obs.seat))
    return diffs


def _close(diffs: Sequence[int], confidence: float) -> bool:
    """The suggestion looks better, but within a standard error of the bar a candidate must
    clear: where more draws are most likely to change whether it is one."""
    mean, spread = _mean(diffs), _spread(diffs)
    return mean > 0 and abs(mean - max(MIN_COST, confidence * spread)) < spread


def _levels(rules: Rules, order: tuple[int, ...] | None, seat: int) -> int:
    return 0 if order is None else master.deal_levels(rules, order, seat)


def _mean(diffs: Sequence[int]) -> float:
    return sum(diffs) / len(diffs) if diffs else 0.0


def share_ahead(diffs: Sequence[int]) -> float:
    """Of the draws whose endings differed, the share the first action ended better on."""
    differed = [d for d in diffs if d]
    return sum(1 for d in differed if d > 0) / len(differed) if differed else 0.0


def _spread(diffs: Sequence[int]) -> float:
    """The standard error of the mean of ``diffs``."""
    n = len(diffs)
    if n < 2:
        return 0.0
    mean = _mean(diffs)
    return math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)


def _play(action: Action) -> Play | None:
    return action.play if isinstance(action, PlayCards) else None
