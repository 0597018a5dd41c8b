"""The contest desk's reminders on a real database and outbox (the senders replaced by recorders):
each reminder goes out once, and again for a deadline the organiser moved."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any, cast

from engine.contest import Deadline, draw, move_deadline
from handlers.contest.desk import GROUP, PRIVATE, ContestDesk
from handlers.platform.chats import ChatBudget
from handlers.platform.outbox import Outbox
from storage import Database
from tests.engine.contest.support import ON_TIME, signed_up

LEFT = int(timedelta(hours=48).total_seconds())


async def test_a_reminder_goes_once_per_deadline(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "desk.db")
    outbox = Outbox(db.outbox)
    desk = ContestDesk(cast(Any, None), db, outbox, ChatBudget(), cast(Any, None))
    sent: list[tuple[int, str]] = []

    async def record(chat_id: int, payload: dict[str, Any]) -> None:
        sent.append((chat_id, str(payload.get("what", "dm"))))

    outbox.register(GROUP, record)
    outbox.register(PRIVATE, record)
    try:
        stored = await db.contests.create(chat_id=-9, contest=signed_up(2))
        contest, events = draw(stored.contest, now=ON_TIME)
        await db.contests.record(contest_id=stored.id, events=events)
        for _ in range(2):
            await desk.remind(stored.id, 1, LEFT)
        await outbox.join()
        assert sent.count((-9, "reminder")) == 1
        assert len([chat for chat, what in sent if what == "dm"]) == 4  # each player of the match
        later = Deadline.before_day(date(2026, 12, 27))
        _contest, events = move_deadline(contest, later)
        await db.contests.record(contest_id=stored.id, events=events)
        await desk.remind(stored.id, 1, LEFT)
        await outbox.join()
        assert sent.count((-9, "reminder")) == 2
    finally:
        await outbox.close()
        await db.close()
