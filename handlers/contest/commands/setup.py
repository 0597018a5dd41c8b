"""/contest and its subcommands: the card and status, a new contest, help, the list of past
contests, the CSV export, the deadline, closing, and the WeChat mirror (a subcommand table)."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable

from telegram import Chat, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, Message, Update, User
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

from app.contest import texts
from app.contest.announcements import Card
from app.contest.args import parse_new
from app.contest.callback_data import ContestOp, ContestPress
from app.contest.problems import Problem
from app.contest.store import HeldContest
from app.contest.views import export_csv, export_name, plain
from app.table.texts import _
from engine.contest import Deadline, DrawSeed, close_contest, move_deadline, open_contest
from handlers.contest.common import (
    Here,
    answers_refusals,
    contest_here,
    desk_of,
    locale_of,
    now,
    organising,
    parts,
    remember,
    reply,
    run,
)
from handlers.contest.compose import card_keyboard
from handlers.contest.wechat import mirror_post
from handlers.platform.context import Context
from handlers.table.lobby import is_group_admin

Anywhere = Callable[[Context, Message, User, list[str], str], Awaitable[None]]
OnContest = Callable[[Context, Here, list[str]], Awaitable[None]]


@answers_refusals
async def contest_command(update: Update, context: Context) -> None:
    """/contest [new|help|list|deadline|close|export|wechat …]: the card and status, or a subcommand."""
    message, chat, user = parts(update)
    await remember(context, user)
    locale = await locale_of(context, chat)
    args = list(context.args or [])
    sub = args[0].lower() if args else ""
    if sub in ANYWHERE:
        await ANYWHERE[sub](context, message, user, args[1:], locale)
        return
    if chat.type == Chat.PRIVATE:
        await reply(context, message, texts.problem_text(Problem.GROUP_ONLY, "", locale))
        return
    if sub in IN_GROUP:
        await IN_GROUP[sub](context, message, user, args[1:], locale)
        return
    stored = await contest_here(context, message, locale)
    if stored is None:
        return
    here = Here(message, user, locale, stored)
    if sub in ON_CONTEST:
        await ON_CONTEST[sub](context, here, args[1:])
        return
    if not await organising(context, message, stored, user.id, locale):
        return
    await ORGANISER.get(sub, _help_formats)(context, here, args[1:])


async def _help(context: Context, message: Message, _user: User, args: list[str], locale: str) -> None:
    help_text = texts.format_help(args[0], locale) if args else texts.formats_help(locale)
    await reply(context, message, help_text)


async def _help_formats(context: Context, here: Here, _args: list[str]) -> None:
    await reply(context, here.message, texts.formats_help(here.locale))


async def _list(context: Context, message: Message, _user: User, _args: list[str], locale: str) -> None:
    past = await desk_of(context).store.closed_in_chat(message.chat.id)
    await reply(context, message, texts.contest_list_text([p.contest for p in past], locale))


async def _status(context: Context, here: Here, _args: list[str]) -> None:
    stored, locale = here.stored, here.locale
    await reply(
        context, here.message, texts.status_text(stored.contest, locale), card_keyboard(stored, locale)
    )


async def _new(context: Context, message: Message, user: User, args: list[str], locale: str) -> None:
    chat_id = message.chat.id
    if not await is_group_admin(context, chat_id, user.id):
        await reply(context, message, texts.problem_text(Problem.ADMINS_ONLY, "", locale))
        return
    desk = desk_of(context)
    new = parse_new(args, now=desk.clock())
    try:
        contest = open_contest(
            name=new.name,
            organiser_id=user.id,
            seed=DrawSeed.generate(),
            now=desk.clock(),
            settings=new.settings,
        )
    except KeyError:
        preset = str(new.settings.preset)
        await reply(context, message, texts.problem_text(Problem.UNKNOWN_PRESET, preset, locale))
        return
    stored = await desk.store.create(chat_id, contest)
    if stored is None:
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


async def _deadline(context: Context, here: Here, args: list[str]) -> None:
    if len(args) != 1:
        await reply(context, here.message, texts.problem_text(Problem.USAGE_DEADLINE, "", here.locale))
        return
    deadline = Deadline.parse(args[0], here.stored.contest.settings.zone_name).check_ahead(now(context))
    await run(context, here.stored, lambda c: move_deadline(c, deadline))


async def _close(context: Context, here: Here, _args: list[str]) -> None:
    await run(context, here.stored, lambda c: close_contest(c, now=now(context)))


async def _export(context: Context, here: Here, _args: list[str]) -> None:
    message, user, locale, stored = here
    if not await organising(context, message, stored, user.id, locale):
        return
    data = export_csv(stored.contest)
    caption = _("{name}: entrants, matches, reports and standings (CSV).", locale, name=stored.contest.name)

    async def send() -> None:  # by the chat's reply queue: no handler waits for the group's budget
        await message.reply_document(InputFile(data, filename=export_name(stored.contest)), caption=caption)

    context.services.replies.send(message, f"export:{stored.id}:{hash(data)}", send, locale)


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
    desk = desk_of(context)
    url, name = args[-1].strip(), " ".join(args[:-1]).strip()
    if url.lower() != "off" and not desk.webhook_allowed(url):
        await reply(context, message, texts.problem_text(Problem.BAD_WEBHOOK, "", locale))
        return
    mine = await desk.store.organised_by(user.id)
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


async def set_mirror(context: Context, stored: HeldContest, user_id: int, url: str, locale: str) -> str:
    """Set (or turn off, ``url`` "off") the contest's mirror; the answer names the contest."""
    desk = desk_of(context)
    group = await _group_title(context, stored.chat_id)
    if url.lower() == "off":
        await desk.store.set_mirror(stored.id, None, user_id)
        return texts.mirror_off_text(stored.contest.name, group, locale)
    await desk.store.set_mirror(stored.id, url, user_id)
    text = plain(texts.card_text(stored.contest, "zh"))
    mirror_post(desk.outbox, stored.id, text)
    return texts.mirror_set_for_text(stored.contest.name, group, texts.mask_url(url), locale)


async def _group_title(context: Context, chat_id: int) -> str:
    try:
        return (await context.bot.get_chat(chat_id)).title or str(chat_id)
    except TelegramError:
        return str(chat_id)


ANYWHERE: dict[str, Anywhere] = {"help": _help, "wechat": _wechat}
"""Subcommands for any chat (the mirror's secret only in a private one)."""
IN_GROUP: dict[str, Anywhere] = {"new": _new, "list": _list}
"""Subcommands of a group, with or without an open contest."""
ON_CONTEST: dict[str, OnContest] = {"": _status, "export": _export}
"""Subcommands on the group's open contest (the export checks its organiser itself)."""
ORGANISER: dict[str, OnContest] = {"deadline": _deadline, "close": _close}
"""The organiser's subcommands; any other word, after the same check, gets the formats' help."""
