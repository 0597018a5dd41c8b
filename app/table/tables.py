"""The per-table service: the live match and its action log, with the lobby and the rest as parts.

No Telegram here. Handlers hold ``table.lock`` around a call and whatever they show
afterwards, so updates for one table are serialised while different tables run
concurrently. Every accepted action is committed to the action log before the
call returns, i.e. before anything is shown; on start every unfinished table is
rebuilt by replaying its log.

:class:`TableService` is the one entry point and plays the match; its parts each keep one role:
the table and the values handed out (:mod:`app.table.live`), the lobby's seats and rules
(:mod:`app.table.lobby`), the computer players (:mod:`app.table.computer`),
the bookkeeping writes that may lag (:mod:`app.table.bookkeeping`) and the rebuilding of tables
from storage (:mod:`app.table.restoring`). This module re-exports the values callers import.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Hashable, Iterable
from dataclasses import replace

from app.table.bookkeeping import Bookkeeping, Write
from app.table.computer import ComputerSeats
from app.table.live import (
    Away,
    FinishedHook,
    LiveTable,
    LobbyHeading,
    Moves,
    Outcome,
    Policy,
    Quarantined,
    Restored,
    TableError,
    TablesFull,
    decode_action,
    encode_action,
    require_status,
)
from app.table.lobby import Lobby
from app.table.refusals import TableRefusal
from app.table.restoring import ended_table, live_table
from app.table.seats import SeatState
from app.table.thinking import Thinking
from common import metrics
from engine.actions import Action, Event, TimeExpired
from engine.errors import EngineError
from engine.match import Match
from engine.rules import Rules
from players.easy import timeout_action
from storage import Database, StorageUnavailable, TableRecord, TableStatus

__all__ = [
    "DEFAULT_CAPACITY",
    "Away",
    "FinishedHook",
    "LiveTable",
    "LobbyHeading",
    "Outcome",
    "Policy",
    "Quarantined",
    "Restored",
    "TableError",
    "TableService",
    "TablesFull",
    "decode_action",
    "encode_action",
]

log = logging.getLogger(__name__)

MAX_BOT_STEPS = 5000  # a whole match is far below this; guards against an engine loop

DEFAULT_CAPACITY = 150
"""Tables (lobbies and matches) one bot token serves at once by default. One token sends about
30 messages a second; a human's press costs one or two of them (answers are free). At a 5 s
think time ``bench/load.py`` measured a press's edit sent within 1.5 s p99 at 100 tables and
3.0 s at 200 (bench/README.md, "Capacity"): 150 keeps a table near the 2 s a player expects,
and beyond it every table would slow down together. ``GUANDAN_MAX_TABLES`` sets it (0: no
limit); past it, run another bot token in another process."""


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
        self.lobby = Lobby(db)
        self.computer = ComputerSeats(policy)
        self.policy = self.computer.policy  # 托管 and 提示: 标准
        self.new_seed = new_seed  # tests pin the deal
        self.tables: dict[int, LiveTable] = {}
        self.pending_seats: dict[tuple[int, int], int | None] = {}  # (table, user) → wanted seat
        self.finished_hooks: list[FinishedHook] = []  # called (table lock held) when a match ends
        self.lobby_headings: list[LobbyHeading] = []  # lines above a lobby (a contest's match)
        self.stalled: set[int] = set()  # tables whose bots could not store their actions: resume them
        self.away: dict[tuple[int, int], Away] = {}  # (table, seat) → why its player is gone (in 托管)
        self.bookkeeping = Bookkeeping()  # writes that lag memory

    @property
    def thinking(self) -> Thinking:
        """The worker threads computer players and 提示 think in (tests give their own)."""
        return self.computer.thinking

    @thinking.setter
    def thinking(self, thinking: Thinking) -> None:
        self.computer.thinking = thinking

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
        table = await self.lobby.open(
            chat_id=chat_id,
            creator_id=creator_id,
            preset=preset,
            rules=rules,
            reserved=reserved or {},
            seed=self.new_seed(),
        )
        self.tables[table.id] = table
        metrics.table_opened(admitted=True)
        return table

    async def take_seat(
        self, table: LiveTable, *, seat: int | None, user_id: int, name: str, locale: str | None
    ) -> int:
        """Seat a human (``seat=None``: the first free seat); moving seats is allowed."""
        return await self.lobby.take_seat(table, seat=seat, user_id=user_id, name=name, locale=locale)

    @staticmethod
    def check_reserved(table: LiveTable, user_id: int) -> None:
        """A table reserved for a contest match seats only its players (asked before anything else)."""
        Lobby.check_reserved(table, user_id)

    async def add_ai(self, table: LiveTable, *, seat: int | None, name: str) -> int:
        return await self.lobby.add_ai(table, seat=seat, name=name)

    async def set_difficulty(self, table: LiveTable, *, seat: int, difficulty: str) -> None:
        """An AI seat's difficulty (简单 ``easy`` / 标准 ``normal``), chosen in the lobby."""
        await self.lobby.set_difficulty(table, seat=seat, difficulty=difficulty)

    async def leave(self, table: LiveTable, *, seat: int) -> None:
        await self.lobby.leave(table, seat=seat)

    async def set_rules(self, table: LiveTable, *, preset: str, rules: Rules) -> None:
        await self.lobby.set_rules(table, preset=preset, rules=rules)

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
        require_status(table, TableStatus.LOBBY)
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
        require_status(table, TableStatus.PLAYING)
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
        require_status(table, TableStatus.PLAYING)
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
        return await self.bookkeeping.catch_up()

    @property
    def needs_recovery(self) -> bool:
        """A storage fault left work for later: bots that could not act, or lagging writes."""
        return bool(self.stalled or self.bookkeeping.behind)

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
        return await ended_table(self.db, record)

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
        table = await live_table(self.db, record)
        self.tables[record.id] = table
        return table

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

    async def _keep(self, key: Hashable, write: Write) -> None:
        """A bookkeeping write (which message shows what, 托管 flags, a finished status):
        memory already holds the value, so a storage fault only delays it
        (:class:`~app.table.bookkeeping.Bookkeeping`)."""
        await self.bookkeeping.keep(key, write)

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
        """The table's next actions until a person must choose (:class:`ComputerSeats`)."""
        return await self.computer.next_run(table)

    def seat_policy(self, state: SeatState, table: LiveTable | None = None) -> Policy:
        """How the engine plays a seat (:meth:`ComputerSeats.seat_policy`)."""
        return self.computer.seat_policy(state, table)

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

        self.bookkeeping.later((table.id, "flags", seat), write)

    async def _store_autoplay(self, table: LiveTable, seat: int, *, autoplay: bool, timeouts: int) -> None:
        await self.db.seats.set_autoplay(table_id=table.id, seat=seat, autoplay=autoplay, timeouts=timeouts)
        table.seats[seat].record = replace(table.seats[seat].record, autoplay=autoplay, timeouts=timeouts)
        self.bookkeeping.forget((table.id, "flags", seat))

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
