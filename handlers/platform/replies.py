"""Answering button presses: a refusal is an alert, a success a silent answer or a toast.

The texts are the caller's: each feature words its own refusals (the table's are
``handlers/table/answers.py``'s :func:`~handlers.table.answers.refuse`), so this plumbing
names no feature.

Every answer goes through :func:`answer`. Telegram refuses an answer that comes more than
about 15 s after the press (a press that waited in a busy bot, a client that retried it) or
names a query id it does not know (a forged press) with 400 "query is too old and response
timeout expired or query ID is invalid". That happens every day and means only that the
player saw no toast: it is logged as the routine event it is, and the press's work goes on
(before, the handler stopped at its first answer and the error log had a traceback).
"""

from __future__ import annotations

import logging

from telegram import CallbackQuery
from telegram.error import BadRequest

log = logging.getLogger(__name__)


def too_late(error: BadRequest) -> bool:
    """True if Telegram refused a press's answer only because it no longer takes one."""
    words = str(error).lower()
    return "query is too old" in words or "query id is invalid" in words


async def answer(
    query: CallbackQuery, text: str | None = None, *, show_alert: bool = False, url: str | None = None
) -> None:
    """Answer a press (a toast, an alert with ``show_alert``, or a link the app opens); an answer
    Telegram no longer takes is one line in the log, not an error."""
    try:
        await query.answer(text, show_alert=show_alert, url=url)
    except BadRequest as error:
        if not too_late(error):
            raise
        log.info("press %s from %s not answered: %s", query.id, query.from_user.id, error)


async def alert(query: CallbackQuery, text: str) -> None:
    await answer(query, text, show_alert=True)
