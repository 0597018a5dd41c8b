"""The group's skill rating: openskill's Plackett-Luce model, two partnerships per match.

Why openskill: it rates *teams* (a partnership's two ratings move together by how much each
is trusted), it is MIT licensed, pure Python and maintained; TrueSkill would do the same
maths but its Python package has not had a release since 2018.

Why per match and not per deal: deals of one match are not independent (the level played,
tribute and the lead all carry over from the last deal), and the match is what the players
set out to win; per deal, one long match would move a rating as much as twenty short ones.

The figure shown is the conservative one, ``mu − 3·sigma``: a new player starts at 0 and
climbs as the model grows sure of them, so a lucky first match does not top the list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce

MIN_MATCHES: Final = 3
"""Matches a player needs before /top ranks them: after three, sigma has fallen from 8.3 to
about 7.6, and a single result no longer decides where a name appears."""

_MODEL: Final = PlackettLuce()


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """``mu − 3·sigma``: the rating the player is very likely above."""
        return self.mu - 3 * self.sigma


NEW: Final = Skill(_MODEL.mu, _MODEL.sigma)


def rate_match(
    teams: Sequence[tuple[Skill, Skill]], winner_team: int | None
) -> tuple[tuple[Skill, Skill], tuple[Skill, Skill]]:
    """Both partnerships' ratings after a match (``winner_team`` None: no winner, a tie)."""
    ratings = [[_MODEL.rating(mu=skill.mu, sigma=skill.sigma) for skill in team] for team in teams]
    ranks = [1.0, 1.0] if winner_team is None else [1.0 if team == winner_team else 2.0 for team in (0, 1)]
    rated = _MODEL.rate(ratings, ranks=ranks)
    new = [tuple(Skill(float(r.mu), float(r.sigma)) for r in team) for team in rated]
    return (new[0][0], new[0][1]), (new[1][0], new[1][1])
