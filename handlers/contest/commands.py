"""Contest commands, typed reports and contest buttons (the Telegram side; thin).

Each handler reads who and where, calls :meth:`ContestDesk.run` with a pure command, and
answers the person: refusals by their code (``service/texts.py``), successes mostly by
the announcements the desk queues. Organiser commands are the contest's organiser's or
a group admin's.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
from datetime import datetime
from typing import NamedTuple

from telegram import (
    CallbackQuery,
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    Message,
    MessageEntity,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ParseMode
from telegram.error import BadRequest, TelegramError

from app.contest import texts
from app.contest.announcements import Card
from app.contest.args import (
    ArgProblem,
    parse_decision,
    parse_late,
    parse_new,
    parse_schedule,
    parse_signup,
    parse_table,
)
from app.contest.callback_data import BadContestButton, ContestOp, ContestPress
from app.contest.problems import Problem
from app.contest.views import bracket_view, export_csv, export_name, plain, standings_view
from app.table.texts import _, error_text, escape
from engine.contest import (
    ContestError,
    Deadline,
    DrawSeed,
    MatchNote,
    MatchUpdated,
    PairWithdrew,
    Player,
    Refusal,
    Step,
    WithdrawReason,
    change_partner,
    close_contest,
    close_round,
    confirm,
    confirm_partner,
    decide,
    decline_partner,
    dispute,
    draw,
    draw_next_round,
    move_deadline,
    official_line,
    open_contest,
    record_lateness,
    report_text,
    sign_up,
    start_clock,
    username_placeholder,
    withdraw,
)
from handlers.contest.common import desk_of, reply
from handlers.contest.compose import card_keyboard
from handlers.contest.desk import MIRROR_LANE, WECHAT
from handlers.contest.tables import open_match_table
from handlers.platform.context import Context
from handlers.platform.locales import reply_locale
from handlers.table.lobby import display_name, is_group_admin
from render.contest import render_bracket, render_standings
from storage import NotFound, StorageConflict, StoredContest

log = logging.getLogger(__name__)

# Refusals of a typed line that was clearly meant as a report (it starts with the event word):
# answered. Anything else typed in the group is ordinary chat and gets no answer.
_MEANT_AS_REPORT = frozenset(
    {Refusal.SEVERAL_NUMBERS, Refusal.ZERO, Refusal.BAD_NUMERAL, Refusal.TRAILING_TEXT, Refusal.NO_NUMBER}
)
CAPTION_LIMIT = 1024


async def _locale(context: Context, chat: Chat) -> str:
    return await reply_locale(context.services.db, chat)


async def remember(context: Context, user: User) -> None:
    """Keep ``@username`` → user, so that ``/signup @partner`` can name this person later."""
    if user.username:
        await context.services.db.contest_links.remember_username(
            username=user.username, user_id=user.id, name=display_name(user)
        )


def _parts(update: Update) -> tuple[Message, Chat, User]:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None and user is not None
    return message, chat, user


async def _contest_here(context: Context, message: Message, locale: str) -> StoredContest | None:
    try:
        return await context.services.db.contests.open_in_chat(chat_id=message.chat.id)
    except NotFound:
        await reply(context, message, texts.problem_text(Problem.NO_CONTEST, "", locale))
        return None


class Here(NamedTuple):
    """A contest command's who, where and language, and the group's open contest."""

    message: Message
    user: User
    locale: str
    stored: StoredContest


async def _here(
    update: Update, context: Context, *, organiser: bool = False, remember_user: bool = False
) -> Here | None:
    """The prelude of a contest command in its group; None once the person has been answered
    (no contest here, or ``organiser`` and they are not the organiser or a group admin)."""
    message, chat, user = _parts(update)
    if remember_user:
        await remember(context, user)
    locale = await _locale(context, chat)
    stored = await _contest_here(context, message, locale)
    if stored is None:
        return None
    if organiser and not await _organising(context, message, stored, user.id, locale):
        return None
    return Here(message, user, locale, stored)


async def _may_organise(context: Context, stored: StoredContest, user_id: int) -> bool:
    return user_id == stored.contest.organiser_id or await is_group_admin(context, stored.chat_id, user_id)


async def _organising(
    context: Context, message: Message, stored: StoredContest, user_id: int, locale: str
) -> bool:
    """Whether the user may run the contest's organiser commands; answers them if not."""
    if await _may_organise(context, stored, user_id):
        return True
    await reply(context, message, texts.problem_text(Problem.ORGANISER_ONLY, "", locale))
    return False


async def _run(
    context: Context, message: Message, stored: StoredContest, command: object, locale: str
) -> Step | None:
    """Run a contest command; a refusal is answered and gives None."""
    try:
        _after, step = await desk_of(context).run(stored.id, command)  # type: ignore[arg-type]
    except ContestError as error:
        await reply(context, message, texts.refusal_text(error.code, locale))
        return None
    return step


def _now(context: Context) -> datetime:
    return desk_of(context).clock()


# ---------------------------------------------------------------- /contest


async def contest_command(update: Update, context: Context) -> None:
    """/contest [new|help|list|deadline|close|export|wechat …]: the card and status, or a subcommand."""
    message, chat, user = _parts(update)
    await remember(context, user)
    locale = await _locale(context, chat)
    args = list(context.args or [])
    sub = args[0].lower() if args else ""
    if sub == "help":
        help_text = texts.format_help(args[1], locale) if len(args) > 1 else texts.formats_help(locale)
        await reply(context, message, help_text)
        return
    if sub == "wechat":
        await _wechat(context, message, user, args[1:], locale)
        return
    if chat.type == Chat.PRIVATE:
        await reply(context, message, texts.problem_text(Problem.GROUP_ONLY, "", locale))
        return
    if sub == "new":
        await _new(context, message, user, args[1:], locale)
        return
    if sub == "list":
        past = await context.services.db.contests.closed_in_chat(chat_id=chat.id)
        await reply(context, message, texts.contest_list_text([p.contest for p in past], locale))
        return
    stored = await _contest_here(context, message, locale)
    if stored is None:
        return
    if sub == "":
        await reply(
            context, message, texts.status_text(stored.contest, locale), card_keyboard(stored, locale)
        )
        return
    if sub == "export":
        await _export(context, message, stored, user, locale)
        return
    if not await _organising(context, message, stored, user.id, locale):
        return
    if sub == "deadline":
        await _deadline(context, message, stored, args[1:], locale)
    elif sub == "close":
        await _run(context, message, stored, lambda c: close_contest(c, now=_now(context)), locale)
    else:
        await reply(context, message, texts.formats_help(locale))


async def _new(context: Context, message: Message, user: User, args: list[str], locale: str) -> None:
    chat_id = message.chat.id
    if not await is_group_admin(context, chat_id, user.id):
        await reply(context, message, texts.problem_text(Problem.ADMINS_ONLY, "", locale))
        return
    desk = desk_of(context)
    try:
        new = parse_new(args, now=desk.clock())
        contest = open_contest(
            name=new.name,
            organiser_id=user.id,
            seed=DrawSeed.generate(),
            now=desk.clock(),
            settings=new.settings,
        )
    except ArgProblem as problem:
        await reply(context, message, texts.problem_text(problem.code, problem.detail, locale))
        return
    except ContestError as error:
        await reply(context, message, texts.refusal_text(error.code, locale))
        return
    except KeyError:
        await reply(
            context, message, texts.problem_text(Problem.UNKNOWN_PRESET, str(new.settings.preset), locale)
        )
        return
    try:
        stored = await context.services.db.contests.create(chat_id=chat_id, contest=contest)
    except StorageConflict:
        await reply(context, message, texts.problem_text(Problem.CONTEST_EXISTS, "", locale))
        return
    desk.post(stored, Card(), "card")
    await reply(context, message, await _privacy(context, chat_id, contest.settings.event_word, locale))


async def _privacy(context: Context, chat_id: int, event_word: str, locale: str) -> str:
    me = await context.bot.get_me()
    try:
        member = await context.bot.get_chat_member(chat_id, me.id)
        is_admin = member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
    except TelegramError:
        is_admin = False
    return texts.privacy_text(bool(me.can_read_all_group_messages), is_admin, event_word, locale)


async def _deadline(
    context: Context, message: Message, stored: StoredContest, args: list[str], locale: str
) -> None:
    if len(args) != 1:
        await reply(context, message, texts.problem_text(Problem.USAGE_DEADLINE, "", locale))
        return
    try:
        deadline = Deadline.parse(args[0], stored.contest.settings.zone_name).check_ahead(_now(context))
    except ContestError as error:
        await reply(context, message, texts.refusal_text(error.code, locale))
        return
    await _run(context, message, stored, lambda c: move_deadline(c, deadline), locale)


async def _export(context: Context, message: Message, stored: StoredContest, user: User, locale: str) -> None:
    if not await _organising(context, message, stored, user.id, locale):
        return
    data = export_csv(stored.contest)
    await context.services.board.budget.acquire(message.chat.id)
    await message.reply_document(
        InputFile(data, filename=export_name(stored.contest)),
        caption=_(
            "{name}: entrants, matches, reports and standings (CSV).", locale, name=stored.contest.name
        ),
    )


async def _wechat(context: Context, message: Message, user: User, args: list[str], locale: str) -> None:
    """/contest wechat [NAME] URL|off — in a private chat only: the URL holds the robot's secret
    key. The answer names the contest; an organiser of several names it, or picks it by button."""
    if message.chat.type != Chat.PRIVATE:
        deleted = False
        with contextlib.suppress(TelegramError):  # the key was shown to the group: take it away if we may
            deleted = await message.delete()
        # the answer cannot quote a deleted message ("message to be replied not found")
        await reply(context, message, texts.problem_text(Problem.PRIVATE_ONLY, "", locale), quote=not deleted)
        return
    if not args:
        await reply(context, message, texts.problem_text(Problem.USAGE_WECHAT, "", locale))
        return
    db, desk = context.services.db, desk_of(context)
    url, name = args[-1].strip(), " ".join(args[:-1]).strip()
    if url.lower() != "off" and not desk.webhook_allowed(url):
        await reply(context, message, texts.problem_text(Problem.BAD_WEBHOOK, "", locale))
        return
    mine = [s for s in await db.contests.unfinished() if s.contest.organiser_id == user.id]
    if name:
        mine = [s for s in mine if s.contest.name.casefold() == name.casefold()]
    if not mine:
        code = Problem.NO_SUCH_CONTEST if name else Problem.NOT_ORGANISER_ANYWHERE
        await reply(context, message, texts.problem_text(code, name, locale))
        return
    if len(mine) > 1:
        desk.pending_mirrors[user.id] = url
        rows = [
            [
                InlineKeyboardButton(
                    s.contest.name, callback_data=ContestPress(ContestOp.MIRROR, s.id).encode()
                )
            ]
            for s in mine
        ]
        await reply(context, message, texts.which_contest_text(locale), InlineKeyboardMarkup(rows), owed=True)
        return
    await reply(context, message, await set_mirror(context, mine[0], user.id, url, locale))


async def set_mirror(context: Context, stored: StoredContest, user_id: int, url: str, locale: str) -> str:
    """Set (or turn off, ``url`` "off") the contest's mirror; the answer names the contest."""
    db, desk = context.services.db, desk_of(context)
    group = await _group_title(context, stored.chat_id)
    if url.lower() == "off":
        await db.contest_links.set_mirror(contest_id=stored.id, url=None, set_by=user_id)
        return texts.mirror_off_text(stored.contest.name, group, locale)
    await db.contest_links.set_mirror(contest_id=stored.id, url=url, set_by=user_id)
    text = plain(texts.card_text(stored.contest, "zh"))
    desk.outbox.post(MIRROR_LANE - stored.id, WECHAT, {"contest_id": stored.id, "text": text})
    return texts.mirror_set_for_text(stored.contest.name, group, texts.mask_url(url), locale)


async def _group_title(context: Context, chat_id: int) -> str:
    try:
        return (await context.bot.get_chat(chat_id)).title or str(chat_id)
    except TelegramError:
        return str(chat_id)


# ---------------------------------------------------------------- sign-up


async def signup_command(update: Update, context: Context) -> None:
    """/signup (alone: partner by lot) or /signup @partner (the partner confirms with a button);
    ``tag=UNIT`` (000-S) or ``tag=A``/``tag=B`` (002-E) where the format uses one."""
    here = await _here(update, context, remember_user=True)
    if here is None:
        return
    message, user, locale, stored = here
    me = Player(user.id, display_name(user))
    try:
        words = parse_signup(context.args or [], stored.contest.format.uses_tags)
    except ArgProblem as problem:
        await reply(context, message, texts.problem_text(problem.code, problem.detail, locale))
        return
    partner: Player | None = None
    if words.partner_words or message.reply_to_message is not None:
        partner = await _partner(context, message)
        if partner is None:
            await reply(
                context,
                message,
                texts.problem_text(Problem.NO_PARTNER, " ".join(words.partner_words), locale),
            )
            return
    pair = stored.contest.pair_of_user(user.id)
    if words.tag and pair is not None:
        await reply(context, message, texts.problem_text(Problem.TAG_AFTER_DRAW, "", locale))
        return
    if partner is not None and pair is not None:  # after the draw: a partner change (V32)
        new_partner = partner
        command = lambda c: change_partner(c, user.id, new_partner)  # noqa: E731
        if await _run(context, message, stored, command, locale) is not None:
            text = texts.partner_changed_text(me.name, partner.name, pair.number, locale)
            await reply(context, message, text)
        return
    step = await _run(context, message, stored, lambda c: sign_up(c, me, partner, tag=words.tag), locale)
    if step is None:
        return
    text = texts.signup_done_text(stored.contest, me.name, partner.name if partner else None, locale)
    if words.tag:
        text += "\n" + texts.tag_text(stored.contest.format.uses_tags, words.tag, locale)
    markup = None
    if partner is not None:
        markup = InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        _("Accept", locale),
                        callback_data=ContestPress(ContestOp.PARTNER_YES, stored.id).encode(),
                    ),
                    InlineKeyboardButton(
                        _("Decline", locale),
                        callback_data=ContestPress(ContestOp.PARTNER_NO, stored.id).encode(),
                    ),
                ]
            ]
        )
    await reply(context, message, text, markup)


_USERNAME = re.compile(r"[A-Za-z0-9_]{1,32}")
"""What a Telegram username may hold (letters, digits, underscores; at most 32)."""


async def _partner(context: Context, message: Message) -> Player | None:
    """The partner named by a text mention, a reply, or an @username the bot has seen."""
    for entity in message.entities:
        if entity.type == MessageEntity.TEXT_MENTION and entity.user is not None:
            return Player(entity.user.id, display_name(entity.user))
    for word in message.text.split()[1:] if message.text else []:
        if word.startswith("@"):
            if not _USERNAME.fullmatch(word[1:]):
                return None
            known = await context.services.db.contest_links.user_by_username(username=word)
            # not seen yet (privacy mode: a bot sees only commands and presses): invited by the
            # username, and whoever presses 接受 with it takes the place
            return Player(*known) if known is not None else username_placeholder(word)
    replied = message.reply_to_message
    if replied is not None and replied.from_user is not None and not replied.from_user.is_bot:
        return Player(replied.from_user.id, display_name(replied.from_user))
    return None


async def withdraw_command(update: Update, context: Context) -> None:
    """/withdraw: leave before the draw; after it, the pair forfeits (弃权)."""
    here = await _here(update, context)
    if here is None:
        return
    message, user, locale, stored = here
    step = await _run(context, message, stored, lambda c: withdraw(c, user.id, now=_now(context)), locale)
    if step is not None:
        await reply(context, message, _("{name} withdrew.", locale, name=escape(display_name(user))))


async def draw_command(update: Update, context: Context) -> None:
    """/draw (organiser): close sign-up, pair the singles, number the pairs, draw round 1."""
    here = await _here(update, context, organiser=True)
    if here is None:
        return
    message, _user, locale, stored = here
    await _run(context, message, stored, lambda c: draw(c, now=_now(context)), locale)


async def round_command(update: Update, context: Context) -> None:
    """/round next | /round start [TABLE] | /round close (organiser; closing asks for confirmation)."""
    here = await _here(update, context, organiser=True)
    if here is None:
        return
    message, _user, locale, stored = here
    args = list(context.args or [""])
    sub = args[0].lower()
    if sub == "next":
        try:
            schedule = parse_schedule(args[1:], stored.contest.settings.zone_name, now=_now(context))
        except ArgProblem as problem:
            await reply(context, message, texts.problem_text(problem.code, problem.detail, locale))
            return
        except ContestError as error:
            await reply(context, message, texts.refusal_text(error.code, locale))
            return
        await _run(
            context,
            message,
            stored,
            lambda c: draw_next_round(c, now=_now(context), schedule=schedule),
            locale,
        )
    elif sub == "start":
        await _start_clock(context, here, args[1:])
    elif sub == "close":
        buttons = [
            InlineKeyboardButton(
                _("Close the round", locale),
                callback_data=ContestPress(ContestOp.CLOSE_YES, stored.id).encode(),
            ),
            InlineKeyboardButton(
                _("Cancel", locale), callback_data=ContestPress(ContestOp.CLOSE_NO, stored.id).encode()
            ),
        ]
        await reply(
            context,
            message,
            texts.close_round_question(stored.contest, locale),
            InlineKeyboardMarkup([buttons]),
            owed=True,
        )
    else:
        usage = (
            texts.problem_text(Problem.USAGE_ROUND, "", locale)
            + "\n"
            + texts.problem_text(Problem.USAGE_START, "", locale)
        )
        await reply(context, message, usage)


async def _start_clock(context: Context, here: Here, args: list[str]) -> None:
    """/round start [TABLE]: the timed round's table clocks (announced in the group by the desk)."""
    try:
        table = parse_table(args)
    except ArgProblem as problem:
        await reply(context, here.message, texts.problem_text(problem.code, problem.detail, here.locale))
        return
    command = lambda c: start_clock(c, now=_now(context), table=table)  # noqa: E731
    await _run(context, here.message, here.stored, command, here.locale)


async def late_command(update: Update, context: Context) -> None:
    """/late CODE GROUP MINUTES (organiser, as referee): §3.14's lateness — under the rules'
    threshold noted, at it a walkover, and the settings' repeats in a row disqualify."""
    here = await _here(update, context, organiser=True)
    if here is None:
        return
    message, user, locale, stored = here
    try:
        words = parse_late(context.args or [], stored.contest.settings.event_word)
        match = stored.contest.match_by_code(words.code)
    except ArgProblem as problem:
        await reply(context, message, texts.problem_text(problem.code, problem.detail, locale))
        return
    except ContestError as error:
        await reply(context, message, texts.refusal_text(error.code, locale))
        return
    if not match.has(words.pair):
        await reply(context, message, texts.problem_text(Problem.LATE_NOT_IN_MATCH, str(words.pair), locale))
        return
    command = lambda c: record_lateness(  # noqa: E731
        c, code=match.code, late_pair=words.pair, minutes=words.minutes, by=user.id, now=_now(context)
    )
    step = await _run(context, message, stored, command, locale)
    if step is not None and not step.events:
        await reply(
            context, message, texts.late_noted_text(stored.contest, match, words.pair, words.minutes, locale)
        )


async def leave_command(update: Update, context: Context) -> None:
    """/leave (请假): a player asks for leave before their match; their pair is out and the match
    a walkover, announced in the group with its own wording. Refused once the match has begun."""
    here = await _here(update, context)
    if here is None:
        return
    message, user, locale, stored = here
    command = lambda c: withdraw(c, user.id, now=_now(context), reason=WithdrawReason.LEAVE)  # noqa: E731
    step = await _run(context, message, stored, command, locale)
    if step is not None and not any(isinstance(e, PairWithdrew) for e in step.events):
        await reply(context, message, _("{name} withdrew.", locale, name=escape(display_name(user))))


# ---------------------------------------------------------------- reports and results


async def report_command(update: Update, context: Context) -> None:
    """/report 掼蛋3组: always seen, whatever the group's privacy mode."""
    _message, _chat, user = _parts(update)
    await remember(context, user)
    await _report(update, context, " ".join(context.args or []), explicit=True)


async def on_group_text(update: Update, context: Context) -> None:
    """A typed line in a group: a report if it reads as one (or replies to the pairings)."""
    message, chat, user = _parts(update)
    text = message.text or ""
    if chat.type == Chat.PRIVATE:
        return
    await remember(context, user)
    if "组" not in text and message.reply_to_message is None:
        return
    replied = message.reply_to_message
    explicit = False
    if replied is not None:
        link = await context.services.db.contest_links.message(chat_id=chat.id, message_id=replied.message_id)
        explicit = link is not None and link[1] is not None  # a pairing message (not a card)
        if not explicit and "组" not in text:
            return
    await _report(update, context, text, explicit=explicit)


async def _report(update: Update, context: Context, text: str, *, explicit: bool) -> None:
    message, chat, user = _parts(update)
    locale = await _locale(context, chat)
    try:
        stored = await context.services.db.contests.open_in_chat(chat_id=chat.id)
    except NotFound:
        if explicit:
            await reply(context, message, texts.problem_text(Problem.NO_CONTEST, "", locale))
        return
    event = stored.contest.settings.event_word
    if message.forward_origin is not None:  # someone else's line, or an old one: not a report
        if explicit or text.strip().startswith(event):
            await reply(context, message, texts.problem_text(Problem.FORWARDED_REPORT, "", locale))
        return
    if explicit and not text.strip().startswith(event) and text.strip():
        text = event + text.strip()  # a reply to the pairings may say just 3组
    desk = desk_of(context)
    try:
        _after, step = await desk.run(
            stored.id, lambda c: report_text(c, reporter=user.id, text=text, now=desk.clock())
        )
    except ContestError as error:
        meant = text.strip().startswith(event) and error.code in _MEANT_AS_REPORT
        if explicit or meant or error.code not in _TEXT_REFUSALS:
            await reply(context, message, texts.refusal_text(error.code, locale))
        return
    for event_ in step.events:
        if isinstance(event_, MatchUpdated):
            result = event_.match.result
            line = official_line(result.winner, event) if result is not None and result.winner else ""
            if event_.note is MatchNote.DUPLICATE:
                await reply(context, message, texts.duplicate_text(line, locale))
            elif event_.note is MatchNote.CONTRADICTION:
                await reply(context, message, texts.contradiction_text(stored.contest, event_.match, locale))


_TEXT_REFUSALS = frozenset(
    {
        Refusal.NOT_A_REPORT,
        Refusal.WRONG_EVENT,
        Refusal.NO_NUMBER,
        Refusal.SEVERAL_NUMBERS,
        Refusal.ZERO,
        Refusal.BAD_NUMERAL,
        Refusal.TRAILING_TEXT,
    }
)
"""What the parser refuses: silent for ordinary chat, answered when meant as a report."""


async def result_command(update: Update, context: Context) -> None:
    """/result CODE WINNER [9:5] [levels=A:10] [3s=2:1] [time] [extra] REASON — the organiser's
    decision, logged with its reason; the figures give scored formats their 级差 and round score."""
    here = await _here(update, context, organiser=True)
    if here is None:
        return
    message, user, locale, stored = here
    try:
        decision = parse_decision(context.args or [], stored.contest.settings.event_word)
        result = decision.with_figures(stored.contest)
    except ArgProblem as problem:
        await reply(context, message, texts.problem_text(problem.code, problem.detail, locale))
        return
    except ContestError as error:
        await reply(context, message, texts.refusal_text(error.code, locale))
        return
    log.info(
        "contest %s: %s decides %s: %s (%s)",
        stored.id,
        user.id,
        decision.code,
        result,
        decision.reason,
    )
    await _run(
        context,
        message,
        stored,
        lambda c: decide(
            c,
            code=decision.code,
            result=result,
            by=user.id,
            reason=decision.reason,
            now=_now(context),
        ),
        locale,
    )


# ---------------------------------------------------------------- pictures


async def standings_command(update: Update, context: Context) -> None:
    """/standings: the standings picture (drawn in the render pool) and the same as text."""
    here = await _here(update, context)
    if here is not None:
        await send_standings(context, here.message.chat.id, here.stored, here.locale)


async def send_standings(context: Context, chat_id: int, stored: StoredContest, locale: str) -> None:
    view = standings_view(stored.contest, locale)
    loop = asyncio.get_running_loop()
    picture = await loop.run_in_executor(
        context.services.renderer, functools.partial(render_standings, view, locale=locale)
    )
    text = texts.standings_text(stored.contest, locale)
    budget = context.services.board.budget
    await budget.acquire(chat_id)
    if len(plain(text)) <= CAPTION_LIMIT:
        await context.bot.send_photo(chat_id, picture, caption=text, parse_mode=ParseMode.HTML)
        return
    await context.bot.send_photo(chat_id, picture)
    await budget.acquire(chat_id)
    await context.bot.send_message(chat_id, text, parse_mode=ParseMode.HTML)


async def bracket_command(update: Update, context: Context) -> None:
    """/bracket: the rounds so far as a knockout picture."""
    here = await _here(update, context)
    if here is None:
        return
    message, _user, locale, stored = here
    if not stored.contest.rounds:
        await reply(context, message, texts.refusal_text(Refusal.NOT_DRAWN, locale))
        return
    view = bracket_view(stored.contest, locale)
    loop = asyncio.get_running_loop()
    picture = await loop.run_in_executor(
        context.services.renderer, functools.partial(render_bracket, view, locale=locale)
    )
    await context.services.board.budget.acquire(message.chat.id)
    await message.reply_photo(picture, caption=escape(stored.contest.name))


# ---------------------------------------------------------------- buttons


async def on_contest_press(update: Update, context: Context) -> None:
    """A contest button: sign up, partner answer, confirm / dispute, close the round, play, standings."""
    query = update.callback_query
    assert query is not None and query.data is not None and query.message is not None
    locale = await _locale(context, query.message.chat)
    await remember(context, query.from_user)
    try:
        press = ContestPress.decode(query.data)
        stored = await context.services.db.contests.get(contest_id=press.contest_id)
    except (BadContestButton, NotFound):
        await query.answer(error_text("bad_button", locale), show_alert=True)
        return
    try:
        await _press(query, context, stored, press, locale)
    except ContestError as error:
        await query.answer(texts.refusal_text(error.code, locale), show_alert=True)


async def _press(
    query: CallbackQuery, context: Context, stored: StoredContest, press: ContestPress, locale: str
) -> None:
    desk, user = desk_of(context), query.from_user
    me = Player(user.id, display_name(user))
    op = press.op
    if op is ContestOp.PLAY:
        await open_match_table(query, context, press.arg, locale)
        return
    if op is ContestOp.STANDINGS:
        await query.answer()
        await send_standings(context, query.message.chat.id, stored, locale)  # type: ignore[union-attr]
        return
    if op is ContestOp.MIRROR:
        await _choose_mirror(query, context, stored, locale)
        return
    organiser_ops = (ContestOp.CLOSE_YES, ContestOp.CLOSE_NO, ContestOp.DRAW)
    if op in organiser_ops and not await _may_organise(context, stored, user.id):
        await query.answer(texts.problem_text(Problem.ORGANISER_ONLY, "", locale), show_alert=True)
        return
    if op is ContestOp.CLOSE_NO:
        await query.answer()
        await _edit(query, _("The round goes on.", locale))
        return
    commands = {
        ContestOp.SIGN_UP: lambda c: sign_up(c, me),
        ContestOp.WITHDRAW: lambda c: withdraw(c, user.id, now=desk.clock()),
        ContestOp.PARTNER_YES: lambda c: confirm_partner(c, user.id, player=me, username=user.username),
        ContestOp.PARTNER_NO: lambda c: decline_partner(c, user.id, username=user.username),
        ContestOp.CONFIRM: lambda c: confirm(c, code=press.arg, by=user.id, now=desk.clock()),
        ContestOp.DISPUTE: lambda c: dispute(c, code=press.arg, by=user.id, now=desk.clock()),
        ContestOp.CLOSE_YES: lambda c: close_round(c, now=desk.clock()),
        ContestOp.DRAW: lambda c: draw(c, now=desk.clock()),
    }
    await desk.run(stored.id, commands[op])
    if op in (ContestOp.SIGN_UP, ContestOp.WITHDRAW):
        # The toast is the acknowledgement; the card follows as a refresh (desk.announce asked
        # for it), so a rush of presses is answered at once and the group sees one edit, not fifty.
        toast = _("✅ Signed up.", locale) if op is ContestOp.SIGN_UP else _("Withdrawn.", locale)
        await query.answer(toast)
        return
    await query.answer(_("Done.", locale))
    name = escape(me.name)
    if op is ContestOp.PARTNER_YES:
        await _edit(query, _("{name} accepted: the pair is signed up.", locale, name=name))
    elif op is ContestOp.PARTNER_NO:
        await _edit(query, _("{name} declined: the inviter is signed up alone.", locale, name=name))
    elif op is ContestOp.CONFIRM:
        await _mark_details(query, _("✅ Confirmed by {name}.", locale, name=name))
    elif op is ContestOp.DISPUTE:
        await _mark_details(query, _("⚠️ Disputed by {name}: the organisers decide.", locale, name=name))
    elif op is ContestOp.CLOSE_YES:
        await _edit(query, _("The round is closed.", locale))


async def _choose_mirror(query: CallbackQuery, context: Context, stored: StoredContest, locale: str) -> None:
    """The organiser picked the contest for the webhook address they just sent."""
    user_id = query.from_user.id
    url = desk_of(context).pending_mirrors.get(user_id)
    if stored.contest.organiser_id != user_id:
        await query.answer(texts.problem_text(Problem.ORGANISER_ONLY, "", locale), show_alert=True)
        return
    if url is None:
        await query.answer(texts.problem_text(Problem.USAGE_WECHAT, "", locale), show_alert=True)
        return
    del desk_of(context).pending_mirrors[user_id]
    await query.answer()
    await _edit(query, await set_mirror(context, stored, user_id, url, locale))


async def _mark_details(query: CallbackQuery, note: str) -> None:
    """The details message keeps its copy button, loses 确认 / 有异议, and says who answered."""
    message = query.message
    if not isinstance(message, Message) or message.text_html is None:
        return
    keyboard = message.reply_markup.inline_keyboard if message.reply_markup else ()
    copy_row = [list(row) for row in keyboard if all(button.callback_data is None for button in row)]
    await _edit(query, message.text_html + "\n" + note, InlineKeyboardMarkup(copy_row) if copy_row else None)


async def _edit(query: CallbackQuery, text: str, markup: InlineKeyboardMarkup | None = None) -> None:
    try:
        await query.edit_message_text(text, parse_mode=ParseMode.HTML, reply_markup=markup)
    except BadRequest as error:
        if "not modified" not in str(error).lower():
            log.info("contest message not edited: %s", error)
