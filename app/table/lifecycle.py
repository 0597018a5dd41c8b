"""Where a table is in its life (lobby, match, over), asked as questions: a front end reads a
table's stage here and never names the stored status (``storage.TableStatus``)."""

from __future__ import annotations

from app.table.tables import LiveTable
from storage import TableStatus


def in_lobby(table: LiveTable) -> bool:
    """Seats are being taken; no match yet."""
    return table.record.status is TableStatus.LOBBY


def playing(table: LiveTable) -> bool:
    """The match is being played."""
    return table.record.status is TableStatus.PLAYING


def stopped(table: LiveTable) -> bool:
    """Stopped before its end (/stop, or a lobby that could not be posted)."""
    return table.record.status is TableStatus.STOPPED


def active(table: LiveTable) -> bool:
    """In its lobby or playing: not finished, stopped or quarantined."""
    return table.record.status.is_active
