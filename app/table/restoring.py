"""Tables rebuilt from storage: a live table after a restart, a finished one for its board's last edit.

No Telegram here. Storage keeps a table's record, seats, reservations and action log; the match
is rebuilt by replaying the log (:meth:`engine.match.Match.replay`), never stored as state. The
table service (:meth:`app.table.tables.TableService.restore_all`) decides what to do with a
table that fails to load.
"""

from __future__ import annotations

from app.table.live import LiveTable, decode_action
from app.table.seats import SeatState
from engine.match import Match
from engine.rules import Rules
from storage import Database, NotFound, TableRecord, TableStatus


async def auto_pass_of(db: Database, user_id: int | None) -> bool:
    """The player's /autopass choice (off for a computer player or an unknown user)."""
    if user_id is None:
        return False
    try:
        return (await db.users.get(user_id=user_id)).auto_pass
    except NotFound:
        return False


async def live_table(db: Database, record: TableRecord) -> LiveTable:
    """An unfinished table as it was: its lobby, or its match replayed from the log."""
    rules = Rules.from_json(record.rules_json)
    seats = {
        s.seat: SeatState(s, auto_pass=await auto_pass_of(db, s.user_id))
        for s in await db.seats.of_table(table_id=record.id)
    }
    table = LiveTable(record=record, rules=rules, seats=seats)
    table.reserved = await db.reservations.of_table(table_id=record.id)
    if record.status is TableStatus.PLAYING:
        await _replay(db, table)
    return table


async def ended_table(db: Database, record: TableRecord) -> LiveTable:
    """A finished or stopped table replayed from storage; never one of the live tables."""
    seats = {s.seat: SeatState(s) for s in await db.seats.of_table(table_id=record.id)}
    table = LiveTable(record=record, rules=Rules.from_json(record.rules_json), seats=seats)
    await _replay(db, table)
    return table


async def _replay(db: Database, table: LiveTable) -> None:
    rows = await db.actions.of_table(table_id=table.id)
    history = [(row.seat, decode_action(row.action_json)) for row in rows]
    table.match = Match.replay(table.rules, table.record.seed, history)
    table.remember(table.match.events)
