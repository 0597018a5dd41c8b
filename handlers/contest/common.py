"""What the contest's command handlers and its table glue share: the desk, the reply queue, a
command's prelude (who, where, which contest) and the one wrapper that answers refusals.

Below both :mod:`handlers.contest.commands` and :mod:`handlers.contest.tables`, so the commands
can open a contest table without the two importing each other.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import Any, NamedTuple

from telegram import Chat, InlineKeyboardMarkup, Message, Update, User
from telegram.constants import ParseMode

from app.contest import texts
from app.contest.args import ArgProblem, MatchUnclear
from app.contest.problems import Problem
from app.contest.service import Command
from app.contest.store import HeldContest
from engine.contest import ContestError, Step
from handlers.contest.desk import ContestDesk
from handlers.platform.context import Context
from handlers.platform.locales import reply_locale
from handlers.table.lobby import display_name, is_group_admin


def desk_of(context: Context) -> ContestDesk:
    desk = context.services.contests
    assert isinstance(desk, ContestDesk), "contests are opened in open_services"
    return desk


async def reply(
    context: Context,
    message: Message,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
    *,
    owed: bool = False,
    repeat: bool = False,
    keep: bool = False,
    spare: bool = False,
    quote: bool = True,
) -> None:
    """An answer to one person's command (HTML), queued in the chat's reply queue.

    ``owed``: a question only an organiser can ask, whose buttons they must get even when they
    ask it again at once (an ordinary reply repeated within seconds is coalesced away).
    ``repeat``: a command each of whose uses is answered, even in the same words as the last
    answer (:func:`answers_each_use`).
    ``keep``: never dropped as one too many (an invitation: the partner's only button).
    ``spare``: dropped while other replies wait (an acknowledgement the card also shows).
    ``quote=False``: not as a reply (the command was deleted: Telegram refuses a reply to it)."""
    locale = await reply_locale(context.services.languages, message.chat)

    async def send() -> None:
        await message.reply_text(
            text,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            disable_web_page_preview=True,
            do_quote=quote,
        )

    replies = context.services.replies
    replies.send(message, text, send, locale, owed=owed, repeat=repeat, keep=keep, spare=spare)


# ---------------------------------------------------------------- a contest command's prelude


async def locale_of(context: Context, chat: Chat) -> str:
    return await reply_locale(context.services.languages, chat)


async def remember(context: Context, user: User) -> None:
    """Keep ``@username`` → user, so that ``/signup @partner`` can name this person later."""
    if user.username:
        await desk_of(context).store.remember_username(user.username, user.id, display_name(user))


def parts(update: Update) -> tuple[Message, Chat, User]:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None and user is not None
    return message, chat, user


async def contest_here(
    context: Context, message: Message, locale: str, *, repeat: bool = False
) -> HeldContest | None:
    """The chat's open contest, or None once the person has been told there is none (in a
    private chat: that contest commands go in the contest's group)."""
    found = await desk_of(context).store.open_in_chat(message.chat.id)
    if found is None:
        problem = Problem.GROUP_ONLY if message.chat.type == Chat.PRIVATE else Problem.NO_CONTEST
        await reply(context, message, texts.problem_text(problem, "", locale), repeat=repeat)
    return found


class Here(NamedTuple):
    """A contest command's who, where and language, and the group's open contest."""

    message: Message
    user: User
    locale: str
    stored: HeldContest


async def here(
    update: Update,
    context: Context,
    *,
    organiser: bool = False,
    remember_user: bool = False,
    repeat: bool = False,
) -> Here | None:
    """The prelude of a contest command in its group; None once the person has been answered
    (no contest here, or ``organiser`` and they are not the organiser or a group admin).
    ``repeat``: those answers are given each time (:func:`reply`)."""
    message, chat, user = parts(update)
    if remember_user:
        await remember(context, user)
    locale = await locale_of(context, chat)
    stored = await contest_here(context, message, locale, repeat=repeat)
    if stored is None:
        return None
    if organiser and not await organising(context, message, stored, user.id, locale, repeat=repeat):
        return None
    return Here(message, user, locale, stored)


async def may_organise(context: Context, stored: HeldContest, user_id: int) -> bool:
    return user_id == stored.contest.organiser_id or await is_group_admin(context, stored.chat_id, user_id)


async def organising(
    context: Context,
    message: Message,
    stored: HeldContest,
    user_id: int,
    locale: str,
    *,
    repeat: bool = False,
) -> bool:
    """Whether the user may run the contest's organiser commands; answers them if not."""
    if await may_organise(context, stored, user_id):
        return True
    await reply(context, message, texts.problem_text(Problem.ORGANISER_ONLY, "", locale), repeat=repeat)
    return False


async def run(context: Context, stored: HeldContest, command: Command) -> Step:
    """Run a contest command (a refusal propagates to :func:`answers_refusals`)."""
    _after, step = await desk_of(context).run(stored.id, command)
    return step


def now(context: Context) -> datetime:
    return desk_of(context).clock()


Handler = Callable[[Update, Context], Coroutine[Any, Any, None]]


def answers_refusals(handler: Handler, *, repeat: bool = False) -> Handler:
    """The one place where a refused contest command is answered: words refused before the
    contest saw them (:class:`ArgProblem`, :class:`MatchUnclear`) and the contest's own refusals
    (:class:`ContestError`) become a reply to the command, in the chat's language."""

    @functools.wraps(handler)
    async def answered(update: Update, context: Context) -> None:
        try:
            await handler(update, context)
        except (ArgProblem, MatchUnclear, ContestError) as refusal:
            message, chat, _user = parts(update)
            locale = await locale_of(context, chat)
            await reply(context, message, _refusal_text(refusal, locale), repeat=repeat)

    return answered


def answers_each_use(handler: Handler) -> Handler:
    """:func:`answers_refusals` for a command each of whose uses is answered, even in the same
    words as the last answer: an organiser retyping a refused /result (``/result 掼蛋8组 …``,
    then ``/result 8 …``) used to hear nothing the second time, the equal answer coalesced."""
    return answers_refusals(handler, repeat=True)


def _refusal_text(refusal: ArgProblem | MatchUnclear | ContestError, locale: str) -> str:
    if isinstance(refusal, ArgProblem):
        return texts.problem_text(refusal.code, refusal.detail, locale)
    if isinstance(refusal, MatchUnclear):
        return texts.unclear_match_text(refusal, locale)
    return texts.refusal_text(refusal.code, locale)
