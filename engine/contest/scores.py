"""Per-pair totals over a contest's rounds: 积分, round scores, 级差, points, 3-point deals.

Read from each settled result's :class:`~engine.figures.MatchFigures` (the engine's own
numbers: this module adds them up, it never scores a deal), plus the contest's
:class:`~engine.contest.pairing.MatchPoints` for wins, losses and byes. A result known
only by its winner (a bare ``掼蛋3组``) adds a win or a loss and nothing else; a match
nobody won (001-B's time-out, A17) adds each pair's round score and the draw's 积分.

Level difference (级差) is signed: the winner adds the match's difference, the loser
subtracts it, so the column sums to zero over all pairs (a property test checks it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from engine.contest.pairing import DEFAULT_POINTS, MatchPoints
from engine.contest.results import ContestMatch
from engine.contest.rounds import Round


@dataclass(frozen=True, slots=True)
class PairScore:
    number: int
    played: int = 0  # matches with a result, walkovers included
    won: int = 0
    lost: int = 0
    byes: int = 0
    match_points: int = 0  # 积分 (MatchPoints): wins, losses and byes
    round_score: int = 0  # Σ engine round score (001-B: 100 + 级差 …; 002-D: 局分 2/0)
    level_difference: Fraction = Fraction(0)  # Σ ± 级差
    points_for: int = 0  # points formats (000-E, 001-A)
    points_against: int = 0
    threes: int = 0  # 3-point deals (001-A)
    opponents: tuple[int, ...] = ()  # in round order, byes excluded


def settled(match: ContestMatch) -> bool:
    """A result that stands and was played: a winner, or nobody won (001-B's time-out);
    both-out and disputed matches do not count."""
    result = match.result
    return match.status.is_settled and result is not None and (match.winner is not None or result.no_winner)


def pair_scores(
    numbers: Sequence[int], rounds: Iterable[Round], points: MatchPoints = DEFAULT_POINTS
) -> dict[int, PairScore]:
    """Every pair's totals; third-place matches count like any other match."""
    totals = {n: PairScore(n) for n in numbers}
    for played in rounds:
        for n in played.byes:
            if n in totals and played.match_of(n) is None:
                old = totals[n]
                totals[n] = replace(old, byes=old.byes + 1, match_points=old.match_points + points.bye)
        for match in played.matches:
            if settled(match):
                for index, n in enumerate(match.pairs):
                    if n in totals:
                        totals[n] = _add_match(totals[n], match, index, points)
    return totals


def _add_match(old: PairScore, match: ContestMatch, index: int, points: MatchPoints) -> PairScore:
    result = match.result
    assert result is not None
    won = match.winner == old.number
    lost = match.winner is not None and not won  # nobody won: neither (a draw's 积分)
    figures = result.figures
    sign = 1 if won else -1
    difference = figures.level_difference * sign if figures is not None else Fraction(0)
    mine = result.points if result.points is not None else (figures.points if figures else (0, 0))
    earned = points.win if won else points.loss if lost else points.draw
    return replace(
        old,
        played=old.played + 1,
        won=old.won + won,
        lost=old.lost + lost,
        match_points=old.match_points + earned,
        round_score=old.round_score + (figures.round_score[index] if figures else 0),
        level_difference=old.level_difference + difference,
        points_for=old.points_for + mine[index],
        points_against=old.points_against + mine[1 - index],
        threes=old.threes + (figures.three_point_deals[index] if figures else 0),
        opponents=(*old.opponents, match.opponent(old.number)),
    )


def opponents_score(scores: Mapping[int, PairScore], number: int) -> int:
    """对手分 (Buchholz): the opponents' 积分 added up, the second Swiss tie-break (docs/rules.md §4.6)."""
    return sum(scores[o].match_points for o in scores[number].opponents if o in scores)
