"""The recorders' score sheets as stored (issue 11), Telegram-free (issue 41): a sheet is replayed
from its stored presses, each press is stored before its result is shown, and the private
messages showing a sheet are remembered so that the clock's entry can edit them.

Every press is checked, stored and replayed under the contest's lock (:meth:`ScoreSheets.press`):
one pressed on an older version, or stored first by another process under the same version, is
:data:`Taken.STALE` (a double tap's second press), never a second deal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from app.contest.store import ContestStore, HeldContest, busy_is_told
from engine.contest import ContestMatch, MatchStatus
from engine.contest.seating import seating
from engine.contest.sheet import ScoreSheet, SheetEntry, SheetRefusal, SheetRefused
from engine.rules import TimeTieBreak
from storage import StorageConflict


class Taken(Enum):
    """What became of a sheet's button press (a refused entry is the sheet's own
    :class:`SheetRefusal`)."""

    STORED = "stored"  # the entry is the sheet's next press
    CHECKED = "checked"  # nothing to store (the first leader's draw, submit): the sheet is current
    STALE = "stale"  # pressed on an older version, or another press took this one meanwhile
    RESULT_IN = "result_in"  # the match has its result: the sheet is closed


@dataclass(frozen=True, slots=True)
class Pressed:
    """A press's outcome, with the contest, match and sheet as they are after it."""

    held: HeldContest
    match: ContestMatch
    sheet: ScoreSheet
    outcome: Taken | SheetRefusal


@dataclass
class ScoreSheets:
    """The score sheets' presses and the messages showing each sheet."""

    store: ContestStore
    lock: Callable[[int], asyncio.Lock]
    """The contest's lock (:meth:`ContestService.lock`): a press and a contest command never interleave."""

    async def press(
        self, contest_id: int, code: str, version: int, entry: SheetEntry | None, by: int
    ) -> Pressed:
        """One button of match ``code``'s sheet showing ``version``: ``entry`` stored as the
        sheet's next press (None: only checked), or why not. Under the contest's lock, from the
        contest as stored now; nothing here waits for Telegram."""
        async with self.lock(contest_id):
            held = await self.store.get(contest_id)
            match = held.contest.match_by_code(code)
            sheet = await self.load(held, match)
            outcome = await self._take(held, match, sheet, version, entry, by)
        if outcome is Taken.STORED and entry is not None:
            sheet = sheet.enter(entry)
        return Pressed(held, match, sheet, outcome)

    async def _take(
        self,
        held: HeldContest,
        match: ContestMatch,
        sheet: ScoreSheet,
        version: int,
        entry: SheetEntry | None,
        by: int,
    ) -> Taken | SheetRefusal:
        if match.status is not MatchStatus.PENDING:
            return Taken.RESULT_IN
        if version != sheet.version:
            return Taken.STALE
        if entry is None:
            return Taken.CHECKED
        try:
            entered = sheet.enter(entry)
        except SheetRefused as refused:
            return refused.refusal
        return await self.take(held, match, entered, entry, by)

    @busy_is_told
    async def load(self, held: HeldContest, match: ContestMatch) -> ScoreSheet:
        """A match's sheet replayed from its stored presses, under the round's rules and seats."""
        rules = held.contest.round_rules(match.round)
        seats = seating(held.contest.seed, match, rules.seat_assignment)
        presses = await self.store.db.contest_sheets.presses(contest_id=held.id, code=match.code)
        entries = tuple(SheetEntry.parse(p.entry) for p in presses)
        return ScoreSheet(rules, ns=seats.ns, ew=seats.ew, presses=entries)

    @busy_is_told
    async def take(
        self, held: HeldContest, match: ContestMatch, entered: ScoreSheet, entry: SheetEntry, by: int
    ) -> Taken:
        """Store ``entry``, the press that made the sheet ``entered`` (its version is the press's)."""
        try:
            await self.store.db.contest_sheets.append(
                contest_id=held.id, code=match.code, seq=entered.version, entry=str(entry), by=by
            )
        except StorageConflict:
            return Taken.STALE
        return Taken.STORED

    @busy_is_told
    async def shown_at(self, chat_id: int, message_id: int, held: HeldContest, match: ContestMatch) -> None:
        """Message ``message_id`` of ``chat_id`` shows the match's sheet (the clock edits it)."""
        await self.store.db.contest_sheets.add_message(
            chat_id=chat_id, message_id=message_id, contest_id=held.id, code=match.code
        )

    @busy_is_told
    async def readers(self, held: HeldContest, match: ContestMatch) -> list[tuple[int, int]]:
        """(chat, message) of every private message showing the match's sheet, oldest first."""
        return await self.store.db.contest_sheets.messages_of(contest_id=held.id, code=match.code)

    @busy_is_told
    async def clock_entry(self, held: HeldContest, match: ContestMatch) -> ScoreSheet | None:
        """The clock's time-up entry on an opened sheet, stored once under the contest's lock;
        None when there is nothing to enter: no sheet opened, the clock's
        entry already there, 002-A's tie-break (the recorder says which side had a player
        out), or a sheet that refuses it (untimed, decided, entered by the recorder)."""
        async with self.lock(held.id):
            return await self._clock_entry(held, match)

    async def _clock_entry(self, held: HeldContest, match: ContestMatch) -> ScoreSheet | None:
        sheets = self.store.db.contest_sheets
        presses = await sheets.presses(contest_id=held.id, code=match.code)
        opened = presses or await sheets.messages_of(contest_id=held.id, code=match.code)
        if not opened or any(p.by is None for p in presses):
            return None
        sheet = await self.load(held, match)
        if sheet.rules.time_tie_break is TimeTieBreak.PLAYER_OUT:
            return None
        try:
            sheet = sheet.enter(SheetEntry.time_up())
        except SheetRefused:
            return None
        await sheets.append(contest_id=held.id, code=match.code, seq=sheet.version, entry="time", by=None)
        return sheet
