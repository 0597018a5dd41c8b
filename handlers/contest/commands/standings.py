"""Pictures: /standings (the picture, drawn in the render pool, and the same as text) and
/bracket (the rounds so far as a knockout picture)."""

from __future__ import annotations

import asyncio
import functools

from telegram import Update
from telegram.constants import ParseMode

from app.contest import texts
from app.contest.views import bracket_view, plain, standings_view
from app.table.texts import escape
from engine.contest import Refusal
from handlers.contest.common import here, reply
from handlers.platform.context import Context
from render.contest import render_bracket, render_standings
from storage import StoredContest

CAPTION_LIMIT = 1024


async def standings_command(update: Update, context: Context) -> None:
    """/standings: the standings picture (drawn in the render pool) and the same as text."""
    found = await here(update, context)
    if found is not None:
        await send_standings(context, found.message.chat.id, found.stored, found.locale)


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
    found = await here(update, context)
    if found is None:
        return
    message, _user, locale, stored = found
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
