"""A table before its match: who sits where, the computer seats' difficulty, the rules.

No Telegram here. :class:`Lobby` is the table service's part for the lobby
(:class:`app.table.tables.TableService` delegates to it, the caller holding ``table.lock``):
each change is stored before memory follows, and a refusal is a :class:`TableError`.
"""

from __future__ import annotations

import secrets
from dataclasses import replace

from app.table.live import LiveTable, TableError, require_status
from app.table.refusals import TableRefusal
from app.table.restoring import auto_pass_of
from app.table.seats import SeatState
from engine.rules import Rules
from players.policies import DIFFICULTIES
from storage import Database, StorageConflict, TableStatus


class Lobby:
    """Opens tables and seats their players (humans and computer players) before the deal."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def open(
        self, *, chat_id: int, creator_id: int, preset: str, rules: Rules, reserved: dict[int, int], seed: int
    ) -> LiveTable:
        """A new lobby in storage; ``reserved`` (user → side) keeps it for those players only."""
        try:
            record = await self.db.tables.create(
                chat_id=chat_id,
                token=secrets.token_urlsafe(9),
                creator_id=creator_id,
                preset=preset,
                rules_json=rules.to_json(),
                seed=seed,
            )
        except StorageConflict as error:
            raise TableError(TableRefusal.TABLE_EXISTS) from error
        table = LiveTable(record=record, rules=rules, seats={}, reserved=dict(reserved))
        if reserved:
            await self.db.reservations.reserve(table_id=record.id, sides=table.reserved)
        return table

    async def take_seat(
        self, table: LiveTable, *, seat: int | None, user_id: int, name: str, locale: str | None
    ) -> int:
        """Seat a human (``seat=None``: the first free seat); moving seats is allowed."""
        require_status(table, TableStatus.LOBBY)
        current = table.seat_of(user_id)
        target = seat if seat is not None else (current if current is not None else first_free(table))
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
        table.seats[target] = SeatState(record, auto_pass=await auto_pass_of(self.db, user_id))
        return target

    @staticmethod
    def check_reserved(table: LiveTable, user_id: int) -> None:
        """A table reserved for a contest match seats only its players (asked before anything else)."""
        if table.reserved and user_id not in table.reserved:
            raise TableError(TableRefusal.RESERVED_TABLE)

    async def add_ai(self, table: LiveTable, *, seat: int | None, name: str) -> int:
        require_status(table, TableStatus.LOBBY)
        if table.reserved:
            raise TableError(TableRefusal.RESERVED_TABLE)
        target = seat if seat is not None else first_free(table)
        if target in table.seats:
            raise TableError(TableRefusal.SEAT_TAKEN)
        record = await self.db.seats.take(table_id=table.id, seat=target, user_id=None, name=name, is_ai=True)
        table.seats[target] = SeatState(record)
        return target

    async def set_difficulty(self, table: LiveTable, *, seat: int, difficulty: str) -> None:
        """An AI seat's difficulty (简单 ``easy`` / 标准 ``normal``), chosen in the lobby."""
        require_status(table, TableStatus.LOBBY)
        state = table.seats.get(seat)
        if state is None or not state.record.is_ai or difficulty not in DIFFICULTIES:
            raise TableError(TableRefusal.BAD_BUTTON)
        await self.db.seats.set_difficulty(table_id=table.id, seat=seat, difficulty=difficulty)
        state.record = replace(state.record, difficulty=difficulty)

    async def leave(self, table: LiveTable, *, seat: int) -> None:
        require_status(table, TableStatus.LOBBY)
        if seat not in table.seats:
            raise TableError(TableRefusal.NOT_SEATED)
        await self.db.seats.leave(table_id=table.id, seat=seat)
        del table.seats[seat]

    async def set_rules(self, table: LiveTable, *, preset: str, rules: Rules) -> None:
        require_status(table, TableStatus.LOBBY)
        if table.reserved:
            raise TableError(TableRefusal.RESERVED_RULES)
        await self.db.tables.set_rules(table_id=table.id, preset=preset, rules_json=rules.to_json())
        table.record = await self.db.tables.get(table_id=table.id)
        table.rules = rules


def first_free(table: LiveTable) -> int:
    free = table.free_seats()
    if not free:
        raise TableError(TableRefusal.TABLE_FULL)
    return free[0]


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
