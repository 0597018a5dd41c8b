"""A live table and the values the table service hands out: refusals, outcomes, what a restart found.

No Telegram here. :class:`LiveTable` is one table in memory (its record, seats and match) that
handlers hold ``table.lock`` around; the service (:mod:`app.table.tables`) and its parts
(:mod:`app.table.computer`, :mod:`app.table.restoring`) change it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum

from app.table.refusals import TableRefusal
from app.table.seats import SeatState
from engine.actions import Action, DealStarted, Event
from engine.match import Match, action_from_json, action_to_json, observe
from engine.observation import Observation
from engine.rules import Rules
from storage import TableRecord, TableStatus

Policy = Callable[[Observation, Rules], Action]
Moves = list[tuple[int, Action]]  # (seat, action) in the order they are applied
FinishedHook = Callable[["LiveTable"], Awaitable[None]]
LobbyHeading = Callable[["LiveTable", str], "str | None"]
"""A line (HTML) shown above a table's lobby in that locale, or None (a contest names its match)."""


class TableError(Exception):
    """A lobby or table request refused; ``code`` names the reason for the message catalog."""

    def __init__(self, code: TableRefusal) -> None:
        super().__init__(code)
        self.code = code


class TablesFull(TableError):
    """``/newgame`` beyond the bot's capacity: the tables already open keep their pace."""

    def __init__(self, open_tables: int, capacity: int) -> None:
        super().__init__(TableRefusal.BUSY)
        self.open_tables = open_tables
        self.capacity = capacity


DEFAULT_CAPACITY = 150
"""Tables (lobbies and matches) one bot token serves at once by default. One token sends about
30 messages a second; a human's press costs one or two of them (answers are free). At a 5 s
think time ``bench/load.py`` measured a press's edit sent within 1.5 s p99 at 100 tables and
3.0 s at 200 (bench/README.md, "Capacity"): 150 keeps a table near the 2 s a player expects,
and beyond it every table would slow down together. ``GUANDAN_MAX_TABLES`` sets it (0: no
limit); past it, run another bot token in another process."""


class Away(Enum):
    """Why a seated player is gone; their seat is in 托管 until they come back."""

    BLOCKED = "blocked"  # a 403 from their private chat: no hand message can reach them
    LEFT = "left"  # they left the group


@dataclass
class LiveTable:
    """A table in memory: its record, seats and (once started) the match."""

    record: TableRecord
    rules: Rules
    seats: dict[int, SeatState]
    match: Match | None = None
    deal_events: list[Event] = field(default_factory=list)  # this deal's events, for the board
    unsaved: list[tuple[int, int | None, str]] = field(default_factory=list)  # applied, not yet logged
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    reserved: dict[int, int] = field(default_factory=dict)  # contest tables: user → side (0: seats 0/2)

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def version(self) -> int:
        return self.match.version if self.match is not None else 0

    def seat_of(self, user_id: int) -> int | None:
        for seat, state in self.seats.items():
            if state.record.user_id == user_id:
                return seat
        return None

    def free_seats(self) -> list[int]:
        return [seat for seat in range(4) if seat not in self.seats]

    def humans(self) -> list[SeatState]:
        return [state for state in self.seats.values() if not state.record.is_ai]

    def names(self) -> dict[int, str]:
        """The seated players' names by seat, as every text shows them."""
        return {seat: state.record.name for seat, state in self.seats.items()}

    def names_by_seat(self) -> list[str]:
        """Four names in seat order (``""`` for an empty seat), as the pictures take them."""
        names = self.names()
        return [names.get(seat, "") for seat in range(4)]

    def observe(self, seat: int | None) -> Observation:
        assert self.match is not None
        return observe(self.match, seat)

    def remember(self, events: Iterable[Event]) -> None:
        """Keep the current deal's events (the board is drawn from them)."""
        for event in events:
            if isinstance(event, DealStarted):
                self.deal_events = []
            self.deal_events.append(event)


@dataclass(frozen=True, slots=True)
class Quarantined:
    """A table taken out of play on start because it could not be resumed."""

    id: int
    chat_id: int
    reason: str


@dataclass(frozen=True, slots=True)
class Restored:
    """What :meth:`TableService.restore_all` found: tables back in play, those quarantined, and
    those whose rows could not be read because storage was unavailable (tried again later: a
    storage fault is not the table's fault)."""

    tables: list[LiveTable]
    quarantined: list[Quarantined]
    deferred: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one request changed: the accepted actions and their events, in order."""

    actions: tuple[tuple[int, Action], ...]
    events: tuple[Event, ...]
    version: int


def encode_action(action: Action) -> str:
    return json.dumps(action_to_json(action), sort_keys=True, ensure_ascii=False)


def decode_action(text: str) -> Action:
    return action_from_json(json.loads(text))


def require_status(table: LiveTable, status: TableStatus) -> None:
    """Refuse a request made in the wrong phase (a lobby's in play, a match's in the lobby)."""
    if table.record.status is not status:
        playing = status is TableStatus.PLAYING
        raise TableError(TableRefusal.TABLE_NOT_PLAYING if playing else TableRefusal.TABLE_NOT_LOBBY)
