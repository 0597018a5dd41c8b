"""The application's services, opened together: the one door a front end reaches state through.

The chat buttons (``handlers/``) and any other front end reach tables, records, players'
reach and the store's minutes through these, never through ``storage``: the store is opened by
``bot.py`` and handed to the services that own its repositories. ``handlers.platform.context``
extends this with what Telegram needs (the board, the reply queues, the sender), so the shared
plumbing names no feature: it names this composition and the protocols below.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import InitVar, dataclass, field
from typing import Any, Protocol, TypeVar

from app.minutes import GroupMinutes
from app.players import Reach
from app.preferences import Choices, Languages
from app.records.desk import RecordDesk
from app.table.pictures import HandPictures
from app.table.tables import LiveTable, TableService
from app.tasks import Tasks
from engine.actions import Event
from storage import Database

_T = TypeVar("_T")


class TableShown(Protocol):
    """Something that shows a table as it changes (the group board): told of each change."""

    def publish(self, table: LiveTable, events: tuple[Event, ...] | list[Event] = ()) -> None: ...


class Watching(Protocol):
    """What the table's flow needs of 观战 (``app.table.spectators.Spectators``)."""

    def publish(self, table: LiveTable, events: Sequence[Event] = ()) -> None: ...

    async def watches(self, table_id: int, user_id: int) -> bool: ...

    async def close(self) -> None: ...


class Playing(Protocol):
    """What the chat needs of the Mini App (``webapp.server.MiniApp``): its pages follow the
    table like the board does, and a seat whose page is open gets no hand edit per move."""

    def publish(self, table: LiveTable, events: tuple[Event, ...] | list[Event] = ()) -> None: ...

    def playing(self, table_id: int, seat: int) -> bool: ...

    def table_url(self, table_id: int) -> str: ...

    async def close(self) -> None: ...


@dataclass(kw_only=True)
class AppServices:
    db: InitVar[Database]
    """The store, handed to the services that own its repositories and kept private (``_db``):
    a handler cannot read it, it asks a service (issue 41). The composition root (bot.py) has
    :meth:`ping` for the health check and :meth:`close_store`."""
    tables: TableService
    renderer: Executor  # draws hand pictures off the event loop (a small fixed pool bounds memory)
    records: RecordDesk | None = None  # /stats, /top, /history, 复盘 (handlers/records)
    minutes: GroupMinutes | None = None  # each group's sends stored, for the next process (bot.py)
    tasks: Tasks = field(default_factory=Tasks)
    """Work a handler starts that outlives its update (a lost hand message sent again): a stop
    cancels and awaits it, so none is left pending (``app/tasks.py``)."""
    pictures: HandPictures = field(init=False)  # drawn by ``renderer``, kept by what they show
    reach: Reach = field(init=False)  # whom the bot may message privately
    languages: Languages = field(init=False)  # whose language a message is in
    choices: Choices = field(init=False)  # /lang, /fourcolor, /arrange, /autopass: stored choices
    _db: Database = field(init=False, repr=False)

    def __post_init__(self, db: Database) -> None:
        self._db = db
        self.pictures = HandPictures(self.renderer)
        self.reach = Reach(db.users)
        self.languages = Languages(db)
        self.choices = Choices(db)

    async def ping(self) -> None:
        """Raise unless the store answers: the health check's probe (``handlers.platform.monitor.Store``)."""
        await self._db.ping()

    async def close_store(self) -> None:
        """Close the store: the last step of a stop, once every service that writes has closed."""
        await self._db.close()

    async def draw(self, draw: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """``draw(*args, **kwargs)`` in the render pool: a picture drawn off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self.renderer, lambda: draw(*args, **kwargs))
