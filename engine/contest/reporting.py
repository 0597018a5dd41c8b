"""The contest commands about results: reports, confirmations, disputes, decisions and lateness.

Each takes the contest and returns a :class:`~engine.contest.state.Step`, or raises a
:class:`~engine.contest.errors.ContestError`; :mod:`engine.contest` re-exports them
with the other commands.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from engine.actions import EndReason
from engine.contest.deadlines import aware
from engine.contest.errors import Refusal, ReportRefused, ResultRefused
from engine.contest.report import parse_report
from engine.contest.results import ContestMatch, FactKind, MatchFact, MatchResult, MatchStatus, PlayMethod
from engine.contest.state import (
    Contest,
    ContestDecided,
    ContestPhase,
    Event,
    MatchNote,
    MatchUpdated,
    PairWithdrew,
    RoundCompleted,
    Step,
    Withdrawal,
    WithdrawReason,
    phase_refusal,
    refuse_when_closed,
    require_phase,
    round_of,
)
from engine.figures import ContestEnd, FiguresReason, MatchFigures, forfeit_figures
from engine.rules import MatchFormat, TimeWinner
from engine.scoring import Standing, points_verdict


def walkover_result(contest: Contest, match: ContestMatch, winner: int) -> MatchResult:
    """弃权: "如遇对手弃权，直接晋级" (000-A); in scored formats worth 局分 2 and 级差 12
    (A18, or ½ under ``forfeit_difference=half``), from :func:`engine.figures.forfeit_figures`."""
    figures = forfeit_figures(contest.round_rules(match.round), winner=match.pairs.index(winner))
    return MatchResult(winner, PlayMethod.WALKOVER, figures=figures)


def report_text(contest: Contest, *, reporter: int, text: str, now: datetime) -> Step:
    """``掼蛋3组`` typed in the group, or ``/report 掼蛋三组``: pair 3 won its match."""
    number = parse_report(text, contest.settings.event_word)
    return report(contest, reporter=reporter, winner=number, now=now, text=text)


def report(
    contest: Contest,
    *,
    reporter: int,
    winner: int | None,
    now: datetime,
    text: str = "",
    points: tuple[int, int] | None = None,
    extra_deal: bool = False,
    figures: MatchFigures | None = None,
    code: str | None = None,
) -> Step:
    """A player's report of a physical match: counts at once; the opponents may dispute.
    ``figures`` (indexed like the match's pairs, e.g. from the table's score sheet) carry
    the 级差 and round score that scored formats rank by. A match nobody won (``winner``
    None, figures naming nobody) is found by its ``code``."""
    match = _reportable_match(contest, winner, now, code)
    if reporter not in _players(contest, match):
        raise ReportRefused(Refusal.NOT_A_PLAYER, str(reporter))
    result = MatchResult(winner, PlayMethod.PHYSICAL, points, extra_deal, figures)
    _check_result(contest, match, result)
    check_figures(contest, match, result)
    fact = MatchFact(FactKind.REPORT, now, reporter, result, text=text)
    return Step(*append_fact(contest, match, fact, _report_note(match, winner)))


def record_bot_result(contest: Contest, *, code: str, result: MatchResult, now: datetime) -> Step:
    """A bot table's end (see :func:`~engine.contest.results.result_from_match`)."""
    match = _open_match(contest, code)
    _check_on_time(contest, match, now)
    _check_result(contest, match, result)
    fact = MatchFact(FactKind.REPORT, aware(now), None, result)
    return Step(*append_fact(contest, match, fact, _report_note(match, result.winner, MatchNote.BOT_RESULT)))


def confirm(contest: Contest, *, code: str, by: int, now: datetime) -> Step:
    """确认: a player of the pair that did not report agrees."""
    match = _answerable(contest, code, by)
    fact = MatchFact(FactKind.CONFIRM, aware(now), by)
    return Step(*append_fact(contest, match, fact, MatchNote.CONFIRMED))


def dispute(contest: Contest, *, code: str, by: int, now: datetime, reason: str = "") -> Step:
    """有异议: the organisers must decide (``decide``)."""
    match = _answerable(contest, code, by)
    fact = MatchFact(FactKind.DISPUTE, aware(now), by, reason=reason)
    return Step(*append_fact(contest, match, fact, MatchNote.DISPUTED))


def decide(contest: Contest, *, code: str, result: MatchResult, by: int, reason: str, now: datetime) -> Step:
    """/result: the organiser's decision, over any report; the reason is kept."""
    match = _open_match(contest, code)
    if not reason.strip():
        raise ResultRefused(Refusal.REASON_REQUIRED)
    _check_result(contest, match, result)
    check_figures(contest, match, result)
    fact = MatchFact(FactKind.DECISION, aware(now), by, result, reason=reason.strip())
    return Step(*append_fact(contest, match, fact, MatchNote.DECIDED))


LATE_REASON = "late:"  # a lateness forfeit's decision reason: "late:12" (minutes)


def record_lateness(
    contest: Contest, *, code: str, late_pair: int, minutes: int, by: int, now: datetime
) -> Step:
    """docs/rules.md §4.7 (V33): pair ``late_pair`` came ``minutes`` late to match ``code``.

    At or past the rules' ``late_forfeit_minutes`` (0: any lateness, 000-A) the match is
    a walkover for the opponents; below it nothing happens (no events). The settings'
    ``late_disqualify_after``-th such forfeit in a row also disqualifies the pair (001-B:
    "連續遲到2次以上" → 3; 002-E: 1), like a withdrawal.
    """
    match = _open_match(contest, code)
    if not match.has(late_pair):
        raise ResultRefused(Refusal.BAD_RESULT, f"{late_pair} is not in {match.pairs}")
    threshold = contest.round_rules(match.round).late_forfeit_minutes
    if threshold is None:
        raise ResultRefused(Refusal.NO_LATE_FORFEIT)
    if minutes < max(threshold, 1):
        return Step(contest, ())
    result = walkover_result(contest, match, match.opponent(late_pair))
    fact = MatchFact(FactKind.DECISION, aware(now), by, result, reason=f"{LATE_REASON}{minutes}")
    contest, events = append_fact(contest, match, fact, MatchNote.WALKOVER)
    limit = contest.settings.late_disqualify_after
    if limit is None or late_forfeits_in_a_row(contest, late_pair) < limit:
        return Step(contest, events)
    withdrawal = Withdrawal(late_pair, by, aware(now), WithdrawReason.LATE)
    return Step(
        replace(contest, withdrawals=(*contest.withdrawals, withdrawal)), (*events, PairWithdrew(withdrawal))
    )


def late_forfeits_in_a_row(contest: Contest, number: int) -> int:
    """How many of the pair's last matches in a row it lost by lateness."""
    count = 0
    for played in reversed(contest.rounds):
        match = played.match_of(number)
        if match is None:
            continue
        decision = match.decision
        if decision is None or not decision.reason.startswith(LATE_REASON) or match.winner == number:
            break
        count += 1
    return count


# A complete round's reports can still be repeated or contradicted until the next draw.
_AFTER_ROUND = (ContestPhase.ROUND_COMPLETE, ContestPhase.DECIDED)


def _reportable_match(contest: Contest, winner: int | None, now: datetime, code: str | None) -> ContestMatch:
    require_phase(contest, ContestPhase.ROUND_IN_PLAY, phase_refusal(contest), *_AFTER_ROUND)
    current = contest.current_round
    if code is not None:
        match: ContestMatch | None = contest.match_by_code(code)
        if current is None or match is None or match.round != current.number:
            raise ResultRefused(Refusal.ROUND_CLOSED, code)
        if winner is not None and not match.has(winner):
            raise ResultRefused(Refusal.BAD_RESULT, f"{winner} is not in {match.pairs}")
    elif winner is None:
        raise ReportRefused(Refusal.NOT_IN_ROUND, "no winner and no match code")
    else:
        contest.pair(winner)
        match = current.match_of(winner) if current is not None else None
    if match is None:
        raise ReportRefused(Refusal.NOT_IN_ROUND, str(winner))
    if match.status is MatchStatus.DECIDED:
        raise ResultRefused(Refusal.ALREADY_DECIDED, match.code)
    _check_on_time(contest, match, now)
    return match


def _open_match(contest: Contest, code: str) -> ContestMatch:
    """A match of the current round, which results may still change."""
    refuse_when_closed(contest)
    match = contest.match_by_code(code)
    current = contest.current_round
    if current is None or match.round != current.number:
        raise ResultRefused(Refusal.ROUND_CLOSED, code)
    return match


def _answerable(contest: Contest, code: str, by: int) -> ContestMatch:
    match = _open_match(contest, code)
    first = match.first_report
    if match.status is MatchStatus.DECIDED or (first is not None and first.by is None):
        raise ResultRefused(Refusal.ALREADY_DECIDED, code)
    if first is None:
        raise ResultRefused(Refusal.NOTHING_REPORTED, code)
    own = contest.pair_of_user(by)
    reporting = contest.pair_of_user(first.by) if first.by is not None else None
    if own is None or not match.has(own.number):
        raise ResultRefused(Refusal.NOT_A_PLAYER, str(by))
    if reporting is not None and own.number == reporting.number:
        raise ResultRefused(Refusal.NOT_OPPONENT, str(by))
    return match


def _check_on_time(contest: Contest, match: ContestMatch, now: datetime) -> None:
    deadline = round_of(contest, match.round).schedule.deadline
    if deadline is not None and not deadline.is_on_time(now):
        raise ResultRefused(Refusal.LATE, str(deadline))


def _check_result(contest: Contest, match: ContestMatch, result: MatchResult) -> None:
    if result.winner is not None and not match.has(result.winner):
        raise ResultRefused(Refusal.BAD_RESULT, f"{result.winner} is not in {match.pairs}")
    if result.no_winner and contest.format.needs_winner:
        raise ResultRefused(Refusal.BAD_RESULT, "a knockout match needs a winner")


_ON_TIME_REASONS: frozenset[FiguresReason] = frozenset({EndReason.TIME, ContestEnd.REPORTED})
"""Figures of a winner the clock named (a bot table's ``time``; a recorder's levels with ``time``)."""


def check_figures(contest: Contest, match: ContestMatch, result: MatchResult) -> None:
    """A result's figures must name its winner (who, under 001-B's ``time_winner=none``, can
    only have passed A), and in a points match (001-A, 000-E) the engine's verdict on the
    points must agree: equal points go to the pair with more
    3-point deals (001-A "以積3分次數多的一方獲勝"), a full tie needs the extra deal."""
    figures = result.figures
    rules = contest.round_rules(match.round)
    if result.no_winner and rules.time_winner is not TimeWinner.NONE:
        raise ResultRefused(Refusal.BAD_RESULT, "under these rules a timed match always has a winner")
    if figures is None or result.winner is None:
        return
    index = match.pairs.index(result.winner)
    if figures.winner != index:
        raise ResultRefused(Refusal.BAD_RESULT, "the figures name the other pair")
    if rules.time_winner is TimeWinner.NONE and figures.reason in _ON_TIME_REASONS:
        raise ResultRefused(Refusal.BAD_RESULT, "only passing A wins here: the clock leaves no winner")
    if rules.match_format is not MatchFormat.POINTS or figures.points == (0, 0):
        return  # no points on the sheet (every deal of a points match scores at least 1)
    standing = Standing(points=figures.points, threes=figures.three_point_deals)
    verdict = points_verdict(standing, rules.points_deals, None, rules, time_up=True)
    if verdict is not None and verdict.winner is not None and verdict.winner != index:
        raise ResultRefused(Refusal.BAD_RESULT, f"{figures.points} and 3s {figures.three_point_deals}")
    if verdict is not None and verdict.sudden_death and not result.extra_deal:
        raise ResultRefused(Refusal.BAD_RESULT, "a tie is decided by the extra deal")


def _report_note(match: ContestMatch, winner: int | None, first: MatchNote = MatchNote.REPORTED) -> MatchNote:
    current = match.result
    if match.first_report is None or current is None:
        return first
    return MatchNote.DUPLICATE if current.winner == winner else MatchNote.CONTRADICTION


def _players(contest: Contest, match: ContestMatch) -> set[int]:
    return {uid for number in match.pairs for uid in contest.pair(number).user_ids}


def append_fact(contest: Contest, match: ContestMatch, fact: MatchFact, note: MatchNote) -> Step:
    """Add a fact to a match of the current round; note a completed round or contest."""
    updated = match.with_fact(fact)
    rounds = tuple(r.with_match(updated) if r.number == match.round else r for r in contest.rounds)
    after = replace(contest, rounds=rounds)
    events: list[Event] = [MatchUpdated(updated, fact, note)]
    if not round_of(contest, match.round).is_complete and round_of(after, match.round).is_complete:
        events.append(RoundCompleted(match.round, after.alive))
        if after.phase is ContestPhase.DECIDED:
            events.append(ContestDecided(after.alive))
    return Step(after, tuple(events))
