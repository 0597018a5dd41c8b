"""A format's family and every trait that follows from it, in one place (issue 19): the standings
it keeps (its columns), whether a match's loser is out, whether a match's final levels score,
what a bye means, and whether the field plays in groups. The standings, the texts and the
views ask the family; none of them lists families. A new family is one member here, beside
its pairing module and its registry entry (:mod:`engine.contest.formats`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Column(Enum):
    """A family's figure column; the value is its stable CSV name (``marks`` and
    ``round_scores`` are one CSV column per round: ``round_N``, ``round_N_score``)."""

    REACHED = "reached"  # the stage of the last round played (``stage_of``)
    MARKS = "marks"
    POINTS_FOR = "points_for"
    POINTS_AGAINST = "points_against"
    THREES = "three_point_deals"  # 001-A's tie-break
    MATCH_POINTS = "match_points"  # 积分 (Swiss), 局分 (002-D)
    LEVEL_DIFFERENCE = "level_difference"  # Σ ± 级差
    OPPONENTS_SCORE = "opponents_score"  # 对手分
    TOTAL_SCORE = "total_score"  # Σ round score (001-B)
    ROUND_SCORES = "round_scores"
    WON = "won"
    LOST = "lost"


class Bye(Enum):
    """What a bye (轮空) gives the pair that has it."""

    NEXT_DRAW = "next_draw"  # a knockout: into the next draw
    SCORES_A_WIN = "scores_a_win"  # Swiss: a win's 积分
    NO_MATCH = "no_match"  # the movement: no match this round (a group of three)


@dataclass(frozen=True, slots=True)
class Traits:
    columns: tuple[Column, ...]  # in the order the picture, the text and the CSV show them
    knockout: bool  # a match's loser is out, so a match needs a winner
    scored: bool  # a level race's final levels give 级差 and a round score
    bye: Bye
    groups: bool = False  # the field is drawn into groups (001-B's movement)


class Family(Enum):
    """Which standings a format keeps, and the traits that go with them (:attr:`traits`)."""

    KNOCKOUT = "knockout"  # round reached, W/L per round, points where matches have them
    POINTS_KNOCKOUT = "points_knockout"  # 001-A: points and 3-point deals
    SCORE_KNOCKOUT = "score_knockout"  # 002-D: 局分 2/0 and 级差
    SWISS = "swiss"  # 积分, 级差, 对手分
    MOVEMENT = "movement"  # total score, round scores, 级差

    @property
    def traits(self) -> Traits:
        return TRAITS[self]

    @property
    def columns(self) -> tuple[Column, ...]:
        return self.traits.columns

    @property
    def is_knockout(self) -> bool:
        return self.traits.knockout


TRAITS: dict[Family, Traits] = {
    Family.KNOCKOUT: Traits(
        (Column.REACHED, Column.MARKS, Column.POINTS_FOR, Column.POINTS_AGAINST),
        knockout=True, scored=False, bye=Bye.NEXT_DRAW,
    ),
    Family.POINTS_KNOCKOUT: Traits(
        (Column.REACHED, Column.MARKS, Column.POINTS_FOR, Column.POINTS_AGAINST, Column.THREES),
        knockout=True, scored=False, bye=Bye.NEXT_DRAW,
    ),
    Family.SCORE_KNOCKOUT: Traits(
        (Column.REACHED, Column.MARKS, Column.MATCH_POINTS, Column.LEVEL_DIFFERENCE),
        knockout=True, scored=True, bye=Bye.NEXT_DRAW,
    ),
    Family.SWISS: Traits(
        (Column.MATCH_POINTS, Column.LEVEL_DIFFERENCE, Column.OPPONENTS_SCORE, Column.WON, Column.LOST),
        knockout=False, scored=True, bye=Bye.SCORES_A_WIN,
    ),
    Family.MOVEMENT: Traits(
        (Column.TOTAL_SCORE, Column.ROUND_SCORES, Column.LEVEL_DIFFERENCE, Column.WON),
        knockout=False, scored=True, bye=Bye.NO_MATCH, groups=True,
    ),
}  # fmt: skip
"""Each family's traits; a family without its entry fails at import (see the check below)."""

assert set(TRAITS) == set(Family), "every family has its traits"
