"""Test bots that record edits by their Bot API method take them the way the bot sends them."""

from __future__ import annotations

from typing import Any


class RawEdits:
    """``_post`` — what :func:`handlers.platform.edits.edit_quietly` calls — routed to the fake's
    own ``edit_message_*`` methods, so a fake records a quiet edit as it records any other."""

    async def _post(self, method: str, data: dict[str, Any]) -> bool:
        edits = {
            "editMessageReplyMarkup": "edit_message_reply_markup",
            "editMessageCaption": "edit_message_caption",
            "editMessageMedia": "edit_message_media",
            "editMessageText": "edit_message_text",
        }
        edit = getattr(self, edits[method])
        return bool(await edit(**data))
