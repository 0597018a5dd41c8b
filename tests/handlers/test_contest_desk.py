"""The contest desk's reminders on a real database and outbox (the senders replaced by recorders):
each reminder goes out once, and again for a deadline the organiser moved."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from types import SimpleNamespace
from typing import Any, cast

import pytest
from telegram.ext import ApplicationBuilder

import handlers.contest.channels as channels
from app.contest.store import ContestStore
from engine.contest import Deadline, draw, move_deadline
from handlers.contest.alarms import DUE_NOW
from handlers.contest.channels import GROUP, PRIVATE
from handlers.contest.desk import ContestDesk
from handlers.platform.chats import ChatBudget
from handlers.platform.outbox import Outbox
from storage import Database, StorageUnavailable
from tests.engine.contest.support import DEADLINE, ON_TIME, signed_up

LEFT = int(timedelta(hours=48).total_seconds())


async def test_a_reminder_goes_once_per_deadline(store: str) -> None:
    db = await Database.open(store)
    outbox = Outbox(db.outbox)
    desk = ContestDesk(cast(Any, None), ContestStore(db), outbox, ChatBudget(), cast(Any, None))
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


@pytest.mark.parametrize(
    "desk_now",
    [ON_TIME, ON_TIME - timedelta(days=3650), DEADLINE.closes_at + timedelta(days=400)],
    ids=["contest-time", "ten-years-behind-the-deadline", "long-past-the-deadline"],
)
async def test_jobs_are_due_by_the_desks_clock_however_far_it_is_from_the_wall(
    store: str, desk_now: datetime
) -> None:
    """The JobQueue runs on the wall clock, the desk on its own: a job is due the interval the
    desk's clock gives (a past deadline at once), never at the desk's date read on the wall,
    which the scheduler drops as missed once the wall has passed it (issue 16)."""
    app = ApplicationBuilder().token("1:TEST").build()
    assert app.job_queue is not None
    await app.job_queue.start()
    db = await Database.open(store)
    outbox = Outbox(db.outbox)
    desk = ContestDesk(
        cast(Any, None), ContestStore(db), outbox, ChatBudget(), cast(Any, None), job_queue=app.job_queue
    )
    desk.clock = lambda: desk_now
    try:
        stored = await db.contests.create(chat_id=-9, contest=signed_up(2))
        _contest, events = draw(stored.contest, now=ON_TIME)
        await db.contests.record(contest_id=stored.id, events=events)
        desk.arm(await db.contests.get(contest_id=stored.id))
        (job,) = app.job_queue.get_jobs_by_name(f"contest:{stored.id}:deadline")
        assert job.next_t is not None
        wanted = max(DEADLINE.closes_at - desk_now, timedelta(seconds=DUE_NOW))
        assert abs(job.next_t - datetime.now(UTC) - wanted) < timedelta(minutes=1)
    finally:
        await app.job_queue.stop(wait=False)
        await outbox.close()
        await db.close()


class _SendingBot:
    """Records the messages the desk sends; each gets the next message id."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_message(self, chat_id: int, text: str, **_: object) -> Any:
        self.sent.append(text)
        return SimpleNamespace(message_id=100 + len(self.sent))


async def test_a_card_sent_while_the_database_is_locked_is_linked_later_not_sent_again(
    store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The card reached the group, then storing which message shows it failed: the outbox sent
    the whole card again (two cards, the first never edited). Only the link is tried again."""
    monkeypatch.setattr(channels, "LINK_RETRY", 0.01)
    db = await Database.open(store)
    outbox = Outbox(db.outbox, first_delay=0.01)
    bot = _SendingBot()
    ContestDesk(
        cast(Any, bot), ContestStore(db), outbox, ChatBudget(), cast(Any, None)
    )  # registers its senders
    stored = await db.contests.create(chat_id=-9, contest=signed_up(2))
    add_message = db.contest_links.add_message
    faults = [StorageUnavailable("database is locked")] * 2

    async def flaky_add_message(**kwargs: Any) -> None:
        if faults:
            raise faults.pop()
        await add_message(**kwargs)

    monkeypatch.setattr(db.contest_links, "add_message", flaky_add_message)
    try:
        outbox.post(-9, GROUP, {"what": "card", "contest_id": stored.id}, key="card")
        await outbox.join()
        assert len(bot.sent) == 1
        assert await db.contest_links.message(chat_id=-9, message_id=101) == (stored.id, None)
    finally:
        await outbox.close()
        await db.close()
