"""积分编排制 (003-A / 000-B, docs/rules.md §4.6): a Swiss-type points pairing over a fixed number of rounds.

Round ``r`` exactly (lots as in :mod:`engine.contest.lots`):

1. **Order.** Round 1: the contenders sorted by group number, shuffled with the label
   ``"round:1"``. Later rounds: by 积分 (:class:`~engine.contest.pairing.MatchPoints`,
   2/0 by default, a bye scoring a win), then Σ 级差, then opponents' score, highest
   first; equal pairs keep the order of a shuffle with the round's label.
2. **Bye** (odd count): the lowest pair in that order that has not had one yet (all
   have: the lowest); the next lowest if the others cannot then be paired without a rematch.
3. **Pairs**, top down: each unpaired pair meets the highest pair below it that it has
   not met yet (no rematch), backtracking when a later pair would be left without an
   opponent. Only when no rematch-free pairing exists at all (a tiny field) are the
   pairs taken in order, rematches allowed.

Places: 积分, then Σ 级差, then opponents' score (对手分); equal on all three share a place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from engine.contest.pairing import Pairing, RankInput, RoundDraw, RoundInput, competition_ranking, pair_off
from engine.contest.rounds import Round
from engine.contest.scores import PairScore, opponents_score, pair_scores

# Why a budget: a field too small for a rematch-free round makes the backtracking try every
# pairing; 20 000 steps is instant and far more than any field of ≥ 8 pairs ever needs.
_SEARCH_BUDGET = 20_000

SWISS_ROUNDS = 3  # 003-A "以3轮比赛累计积分决出名次"


def _key(scores: Mapping[int, PairScore], number: int) -> tuple[int, Fraction, int]:
    score = scores[number]
    return (score.match_points, score.level_difference, opponents_score(scores, number))


def swiss_rank(view: RankInput) -> dict[int, int]:
    scores = pair_scores(view.numbers, view.rounds, view.points)
    return competition_ranking({n: _key(scores, n) for n in view.numbers})


def swiss_pairing(view: RoundInput) -> RoundDraw:
    """Steps 1–3 of the module docstring."""
    order = _order(view)
    met = _met(view.previous)
    had_bye = {n for r in view.previous for n in r.byes}
    candidates = [n for n in reversed(order) if n not in had_bye] or list(reversed(order))
    for bye in candidates if len(order) % 2 else [None]:
        rest = [n for n in order if n != bye]
        paired = _pair_without_rematch(rest, met, [_SEARCH_BUDGET])
        if paired is not None:
            return RoundDraw(paired, () if bye is None else (bye,))
    bye = candidates[0] if len(order) % 2 else None
    rest = [n for n in order if n != bye]
    return RoundDraw(pair_off(rest), () if bye is None else (bye,))


def _order(view: RoundInput) -> list[int]:
    shuffled = view.lots.shuffle(sorted(view.contenders))
    if not view.previous:
        return list(shuffled)
    scores = pair_scores(view.pairs or view.contenders, view.previous, view.points)
    position = {n: i for i, n in enumerate(shuffled)}

    def descending(n: int) -> tuple[int, Fraction, int, int]:
        points, difference, opponents = _key(scores, n)
        return (-points, -difference, -opponents, position[n])

    return sorted(shuffled, key=descending)


def _met(previous: Sequence[Round]) -> set[frozenset[int]]:
    return {frozenset(m.pairs) for r in previous for m in r.matches}


def _pair_without_rematch(
    order: list[int], met: set[frozenset[int]], budget: list[int]
) -> tuple[Pairing, ...] | None:
    """Top-down pairing with backtracking; None when every pairing has a rematch (or the
    search budget is spent)."""
    if not order:
        return ()
    budget[0] -= 1
    if budget[0] < 0:
        return None
    first, rest = order[0], order[1:]
    for index, other in enumerate(rest):
        if frozenset((first, other)) in met:
            continue
        tail = _pair_without_rematch(rest[:index] + rest[index + 1 :], met, budget)
        if tail is not None:
            return (Pairing((first, other)), *tail)
    return None


def swiss_advance(contenders: tuple[int, ...], played: Round) -> tuple[int, ...]:
    """Nobody is knocked out: every pair plays every round (withdrawals leave by themselves)."""
    return contenders


def never_early(alive: tuple[int, ...], rounds: tuple[Round, ...]) -> bool:
    """A fixed number of rounds (ContestFormat.fixed_rounds) decides it, or nobody left to pair."""
    return len(alive) <= 1
