"""Edits: the ones Telegram refuses because they would change nothing, edits whose answer
nobody reads, and edits that answer a press in a group (queued, not awaited).

Telegram answers an edit whose text, caption and keyboard equal the message's current
ones with 400 "Bad Request: message is not modified". For the bot that is success —
the message already shows what was meant — so every editor asks here rather than
matching the error text itself.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from telegram import MaybeInaccessibleMessage
from telegram.error import BadRequest
from telegram.ext import ExtBot

from handlers.platform.scheduler import Priority, at_priority
from handlers.platform.sender import LatestWins, Send


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


def edit_later(
    sender: LatestWins, message: MaybeInaccessibleMessage | None, edit: Send, priority: Priority
) -> None:
    """Queue ``edit`` of the pressed ``message`` at ``priority``; the handler does not wait.

    In a group the edit waits for the group's budget, which a busy minute keeps for most of a
    minute: a handler that awaited it held one of the chat's update slots (and any lock it held)
    that long, so other presses went unanswered, and /stop's players kept live keyboards
    (issue 32). The press's answer (a toast) tells the presser at once. One pending edit per
    message: a newer one replaces it (:class:`LatestWins`), which logs a failure."""
    if message is None:
        return
    with at_priority(priority):
        sender.submit(("pressed", message.chat.id, message.message_id), edit)
