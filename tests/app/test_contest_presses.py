"""What a contest button or a score sheet's ✅ runs (``app/contest/presses.py``,
``app/contest/sheet_submission.py``), without Telegram or a database (issue 41): each press
runs its own command on the contest, the presses that run none say so, only the organiser's
presses are the organiser's; a sheet is submitted only once it decides the match, as a player's
report or the organiser's decision."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.contest.callback_data import ContestOp, ContestPress
from app.contest.presses import ORGANISER_OPS, press_command
from app.contest.sheet_submission import SHEET_REASON, NotReady, not_ready, players, submission
from engine.contest import (
    Contest,
    ContestPhase,
    FactKind,
    MatchStatus,
    Schedule,
    ScheduleKind,
    draw,
    report_text,
    sign_up,
)
from engine.contest.sheet import ScoreSheet, SheetEntry
from tests.engine.contest.support import DEADLINE, ON_TIME, ORGANISER, new_contest, player, signed_up

AT_VENUE = Schedule(ScheduleKind.FIXED, starts_at=ON_TIME + timedelta(days=1), venue="6楼")
NOW = lambda: ON_TIME  # noqa: E731 - the desk's clock


def pressed(op: ContestOp, user_id: int, arg: str = "", username: str | None = None) -> Contest | None:
    """The contest after ``user_id`` presses ``op`` (None: the press runs no command)."""
    contest = signed_up(2)
    command = press_command(ContestPress(op, 1, arg), player(user_id), username, NOW)
    return None if command is None else command(contest).contest


def test_sign_up_and_withdraw_run_for_the_presser() -> None:
    joined = pressed(ContestOp.SIGN_UP, 900)
    assert joined is not None and joined.entries[-1].player == player(900)
    left = pressed(ContestOp.WITHDRAW, 100)
    assert left is not None and all(e.player.user_id != 100 for e in left.entries)


def test_a_partners_answer_is_the_invited_partners() -> None:
    invited = sign_up(new_contest(), player(1), player(2)).contest
    yes = press_command(ContestPress(ContestOp.PARTNER_YES, 1), player(2), None, NOW)
    no = press_command(ContestPress(ContestOp.PARTNER_NO, 1), player(2), None, NOW)
    assert yes is not None and no is not None
    assert yes(invited).contest.entries[0].confirmed
    assert no(invited).contest.entries[0].partner is None


def test_confirm_and_dispute_name_the_match_and_the_draw_draws() -> None:
    drawn = pressed(ContestOp.DRAW, ORGANISER)
    assert drawn is not None and drawn.phase is ContestPhase.ROUND_IN_PLAY
    (match,) = drawn.rounds[0].matches
    winner = match.pairs[0]
    reporter = drawn.pair(winner).user_ids[0]
    reported = report_text(drawn, reporter=reporter, text=f"掼蛋{winner}组", now=ON_TIME).contest
    opponent = reported.pair(match.pairs[1]).user_ids[0]
    for op, status in ((ContestOp.CONFIRM, MatchStatus.CONFIRMED), (ContestOp.DISPUTE, MatchStatus.DISPUTED)):
        command = press_command(ContestPress(op, 1, match.code), player(opponent), None, NOW)
        assert command is not None
        assert command(reported).contest.match_by_code(match.code).status is status


def test_closing_the_round_puts_pairs_with_nothing_reported_out() -> None:
    drawn = draw(signed_up(2), now=ON_TIME).contest
    command = press_command(
        ContestPress(ContestOp.CLOSE_YES, 1), player(ORGANISER), None, lambda: DEADLINE.closes_at
    )
    assert command is not None
    (match,) = command(drawn).contest.rounds[0].matches
    assert match.facts[-1].kind is FactKind.DECISION and match.facts[-1].reason == "deadline"


@pytest.mark.parametrize(
    "op",
    [
        ContestOp.PLAY,
        ContestOp.STANDINGS,
        ContestOp.MIRROR,
        ContestOp.CLOSE_NO,
        ContestOp.SHEET,
        ContestOp.SHEET_OPEN,
    ],
)
def test_the_presses_handled_elsewhere_run_no_command(op: ContestOp) -> None:
    assert press_command(ContestPress(op, 1, "x"), player(100), None, NOW) is None


def test_only_closing_and_drawing_are_the_organisers() -> None:
    assert {ContestOp.CLOSE_YES, ContestOp.CLOSE_NO, ContestOp.DRAW} == ORGANISER_OPS


def at_table() -> tuple[Contest, ScoreSheet]:
    """Two pairs at a physical table (000-E's six scored deals), and the match's empty sheet."""
    contest = draw(signed_up(2), now=ON_TIME, schedule=AT_VENUE).contest
    (match,) = contest.rounds[0].matches
    return contest, ScoreSheet(contest.round_rules(1), match.pairs[0], match.pairs[1])


def test_a_sheet_is_submitted_once_it_decides_the_match() -> None:
    contest, sheet = at_table()
    assert not_ready(contest, sheet) is NotReady.NOT_DECIDED
    for _ in range(5):
        sheet = sheet.enter(SheetEntry.deal(0, 2))
    assert not_ready(contest, sheet) is NotReady.NOT_DECIDED
    assert not_ready(contest, sheet.enter(SheetEntry.deal(0, 2))) is None


def test_a_players_submission_is_a_report_and_the_organisers_a_decision() -> None:
    contest, sheet = at_table()
    for _ in range(6):
        sheet = sheet.enter(SheetEntry.deal(0, 2))
    (match,) = contest.rounds[0].matches
    recorder = min(players(contest, match))
    assert players(contest, match) == set(contest.pair(match.pairs[0]).user_ids) | set(
        contest.pair(match.pairs[1]).user_ids
    )
    reported = submission(contest, match, sheet, recorder, NOW)(contest).contest.match_by_code(match.code)
    fact = reported.facts[-1]
    assert fact.kind is FactKind.REPORT and fact.by == recorder and reported.status is MatchStatus.REPORTED
    assert (
        fact.result is not None
        and fact.result.winner == sheet.winner_pair
        and fact.result.figures is not None
    )
    decided = submission(contest, match, sheet, ORGANISER, NOW)(contest).contest.match_by_code(match.code)
    fact = decided.facts[-1]
    assert fact.kind is FactKind.DECISION and fact.reason == SHEET_REASON and fact.by == ORGANISER
