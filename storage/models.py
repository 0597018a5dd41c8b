"""The domain values the repositories return: small frozen records, no engine types.

Rules and actions stay JSON text here; the table service turns them into engine
values, so storage does not depend on the engine's classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum


class TableStatus(Enum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    STOPPED = "stopped"
    QUARANTINED = "quarantined"  # could not be resumed after a restart; ``status_reason`` says why

    @property
    def is_active(self) -> bool:
        return self in (TableStatus.LOBBY, TableStatus.PLAYING)


@dataclass(frozen=True, slots=True)
class TableRecord:
    id: int
    chat_id: int
    token: str
    creator_id: int
    status: TableStatus
    preset: str
    rules_json: str
    seed: int
    lobby_message_id: int | None
    board_message_id: int | None
    started_at: datetime | None = None  # when the match was dealt (timed formats)
    status_reason: str | None = None  # why a table was quarantined
    board_deal: int | None = None  # the deal the live board message shows (None: unknown)
    board_first: int = 0  # the first of that deal's tricks the live board message shows


@dataclass(frozen=True, slots=True)
class SeatRecord:
    table_id: int
    seat: int
    user_id: int | None  # None for an AI seat
    name: str
    is_ai: bool
    locale: str | None
    dm_message_id: int | None
    autoplay: bool  # 托管
    timeouts: int  # consecutive turn timeouts
    difficulty: str = "normal"  # an AI seat's player: "easy" (简单) or "normal" (标准)


@dataclass(frozen=True, slots=True)
class ActionRecord:
    table_id: int
    version: int
    seat: int | None
    action_json: str


@dataclass(frozen=True, slots=True)
class UserRecord:
    user_id: int
    locale: str | None
    four_color: bool
    reachable: bool  # has opened the private chat, so the bot may message them
    auto_pass: bool = False  # /autopass: pass for them when nothing beats the table (要不起)
    group_hand: bool = False  # /arrange (理牌): bombs and straight flushes set apart in the picture


@dataclass(frozen=True, slots=True)
class ChatRecord:
    chat_id: int
    locale: str | None
