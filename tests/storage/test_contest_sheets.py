"""Score sheet presses on a real SQLite file (migration 0009): append-only, stale taps refused,
and a reopened database replays the same sheet."""

from __future__ import annotations

import pytest

from engine.contest.sheet import ScoreSheet, SheetEntry
from engine.rules import Rules
from storage import Database, StorageConflict
from tests.engine.contest.support import new_contest

CHAT = -1009


def replayed(presses: list[str]) -> ScoreSheet:
    sheet = ScoreSheet(Rules.preset("knockout-135"), ns=1, ew=2)
    for text in presses:
        sheet = sheet.enter(SheetEntry.parse(text))
    return sheet


async def test_presses_survive_a_restart_and_replay_to_the_same_sheet(store: str) -> None:
    db = await Database.open(store)
    stored = await db.contests.create(chat_id=CHAT, contest=new_contest())
    cid = stored.id
    typed = ["NS 1·2", "EW 1·3", "undo", "EW 1·4", "time"]
    for seq, text in enumerate(typed, start=1):
        await db.contest_sheets.append(contest_id=cid, code="ABCD2345", seq=seq, entry=text, by=77)
    await db.contest_sheets.add_message(chat_id=77, message_id=5, contest_id=cid, code="ABCD2345")
    before = replayed([p.entry for p in await db.contest_sheets.presses(contest_id=cid, code="ABCD2345")])
    await db.close()

    again = await Database.open(store)
    presses = await again.contest_sheets.presses(contest_id=cid, code="ABCD2345")
    assert [p.entry for p in presses] == typed and [p.seq for p in presses] == [1, 2, 3, 4, 5]
    assert all(p.by == 77 and p.at for p in presses)
    after = replayed([p.entry for p in presses])
    assert after == before and after.standing.levels == before.standing.levels and after.version == 5
    assert await again.contest_sheets.messages_of(contest_id=cid, code="ABCD2345") == [(77, 5)]
    assert await again.contest_sheets.presses(contest_id=cid, code="OTHER234") == []
    await again.close()


async def test_a_second_press_with_the_same_version_is_a_conflict(store: str) -> None:
    db = await Database.open(store)
    stored = await db.contests.create(chat_id=CHAT, contest=new_contest())
    await db.contest_sheets.append(contest_id=stored.id, code="ABCD2345", seq=1, entry="NS 1·2", by=1)
    with pytest.raises(StorageConflict):
        await db.contest_sheets.append(contest_id=stored.id, code="ABCD2345", seq=1, entry="NS 1·2", by=1)
    await db.contest_sheets.append(contest_id=stored.id, code="ABCD2345", seq=2, entry="time", by=None)
    presses = await db.contest_sheets.presses(contest_id=stored.id, code="ABCD2345")
    assert [(p.entry, p.by) for p in presses] == [("NS 1·2", 1), ("time", None)]
    await db.close()
