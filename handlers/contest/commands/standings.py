"""Pictures: /standings (the picture, drawn in the render pool, and the same as text) and
/bracket (the rounds so far as a knockout picture)."""

from __future__ import annotations

from telegram import MaybeInaccessibleMessage, Update
from telegram.constants import ParseMode

from app.contest import texts
from app.contest.store import HeldContest
from app.contest.views import bracket_view, plain, standings_view
from app.table.texts import escape
from engine.contest import Refusal
from handlers.contest.common import here, reply
from handlers.platform.context import Context
from render.contest import render_bracket, render_standings

CAPTION_LIMIT = 1024


async def standings_command(update: Update, context: Context) -> None:
    """/standings: the standings picture (drawn in the render pool) and the same as text."""
    found = await here(update, context)
    if found is not None:
        queue_standings(context, found.message, found.stored, found.locale)


def queue_standings(
    context: Context, message: MaybeInaccessibleMessage, stored: HeldContest, locale: str
) -> None:
    """Queue the standings into ``message``'s chat by its reply queue (coalesced when the
    same standings are queued or were just sent).

    Queued, not awaited: a handler that waited here for the group's budget held one of its
    chat's update slots, and a dozen taps of 赛况 in a sign-up rush filled them all, so every
    other press in the group went unanswered (found by the random walk with Telegram's limits).
    The picture is drawn only when it is about to be sent."""
    text = texts.standings_text(stored.contest, locale)
    view = standings_view(stored.contest, locale)
    chat_id = message.chat.id
    fits = len(plain(text)) <= CAPTION_LIMIT

    async def send_picture() -> None:
        picture = await context.services.draw(render_standings, view, locale=locale)
        caption = text if fits else None
        await context.bot.send_photo(chat_id, picture, caption=caption, parse_mode=ParseMode.HTML)

    async def send_text() -> None:
        await context.bot.send_message(chat_id, text, parse_mode=ParseMode.HTML)

    replies = context.services.replies
    if replies.send(message, f"standings:{stored.id}:{text}", send_picture, locale) and not fits:
        replies.send(message, text, send_text, locale)


async def bracket_command(update: Update, context: Context) -> None:
    """/bracket: the rounds so far as a knockout picture (by the chat's reply queue)."""
    found = await here(update, context)
    if found is None:
        return
    message, _user, locale, stored = found
    if not stored.contest.rounds:
        await reply(context, message, texts.refusal_text(Refusal.NOT_DRAWN, locale))
        return
    view = bracket_view(stored.contest, locale)

    async def send() -> None:
        picture = await context.services.draw(render_bracket, view, locale=locale)
        await message.reply_photo(picture, caption=escape(stored.contest.name), parse_mode=ParseMode.HTML)

    key = f"bracket:{stored.id}:{hash(view)}"  # the same bracket asked again within seconds goes once
    context.services.replies.send(message, key, send, locale)
