"""The figures a contest reads from a finished match: points, levels, level difference, round score.

Contest code (``engine/contest/``) ranks pairs by these numbers and must never work them
out again from a match's events: the rules that produce them (A17, A18, the points
scales, the A rules) live in the engine, and a second copy would drift. So a finished
:class:`~engine.match.Match` is read once, by :func:`match_figures`, into a frozen
:class:`MatchFigures`; a walkover (弃权), which has no match, gets the same value from
:func:`forfeit_figures`. Every pair of numbers is per engine team: index 0 is the team
in seats 0 and 2 (North/South), index 1 seats 1 and 3.

>>> from engine.rules import Rules
>>> figures = forfeit_figures(Rules.preset("knockout-135"), winner=1)
>>> figures.winner, figures.level_difference, figures.round_score
(1, Fraction(12, 1), (0, 2))
>>> MatchFigures.from_json(figures.to_json()) == figures
True

What each figure means, with the seed rule it serves:

- ``points`` and ``three_point_deals``: the points formats (000-E, 001-A, 000-H); a
  3-point deal is one that scored 3 (a 双下 at 3/2/1), 001-A's first tie-break.
- ``steps``: levels climbed from 2 (docs/rules.md §1.14, 13 more per 2→A cycle of
  002-A); a team that won by passing A counts as past A, 13 (A17).
- ``level_difference`` (级差): the winner's steps minus the loser's, as a
  :class:`~fractions.Fraction` because a walkover under 002-D's literal "级差为1/2" is
  worth ½ (A18, :class:`~engine.rules.ForfeitDifference`); 0 when nobody won.
- ``round_score``: what the match is worth in a multi-round contest under the rules'
  :class:`~engine.rules.RoundScore`: 001-B's 100 + level difference (≤ 15) for the winner
  and the levels climbed (≤ 12) otherwise, with no 100 for anybody when nobody passed A
  in time (A17); 002-D / 003-A's 局分 2 / 0.
- ``extra_deals``: deals played after a tie (加赛, or A26's sudden death).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from engine.actions import EndReason, MatchEnded
from engine.cards import Rank
from engine.match import Match
from engine.rules import ForfeitDifference, MatchFormat, Rules
from engine.scoring import Standing, round_score

__all__ = [
    "PAST_A",
    "ContestEnd",
    "FiguresReason",
    "MatchFigures",
    "ended_figures",
    "forfeit_figures",
    "match_figures",
    "reported_figures",
]

PAST_A = 13
"""Steps of a team that passed A: the 12 steps 2→A and one more (A17's "past A")."""


class ContestEnd(StrEnum):
    """How a contest match ended without a bot table's :class:`~engine.actions.MatchEnded`."""

    FORFEIT = "forfeit"  # a walkover (弃权): no deal was played
    REPORTED = "reported"  # a recorder's levels without passing A (a win on time, or nobody's)


FiguresReason = EndReason | ContestEnd
"""Why a match with figures ended; the values are the strings stored figures have always held."""


def figures_reason(text: str) -> FiguresReason:
    """The reason a stored figures JSON names (``ValueError`` for a word no version wrote)."""
    try:
        return ContestEnd(text)
    except ValueError:
        return EndReason(text)


_FORFEIT_DIFFERENCE = {ForfeitDifference.TWELVE: Fraction(12), ForfeitDifference.HALF: Fraction(1, 2)}


@dataclass(frozen=True, slots=True)
class MatchFigures:
    """One finished match's figures; pairs are per engine team (0: seats 0/2, 1: seats 1/3)."""

    winner: int | None  # engine team; None: nobody won (001-B's time-out, A17)
    reason: FiguresReason
    deals: int  # deals completed (an unfinished deal stopped by the clock does not count)
    extra_deals: int  # of those, deals played after a tie (加赛 / sudden death)
    points: tuple[int, int]  # points formats; (0, 0) otherwise
    three_point_deals: tuple[int, int]  # deals that scored 3 points (001-A tie-break)
    levels: tuple[Rank, Rank]  # final levels (of the last game in a best-of)
    steps: tuple[int, int]  # levels climbed from 2; PAST_A for a team that passed A
    level_difference: Fraction  # 级差: winner's steps − loser's; 0 without a winner
    round_score: tuple[int, int]  # per Rules.round_score (A17, 002-D)
    games_won: tuple[int, int]  # best-of formats; (0, 0) otherwise
    forfeit: bool = False  # a walkover (弃权): no deal was played

    @property
    def loser(self) -> int | None:
        return None if self.winner is None else 1 - self.winner

    def to_json(self) -> str:
        """Stable JSON for storing the figures beside a contest result (ranks by value)."""
        data = {
            "winner": self.winner,
            "reason": self.reason,
            "deals": self.deals,
            "extra_deals": self.extra_deals,
            "points": list(self.points),
            "three_point_deals": list(self.three_point_deals),
            "levels": [int(level) for level in self.levels],
            "steps": list(self.steps),
            "level_difference": str(self.level_difference),
            "round_score": list(self.round_score),
            "games_won": list(self.games_won),
            "forfeit": self.forfeit,
        }
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> MatchFigures:
        """The inverse of :meth:`to_json`."""
        data = json.loads(text)
        return cls(
            winner=data["winner"],
            reason=figures_reason(data["reason"]),
            deals=data["deals"],
            extra_deals=data["extra_deals"],
            points=_pair(data["points"]),
            three_point_deals=_pair(data["three_point_deals"]),
            levels=(Rank(data["levels"][0]), Rank(data["levels"][1])),
            steps=_pair(data["steps"]),
            level_difference=Fraction(data["level_difference"]),
            round_score=_pair(data["round_score"]),
            games_won=_pair(data["games_won"]),
            forfeit=data["forfeit"],
        )


def match_figures(match: Match) -> MatchFigures:
    """The figures of a finished ``match``; raises ``ValueError`` while it is still being played."""
    if not match.is_over:
        raise ValueError("the match is not over")
    reason = next(e.reason for e in reversed(match.events) if isinstance(e, MatchEnded))
    return ended_figures(
        match.rules,
        match.standing,
        winner=match.winner_team,
        reason=reason,
        deals=len(match.deal_results),
        extra_deals=match.extra_deals,
        games_won=match.games_won,
    )


def ended_figures(
    rules: Rules,
    standing: Standing,
    *,
    winner: int | None,
    reason: FiguresReason,
    deals: int,
    extra_deals: int,
    games_won: tuple[int, int],
) -> MatchFigures:
    """The figures of a match that ended with ``standing`` (its last game's, in a best-of) for
    ``reason``: a bot table's (:func:`match_figures`) or a recorder's score sheet's
    (:mod:`engine.contest.sheet`), scored alike."""
    steps = _steps(standing, winner if reason is EndReason.PASSED_A else None)
    return MatchFigures(
        winner=winner,
        reason=reason,
        deals=deals,
        extra_deals=extra_deals,
        points=standing.points,
        three_point_deals=standing.threes,
        levels=standing.levels,
        steps=steps,
        level_difference=Fraction(0 if winner is None else steps[winner] - steps[1 - winner]),
        round_score=round_score(standing, winner, rules),
        games_won=games_won if rules.match_format is MatchFormat.BEST_OF else (0, 0),
    )


def forfeit_figures(rules: Rules, winner: int) -> MatchFigures:
    """A walkover (弃权) won by engine team ``winner`` under ``rules``: no deal played, the
    winner counted as past A and the loser at 2, the level difference per A18
    (:attr:`Rules.forfeit_difference`: 12 by default, ½ read literally)."""
    if winner not in (0, 1):
        raise ValueError("winner must be engine team 0 or 1")
    standing = Standing()
    steps = (PAST_A, 0) if winner == 0 else (0, PAST_A)
    return MatchFigures(
        winner=winner,
        reason=ContestEnd.FORFEIT,
        deals=0,
        extra_deals=0,
        points=(0, 0),
        three_point_deals=(0, 0),
        levels=standing.levels,
        steps=steps,
        level_difference=_FORFEIT_DIFFERENCE[rules.forfeit_difference],
        round_score=round_score(standing, winner, rules),
        games_won=(0, 0),
        forfeit=True,
    )


def reported_figures(
    rules: Rules,
    *,
    winner: int | None,
    levels: tuple[Rank, Rank] = (Rank.TWO, Rank.TWO),
    passed_a: bool = True,
    points: tuple[int, int] = (0, 0),
    three_point_deals: tuple[int, int] = (0, 0),
) -> MatchFigures:
    """A match played at a physical table, from what its recorder writes down: the final
    ``levels`` (and whether the winner passed A, or won on time), or the points and 3-point
    deals of a points match. Scored by the same :func:`round_score` and steps as a bot
    table, so a recorder's sheet and a bot match rank alike."""
    if winner not in (None, 0, 1):
        raise ValueError("winner must be engine team 0, 1 or None")
    standing = Standing(levels=levels, points=points, threes=three_point_deals)
    steps = _steps(standing, winner if passed_a else None)
    return MatchFigures(
        winner=winner,
        reason=EndReason.PASSED_A if passed_a and winner is not None else ContestEnd.REPORTED,
        deals=0,
        extra_deals=0,
        points=points,
        three_point_deals=three_point_deals,
        levels=levels,
        steps=steps,
        level_difference=Fraction(0 if winner is None else steps[winner] - steps[1 - winner]),
        round_score=round_score(standing, winner, rules),
        games_won=(0, 0),
    )


def _steps(standing: Standing, passed_a: int | None) -> tuple[int, int]:
    """Levels climbed per team (13 per completed 2→A cycle); ``passed_a`` counts PAST_A."""
    steps = [PAST_A * standing.cycles[team] + int(standing.levels[team]) - int(Rank.TWO) for team in (0, 1)]
    if passed_a is not None:
        steps[passed_a] = PAST_A * standing.cycles[passed_a] + PAST_A
    return (steps[0], steps[1])


def _pair(values: list[int]) -> tuple[int, int]:
    first, second = values
    return (int(first), int(second))
