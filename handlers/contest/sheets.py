"""The recorders' score sheets of matches at physical tables (issue 11), the Telegram side.

A round not played through the bot (a fixed time and place, or self-scheduled) gets a
``📝 N桌记分`` button per match on its pairing message. A player of that match, or the
organiser, presses it and gets the sheet in their private chat: one message, edited in
place, with a button per outcome (南北/东西 × 双下 / 1·3 / 1·4), ↩ undo, ⏱ time up (timed
formats), 🎴 the first leader's draw (docs/rules.md §4.9) and, once the match is decided, ✅ submit,
which reports the result with the sheet's figures through :meth:`ContestDesk.run` (a
player's report the opponents may confirm or dispute; the organiser's decision, reason
"score sheet"), so the group gets the official line and the standings move.

Each press is stored (:class:`app.contest.score_sheets.ScoreSheets`) before its result is
shown, and the sheet is replayed from the stored presses on every press, so a restarted bot
shows the same sheet. Every button carries the sheet's version: a double tap's second press is
stale and gets a toast, never a second deal. The round's clock calls :func:`time_up` when a
table's time runs out.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import assert_never

from telegram import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden

from app.contest import sheet_texts as words
from app.contest import texts
from app.contest.callback_data import BadContestButton, ContestOp, ContestPress
from app.contest.score_sheets import Taken
from app.contest.sheet_submission import NotReady, not_ready, players, submission
from app.contest.store import ContestGone, HeldContest, StoreBusy
from app.table.refusals import TableRefusal
from app.table.texts import error_text
from engine.contest import (
    Contest,
    ContestError,
    ContestMatch,
    MatchStatus,
    ScheduleKind,
)
from engine.contest.sheet import PARTNER_PLACES, ScoreSheet, SheetEntry, SheetRefusal
from engine.rules import TimeTieBreak
from handlers.contest.desk import ContestDesk
from handlers.platform.context import Context
from handlers.platform.edits import already_shown_is_done
from handlers.platform.replies import answer
from handlers.table.lobby import is_group_admin

log = logging.getLogger(__name__)

_DEALS = {f"{side}{place}": (team, place) for team, side in enumerate("NE") for place in PARTNER_PLACES}
_TIMES = {"T": None, "TN": 0, "TE": 1}  # ⏱, and 002-A's "a player of NS / EW was already out"


# ---------------------------------------------------------------- who may record


def is_physical(contest: Contest, match: ContestMatch) -> bool:
    """A match of a round played at real tables (fixed time and place, or self-scheduled)."""
    return contest.rounds[match.round - 1].schedule.kind is not ScheduleKind.BOT


async def _may_record(context: Context, stored: HeldContest, match: ContestMatch, user_id: int) -> bool:
    """A player of the match, the contest's organiser or an admin of its group."""
    if user_id in players(stored.contest, match) or user_id == stored.contest.organiser_id:
        return True
    return await is_group_admin(context, stored.chat_id, user_id)


# ---------------------------------------------------------------- keyboard and message


def sheet_keyboard(
    contest_id: int, match: ContestMatch, sheet: ScoreSheet, locale: str, *, eliminates: bool = True
) -> InlineKeyboardMarkup:
    """Six outcomes, then undo / time up / first leader, then submit once decided (a match
    nobody won only where nobody is eliminated: Swiss and movement formats)."""
    version = sheet.version

    def button(label: str, key: str) -> InlineKeyboardButton:
        arg = f"{match.code}.{version}.{key}"
        return InlineKeyboardButton(
            label, callback_data=ContestPress(ContestOp.SHEET, contest_id, arg).encode()
        )

    rows: list[list[InlineKeyboardButton]] = []
    if not sheet.is_decided:
        for key_side, team in (("N", 0), ("E", 1)):
            rows.append(
                [
                    button(words.outcome_label(team, place, locale), f"{key_side}{place}")
                    for place in PARTNER_PLACES
                ]
            )
    tools: list[InlineKeyboardButton] = []
    if sheet.rows:
        tools.append(button(words.undo_label(locale), "U"))
    timed = sheet.is_timed and not sheet.is_decided and not sheet.state.time_expired
    player_out = sheet.rules.time_tie_break is TimeTieBreak.PLAYER_OUT
    if timed and not player_out:
        tools.append(button(words.time_label(locale), "T"))
    if sheet.leader_draw_needed:
        tools.append(button(words.leader_label(locale), "L"))
    if tools:
        rows.append(tools)
    if timed and player_out:  # 002-A: at equal levels a side with a player out wins
        rows.extend([[button(words.time_out_label(team, locale), key)] for key, team in _TIMES.items()])
    if sheet.is_decided and (sheet.state.winner is not None or not eliminates):
        rows.append([button(words.submit_label(locale), "S")])
    return InlineKeyboardMarkup(rows)


def _view(
    stored: HeldContest, match: ContestMatch, sheet: ScoreSheet, locale: str, note: str = ""
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The sheet's message: open with its buttons, or closed once the match has a result."""
    contest = stored.contest
    if match.status is not MatchStatus.PENDING:
        return words.closed_text(contest, match, sheet, locale), None
    return words.sheet_text(contest, match, sheet, locale, note), sheet_keyboard(
        stored.id, match, sheet, locale, eliminates=contest.format.eliminates
    )


async def _edit(query: CallbackQuery, text: str, markup: InlineKeyboardMarkup | None) -> None:
    await already_shown_is_done(
        query.edit_message_text(
            text, parse_mode=ParseMode.HTML, reply_markup=markup, disable_web_page_preview=True
        )
    )


# ---------------------------------------------------------------- presses


async def on_sheet_press(update: Update, context: Context) -> None:
    """📝 in the group (open the sheet privately) or a button of the sheet itself."""
    query = update.callback_query
    assert query is not None and query.data is not None
    locale = await context.services.languages.of_user(query.from_user.id)
    try:
        press = ContestPress.decode(query.data)
        stored = await _desk(context).store.get(press.contest_id)
        code = press.arg.split(".")[0]
        match = stored.contest.match_by_code(code)
    except (BadContestButton, ContestGone, ContestError):
        await answer(query, error_text(TableRefusal.BAD_BUTTON, locale), show_alert=True)
        return
    if not is_physical(stored.contest, match):
        await answer(query, words.not_physical_text(locale), show_alert=True)
        return
    if not await _may_record(context, stored, match, query.from_user.id):
        await answer(query, words.not_recorder_text(locale), show_alert=True)
        return
    try:
        if press.op is ContestOp.SHEET_OPEN:
            await _open(query, context, stored, match, locale)
        else:
            await _sheet_press(query, context, stored, match, press.arg, locale)
    except StoreBusy:
        await answer(query, error_text(TableRefusal.NOT_SAVED, locale), show_alert=True)


async def _open(
    query: CallbackQuery, context: Context, stored: HeldContest, match: ContestMatch, locale: str
) -> None:
    """Send the sheet to the presser's private chat (the bot may only write there after /start)."""
    if match.status is not MatchStatus.PENDING:
        await answer(query, words.refusal_for_result(locale), show_alert=True)
        return
    sheets, user_id = _desk(context).sheets, query.from_user.id
    sheet = await sheets.load(stored, match)
    text, markup = _view(stored, match, sheet, locale)
    try:
        sent = await context.bot.send_message(
            user_id, text, parse_mode=ParseMode.HTML, reply_markup=markup, disable_web_page_preview=True
        )
    except (Forbidden, BadRequest):
        await answer(query, words.start_private_text(locale), show_alert=True)
        return
    await sheets.shown_at(user_id, sent.message_id, stored, match)
    await answer(query, words.sent_text(locale))


async def _sheet_press(
    query: CallbackQuery, context: Context, stored: HeldContest, match: ContestMatch, arg: str, locale: str
) -> None:
    """One sheet button: checked, stored and replayed under the contest's lock; the answer and
    the edit go out after it (nothing awaits Telegram while the lock is held)."""
    parts = arg.split(".")
    if len(parts) != 3 or not parts[1].isdigit() or parts[2] not in (*_DEALS, *_TIMES, "U", "L", "S"):
        await answer(query, error_text(TableRefusal.BAD_BUTTON, locale), show_alert=True)
        return
    version, key = int(parts[1]), parts[2]
    entry = None if key in ("L", "S") else _entry(key)
    pressed = await _desk(context).sheets.press(stored.id, match.code, version, entry, query.from_user.id)
    stored, match, sheet = pressed.held, pressed.match, pressed.sheet
    said = _refusal(pressed.outcome, locale)
    if said is not None:  # refused or stale: say why and show the sheet as it is
        text, as_alert = said
        await answer(query, text, show_alert=as_alert)
        if not as_alert or match.status is not MatchStatus.PENDING:
            await _edit(query, *_view(stored, match, sheet, locale))
        return
    if key == "S":
        await _submit(query, context, stored, match, sheet, locale)
        return
    note = _leader_note(stored, match, sheet, locale) if key == "L" else ""
    await answer(query, words.entered_toast(entry, locale) if entry is not None else None)
    await _edit(query, *_view(stored, match, sheet, locale, note))


def _refusal(outcome: Taken | SheetRefusal, locale: str) -> tuple[str, bool] | None:
    """Why a press was not taken, and whether as an alert (a stale press is a toast); None: taken."""
    match outcome:
        case Taken.STORED | Taken.CHECKED:
            return None
        case Taken.STALE:
            return words.stale_text(locale), False
        case Taken.RESULT_IN:
            return words.refusal_for_result(locale), True
        case SheetRefusal():
            return words.refusal_text(outcome, locale), True
        case _:
            assert_never(outcome)


def _entry(key: str) -> SheetEntry:
    if key == "U":
        return SheetEntry.undo()
    if key in _TIMES:
        return SheetEntry.time_up(_TIMES[key])
    team, place = _DEALS[key]
    return SheetEntry.deal(team, place)


def _leader_note(stored: HeldContest, match: ContestMatch, sheet: ScoreSheet, locale: str) -> str:
    if not sheet.leader_draw_needed:
        return words.no_draw_text(sheet, locale)
    return words.leader_text(stored.contest.seed, match, sheet, locale)


async def _submit(
    query: CallbackQuery,
    context: Context,
    stored: HeldContest,
    match: ContestMatch,
    sheet: ScoreSheet,
    locale: str,
) -> None:
    """✅: a player's report (the opponents may dispute it) or the organiser's decision."""
    match not_ready(stored.contest, sheet):
        case NotReady.NOT_DECIDED:
            await answer(query, words.not_decided_text(locale), show_alert=True)
            return
        case NotReady.NO_WINNER:
            await answer(query, words.no_winner_text(locale), show_alert=True)
            return
    desk = _desk(context)
    command = submission(stored.contest, match, sheet, query.from_user.id, desk.clock)
    try:
        after, _step = await desk.run(stored.id, command)
    except ContestError as error:
        await answer(query, texts.refusal_text(error.code, locale), show_alert=True)
        return
    await answer(query, words.submitted_toast(locale))
    done = after.contest.match_by_code(match.code)
    await _edit(query, words.submitted_text(after.contest, done, sheet, locale), None)


def _desk(context: Context) -> ContestDesk:
    desk = context.services.contests
    assert isinstance(desk, ContestDesk), "contests are opened in open_services"
    return desk


# ---------------------------------------------------------------- the round's clock


async def time_up(desk: ContestDesk, stored: HeldContest, round_number: int, tables: tuple[int, ...]) -> None:
    """The clock of ``tables`` in round ``round_number`` ran out: every sheet opened for them
    gets its time-up entry (by the clock, once: a repeat after a restart adds nothing), and the
    messages showing it are edited. Under 002-A's tie-break the recorder enters it instead, saying
    which side already had a player out."""
    if not 0 < round_number <= len(stored.contest.rounds):
        return
    for match in stored.contest.rounds[round_number - 1].matches:
        if match.table in tables and match.status is MatchStatus.PENDING:
            sheet = await desk.sheets.clock_entry(stored, match)
            if sheet is not None:
                await _refresh(desk, stored, match, sheet)


async def _refresh(desk: ContestDesk, stored: HeldContest, match: ContestMatch, sheet: ScoreSheet) -> None:
    """Edit every private message showing this sheet (each in its reader's language)."""
    for chat_id, message_id in await desk.sheets.readers(stored, match):
        locale = await desk.store.languages.of_user(chat_id)
        text, markup = _view(stored, match, sheet, locale)
        try:
            await desk.edit_shown(chat_id, message_id, text, markup)
        except (BadRequest, Forbidden) as error:
            log.info("sheet %s/%s: message %s not edited: %s", stored.id, match.code, message_id, error)


TimeUpHook = Callable[[HeldContest, int, tuple[int, ...]], Awaitable[None]]


def time_up_hook(desk: ContestDesk) -> TimeUpHook:
    """:func:`time_up` bound to the desk, for ``ContestDesk.time_up_hooks``."""
    return functools.partial(time_up, desk)
