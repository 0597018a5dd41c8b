"""initData as Telegram's app hands it to a Mini App, signed with a bot token (or not)."""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

from webapp.initdata import sign


def init_data(
    token: str, user_id: int, *, name: str = "Ann", auth_date: int | None = None, language: str = "zh"
) -> str:
    """A query string like the one Telegram puts in ``#tgWebAppData=…``, signed with ``token``."""
    user = {"id": user_id, "first_name": name, "language_code": language}
    fields = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(user, separators=(",", ":"), ensure_ascii=False),
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
    }
    return urlencode(fields | {"hash": sign(fields, token)})
