"""The score sheets' app service on a real database, without Telegram (issue 41)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from app.contest.score_sheets import ScoreSheets, Taken
from app.contest.store import ContestStore, HeldContest
from engine.contest import ContestMatch, Schedule, ScheduleKind, draw
from engine.contest.sheet import SheetEntry, SheetRefusal
from storage import Database
from tests.engine.contest.support import ON_TIME, signed_up

GROUP = -9
AT_VENUE = Schedule(
    ScheduleKind.FIXED, starts_at=ON_TIME + timedelta(days=1), venue="6楼"
)  # relative: any date
RECORDER = 7


@pytest.fixture
async def sheets(store: str) -> AsyncIterator[ScoreSheets]:
    db = await Database.open(store)
    locks: dict[int, asyncio.Lock] = {}
    yield ScoreSheets(ContestStore(db), lambda contest_id: locks.setdefault(contest_id, asyncio.Lock()))
    await db.close()


async def at_table(sheets: ScoreSheets, **settings: object) -> tuple[HeldContest, ContestMatch]:
    """Two pairs drawn to play at a physical table (000-E's six scored deals unless a preset is given)."""
    contest = draw(signed_up(2, **settings), now=ON_TIME, schedule=AT_VENUE).contest
    held = await sheets.store.create(GROUP, contest)
    assert held is not None
    return held, held.contest.rounds[0].matches[0]


async def test_a_press_is_stored_once_and_replayed(sheets: ScoreSheets) -> None:
    held, match = await at_table(sheets)
    empty = await sheets.load(held, match)
    entry = SheetEntry.deal(0, 2)
    entered = empty.enter(entry)
    assert await sheets.take(held, match, entered, entry, RECORDER) is Taken.STORED
    assert await sheets.take(held, match, entered, entry, RECORDER) is Taken.STALE  # a double tap
    assert await sheets.load(held, match) == entered


async def test_the_clock_enters_time_up_only_on_an_opened_sheet(sheets: ScoreSheets) -> None:
    held, match = await at_table(sheets, preset="knockout-135")  # a timed match
    assert await sheets.clock_entry(held, match) is None  # nobody opened it
    await sheets.shown_at(RECORDER, 100, held, match)
    assert await sheets.readers(held, match) == [(RECORDER, 100)]
    entered = await sheets.clock_entry(held, match)
    assert entered is not None and entered.state.time_expired
    assert await sheets.clock_entry(held, match) is None  # once
    assert await sheets.load(held, match) == entered


async def test_a_press_is_stored_checked_stale_or_refused(sheets: ScoreSheets) -> None:
    held, match = await at_table(sheets)
    north = SheetEntry.deal(0, 2)
    pressed = await sheets.press(held.id, match.code, 0, north, RECORDER)
    assert pressed.outcome is Taken.STORED and pressed.sheet.version == 1
    again = await sheets.press(held.id, match.code, 0, north, RECORDER)  # the double tap
    assert again.outcome is Taken.STALE and again.sheet == pressed.sheet
    checked = await sheets.press(held.id, match.code, 1, None, RECORDER)  # 🎴 first leader, ✅ submit
    assert checked.outcome is Taken.CHECKED and checked.sheet == pressed.sheet
    refused = await sheets.press(held.id, match.code, 1, SheetEntry.time_up(), RECORDER)
    assert refused.outcome is SheetRefusal.NOT_TIMED
    undone = await sheets.press(held.id, match.code, 1, SheetEntry.undo(), RECORDER)
    assert undone.outcome is Taken.STORED and undone.sheet.rows == ()
    assert await sheets.load(held, match) == undone.sheet
