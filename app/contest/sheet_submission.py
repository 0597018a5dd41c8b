"""A score sheet's ✅ (issue 11): whether the sheet can be submitted, and the contest command it
submits — a player's report (the opponents may confirm or dispute it) or, from the organiser,
a decision. Telegram-free (issue 41): the chat's sheet message asks here, runs the command
through the contest service and answers."""

from __future__ import annotations

from enum import Enum

from app.contest.service import Clock, Command
from engine.contest import Contest, ContestMatch, MatchResult, PlayMethod, Step, decide, report
from engine.contest.sheet import ScoreSheet
from engine.rules import MatchFormat

SHEET_REASON = "score sheet"
"""The organiser's decision reason when they submit a sheet (kept with the result)."""


class NotReady(Enum):
    """Why ✅ is refused: the sheet does not decide the match yet, or decides no winner where the
    format needs one (a knockout)."""

    NOT_DECIDED = "not_decided"
    NO_WINNER = "no_winner"


def not_ready(contest: Contest, sheet: ScoreSheet) -> NotReady | None:
    """None when the sheet can be submitted."""
    if not sheet.is_decided:
        return NotReady.NOT_DECIDED
    if sheet.winner_pair is None and contest.format.needs_winner:
        return NotReady.NO_WINNER
    return None


def players(contest: Contest, match: ContestMatch) -> set[int]:
    """The user ids of the match's four players."""
    return {uid for number in match.pairs for uid in contest.pair(number).user_ids}


def submission(contest: Contest, match: ContestMatch, sheet: ScoreSheet, user_id: int, now: Clock) -> Command:
    """The command ✅ runs for ``user_id``: a report with the sheet's figures when they play the
    match, else the organiser's decision (reason :data:`SHEET_REASON`); ``now`` read as it runs."""
    winner = sheet.winner_pair
    figures = sheet.contest_figures(match.pairs)
    points = figures.points if sheet.rules.match_format is MatchFormat.POINTS else None
    extra = figures.extra_deals > 0
    is_player = user_id in players(contest, match)

    def command(contest: Contest) -> Step:
        if is_player:
            return report(
                contest,
                reporter=user_id,
                winner=winner,
                now=now(),
                points=points,
                extra_deal=extra,
                figures=figures,
                code=match.code,
            )
        result = MatchResult(winner, PlayMethod.ORGANISER, points, extra, figures)
        return decide(contest, code=match.code, result=result, by=user_id, reason=SHEET_REASON, now=now())

    return command
