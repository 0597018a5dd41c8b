"""A group announcement's text and buttons, rebuilt when it is sent from the contest as it is then,
in the group's language then (:mod:`app.contest.announcements` says which announcement it is)."""

from __future__ import annotations

from datetime import timedelta
from typing import assert_never

from telegram import CopyTextButton, InlineKeyboardButton, InlineKeyboardMarkup

from app.contest import sheet_texts, texts
from app.contest.announcements import (
    Announcement,
    BothOut,
    Card,
    ClockNote,
    DeadlineNote,
    Decided,
    Final,
    MatchFactNote,
    Official,
    Pairings,
    PairWithdrawn,
    Refresh,
    Refused,
    Reminder,
    RoundComplete,
    What,
)
from app.contest.callback_data import ContestOp, ContestPress
from app.contest.herald import name_of
from app.contest.store import HeldContest
from app.table.texts import _
from engine.contest import (
    Contest,
    ContestMatch,
    ContestPhase,
    FactKind,
    MatchFact,
    MatchStatus,
    ScheduleKind,
    TableClock,
    official_line,
)

Composed = tuple[str, InlineKeyboardMarkup | None]


def compose(stored: HeldContest, announcement: Announcement, locale: str) -> Composed:
    """The text and buttons of one group announcement, from the contest as it is now."""
    contest = stored.contest
    match announcement:
        case Pairings(number):
            if number == 1:  # the draw and round 1, within Telegram's 4,096 characters
                text = texts.draw_message(contest, locale)
            else:
                text = texts.round_text(contest, number, locale)
            return text, play_keyboard(stored, number, locale)
        case MatchFactNote(what, code, index):
            return _fact_note(stored, what, code, index, locale)
        case Card():
            return texts.card_text(contest, locale), card_keyboard(stored, locale)
        case BothOut(codes):
            return texts.both_out_text(contest, [contest.match_by_code(code) for code in codes], locale), None
        case ClockNote(what, number, tables):
            return _clock_text(contest, what, number, _clocks_of(contest, number, tables), locale), None
        case Reminder(codes, left):
            matches = [contest.match_by_code(code) for code in codes]
            return texts.reminder_text(contest, matches, timedelta(seconds=left), locale), None
        case RoundComplete(number):
            return texts.round_complete_text(contest, number, locale), None
        case Decided():
            return texts.decided_text(contest, locale), None
        case Final():
            return texts.final_text(contest, locale), None
        case DeadlineNote():
            return texts.deadline_moved_text(contest, locale), None
        case PairWithdrawn(pair):
            return texts.withdrew_text(contest, pair, locale), None
        case Official(line):
            return line, None
        case Refused():
            return announcement.text(locale), None
        case Refresh():
            raise ValueError("a refresh is an edit, not a message")
        case _:
            assert_never(announcement)


def _fact_note(stored: HeldContest, what: What, code: str, index: int, locale: str) -> Composed:
    contest = stored.contest
    match = contest.match_by_code(code)
    fact = match.facts[index]
    if what is What.DETAILS:
        return _details(stored, match, fact, locale)
    if what is What.DECISION:
        return texts.decision_text(contest, match, fact, locale), None
    who = name_of(contest, fact.by) or ""
    organiser = f'<a href="tg://user?id={contest.organiser_id}">{_("organiser", locale)}</a>'
    return texts.dispute_text(contest, match, who, organiser, locale), None


def _clock_text(
    contest: Contest, what: What, number: int, clocks: tuple[TableClock, ...], locale: str
) -> str:
    if what is What.CLOCK:
        return texts.clock_started_text(contest, number, clocks, locale)
    if what is What.CLOCK_WARNING:
        return texts.clock_warning_text(contest, number, clocks, locale)
    return texts.time_up_text(contest, number, clocks, locale)


def _clocks_of(contest: Contest, number: int, tables: tuple[int, ...]) -> tuple[TableClock, ...]:
    """The round's clocks at these tables (an announcement names its tables)."""
    played = contest.rounds[number - 1]
    return tuple(clock for clock in played.clocks if clock.table in set(tables))


def _details(stored: HeldContest, match: ContestMatch, fact: MatchFact, locale: str) -> Composed:
    contest = stored.contest
    result = fact.result
    assert result is not None
    text = texts.details_text(contest, match, fact, name_of(contest, fact.by), locale)
    rows: list[list[InlineKeyboardButton]] = []
    if result.winner is not None:
        line = official_line(result.winner, contest.settings.event_word)
        copy = InlineKeyboardButton(texts.copy_label(line, locale), copy_text=CopyTextButton(line))
        rows.append([copy])
    if fact.kind is FactKind.REPORT and fact.by is not None:
        rows.append(
            [
                InlineKeyboardButton(
                    _("Confirm", locale),
                    callback_data=ContestPress(ContestOp.CONFIRM, stored.id, match.code).encode(),
                ),
                InlineKeyboardButton(
                    _("Dispute", locale),
                    callback_data=ContestPress(ContestOp.DISPUTE, stored.id, match.code).encode(),
                ),
            ]
        )
    return text, InlineKeyboardMarkup(rows)


def play_keyboard(stored: HeldContest, number: int, locale: str) -> InlineKeyboardMarkup | None:
    """Per match still without a result: open its bot table in this group, and in a round at
    real tables (fixed or self-scheduled) its score sheet (📝, handlers/contest/sheets.py)."""
    contest = stored.contest
    current = contest.current_round
    if current is None or current.number != number:
        return None
    physical = current.schedule.kind is not ScheduleKind.BOT
    rows = []
    for m in current.matches:
        if m.status is not MatchStatus.PENDING:
            continue
        play = ContestPress(ContestOp.PLAY, stored.id, m.code).encode()
        label = texts.play_button_label(contest, m, locale)
        rows.append([InlineKeyboardButton(label, callback_data=play)])
        if physical:
            sheet = ContestPress(ContestOp.SHEET_OPEN, stored.id, m.code).encode()
            label = sheet_texts.open_button_label(m, locale)
            rows.append([InlineKeyboardButton(label, callback_data=sheet)])
    return InlineKeyboardMarkup(rows) if rows else None


def card_keyboard(stored: HeldContest, locale: str) -> InlineKeyboardMarkup:
    def button(label: str, op: ContestOp) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=ContestPress(op, stored.id).encode())

    rows = []
    if stored.contest.phase is ContestPhase.SIGN_UP:
        rows.append(
            [
                button(_("Sign up", locale), ContestOp.SIGN_UP),
                button(_("Withdraw", locale), ContestOp.WITHDRAW),
            ]
        )
        rows.append([button(_("Draw (organiser)", locale), ContestOp.DRAW)])
    rows.append([button(_("Standings", locale), ContestOp.STANDINGS)])
    return InlineKeyboardMarkup(rows)
