"""The recorders' score sheets (migration 0009): each sheet's presses, append-only, and the
private messages that show it.

A sheet is stored as what was pressed (the notation of :class:`engine.contest.sheet.SheetEntry`),
who pressed it and when, never as levels or points: those are derived by replaying the
presses, like a bot table's action log. ``seq`` is the sheet's version after a press, so a
double tap that arrives twice with the same version is a :class:`~storage.errors.StorageConflict`
the second time. Every method is one statement (autocommit).
"""

from __future__ import annotations

from dataclasses import dataclass

from storage.repositories import _now, _Repository


@dataclass(frozen=True, slots=True)
class SheetPress:
    """One stored press of a sheet."""

    seq: int
    entry: str  # SheetEntry notation
    by: int | None  # user id; None: the round's clock
    at: str  # ISO time (UTC)


class ContestSheetRepository(_Repository):
    """Score sheet presses and the messages showing each sheet."""

    async def append(self, *, contest_id: int, code: str, seq: int, entry: str, by: int | None) -> None:
        """Store press ``seq`` (the sheet's version after it); a taken ``seq`` is a conflict."""
        await self._insert(
            "INSERT INTO contest_sheet_entries (contest_id, code, seq, entry, by, at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (contest_id, code, seq, entry, by, _now()),
            f"sheet {contest_id}/{code} press {seq}",
        )

    async def presses(self, *, contest_id: int, code: str) -> list[SheetPress]:
        """A sheet's presses in order (empty: nothing entered yet)."""
        rows = await self._all(
            "SELECT seq, entry, by, at FROM contest_sheet_entries WHERE contest_id = ? AND code = ?"
            " ORDER BY seq",
            (contest_id, code),
        )
        return [
            SheetPress(int(seq), str(entry), None if by is None else int(by), str(at))
            for seq, entry, by, at in rows
        ]

    async def add_message(self, *, chat_id: int, message_id: int, contest_id: int, code: str) -> None:
        await self._write(
            "INSERT INTO contest_sheet_messages (chat_id, message_id, contest_id, code) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (chat_id, message_id) DO UPDATE SET contest_id = excluded.contest_id,"
            " code = excluded.code",
            (chat_id, message_id, contest_id, code),
            f"sheet message {message_id}",
        )

    async def messages_of(self, *, contest_id: int, code: str) -> list[tuple[int, int]]:
        """(chat id, message id) of the messages showing a sheet, oldest first."""
        rows = await self._all(
            "SELECT chat_id, message_id FROM contest_sheet_messages WHERE contest_id = ? AND code = ?"
            " ORDER BY rowid",
            (contest_id, code),
        )
        return [(int(chat_id), int(message_id)) for chat_id, message_id in rows]
