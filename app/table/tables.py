"""The per-table service: lobby seats, the live match, persistence and bot seats.

No Telegram here. Handlers hold ``table.lock`` around a call and whatever they show
afterwards, so updates for one table are serialised while different tables run
concurrently. Every accepted action is committed to the action log before the
call returns, i.e. before anything is shown; on start every unfinished table is
rebuilt by replaying its log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Hashable, Iterable
from dataclasses import dataclass, field, replace
from enum import Enum

from app.table.refusals import TableRefusal
from app.table.seats import SeatState
from app.table.selection import can_beat
from app.table.thinking import Lane, Thinking
from common import metrics
from engine.actions import Action, DealStarted, Event, GiveTribute, Pass, Phase, TimeExpired
from engine.errors import EngineError
from engine.match import Match, action_from_json, action_to_json, observe
from engine.observation import Observation
from engine.players.easy import timeout_action
from engine.players.policies import DEFAULT, DIFFICULTIES, MASTER, seeded
from engine.rules import Rules
from storage import (
    Database,
    NotFound,
    StorageConflict,
    StorageUnavailable,
    TableRecord,
    TableStatus,
)

log = logging.getLogger(__name__)

Policy = Callable[[Observation, Rules], Action]
Moves = list[tuple[int, Action]]  # (seat, action) in the order they are applied
FinishedHook = Callable[["LiveTable"], Awaitable[None]]
LobbyHeading = Callable[["LiveTable", str], "str | None"]
"""A line (HTML) shown above a table's lobby in that locale, or None (a contest names its match)."""
MAX_BOT_STEPS = 5000  # a whole match is far below this; guards against an engine loop
RUN_STEPS = 16  # computer players' moves thought in one trip to a worker thread (a trick or so)


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


def _random_seed() -> int:
    return secrets.randbits(48)


class TableService:
    """Owns the live tables; every method expects the caller to hold ``table.lock``
    (except :meth:`create` and the look-ups)."""

    def __init__(
        self,
        db: Database,
        *,
        policy: Policy | None = None,
        new_seed: Callable[[], int] = _random_seed,
        capacity: int | None = None,
    ) -> None:
        self.db = db
        self.capacity = capacity  # tables open at once (None: no limit); see DEFAULT_CAPACITY
        self.policy = policy or seeded(DEFAULT)  # 托管 and 提示: 标准
        self._difficulties = {name: seeded(name) for name in DIFFICULTIES} if policy is None else {}
        self.new_seed = new_seed  # tests pin the deal
        self.tables: dict[int, LiveTable] = {}
        self.pending_seats: dict[tuple[int, int], int | None] = {}  # (table, user) → wanted seat
        self.finished_hooks: list[FinishedHook] = []  # called (table lock held) when a match ends
        self.lobby_headings: list[LobbyHeading] = []  # lines above a lobby (a contest's match)
        self.stalled: set[int] = set()  # tables whose bots could not store their actions: resume them
        self.away: dict[tuple[int, int], Away] = {}  # (table, seat) → why its player is gone (in 托管)
        self._behind: dict[Hashable, Callable[[], Awaitable[None]]] = {}  # writes that lag memory
        self.thinking = Thinking()  # computer players' moves and 提示, off the event loop

    # ---------------------------------------------------------------- look-ups

    def get(self, table_id: int) -> LiveTable:
        table = self.tables.get(table_id)
        if table is None or not table.record.status.is_active:
            raise TableError(TableRefusal.NO_TABLE)
        return table

    def in_chat(self, chat_id: int) -> LiveTable:
        for table in self.tables.values():
            if table.record.chat_id == chat_id and table.record.status.is_active:
                return table
        raise TableError(TableRefusal.NO_TABLE)

    def by_token(self, token: str) -> LiveTable:
        for table in self.tables.values():
            if table.record.token == token and table.record.status.is_active:
                return table
        raise TableError(TableRefusal.NO_TABLE)

    def open_tables(self) -> int:
        """Lobbies and matches in play: what the token's capacity is spent on."""
        return sum(1 for table in self.tables.values() if table.record.status.is_active)

    def tables_of_user(self, user_id: int) -> list[tuple[LiveTable, int]]:
        found = []
        for table in self.tables.values():
            seat = table.seat_of(user_id)
            if seat is not None and table.record.status.is_active:
                found.append((table, seat))
        return found

    # ---------------------------------------------------------------- lobby

    async def create(
        self,
        *,
        chat_id: int,
        creator_id: int,
        preset: str,
        rules: Rules,
        reserved: dict[int, int] | None = None,
    ) -> LiveTable:
        """A new lobby; ``reserved`` (user → side) keeps the table for those players only.

        Refused with :class:`TablesFull` at the bot's capacity: a new table would slow every
        table in play, so it waits for one to end instead."""
        if self.capacity is not None and self.open_tables() >= self.capacity:
            metrics.table_opened(admitted=False)
            raise TablesFull(self.open_tables(), self.capacity)
        try:
            record = await self.db.tables.create(
                chat_id=chat_id,
                token=secrets.token_urlsafe(9),
                creator_id=creator_id,
                preset=preset,
                rules_json=rules.to_json(),
                seed=self.new_seed(),
            )
        except StorageConflict as error:
            raise TableError(TableRefusal.TABLE_EXISTS) from error
        table = LiveTable(record=record, rules=rules, seats={}, reserved=dict(reserved or {}))
        if reserved:
            await self.db.reservations.reserve(table_id=record.id, sides=table.reserved)
        self.tables[record.id] = table
        metrics.table_opened(admitted=True)
        return table

    async def take_seat(
        self, table: LiveTable, *, seat: int | None, user_id: int, name: str, locale: str | None
    ) -> int:
        """Seat a human (``seat=None``: the first free seat); moving seats is allowed."""
        self._require(table, TableStatus.LOBBY)
        current = table.seat_of(user_id)
        target = seat if seat is not None else (current if current is not None else self._first_free(table))
        if table.reserved:
            target = _reserved_seat(table, user_id, target, current)
        if target == current:
            return target
        if target in table.seats:
            raise TableError(TableRefusal.SEAT_TAKEN)
        if current is not None:
            await self.leave(table, seat=current)
        record = await self.db.seats.take(
            table_id=table.id, seat=target, user_id=user_id, name=name, locale=locale
        )
        table.seats[target] = SeatState(record, auto_pass=await self._auto_pass(user_id))
        return target

    @staticmethod
    def check_reserved(table: LiveTable, user_id: int) -> None:
        """A table reserved for a contest match seats only its players (asked before anything else)."""
        if table.reserved and user_id not in table.reserved:
            raise TableError(TableRefusal.RESERVED_TABLE)

    async def add_ai(self, table: LiveTable, *, seat: int | None, name: str) -> int:
        self._require(table, TableStatus.LOBBY)
        if table.reserved:
            raise TableError(TableRefusal.RESERVED_TABLE)
        target = seat if seat is not None else self._first_free(table)
        if target in table.seats:
            raise TableError(TableRefusal.SEAT_TAKEN)
        record = await self.db.seats.take(table_id=table.id, seat=target, user_id=None, name=name, is_ai=True)
        table.seats[target] = SeatState(record)
        return target

    async def set_difficulty(self, table: LiveTable, *, seat: int, difficulty: str) -> None:
        """An AI seat's difficulty (简单 ``easy`` / 标准 ``normal``), chosen in the lobby."""
        self._require(table, TableStatus.LOBBY)
        state = table.seats.get(seat)
        if state is None or not state.record.is_ai or difficulty not in DIFFICULTIES:
            raise TableError(TableRefusal.BAD_BUTTON)
        await self.db.seats.set_difficulty(table_id=table.id, seat=seat, difficulty=difficulty)
        state.record = replace(state.record, difficulty=difficulty)

    async def leave(self, table: LiveTable, *, seat: int) -> None:
        self._require(table, TableStatus.LOBBY)
        if seat not in table.seats:
            raise TableError(TableRefusal.NOT_SEATED)
        await self.db.seats.leave(table_id=table.id, seat=seat)
        del table.seats[seat]

    async def set_rules(self, table: LiveTable, *, preset: str, rules: Rules) -> None:
        self._require(table, TableStatus.LOBBY)
        if table.reserved:
            raise TableError(TableRefusal.RESERVED_RULES)
        await self.db.tables.set_rules(table_id=table.id, preset=preset, rules_json=rules.to_json())
        table.record = await self.db.tables.get(table_id=table.id)
        table.rules = rules

    async def set_lobby_message(self, table: LiveTable, message_id: int | None) -> None:
        """Which message is the lobby (bookkeeping: see :meth:`_keep`)."""
        table.record = replace(table.record, lobby_message_id=message_id)
        await self._keep(
            (table.id, "lobby"),
            lambda: self.db.tables.set_lobby_message(
                table_id=table.id, message_id=table.record.lobby_message_id
            ),
        )

    async def set_board_message(
        self, table: LiveTable, message_id: int | None, *, deal: int | None = None, first: int = 0
    ) -> None:
        """Which message is the live board, the deal it shows and its first trick, so a restart
        goes on with it (bookkeeping: see :meth:`_keep`)."""
        table.record = replace(table.record, board_message_id=message_id, board_deal=deal, board_first=first)
        await self._keep(
            (table.id, "board"),
            lambda: self.db.tables.set_board_message(
                table_id=table.id,
                message_id=table.record.board_message_id,
                deal=table.record.board_deal,
                first=table.record.board_first,
            ),
        )

    async def set_dm_message(self, table: LiveTable, seat: int, message_id: int | None) -> None:
        """Which message is the seat's hand (bookkeeping: see :meth:`_keep`)."""
        state = table.seats[seat]
        state.record = replace(state.record, dm_message_id=message_id)
        await self._keep(
            (table.id, "dm", seat),
            lambda: self.db.seats.set_dm_message(
                table_id=table.id, seat=seat, message_id=state.record.dm_message_id
            ),
        )

    # ---------------------------------------------------------------- match lifecycle

    async def start(self, table: LiveTable) -> Outcome:
        """Deal the first hand once all four seats are filled; bots then act."""
        self._require(table, TableStatus.LOBBY)
        if len(table.seats) < 4:
            raise TableError(TableRefusal.SEATS_MISSING)
        match = Match.new(table.rules, table.record.seed)
        await self.db.tables.start(table_id=table.id)  # the deal is the seed's: stored by this
        table.record = await self.db.tables.get(table_id=table.id)
        table.match = match
        table.remember(match.events)
        return await self._continue(table, list(table.deal_events))

    async def stop(self, table: LiveTable) -> None:
        await self._set_status(table, TableStatus.STOPPED)

    async def act(self, table: LiveTable, *, seat: int, action: Action, timed_out: bool = False) -> Outcome:
        """Apply a human's action (or its timeout default), persist it, then let bots act.

        A timeout counts towards 托管 (two in a row); a player's own action resets it. If the
        log cannot be written (:class:`StorageUnavailable`) nothing changes, the seat's
        selection included, so the same press can be made again.
        """
        self._require(table, TableStatus.PLAYING)
        before = table.seats[seat].record
        events = self._apply(table, seat, action)
        self._count_timeout(table, seat, timed_out)
        try:
            return await self._run_bots(table, [(seat, action)], events)
        except BaseException:
            table.seats[seat].record = before
            raise

    async def expire(self, table: LiveTable) -> Outcome:
        """The match clock ran out (timed formats): the engine ends per the preset's rule."""
        self._require(table, TableStatus.PLAYING)
        events = self._apply(table, None, TimeExpired())
        return await self._run_bots(table, [], events)

    async def set_autoplay(self, table: LiveTable, *, seat: int, on: bool) -> Outcome:
        """托管 on (bots act for the seat now) or off (取消托管), stored before anything acts
        (a storage fault raises and changes nothing)."""
        await self._store_autoplay(table, seat, autoplay=on, timeouts=0)
        if table.record.status is not TableStatus.PLAYING:
            return Outcome((), (), table.version)
        return await self._continue(table, [])

    async def hand_to_bot(self, table: LiveTable, *, seat: int) -> Outcome:
        """The player is gone (blocked the bot, left the group): 托管 at once, whatever the
        storage does. The flag is stored with the bots' next actions (see :meth:`_keep`)."""
        self._set_flags(table, seat, autoplay=True, timeouts=0)
        if table.match is None:
            await self.catch_up()
            return Outcome((), (), table.version)
        return await self._continue(table, [])

    def come_back(self, table: LiveTable, seat: int) -> bool:
        """The seat's player can be reached again (unblocked the bot, rejoined the group, /start):
        no longer away. True when the seat stays in 托管, which the hand's caption then says once."""
        self.away.pop((table.id, seat), None)
        return table.seats[seat].record.autoplay

    async def resume(self, table: LiveTable) -> Outcome:
        """After a restart, or once storage is back (see :attr:`stalled`): bots catch up and
        the bookkeeping writes that lag behind memory are stored."""
        return await self._continue(table, [])

    async def catch_up(self) -> bool:
        """Store every bookkeeping write that failed (see :meth:`_keep`); True if none is left."""
        for key, write in list(self._behind.items()):
            try:
                await write()
            except StorageUnavailable as error:
                log.warning("storage still unavailable (%s): %d writes wait", error, len(self._behind))
                return False
            if self._behind.get(key) is write:
                del self._behind[key]
        return True

    @property
    def needs_recovery(self) -> bool:
        """A storage fault left work for later: bots that could not act, or lagging writes."""
        return bool(self.stalled or self._behind)

    # ---------------------------------------------------------------- restore

    async def restore_all(self, only: Iterable[int] | None = None) -> Restored:
        """Rebuild every lobby and match in progress from the database (or the tables ``only``).

        A table whose row, rules or action log fail to load or replay is quarantined; the
        others are restored all the same. A table that cannot be read because storage is
        unavailable (locked, read-only) is deferred, never quarantined.
        """
        restored = Restored([], [])
        wanted = None if only is None else set(only)
        for table_id, chat_id in await self.db.tables.unfinished():
            if wanted is not None and table_id not in wanted:
                continue
            try:
                restored.tables.append(await self._restore(await self.db.tables.get(table_id=table_id)))
            except StorageUnavailable as error:
                log.warning("table %s not restored yet, storage unavailable: %s", table_id, error)
                restored.deferred.append(table_id)
            except Exception as error:  # whatever broke it, the other tables go on
                restored.quarantined.append(await self.quarantine(table_id, chat_id, error))
        return restored

    async def ended(self, record: TableRecord) -> LiveTable:
        """A finished or stopped table replayed from storage, for its board's last edit after a
        restart; never one of the live tables (the group may have opened another since)."""
        seats = {s.seat: SeatState(s) for s in await self.db.seats.of_table(table_id=record.id)}
        table = LiveTable(record=record, rules=Rules.from_json(record.rules_json), seats=seats)
        rows = await self.db.actions.of_table(table_id=record.id)
        history = [(row.seat, decode_action(row.action_json)) for row in rows]
        table.match = Match.replay(table.rules, record.seed, history)
        table.remember(table.match.events)
        return table

    async def quarantine(self, table_id: int, chat_id: int, error: BaseException) -> Quarantined:
        """Take a table that cannot be resumed out of play, with its reason stored and logged."""
        reason = f"{type(error).__name__}: {error}"
        log.error("table %s quarantined (group %s): %s", table_id, chat_id, reason, exc_info=error)
        await self.db.tables.quarantine(table_id=table_id, reason=reason)
        self.tables.pop(table_id, None)
        for key in [key for key in self.pending_seats if key[0] == table_id]:
            del self.pending_seats[key]
        return Quarantined(table_id, chat_id, reason)

    async def _restore(self, record: TableRecord) -> LiveTable:
        rules = Rules.from_json(record.rules_json)
        seats = {
            s.seat: SeatState(s, auto_pass=await self._auto_pass(s.user_id))
            for s in await self.db.seats.of_table(table_id=record.id)
        }
        table = LiveTable(record=record, rules=rules, seats=seats)
        table.reserved = await self.db.reservations.of_table(table_id=record.id)
        if record.status is TableStatus.PLAYING:
            rows = await self.db.actions.of_table(table_id=record.id)
            table.match = Match.replay(
                rules, record.seed, [(r.seat, decode_action(r.action_json)) for r in rows]
            )
            table.remember(table.match.events)
        self.tables[record.id] = table
        return table

    async def _auto_pass(self, user_id: int | None) -> bool:
        """The player's /autopass choice (off for a computer player or an unknown user)."""
        if user_id is None:
            return False
        try:
            return (await self.db.users.get(user_id=user_id)).auto_pass
        except NotFound:
            return False

    # ---------------------------------------------------------------- internals

    def _apply(self, table: LiveTable, seat: int | None, action: Action) -> list[Event]:
        """Engine first (it refuses without changing state); the log is written by :meth:`_save`."""
        assert table.match is not None
        events = table.match.apply(seat, action)
        table.unsaved.append((table.match.version, seat, encode_action(action)))
        table.remember(events)
        return events

    async def _save(self, table: LiveTable) -> None:
        """Commit the actions applied since the last save, before anything is shown.

        If the write fails, the match goes back to what the log holds (replayed in memory:
        the database may be failing reads too) and the players' selections stay as they
        were; the error goes to the caller. Only a stored action clears its seat's selection.
        """
        rows, table.unsaved = table.unsaved, []
        try:
            await self.db.actions.append_many(table_id=table.id, actions=rows)
        except StorageUnavailable as error:
            self._roll_back(table, len(rows) - error.written)
            raise
        except BaseException:
            self._roll_back(table, len(rows))
            raise
        for state in table.seats.values():
            state.selection.readings = ()
        for seat in {seat for _, seat, _ in rows if seat is not None and seat in table.seats}:
            table.seats[seat].selection.clear()
        await self.catch_up()
        if table.match is not None and table.match.is_over:
            await self._end(table)
            await self._finished(table)

    async def _end(self, table: LiveTable) -> None:
        """The match is over (its log says so): the table leaves play even if the status
        cannot be stored now (a restart would find the match over and finish it too)."""
        await self._set_status(table, TableStatus.FINISHED, write=False)
        await self._keep(
            (table.id, "status"),
            lambda: self.db.tables.set_status(table_id=table.id, status=TableStatus.FINISHED),
        )

    def _roll_back(self, table: LiveTable, lost: int) -> None:
        """Forget the last ``lost`` actions: the match is replayed without them (undo by
        replay, as a restart does, never by reverse steps)."""
        assert table.match is not None
        if lost <= 0:
            return
        history = table.match.history
        table.match = Match.replay(table.rules, table.record.seed, history[: len(history) - lost])
        table.deal_events = []
        table.remember(table.match.events)

    async def _keep(self, key: Hashable, write: Callable[[], Awaitable[None]]) -> None:
        """A bookkeeping write (which message shows what, 托管 flags, a finished status):
        memory already holds the value, so a storage fault only delays it. It waits in
        ``_behind`` and is stored after the next successful save, or by :meth:`catch_up`;
        a newer value of the same key replaces it."""
        self._behind[key] = write
        try:
            await write()
        except StorageUnavailable as error:
            log.warning("storage unavailable, %s stored later: %s", key, error)
            return
        if self._behind.get(key) is write:
            del self._behind[key]

    async def _continue(self, table: LiveTable, events: list[Event]) -> Outcome:
        """Bots act and their actions are stored; if storage fails they are rolled back and
        the table is :attr:`stalled` until :meth:`resume` succeeds (what was stored stands)."""
        try:
            outcome = await self._run_bots(table, [], events)
        except StorageUnavailable as error:
            log.warning("table %s: bots wait for storage: %s", table.id, error)
            self.stalled.add(table.id)
            return Outcome((), tuple(events), table.version)
        self.stalled.discard(table.id)
        return outcome

    async def _finished(self, table: LiveTable) -> None:
        """Tell the hooks (a contest records the result); a failing hook never stops the table."""
        for hook in self.finished_hooks:
            try:
                await hook(table)
            except Exception:
                log.exception("table %s: a finished-match hook failed", table.id)

    async def _run_bots(
        self, table: LiveTable, actions: list[tuple[int, Action]], events: list[Event]
    ) -> Outcome:
        """Let AI seats, seats in 托管 and forced tributes act until a human must choose,
        then commit every action of the request in one write."""
        match = table.match
        assert match is not None
        for _ in range(MAX_BOT_STEPS):
            if match.is_over or table.record.status is not TableStatus.PLAYING:
                break
            run = await self._bot_run(table)
            if not run:
                break
            self._apply_run(table, run, actions, events)
        await self._save(table)
        return Outcome(tuple(actions), tuple(events), match.version)

    def _apply_run(self, table: LiveTable, run: Moves, actions: Moves, events: list[Event]) -> None:
        """The run's moves in order. One the engine refuses is replaced by the timeout default
        and ends the run: what followed was thought after it, so the next run thinks again."""
        for seat, action in run:
            try:
                events.extend(self._apply(table, seat, action))
            except EngineError:
                log.exception("table %s: bot action %s refused; using the timeout default", table.id, action)
                fallback = timeout_action(table.observe(seat))
                events.extend(self._apply(table, seat, fallback))
                actions.append((seat, fallback))
                return
            actions.append((seat, action))

    async def _bot_run(self, table: LiveTable) -> Moves:
        """The table's next actions until a person must choose: a forced one at once, or a run
        of the computer players' moves thought out in one go in a worker thread.

        One trip to the thread for the whole run, not one per move: between trips the press
        waited behind whatever else the event loop had queued, two or three times a press
        when the computer players answer a person's play (大师 searches for up to a second:
        other tables and buttons go on meanwhile; this table's lock is held throughout)."""
        match = table.match
        assert match is not None
        players = tuple(self._seat_player(table, seat) for seat in range(4))
        step = _next_step(match, players)
        if step is None:
            return []
        seat, action = step
        if action is not None:
            return [(seat, action)]
        lane = Lane.SEARCHES if players[seat].searches else Lane.MOVES
        return await self.thinking.run(lane, self._think_run, match.copy(), table.rules, players)

    def _think_run(self, match: Match, rules: Rules, players: tuple[SeatPlayer, ...]) -> Moves:
        """In a worker thread, on the table's copy: the moves :func:`_next_step` asks for, each
        applied to the copy so the next seat sees it, until a person must choose, the match
        ends, a move of the other lane's kind comes up, or :data:`RUN_STEPS`. A move the copy
        refuses ends the run with it (the table refuses it too and plays the default)."""
        run: Moves = []
        searches: bool | None = None
        while len(run) < RUN_STEPS and not match.is_over:
            step = _next_step(match, players)
            if step is None:
                break
            seat, action = step
            if action is None:
                if searches is not None and players[seat].searches is not searches:
                    break
                searches = players[seat].searches
                action = self._bot_action(observe(match, seat), rules, players[seat].policy)
            run.append((seat, action))
            try:
                match.apply(seat, action)
            except EngineError:
                break
        return run

    def _seat_player(self, table: LiveTable, seat: int) -> SeatPlayer:
        state = table.seats[seat]
        policy = self.seat_policy(state, table)
        searches = policy is self._difficulties.get(MASTER)
        return SeatPlayer(
            policy=policy, plays_itself=state.is_bot, auto_pass=state.auto_pass, searches=searches
        )

    def seat_policy(self, state: SeatState, table: LiveTable | None = None) -> Policy:
        """An AI seat plays at its difficulty; 托管 (and a policy given to the service) as 标准,
        or as 大师 at a table that chose 大师 for one of its AI seats."""
        if state.record.is_ai:
            return self._difficulties.get(state.record.difficulty, self.policy)
        if table is not None and MASTER in self._difficulties and _chose_master(table):
            return self._difficulties[MASTER]
        return self.policy

    def _bot_action(self, obs: Observation, rules: Rules, policy: Policy) -> Action:
        try:
            return policy(obs, rules)
        except EngineError:
            log.exception("AI policy failed; using the timeout default")
            return timeout_action(obs)

    def _count_timeout(self, table: LiveTable, seat: int, timed_out: bool) -> None:
        """In memory; stored after the action it came with (:meth:`act` undoes it if that fails)."""
        record = table.seats[seat].record
        timeouts = record.timeouts + 1 if timed_out else 0
        autoplay = record.autoplay or timeouts >= 2
        if (timeouts, autoplay) != (record.timeouts, record.autoplay):
            self._set_flags(table, seat, autoplay=autoplay, timeouts=timeouts)

    def _set_flags(self, table: LiveTable, seat: int, *, autoplay: bool, timeouts: int) -> None:
        """托管 and the timeout count in memory; written by the next save (see :meth:`_keep`)."""
        state = table.seats[seat]
        state.record = replace(state.record, autoplay=autoplay, timeouts=timeouts)

        async def write() -> None:
            record = state.record
            await self.db.seats.set_autoplay(
                table_id=table.id, seat=seat, autoplay=record.autoplay, timeouts=record.timeouts
            )

        self._behind[(table.id, "flags", seat)] = write

    async def _store_autoplay(self, table: LiveTable, seat: int, *, autoplay: bool, timeouts: int) -> None:
        await self.db.seats.set_autoplay(table_id=table.id, seat=seat, autoplay=autoplay, timeouts=timeouts)
        table.seats[seat].record = replace(table.seats[seat].record, autoplay=autoplay, timeouts=timeouts)
        self._behind.pop((table.id, "flags", seat), None)

    async def _set_status(self, table: LiveTable, status: TableStatus, *, write: bool = True) -> None:
        """Finished and stopped tables leave memory (their callers still hold them to show the end)."""
        if write:
            await self.db.tables.set_status(table_id=table.id, status=status)
        table.record = replace(table.record, status=status)
        if not status.is_active:
            self.tables.pop(table.id, None)
            for key in [key for key in self.pending_seats if key[0] == table.id]:
                del self.pending_seats[key]
            for key in [key for key in self.away if key[0] == table.id]:
                del self.away[key]

    def _first_free(self, table: LiveTable) -> int:
        free = table.free_seats()
        if not free:
            raise TableError(TableRefusal.TABLE_FULL)
        return free[0]

    @staticmethod
    def _require(table: LiveTable, status: TableStatus) -> None:
        if table.record.status is not status:
            raise TableError(TableRefusal(f"table_not_{status.value}"))  # lobby or playing


def _reserved_seat(table: LiveTable, user_id: int, wanted: int, current: int | None) -> int:
    """A reserved table seats only its players, each on their pair's side (0/2 or 1/3):
    a press on the other side takes the free seat of one's own."""
    side = table.reserved.get(user_id)
    if side is None:
        raise TableError(TableRefusal.RESERVED_TABLE)
    if wanted % 2 == side:
        return wanted
    if current is not None:
        return current
    free = [seat for seat in (side, side + 2) if seat not in table.seats]
    if not free:
        raise TableError(TableRefusal.SEAT_TAKEN)
    return free[0]


def _chose_master(table: LiveTable) -> bool:
    return any(state.record.is_ai and state.record.difficulty == MASTER for state in table.seats.values())


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    """Who acts for a seat, as a run of computer moves sees it (taken under the table's lock)."""

    policy: Policy  # how the engine plays the seat when it plays it (see TableService.seat_policy)
    plays_itself: bool  # an AI seat or a seat in 托管: the engine plays every action
    auto_pass: bool  # /autopass: passed for when nothing beats the table
    searches: bool  # 大师: thinks in the searches' lane


def _next_step(match: Match, players: tuple[SeatPlayer, ...]) -> tuple[int, Action | None] | None:
    """The seat the table acts for next, with its forced action, or None for an action its
    policy must think out; None when a person must choose."""
    for seat in match.to_act:
        obs = observe(match, seat)
        if players[seat].plays_itself or obs.phase is Phase.CHOICE:
            # A free choice after equal 双下 tributes (V12/V14) has no buttons yet: the 标准
            # player makes it for a human rather than the table waiting on a clock.
            return seat, None
        forced = _forced_tribute(obs) or _auto_pass(players[seat].auto_pass, obs)
        if forced is not None:
            return seat, forced
    return None


def _auto_pass(chosen: bool, obs: Observation) -> Action | None:
    """要不起: a player who chose /autopass passes at once when nothing beats the table."""
    if not chosen or obs.phase is not Phase.PLAY or obs.table_play is None:
        return None
    if obs.table_seat == obs.seat or can_beat(obs.hand, obs.level, obs.table_play):
        return None
    return Pass()


def _forced_tribute(obs: Observation) -> Action | None:
    """A tribute with only one possible card is paid at once (the player is shown it)."""
    if obs.phase is Phase.TRIBUTE and len(set(obs.must_tribute_from)) == 1:
        return GiveTribute(obs.must_tribute_from[0])
    return None
