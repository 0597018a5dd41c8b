"""What the contest's command handlers and its table glue share: the desk and the reply queue.

Below both :mod:`handlers.contest.commands` and :mod:`handlers.contest.tables`, so the commands
can open a contest table without the two importing each other.
"""

from __future__ import annotations

from telegram import InlineKeyboardMarkup, Message
from telegram.constants import ParseMode

from handlers.contest.desk import ContestDesk
from handlers.platform.context import Context
from handlers.platform.locales import reply_locale


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
    quote: bool = True,
) -> None:
    """An answer to one person's command (HTML), queued in the chat's reply queue.

    ``owed``: a question only an organiser can ask, whose buttons they must get even when they
    ask it again at once (an ordinary reply repeated within seconds is coalesced away).
    ``quote=False``: not as a reply (the command was deleted: Telegram refuses a reply to it)."""
    locale = await reply_locale(context.services.db, message.chat)

    async def send() -> None:
        await message.reply_text(
            text,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            disable_web_page_preview=True,
            do_quote=quote,
        )

    context.services.replies.send(message, text, send, locale, owed=owed)
