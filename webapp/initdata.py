"""Telegram's ``initData``, validated exactly as the Bot API documents ("Validating data
received via the Mini App"): the only proof of who opened the page.

The data-check-string is every received field but ``hash``, sorted by key, as ``key=value``
lines joined by ``\\n`` (values URL-decoded); the secret key is HMAC-SHA-256 of the bot token
keyed with ``"WebAppData"``; the ``hash`` field must equal HMAC-SHA-256 of the data-check-string
with that key, compared in constant time. ``auth_date`` older than the allowed age is refused:
a leaked link must not open the table for ever. The seat follows from the user id inside, never
from anything else the page says.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import parse_qsl

MAX_INIT_DATA = 4096
"""Bytes of ``initData`` read at most (Telegram's is a few hundred): a longer one is refused
before any hashing."""
DEFAULT_MAX_AGE = 86_400.0
"""Seconds an ``initData`` stays good (``GUANDAN_WEBAPP_MAX_AGE``): a day, as long as a page
stays open for a match; the page asks Telegram for a fresh one each time it is opened."""
FUTURE_SKEW = 300.0
"""Seconds an ``auth_date`` may be ahead of this machine's clock (clocks drift)."""


class Refused(StrEnum):
    """Why an ``initData`` is not accepted (logged; the page is told only that it was refused)."""

    MALFORMED = "malformed"
    UNSIGNED = "unsigned"
    FORGED = "forged"
    EXPIRED = "expired"
    NO_USER = "no_user"


class InitDataRefused(ValueError):
    """The ``initData`` does not prove a Telegram user opened the page."""

    def __init__(self, reason: Refused) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class WebAppUser:
    """The validated user: the seat is theirs, the language their app's."""

    id: int
    first_name: str
    language_code: str | None
    auth_date: int


def secret_key(token: str) -> bytes:
    """HMAC-SHA-256 of the bot token with the constant ``WebAppData`` as the key."""
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def data_check_string(fields: dict[str, str]) -> str:
    """Every field but ``hash``, sorted by key, one ``key=value`` a line."""
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def sign(fields: dict[str, str], token: str) -> str:
    """The ``hash`` Telegram puts beside ``fields`` (the tests sign their own initData with it)."""
    return hmac.new(secret_key(token), data_check_string(fields).encode(), hashlib.sha256).hexdigest()


def validate(init_data: str, token: str, *, now: float, max_age: float = DEFAULT_MAX_AGE) -> WebAppUser:
    """The user ``init_data`` proves, or :class:`InitDataRefused`."""
    fields = _fields(init_data)
    received = fields.get("hash")
    if not received:
        raise InitDataRefused(Refused.UNSIGNED)
    if not hmac.compare_digest(sign(fields, token).encode(), received.encode()):
        raise InitDataRefused(Refused.FORGED)
    auth_date = _auth_date(fields)
    if not now - max_age <= auth_date <= now + FUTURE_SKEW:
        raise InitDataRefused(Refused.EXPIRED)
    return _user(fields, auth_date)


def _fields(init_data: str) -> dict[str, str]:
    """The query string's fields; a repeated key, or a string too long, is malformed."""
    if len(init_data) > MAX_INIT_DATA:
        raise InitDataRefused(Refused.MALFORMED)
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataRefused(Refused.MALFORMED) from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InitDataRefused(Refused.MALFORMED)
    return fields


def _auth_date(fields: dict[str, str]) -> int:
    text = fields.get("auth_date", "")
    if not text.isascii() or not text.isdigit():
        raise InitDataRefused(Refused.MALFORMED)
    return int(text)


def _user(fields: dict[str, str], auth_date: int) -> WebAppUser:
    """The ``user`` field (JSON), signed with the rest: its id is the player's."""
    try:
        user = json.loads(fields.get("user", ""))
    except ValueError:
        raise InitDataRefused(Refused.NO_USER) from None
    if not isinstance(user, dict) or type(user.get("id")) is not int:
        raise InitDataRefused(Refused.NO_USER)
    name = user.get("first_name")
    language = user.get("language_code")
    return WebAppUser(
        id=user["id"],
        first_name=name if isinstance(name, str) else "",
        language_code=language if isinstance(language, str) else None,
        auth_date=auth_date,
    )
