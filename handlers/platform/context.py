"""The typed handler context: services opened in ``post_init``, closed in ``post_shutdown``.

Handlers reach the database, the table service and the board publisher through
``context.services`` instead of untyped ``bot_data`` keys.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from telegram.ext import CallbackContext, ExtBot, JobQueue

from app.minutes import GroupMinutes
from app.records.desk import RecordDesk
from app.table.pictures import HandPictures
from app.table.texts import too_many_text
from app.tasks import Tasks
from handlers.platform.chats import ChatBudget, ChatReplies
from handlers.platform.monitor import Monitor
from handlers.platform.outbox import Outbox
from handlers.platform.sender import LatestWins
from storage import Database

if TYPE_CHECKING:
    from app.table.tables import LiveTable, TableService
    from engine.actions import Event


class Closing(Protocol):
    """A service the bot closes on shutdown: first it stops sending (before the HTTP session
    closes), then it closes (before the database does)."""

    async def stop_sending(self) -> None: ...

    async def close(self) -> None: ...


class Board(Protocol):
    """What every feature needs of the group board (``handlers.table.board.BoardPublisher``):
    named here so the shared plumbing does not import the table feature."""

    budget: ChatBudget
    outbox: Outbox

    def publish(self, table: LiveTable, events: tuple[Event, ...] | list[Event] = ()) -> None: ...

    def forget_locale(self, chat_id: int) -> None: ...

    async def close(self) -> None: ...


class Watching(Protocol):
    """What the table's flow needs of 观战 (``handlers.table.spectators.SpectatorDesk``)."""

    def publish(self, table: LiveTable, events: Sequence[Event] = ()) -> None: ...

    async def close(self) -> None: ...


_T = TypeVar("_T")


@dataclass
class Services:
    db: Database
    tables: TableService
    board: Board
    bot_username: str
    renderer: Executor  # draws hand pictures off the event loop (a small fixed pool bounds memory)
    sender: LatestWins = field(default_factory=LatestWins)  # hand-message edits, outside the table lock
    shown_looks: dict[tuple[int, int], int] = field(default_factory=dict)
    """(chat, message) → the look a lobby last got in this run: an unchanged edit is not sent."""
    # contest commands, announcements and deadline jobs: a handlers.contest.desk.ContestDesk, which
    # the contest handlers take back by type (the shared plumbing does not import a feature)
    contests: Closing | None = None
    spectators: Watching | None = None  # 观战 (handlers/table/spectators.py)
    records: RecordDesk | None = None  # /stats, /top, /history, 复盘 (handlers/records)
    backfill: asyncio.Task[None] | None = None  # the records back-fill started on start
    job_queue: JobQueue[Any] | None = None  # the clocks, for work that starts outside a handler (a 403)
    replies: ChatReplies = field(  # command replies, one queue per chat (bot.py shares the board's budget)
        default_factory=lambda: ChatReplies(ChatBudget(), notice=too_many_text)
    )
    unreachable: Callable[[ExtBot[None], Services, int], Coroutine[Any, Any, None]] | None = None
    """What a 403 from a player's private chat starts (``handlers.table.members.unreachable``, wired
    by bot.py): hand delivery meets the 403, and going away delivers hands again through the
    table's flow, so delivery is handed that step instead of importing it."""
    monitor: Monitor | None = None  # /healthz and /metrics when GUANDAN_METRICS_PORT is set (bot.py)
    minutes: GroupMinutes | None = None  # each group's sends stored, for the next process (bot.py)
    tasks: Tasks = field(default_factory=Tasks)
    """Work a handler starts that outlives its update (a lost hand message sent again): a stop
    cancels and awaits it, so none is left pending (``app/tasks.py``)."""
    pictures: HandPictures = field(init=False)  # drawn by ``renderer``, kept by what they show

    def __post_init__(self) -> None:
        self.pictures = HandPictures(self.renderer)

    @property
    def outbox(self) -> Outbox:
        """What groups are owed (results, announcements): stored, retried, resent after a restart."""
        return self.board.outbox

    async def draw(self, draw: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """``draw(*args, **kwargs)`` in the render pool: a picture drawn off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self.renderer, lambda: draw(*args, **kwargs))

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
