"""Edits Telegram refuses because they would change nothing.

Telegram answers an edit whose text, caption and keyboard equal the message's current
ones with 400 "Bad Request: message is not modified". For the bot that is success —
the message already shows what was meant — so every editor asks here rather than
matching the error text itself.
"""

from __future__ import annotations

from telegram.error import BadRequest


def not_modified(error: BadRequest) -> bool:
    """True if the edit was refused only because the message already looks like that."""
    return "not modified" in str(error).lower()
