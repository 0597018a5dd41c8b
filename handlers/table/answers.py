"""A table's refusals as alerts: the table's own texts (``app/table/texts.py``) on the shared
answer (``handlers/platform/replies.py``, which words nothing itself)."""

from __future__ import annotations

from telegram import CallbackQuery

from app.table.refusals import TableRefusal
from app.table.texts import error_text
from handlers.platform.replies import alert


async def refuse(query: CallbackQuery, code: TableRefusal, locale: str) -> None:
    """Answer a press with the refusal ``code`` in an alert."""
    await alert(query, error_text(code, locale))
