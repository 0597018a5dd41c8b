"""Contest matches played through the bot: ``/newgame match=CODE`` in any group, or the
pairing message's button in the centre group.

The table is an ordinary one with the contest's rules, reserved for the match's four
players: each pair on its own side (the first pair of the pairing at seats 0 and 2,
engine team 0), nobody else, no AI players, no preset change. When its match ends the
table service calls :meth:`app.contest.bot_tables.BotTables.on_table_finished`, and the result reports
itself in the contest's group.
"""

from __future__ import annotations

import logging

from telegram import CallbackQuery, Chat, Update

from app.contest import texts
from app.contest.args import ArgProblem
from app.contest.problems import Problem
from app.contest.views import plain
from app.table.refusals import TableRefusal
from app.table.tables import LiveTable, TableError
from app.table.texts import error_text
from engine.contest import ContestError, normalize_code
from handlers.contest.common import desk_of, reply
from handlers.platform.context import Context
from handlers.platform.replies import answer
from handlers.table.lobby import queue_lobby

log = logging.getLogger(__name__)

MATCH_ARG = "match="


def match_code_of(args: list[str]) -> str | None:
    """The CODE of ``match=CODE`` among /newgame's words, or None."""
    for arg in args:
        if arg.lower().startswith(MATCH_ARG):
            return normalize_code(arg[len(MATCH_ARG) :])
    return None


async def new_match_game(update: Update, context: Context) -> None:
    """/newgame match=CODE: open the match's reserved table in this group."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None and user is not None
    locale = await context.services.languages.of_chat(chat.id)
    code = match_code_of(list(context.args or []))
    if chat.type == Chat.PRIVATE:
        await reply(context, message, error_text(TableRefusal.GROUP_ONLY, locale))
        return
    if not code:
        await reply(context, message, texts.problem_text(Problem.NO_MATCH_CODE, "", locale))
        return
    try:
        table = await open_table(context, chat.id, user.id, code)
    except ContestError as error:
        await reply(context, message, texts.refusal_text(error.code, locale))
        return
    except ArgProblem as problem:
        await reply(context, message, texts.problem_text(problem.code, problem.detail, locale))
        return
    except TableError as refused:
        await reply(context, message, error_text(refused.code, locale))
        return
    queue_lobby(context, table, message, locale)


async def open_match_table(query: CallbackQuery, context: Context, code: str, locale: str) -> None:
    """The pairing message's ▶ button: the same table, in the centre group."""
    assert query.message is not None
    try:
        table = await open_table(context, query.message.chat.id, query.from_user.id, code)
    except ContestError as error:
        await answer(query, texts.refusal_text(error.code, locale), show_alert=True)
        return
    except ArgProblem as problem:
        await answer(query, plain(texts.problem_text(problem.code, problem.detail, locale)), show_alert=True)
        return
    except TableError as refused:
        await answer(query, plain(error_text(refused.code, locale)), show_alert=True)
        return
    await answer(query)
    queue_lobby(context, table, query.message, locale, quote=False)


async def open_table(context: Context, chat_id: int, user_id: int, code: str) -> LiveTable:
    """Checks (:meth:`BotTables.match_to_open`), then a lobby reserved for the match's players
    with the contest's rules; refused as :class:`ArgProblem`, :class:`ContestError` or the
    table's :class:`TableError`."""
    desk = desk_of(context)
    held, match = await desk.bot_tables.match_to_open(code, user_id)
    contest = held.contest
    first, second = (contest.pair(n) for n in match.pairs)
    sides = {uid: 0 for uid in first.user_ids} | {uid: 1 for uid in second.user_ids}
    table = await context.services.tables.create(
        chat_id=chat_id,
        creator_id=user_id,
        preset=contest.settings.match_preset,
        rules=desk.match_rules(contest, match.round),
        reserved=sides,
    )
    await desk.bot_tables.opened(table.id, held, match)
    log.info("contest %s: table %s opened for match %s in chat %s", held.id, table.id, match.code, chat_id)
    return table
