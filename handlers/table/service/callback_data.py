"""Compact callback data (≤ 64 bytes): ``area:table:version:nonce:op[:arg]``.

``version`` is the match version the button was made for and ``nonce`` the
keyboard revision of that message, so a double tap, a stale message or a forged
payload is recognised and refused before anything is applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

MAX_BYTES: Final = 64


class Area(Enum):
    HAND = "h"  # a player's private hand message
    LOBBY = "l"  # the lobby message in the group
    STOP = "s"  # the /stop confirmation


class Op(Enum):
    TOGGLE = "t"  # select one more copy of a card face (arg: card index)
    PLAY = "p"
    HINT = "h"  # 提示
    PASS = "x"  # 不出
    CLEAR = "c"  # 清空
    READING = "r"  # choose one reading of a wildcard selection (arg: its number)
    CANCEL_READING = "z"
    CANCEL_AUTOPLAY = "a"  # 取消托管
    TRIBUTE = "g"  # 进贡 (arg: card index)
    RETURN = "b"  # 还贡 (arg: card index)
    SIT = "s"  # lobby: take a seat (arg: seat)
    ADD_AI = "i"  # lobby: an AI takes a seat (arg: seat)
    LEAVE = "l"
    START = "go"
    PRESET = "pr"  # lobby: the next rule preset
    CONFIRM = "y"
    CANCEL = "n"


class BadCallback(ValueError):
    """Callback data that this bot did not make (or no longer understands)."""


@dataclass(frozen=True, slots=True)
class Press:
    area: Area
    table_id: int
    version: int
    nonce: int
    op: Op
    arg: int | None = None

    def encode(self) -> str:
        parts = [self.area.value, str(self.table_id), str(self.version), str(self.nonce), self.op.value]
        if self.arg is not None:
            parts.append(str(self.arg))
        data = ":".join(parts)
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback data too long: {data!r}")
        return data

    @classmethod
    def decode(cls, data: str) -> Press:
        parts = data.split(":")
        if len(parts) not in (5, 6):
            raise BadCallback(data)
        try:
            numbers = [_natural(p) for p in parts[1:4]]
            arg = _natural(parts[5]) if len(parts) == 6 else None
            return cls(Area(parts[0]), numbers[0], numbers[1], numbers[2], Op(parts[4]), arg)
        except ValueError as error:
            raise BadCallback(data) from error


def _natural(text: str) -> int:
    if not text.isdigit() or len(text) > 15:
        raise ValueError(text)
    return int(text)
