"""Compact callback data (≤ 64 bytes): ``area:table:version:check:op[:arg[:count]]``.

``version`` is the match version the button was made for. ``check`` says what else the
button was made for: on a hand message, a digest of the selection its keyboard showed
(出牌 plays only the selection its label named); elsewhere 0. ``count`` is the number of
copies of a card face a selection button asks for (the label's promise, so two fast taps
on the same button select the same thing). A stale message or a forged payload is
recognised and refused before anything is applied.
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
    WATCH = "w"  # 观战: the board's button and the spectator's private message


class Op(Enum):
    TOGGLE = "t"  # select a number of copies of a card face (arg: card index, count: copies)
    PLAY = "p"
    HINT = "h"  # 提示
    PASS = "x"  # 不出
    CLEAR = "c"  # 清空
    READING = "r"  # choose one reading of a wildcard selection (arg: its number)
    CANCEL_READING = "z"
    CANCEL_AUTOPLAY = "a"  # 取消托管
    AUTOPLAY = "o"  # 托管 on request: the bot plays for the seat until 取消托管
    TRIBUTE = "g"  # 进贡 (arg: card index)
    RETURN = "b"  # 还贡 (arg: card index)
    SIT = "s"  # lobby: take a seat (arg: seat)
    ADD_AI = "i"  # lobby: an AI takes a seat (arg: seat)
    DIFFICULTY = "d"  # lobby: the next difficulty of an AI seat (arg: seat)
    LEAVE = "l"
    START = "go"
    PRESET = "pr"  # lobby: the next rule preset
    CONFIRM = "y"
    CANCEL = "n"
    WATCH = "v"  # the board: follow the table in the private chat (观战)
    UNWATCH = "u"  # the spectator's message: stop watching
    FOLLOW = "f"  # the spectator's message: follow a seat's hand a trick behind (arg: the seat)


class BadCallback(ValueError):
    """Callback data that this bot did not make (or no longer understands)."""


@dataclass(frozen=True, slots=True)
class Press:
    area: Area
    table_id: int
    version: int
    check: int  # a selection digest on hand messages, else 0
    op: Op
    arg: int | None = None
    count: int | None = None

    def encode(self) -> str:
        if self.count is not None and self.arg is None:
            raise ValueError("a count needs an argument")
        parts = [self.area.value, str(self.table_id), str(self.version), str(self.check), self.op.value]
        parts += [str(value) for value in (self.arg, self.count) if value is not None]
        data = ":".join(parts)
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback data too long: {data!r}")
        return data

    @classmethod
    def decode(cls, data: str) -> Press:
        parts = data.split(":")
        if len(parts) not in (5, 6, 7):
            raise BadCallback(data)
        try:
            numbers = [_natural(p) for p in parts[1:4]]
            extra = [_natural(p) for p in parts[5:]] + [None, None]
            return cls(Area(parts[0]), numbers[0], numbers[1], numbers[2], Op(parts[4]), extra[0], extra[1])
        except ValueError as error:
            raise BadCallback(data) from error


def _natural(text: str) -> int:
    if not text.isdigit() or len(text) > 15:
        raise ValueError(text)
    return int(text)
