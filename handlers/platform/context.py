"""The typed handler context: services opened in ``post_init``, closed in ``post_shutdown``.

Handlers reach the application's services (:mod:`app.services`), the board publisher and the
reply queues through ``context.services`` instead of untyped ``bot_data`` keys.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from telegram.ext import CallbackContext, ExtBot, JobQueue

from app.services import AppServices, Playing, TableShown, Watching
from handlers.platform.chats import ChatBudget, ChatReplies
from handlers.platform.monitor import Monitor
from handlers.platform.outbox import Outbox
from handlers.platform.sender import LatestWins

__all__ = ["Board", "BotData", "Closing", "Context", "Playing", "Services", "Watching"]


class Closing(Protocol):
    """A service the bot closes on shutdown: first it stops sending (before the HTTP session
    closes), then it closes (before the database does)."""

    async def stop_sending(self) -> None: ...

    async def close(self) -> None: ...


class Board(TableShown, Protocol):
    """What every feature needs of the group board (``handlers.table.board.BoardPublisher``):
    named here so the shared plumbing does not import the table feature."""

    budget: ChatBudget
    outbox: Outbox

    def forget_locale(self, chat_id: int) -> None: ...

    async def close(self) -> None: ...


@dataclass(kw_only=True)
class Services(AppServices):
    """The application's services (:class:`app.services.AppServices`) and what Telegram adds."""

    board: Board
    bot_username: str
    replies: ChatReplies  # command replies, one queue per chat (bot.py shares the board's budget)
    sender: LatestWins = field(default_factory=LatestWins)  # hand-message edits, outside the table lock
    shown_looks: dict[tuple[int, int], int] = field(default_factory=dict)
    """(chat, message) → the look a lobby last got in this run: an unchanged edit is not sent."""
    # contest commands, announcements and deadline jobs: a handlers.contest.desk.ContestDesk, which
    # the contest handlers take back by type (the shared plumbing does not import a feature)
    contests: Closing | None = None
    spectators: Watching | None = None  # 观战 (app/table/spectators.py; sent by handlers/table/spectators.py)
    miniapp: Playing | None = None  # the Mini App when GUANDAN_WEBAPP_URL is set (handlers/table/miniapp.py)
    backfill: asyncio.Task[None] | None = None  # the records back-fill started on start
    job_queue: JobQueue[Any] | None = None  # the clocks, for work that starts outside a handler (a 403)
    unreachable: Callable[[ExtBot[None], Services, int], Coroutine[Any, Any, None]] | None = None
    """What a 403 from a player's private chat starts (``handlers.table.members.unreachable``, wired
    by bot.py): hand delivery meets the 403, and going away delivers hands again through the
    table's flow, so delivery is handed that step instead of importing it."""
    monitor: Monitor | None = None  # /healthz and /metrics when GUANDAN_METRICS_PORT is set (bot.py)

    @property
    def outbox(self) -> Outbox:
        """What groups are owed (results, announcements): stored, retried, resent after a restart."""
        return self.board.outbox

    def deep_link(self, payload: str) -> str:
        """``t.me/<bot>?start=<payload>``: opens the private chat with /start <payload>."""
        return f"https://t.me/{self.bot_username}?start={payload}"


class BotData:
    """``bot_data`` of the application: holds the services once they are opened."""

    def __init__(self) -> None:
        self._services: Services | None = None

    @property
    def services(self) -> Services:
        if self._services is None:
            raise RuntimeError("services are opened in post_init")
        return self._services

    @property
    def is_open(self) -> bool:
        return self._services is not None

    def open(self, services: Services) -> None:
        self._services = services

    def close(self) -> Services | None:
        services, self._services = self._services, None
        return services


class Context(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], BotData]):
    """The context every handler and job receives."""

    @property
    def services(self) -> Services:
        return self.bot_data.services
