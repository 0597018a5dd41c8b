"""Answering button presses: a refusal is an alert, a success a silent answer."""

from __future__ import annotations

from telegram import CallbackQuery

from app.table.texts import error_text


async def refuse(query: CallbackQuery, code: str, locale: str) -> None:
    await query.answer(error_text(code, locale), show_alert=True)


async def alert(query: CallbackQuery, text: str) -> None:
    await query.answer(text, show_alert=True)
