"""Results: a report's details, confirmations and disputes, decisions, both-out, reminders,
a round's completion, a moved deadline, withdrawals and lateness.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from app.contest.args import MatchUnclear, Unclear
from app.contest.columns import signed
from app.contest.texts.words import deadline_line, pair_label, pair_line, report_example
from app.table.texts import _, escape
from engine.contest import (
    Contest,
    ContestMatch,
    FactKind,
    MatchFact,
    MatchResult,
    PlayMethod,
    WithdrawReason,
    late_forfeits_in_a_row,
)
from engine.contest.reporting import LATE_REASON
from engine.rules import MatchFormat
from render.words import is_english


def method_text(result: MatchResult, reporter: str | None, locale: str) -> str:
    texts = {
        PlayMethod.BOT_TABLE: _("played through the bot", locale),
        PlayMethod.PHYSICAL: _("played at a table, reported by {who}", locale, who=escape(reporter or "?")),
        PlayMethod.ORGANISER: _("the organiser's decision", locale),
        PlayMethod.WALKOVER: _("walkover", locale),
        PlayMethod.BOTH_OUT: _("both pairs out", locale),
    }
    return texts[result.method]


def details_text(
    contest: Contest, match: ContestMatch, fact: MatchFact, reporter: str | None, locale: str
) -> str:
    """The message after an official line: opponent, points, extra deal, how it was played."""
    result = fact.result
    assert result is not None and (result.winner is not None or result.no_winner)
    first = result.winner if result.winner is not None else match.pairs[0]
    second = match.opponent(first)
    if result.winner is None:
        heading = _(
            "Round {n}: {a} and {b}: time is up and nobody passed A, so nobody won",
            locale,
            n=match.round,
            a=pair_line(contest.pair(first), locale),
            b=pair_line(contest.pair(second), locale),
        )
    else:
        heading = _(
            "Round {n}: {winner} beat {loser}",
            locale,
            n=match.round,
            winner=pair_line(contest.pair(first), locale),
            loser=pair_line(contest.pair(second), locale),
        )
    lines = [heading]
    mine = match.pairs.index(first)
    if result.points is not None:
        score = f"{result.points[mine]}:{result.points[1 - mine]}"
        extra = " " + _("(after an extra deal)", locale) if result.extra_deal else ""
        lines.append(_("Points: {score}{extra}", locale, score=score, extra=extra))
    elif result.extra_deal:
        lines.append(_("Decided by an extra deal.", locale))
    if (levels := _levels_line(contest, match, result, mine, locale)) is not None:
        lines.append(levels)
    lines.append(_("How: {how}", locale, how=method_text(result, reporter, locale)))
    if fact.reason:
        lines.append(_("Reason: {reason}", locale, reason=reason_text(fact.reason, locale)))
    if fact.kind is FactKind.REPORT and result.method is PlayMethod.PHYSICAL:
        answering = _answering(contest, match, fact, locale)
        lines.append(_("{loser}: confirm or dispute with the buttons.", locale, loser=answering))
    lines.append(f"<code>{match.code}</code>")
    return "\n".join(lines)


def _answering(contest: Contest, match: ContestMatch, fact: MatchFact, locale: str) -> str:
    """Who answers a player's report: the pair that did not report it."""
    reporting = contest.pair_of_user(fact.by) if fact.by is not None else None
    if reporting is not None and match.has(reporting.number):
        return pair_label(match.opponent(reporting.number), locale)
    assert fact.result is not None and fact.result.winner is not None
    return pair_label(match.opponent(fact.result.winner), locale)


def _levels_line(
    contest: Contest, match: ContestMatch, result: MatchResult, mine: int, locale: str
) -> str | None:
    """Final levels, 级差 and round score of a level race in a scored format (Swiss, movement,
    积分淘汰), first pair of the heading first; None where they do not rank anybody."""
    figures = result.figures
    if figures is None or figures.forfeit or not contest.format.family.traits.scored:
        return None
    if contest.round_rules(match.round).match_format is MatchFormat.POINTS:
        return None
    order = (mine, 1 - mine)
    return _(
        "Levels {levels} · level difference {difference} · round score {score}",
        locale,
        levels=" : ".join(figures.levels[i].char.replace("T", "10") for i in order),
        difference=signed(figures.level_difference if result.winner is not None else 0),
        score=" : ".join(str(figures.round_score[i]) for i in order),
    )


def copy_label(line: str, locale: str) -> str:
    return _("Copy {line}", locale, line=line)


def duplicate_text(line: str, locale: str) -> str:
    return _("Already reported: {line}. Thank you.", locale, line=escape(line))


def contradiction_text(contest: Contest, match: ContestMatch, locale: str) -> str:
    return _(
        "⚠️ This contradicts the first report of match {code}: the organisers will decide.",
        locale,
        code=match.code,
    )


def confirmed_text(contest: Contest, match: ContestMatch, who: str, locale: str) -> str:
    return _("✅ {who} confirmed the result of match {code}.", locale, who=escape(who), code=match.code)


def dispute_text(contest: Contest, match: ContestMatch, who: str, organiser: str, locale: str) -> str:
    a, b = match.pairs
    return _(
        "⚠️ {who} disputes the result of match {code} ({a} v {b}). {organiser}, "
        "please decide: "
        "/result {code} WINNER REASON",
        locale,
        who=escape(who),
        code=match.code,
        a=pair_label(a, locale),
        b=pair_label(b, locale),
        organiser=organiser,
    )


def decision_text(contest: Contest, match: ContestMatch, fact: MatchFact, locale: str) -> str:
    result = fact.result
    assert result is not None
    return _(
        "⚖️ The organiser decided match {code}: {outcome}. Reason: {reason}",
        locale,
        code=match.code,
        outcome=_outcome(result, locale),
        reason=reason_text(fact.reason, locale),
    )


def _outcome(result: MatchResult, locale: str) -> str:
    if result.no_winner:
        return _("nobody won (time is up, nobody passed A)", locale)
    if result.winner is None:
        return _("both pairs are out", locale)
    return _("{pair} goes on", locale, pair=pair_label(result.winner, locale))


def understood_text(match: ContestMatch, result: MatchResult, group: int, locale: str) -> str:
    """The answer to ``/result 掼蛋8组 理由``: which match the group was read as naming."""
    return _(
        "📌 Read {group} as match {match}: {outcome}.",
        locale,
        group=pair_label(group, locale),
        match=_choice(match, locale),
        outcome=_outcome(result, locale),
    )


def unclear_match_text(unclear: MatchUnclear, locale: str) -> str:
    """A group typed in the code's place that names no single match, and what to type instead."""
    group = pair_label(unclear.group, locale)
    if unclear.why is Unclear.WHICH_WON:
        match = unclear.matches[0]
        return _(
            "Two groups: which pair won match {match}? Type /result {code} WINNER REASON, "
            "e.g. /result {code} {number} 有异议成立.",
            locale,
            match=_choice(match, locale),
            code=match.code,
            number=unclear.group,
        )
    separator = ", " if is_english(locale) else "、"
    waiting = separator.join(_choice(m, locale) for m in unclear.matches[:MAX_CHOICES])
    if not waiting:
        waiting = _("none, every match of the round has a result", locale)
    if unclear.why is Unclear.NO_PAIR:
        return _(
            "This contest has no {group}. Type /result CODE WINNER REASON. Matches waiting for a result: "
            "{waiting}.",
            locale,
            group=group,
            waiting=waiting,
        )
    return _(
        "{group} plays no match in the round in play. Type /result CODE WINNER REASON. Matches waiting "
        "for a result: {waiting}.",
        locale,
        group=group,
        waiting=waiting,
    )


MAX_CHOICES = 8
"""Matches listed in an unclear /result's answer: a large round's list would bury the advice."""


def _choice(match: ContestMatch, locale: str) -> str:
    a, b = match.pairs
    return _("{code} ({a} v {b})", locale, code=match.code, a=pair_label(a, locale), b=pair_label(b, locale))


def both_out_text(contest: Contest, matches: Sequence[ContestMatch], locale: str) -> str:
    lines = [
        _(
            "⏰ <b>{name}</b>: the round-1 deadline has passed. Not played or not "
            "reported, so both pairs are out:",
            locale,
            name=escape(contest.name),
        )
    ]
    for match in matches:
        a, b = (contest.pair(n) for n in match.pairs)
        lines.append(f"• {pair_line(a, locale)}  vs  {pair_line(b, locale)}")
    return "\n".join(lines)


def reminder_text(contest: Contest, matches: Sequence[ContestMatch], left: timedelta, locale: str) -> str:
    """The group's reminder, mentioning the players of matches with no result."""
    hours = round(left.total_seconds() / 3600)
    lines = [
        _(
            "⏳ <b>{name}</b>: {hours} h left to play and report round 1. No result yet:",
            locale,
            name=escape(contest.name),
            hours=hours,
        )
    ]
    for match in matches:
        players = [p for n in match.pairs for p in contest.pair(n).players]
        mentions = " ".join(f'<a href="tg://user?id={p.user_id}">{escape(p.name)}</a>' for p in players)
        lines.append(
            f"• {pair_label(match.pairs[0], locale)} v {pair_label(match.pairs[1], locale)}: {mentions}"
        )
    lines.append(_("Report as {example}.", locale, example=report_example(contest.settings.event_word)))
    return "\n".join(lines)


def reminder_dm_text(contest: Contest, match: ContestMatch, left: timedelta, locale: str) -> str:
    hours = round(left.total_seconds() / 3600)
    deadline = contest.rounds[match.round - 1].schedule.deadline
    return _(
        "⏳ {name}: your round-1 match ({a} v {b}) has no result yet, {hours} h "
        "before the deadline "
        "({when}). Play it and report it in the contest group, or both pairs are out. "
        "To play through the bot: /newgame match={code}",
        locale,
        name=escape(contest.name),
        a=pair_label(match.pairs[0], locale),
        b=pair_label(match.pairs[1], locale),
        hours=hours,
        when=str(deadline),
        code=match.code,
    )


def round_complete_text(contest: Contest, number: int, locale: str) -> str:
    alive = ", ".join(pair_label(n, locale) for n in contest.alive) or "—"
    return _(
        "🏁 Round {n} is complete. Still in: {alive}. The organiser draws the next round with /round next.",
        locale,
        n=number,
        alive=alive,
    )


def deadline_moved_text(contest: Contest, locale: str) -> str:
    return _("📅 {line}", locale, line=deadline_line(contest, locale))


def withdrew_text(contest: Contest, number: int, locale: str) -> str:
    """A drawn pair is out, in words that say why (docs/rules.md §4.7): 弃权, 请假, or late."""
    pair = pair_label(number, locale)
    withdrawal = next((w for w in contest.withdrawals if w.number == number), None)
    if withdrawal is not None and withdrawal.reason is WithdrawReason.LEAVE:
        return _(
            "{pair} asked for leave (请假) and leaves the contest; an unplayed match goes to the opponents.",
            locale,
            pair=pair,
        )
    if withdrawal is not None and withdrawal.reason is WithdrawReason.LATE:
        return _(
            "🚫 {pair} is disqualified: late {n} times in a row.",
            locale,
            pair=pair,
            n=late_forfeits_in_a_row(contest, number),
        )
    return _("{pair} withdrew from the contest (弃权).", locale, pair=pair)


def reason_text(reason: str, locale: str) -> str:
    """A decision's reason: the bot's own reasons in words, an organiser's as typed (escaped)."""
    if reason.startswith(LATE_REASON) and reason[len(LATE_REASON) :].isdigit():
        return _("came {minutes} minutes late", locale, minutes=int(reason[len(LATE_REASON) :]))
    if reason == "withdrawal":
        return _("the opponents withdrew", locale)
    return escape(reason)


def late_noted_text(contest: Contest, match: ContestMatch, number: int, minutes: int, locale: str) -> str:
    """/late below the rules' threshold: noted, nothing forfeited."""
    limit = contest.round_rules(match.round).late_forfeit_minutes
    return _(
        "Noted: {pair} came {minutes} minutes late to match {code}. Under the {limit}-minute "
        "limit: no forfeit.",
        locale,
        pair=pair_label(number, locale),
        minutes=minutes,
        code=match.code,
        limit=limit,
    )
