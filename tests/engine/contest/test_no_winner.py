"""A match nobody won (001-B: the 60 minutes ran out with nobody past A, A17): each pair keeps
the score of the levels it climbed, nobody wins or loses, and only formats that eliminate
nobody (movement, Swiss) accept it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.contest.args import parse_decision
from engine.cards import Rank
from engine.contest import (
    Contest,
    ContestError,
    MatchResult,
    PlayMethod,
    Schedule,
    ScheduleKind,
    decide,
    draw,
    pair_scores,
    report,
)
from engine.contest.standings import Mark, standings
from engine.figures import reported_figures
from engine.rules import Rules
from tests.engine.contest.support import ON_TIME, ORGANISER, signed_up

AT_VENUE = Schedule(ScheduleKind.FIXED, starts_at=datetime(2026, 12, 26, 6, 0, tzinfo=UTC), venue="6楼")
MOVEMENT = Rules.preset("three-round-movement")


def drawn(format_name: str, preset: str = "three-round-movement") -> Contest:
    contest = signed_up(4, format_name=format_name, preset=preset)
    return draw(contest, now=ON_TIME, schedule=AT_VENUE).contest


def timed_out(levels: tuple[Rank, Rank]) -> MatchResult:
    """Levels per the match's pairs; the clock stopped it with nobody past A."""
    figures = reported_figures(MOVEMENT, winner=None, levels=levels, passed_a=False)
    return MatchResult(None, PlayMethod.PHYSICAL, figures=figures)


def test_a_timed_out_movement_match_scores_each_pairs_levels_and_nobody_wins() -> None:
    contest = drawn("movement")
    match = contest.rounds[0].matches[0]
    first, second = match.pairs
    reporter = contest.pair(first).user_ids[0]
    result = timed_out((Rank.NINE, Rank.FIVE))
    after = report(
        contest, reporter=reporter, winner=None, now=ON_TIME, figures=result.figures, code=match.code
    ).contest
    done = after.match_by_code(match.code)
    assert done.result is not None and done.result.no_winner and done.winner is None
    scores = pair_scores([p.number for p in after.pairs], after.rounds, after.settings.match_points)
    assert (scores[first].round_score, scores[second].round_score) == (7, 3)  # 2→9, 2→5: no 100
    assert scores[first].won == scores[first].lost == 0 and scores[first].played == 1
    assert scores[first].match_points == scores[second].match_points == after.settings.match_points.draw
    assert scores[first].level_difference == 0 and scores[first].opponents == (second,)
    marks = {row.number: row.marks for row in standings(after)}
    assert marks[first] == marks[second] == (Mark.NO_WINNER,)


def test_a_knockout_refuses_a_match_nobody_won() -> None:
    contest = drawn("redraw-knockout")
    match = contest.rounds[0].matches[0]
    reporter = contest.pair(match.pairs[0]).user_ids[0]
    with pytest.raises(ContestError):
        report(
            contest,
            reporter=reporter,
            winner=None,
            now=ON_TIME,
            figures=timed_out((Rank.NINE, Rank.FIVE)).figures,
            code=match.code,
        )


def test_rules_whose_clock_always_names_a_winner_refuse_it() -> None:
    contest = drawn("movement", preset="knockout-135")  # 002-D: the leader wins at time-out
    match = contest.rounds[0].matches[0]
    with pytest.raises(ContestError):
        decide(
            contest,
            code=match.code,
            result=timed_out((Rank.NINE, Rank.FIVE)),
            by=ORGANISER,
            reason="time",
            now=ON_TIME,
        )


def test_a_result_without_a_winner_needs_figures_that_name_nobody() -> None:
    with pytest.raises(ContestError):
        MatchResult(None, PlayMethod.PHYSICAL)
    figures = reported_figures(MOVEMENT, winner=0, levels=(Rank.ACE, Rank.FIVE))
    with pytest.raises(ContestError):
        MatchResult(None, PlayMethod.ORGANISER, figures=figures)
    with pytest.raises(ContestError):
        MatchResult(3, PlayMethod.BOTH_OUT)


def test_the_organiser_records_it_with_result_draw_and_the_levels() -> None:
    contest = drawn("movement")
    match = contest.rounds[0].matches[0]
    decision = parse_decision([match.code, "draw", "levels=K:10", "60分钟到"], "掼蛋")
    result = decision.with_figures(contest)
    assert result.no_winner and result.method is PlayMethod.ORGANISER
    assert result.figures is not None and result.figures.round_score == (11, 8)
    after = decide(contest, code=match.code, result=result, by=ORGANISER, reason=decision.reason, now=ON_TIME)
    assert after.contest.match_by_code(match.code).result == result
    with pytest.raises(ValueError):  # a draw needs the levels it scores
        parse_decision([match.code, "draw", "60分钟到"], "掼蛋")


def test_under_001b_the_clock_names_no_winner_so_a_winner_on_time_is_refused() -> None:
    contest = drawn("movement")
    match = contest.rounds[0].matches[0]
    on_time = parse_decision([match.code, str(match.pairs[0]), "levels=K:10", "time", "领先"], "掼蛋")
    with pytest.raises(ContestError):
        decide(
            contest,
            code=match.code,
            result=on_time.with_figures(contest),
            by=ORGANISER,
            reason="x",
            now=ON_TIME,
        )
    passed = parse_decision([match.code, str(match.pairs[0]), "levels=A:10", "过A"], "掼蛋")
    after = decide(
        contest, code=match.code, result=passed.with_figures(contest), by=ORGANISER, reason="x", now=ON_TIME
    )
    assert after.contest.match_by_code(match.code).winner == match.pairs[0]
