"""The WebSocket protocol: one JSON object per text message, ``t`` naming its kind.

Page → server (each parsed into a frozen value here, anything else refused):

- ``{"t": "hello", "init": "<initData>", "table": 12?, "locale": "en"?}`` — first, and only once
  (a second is refused: the first fixed the table and seat);
- ``{"t": "play", "cards": ["HT", "S3"], "reading": 0?}`` — 出牌 (``reading``: which of the
  offered readings, after a ``readings`` answer);
- ``{"t": "pass"}`` 不出, ``{"t": "hint"}`` 提示, ``{"t": "autoplay", "on": true}`` 托管;
- ``{"t": "tribute", "card": "S9"}`` 进贡, ``{"t": "return", "card": "C3"}`` 还贡;
- ``{"t": "locale", "locale": "en"}``;
- ``{"t": "ping"}`` — the server has been silent a while: is it still there? (answered ``pong``).

Server → page: ``state`` (:func:`webapp.view.seat_state`), ``hint`` (``cards``: those to select,
empty for 不出), ``readings`` (``options``: card lists and their words), ``refused`` (``code``,
``text``: the chat's sentence), ``bye`` (``code``, ``text``: the server closes), ``pong``. Sizes and
counts are bounded here, before anything reaches a table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from engine.cards import Card
from engine.errors import InvalidCards

MAX_MESSAGE = 8192
"""Bytes of one message from the page at most (a hello carries initData, a few hundred bytes;
a play at most 27 cards): aiohttp closes a connection that sends more."""
MAX_CARDS = 27


class BadMessage(ValueError):
    """Not a message of this protocol."""


@dataclass(frozen=True, slots=True)
class Hello:
    init_data: str
    table: int | None
    locale: str | None


@dataclass(frozen=True, slots=True)
class PlayMove:
    cards: tuple[Card, ...]
    reading: int | None = None


@dataclass(frozen=True, slots=True)
class PassMove:
    pass


@dataclass(frozen=True, slots=True)
class Hint:
    pass


@dataclass(frozen=True, slots=True)
class Exchange:
    """进贡 (``giving``) or 还贡 of one card."""

    card: Card
    giving: bool


@dataclass(frozen=True, slots=True)
class Autoplay:
    on: bool


@dataclass(frozen=True, slots=True)
class SetLocale:
    locale: str


@dataclass(frozen=True, slots=True)
class Ping:
    """A silent server may be frozen (a leader paused): the page asks, and without a ``pong``
    drops the socket and reconnects, through the proxy, to the process leading now."""


Move = PlayMove | PassMove | Hint | Exchange | Autoplay
Message = Hello | Move | SetLocale | Ping


def parse(text: str) -> Message:
    """One message from the page, or :class:`BadMessage`."""
    if len(text) > MAX_MESSAGE:
        raise BadMessage("too long")
    try:
        data = json.loads(text)
    except ValueError:
        raise BadMessage("not JSON") from None
    if not isinstance(data, dict):
        raise BadMessage("not an object")
    match data.get("t"):
        case "hello":
            return Hello(_text(data, "init"), _optional_int(data, "table"), _optional_text(data, "locale"))
        case "play":
            return PlayMove(_cards(data.get("cards")), _optional_int(data, "reading"))
        case "pass":
            return PassMove()
        case "hint":
            return Hint()
        case "tribute" | "return" as kind:
            return Exchange(_card(data.get("card")), giving=kind == "tribute")
        case "autoplay":
            return Autoplay(data.get("on") is True)
        case "locale":
            return SetLocale(_text(data, "locale"))
        case "ping":
            return Ping()
    raise BadMessage("unknown kind")


def _text(data: dict[str, object], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise BadMessage(f"{key}: not a string")
    return value


def _optional_text(data: dict[str, object], key: str) -> str | None:
    return None if data.get(key) is None else _text(data, key)


def _optional_int(data: dict[str, object], key: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if type(value) is not int or not 0 <= value < 2**53:
        raise BadMessage(f"{key}: not a number")
    return value


def _card(value: object) -> Card:
    if not isinstance(value, str) or len(value) != 2:
        raise BadMessage("not a card")
    try:
        return Card.parse(value)
    except InvalidCards:
        raise BadMessage("not a card") from None


def _cards(value: object) -> tuple[Card, ...]:
    if not isinstance(value, list) or len(value) > MAX_CARDS:
        raise BadMessage("not a list of cards")
    return tuple(_card(item) for item in value)


def encode(message: dict[str, object]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))
