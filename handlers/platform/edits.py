"""Edits: the ones Telegram refuses because they would change nothing, and edits whose answer
nobody reads.

Telegram answers an edit whose text, caption and keyboard equal the message's current
ones with 400 "Bad Request: message is not modified". For the bot that is success —
the message already shows what was meant — so every editor asks here rather than
matching the error text itself.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from telegram.error import BadRequest
from telegram.ext import ExtBot


def not_modified(error: BadRequest) -> bool:
    """True if the edit was refused only because the message already looks like that."""
    return "not modified" in str(error).lower()


async def already_shown_is_done(edit: Awaitable[object]) -> None:
    """Await an edit; Telegram's "not modified" (a double tap's second edit, say) is success,
    any other refusal is raised."""
    try:
        await edit
    except BadRequest as error:
        if not not_modified(error):
            raise


async def edit_quietly(bot: ExtBot[Any], method: str, **params: object) -> None:
    """Send an edit (``editMessageCaption``, …) as ``bot.edit_message_caption`` would, through
    the same request path and rate limiter, without turning Telegram's answer into a ``Message``.

    The answer repeats the whole message, keyboard included, and python-telegram-bot builds a
    frozen object for each of its thirty-odd buttons: at 100 tables that parsing was a twentieth
    of the event loop's time, for objects the hand message and the board never read.
    """
    await bot._post(method, dict(params))  # the protected method: the parsing is what is skipped
