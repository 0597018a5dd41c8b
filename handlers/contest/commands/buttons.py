"""The contest's buttons: sign up, withdraw, a partner's answer, confirm / dispute a report,
close the round, draw, play a match, standings, and the organiser's choice of contest for a
mirror. A refusal is the press's alert."""

from __future__ import annotations

import logging
from functools import partial

from telegram import CallbackQuery, InlineKeyboardMarkup, Message, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest

from app.contest import texts
from app.contest.callback_data import BadContestButton, ContestOp, ContestPress
from app.contest.presses import ORGANISER_OPS, press_command
from app.contest.problems import Problem
from app.contest.store import ContestGone, HeldContest
from app.table.refusals import TableRefusal
from app.table.texts import _, error_text, escape
from engine.contest import ContestError, Player
from handlers.contest.commands.setup import set_mirror
from handlers.contest.commands.standings import queue_standings
from handlers.contest.common import desk_of, locale_of, may_organise, remember
from handlers.contest.tables import open_match_table
from handlers.platform.context import Context
from handlers.platform.edits import edit_later
from handlers.platform.replies import answer
from handlers.platform.scheduler import Priority
from handlers.table.lobby import display_name

log = logging.getLogger(__name__)


async def on_contest_press(update: Update, context: Context) -> None:
    """A contest button: sign up, partner answer, confirm / dispute, close the round, play, standings."""
    query = update.callback_query
    assert query is not None and query.data is not None and query.message is not None
    locale = await locale_of(context, query.message.chat)
    await remember(context, query.from_user)
    try:
        press = ContestPress.decode(query.data)
        stored = await desk_of(context).store.get(press.contest_id)
    except (BadContestButton, ContestGone):
        await answer(query, error_text(TableRefusal.BAD_BUTTON, locale), show_alert=True)
        return
    try:
        await _press(query, context, stored, press, locale)
    except ContestError as error:
        await answer(query, texts.refusal_text(error.code, locale), show_alert=True)


async def _press(
    query: CallbackQuery, context: Context, stored: HeldContest, press: ContestPress, locale: str
) -> None:
    """One press: elsewhere (play, standings, mirror), refused, or a contest command run and acknowledged."""
    desk, user = desk_of(context), query.from_user
    if await _press_elsewhere(query, context, stored, press, locale):
        return
    if press.op in ORGANISER_OPS and not await may_organise(context, stored, user.id):
        await answer(query, texts.problem_text(Problem.ORGANISER_ONLY, "", locale), show_alert=True)
        return
    if press.op is ContestOp.CLOSE_NO:
        await answer(query)
        _edit(context, query, _("The round goes on.", locale))
        return
    me = Player(user.id, display_name(user))
    command = press_command(press, me, user.username, desk.clock)
    assert command is not None, press
    await desk.run(stored.id, command)
    await _acknowledge(query, context, press.op, me.name, locale)


async def _press_elsewhere(
    query: CallbackQuery, context: Context, stored: HeldContest, press: ContestPress, locale: str
) -> bool:
    """The presses that run no contest command here: open a match's table, the standings, the
    organiser's choice of contest for a mirror. False for every other press."""
    if press.op is ContestOp.PLAY:
        await open_match_table(query, context, press.arg, locale)
    elif press.op is ContestOp.STANDINGS:
        await answer(query)
        assert query.message is not None
        queue_standings(context, query.message, stored, locale)
    elif press.op is ContestOp.MIRROR:
        await _choose_mirror(query, context, stored, locale)
    else:
        return False
    return True


async def _acknowledge(query: CallbackQuery, context: Context, op: ContestOp, name: str, locale: str) -> None:
    """The press's toast, and the edit of the message pressed that says what happened."""
    if op in (ContestOp.SIGN_UP, ContestOp.WITHDRAW):
        # The toast is the acknowledgement; the card follows as a refresh (desk.announce asked
        # for it), so a rush of presses is answered at once and the group sees one edit, not fifty.
        toast = _("✅ Signed up.", locale) if op is ContestOp.SIGN_UP else _("Withdrawn.", locale)
        await answer(query, toast)
        return
    await answer(query, _("Done.", locale))
    name = escape(name)
    if op is ContestOp.PARTNER_YES:
        _edit(context, query, _("{name} accepted: the pair is signed up.", locale, name=name))
    elif op is ContestOp.PARTNER_NO:
        _edit(context, query, _("{name} declined: the inviter is signed up alone.", locale, name=name))
    elif op is ContestOp.CONFIRM:
        _mark_details(context, query, _("✅ Confirmed by {name}.", locale, name=name))
    elif op is ContestOp.DISPUTE:
        _mark_details(context, query, _("⚠️ Disputed by {name}: the organisers decide.", locale, name=name))
    elif op is ContestOp.CLOSE_YES:
        _edit(context, query, _("The round is closed.", locale))


async def _choose_mirror(query: CallbackQuery, context: Context, stored: HeldContest, locale: str) -> None:
    """The organiser picked the contest for the webhook address they just sent."""
    user_id = query.from_user.id
    url = desk_of(context).pending_mirrors.get(user_id)
    if stored.contest.organiser_id != user_id:
        await answer(query, texts.problem_text(Problem.ORGANISER_ONLY, "", locale), show_alert=True)
        return
    if url is None:
        await answer(query, texts.problem_text(Problem.USAGE_WECHAT, "", locale), show_alert=True)
        return
    del desk_of(context).pending_mirrors[user_id]
    await answer(query)
    _edit(context, query, await set_mirror(context, stored, user_id, url, locale))


def _mark_details(context: Context, query: CallbackQuery, note: str) -> None:
    """The details message keeps its copy button, loses 确认 / 有异议, and says who answered."""
    message = query.message
    if not isinstance(message, Message) or message.text_html is None:
        return
    keyboard = message.reply_markup.inline_keyboard if message.reply_markup else ()
    copy_row = [list(row) for row in keyboard if all(button.callback_data is None for button in row)]
    _edit(
        context, query, message.text_html + "\n" + note, InlineKeyboardMarkup(copy_row) if copy_row else None
    )


def _edit(
    context: Context, query: CallbackQuery, text: str, markup: InlineKeyboardMarkup | None = None
) -> None:
    """The pressed message says what the press did: queued at a refresh's priority, not awaited
    (:func:`edit_later`; the press's toast has answered it). Awaited, each press held one of the
    group's update slots until the group's budget let its edit go."""
    edit = partial(_send_edit, query, text, markup)
    edit_later(context.services.sender, query.message, edit, Priority.REFRESH)


async def _send_edit(query: CallbackQuery, text: str, markup: InlineKeyboardMarkup | None) -> None:
    try:
        await query.edit_message_text(text, parse_mode=ParseMode.HTML, reply_markup=markup)
    except BadRequest as error:
        if "not modified" not in str(error).lower():
            log.info("contest message not edited: %s", error)
