"""Each group's minute outlives the process (migration 0019, issue 40): the sends one process
records are what the next reads back, on SQLite and on PostgreSQL alike (a standby taking over
reads the leader's), per bot, and a scheduler that counts them holds the group's next message
until Telegram's minute has room."""

from __future__ import annotations

import asyncio

from app.minutes import GroupMinutes
from handlers.platform.scheduler import GROUP_LIMIT, Priority, PriorityLimiter, at_priority
from storage import Database
from storage.group_sends import KEPT

GROUP = -100


async def test_sends_are_read_back_by_bot_and_time_and_old_ones_dropped(store: str) -> None:
    db = await Database.open(store, bot_id=7)
    other = await Database.open(store, bot_id=8)
    try:
        await db.group_sends.record(sends=[(GROUP, 1000.0), (GROUP, 1001.5), (-200, 1002.0)])
        await other.group_sends.record(sends=[(GROUP, 1001.0)])
        assert await db.group_sends.since(since=1001.0) == [(GROUP, 1001.5), (-200, 1002.0)]
        assert await other.group_sends.since(since=0.0) == [(GROUP, 1001.0)]  # another bot's minute
        await db.group_sends.record(sends=[(GROUP, 1003.0 + KEPT)])
        await db.group_sends.forget(now=1003.0 + KEPT)
        assert await db.group_sends.since(since=0.0) == [(GROUP, 1003.0 + KEPT)]
        assert await other.group_sends.since(since=0.0) == [(GROUP, 1001.0)]  # not this bot's to drop
    finally:
        await db.close()
        await other.close()


class Wall:
    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


async def test_a_new_process_counts_the_last_minutes_sends_of_the_one_before(store: str) -> None:
    """One process sends 20 into a group and dies; the next, started 10 s later, may send
    nothing more into that group until the first of those 20 is a minute old, and at once into
    another group."""
    wall = Wall()
    db = await Database.open(store, bot_id=7)
    try:
        first = GroupMinutes(db.group_sends, wall=wall)
        old = PriorityLimiter(chat_burst=GROUP_LIMIT)
        await first.restore(old)
        with at_priority(Priority.DECISION):  # the whole minute, at once
            for _ in range(GROUP_LIMIT):
                await old.process_request(_sent, (), {}, "sendMessage", {"chat_id": GROUP}, None)
        assert len(await db.group_sends.since(since=0.0)) == GROUP_LIMIT  # stored before they left
        wall.now += 10.0
        new = PriorityLimiter()
        assert await GroupMinutes(db.group_sends, wall=wall).restore(new) == GROUP_LIMIT
        held = asyncio.create_task(
            new.process_request(_sent, (), {}, "sendMessage", {"chat_id": GROUP}, None)
        )
        elsewhere = new.process_request(_sent, (), {}, "sendMessage", {"chat_id": -300}, None)
        assert await asyncio.wait_for(elsewhere, 5) == "sent"
        await asyncio.sleep(0.2)
        assert not held.done()  # the group's minute is the old process's 20
        held.cancel()
        await asyncio.gather(held, return_exceptions=True)
        await new.shutdown()
        await old.shutdown()
    finally:
        await db.close()


async def _sent() -> str:
    return "sent"


async def _send(limiter: PriorityLimiter, chat_id: int) -> str:
    result: str = await limiter.process_request(_sent, (), {}, "sendMessage", {"chat_id": chat_id}, None)
    return result
