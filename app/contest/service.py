"""The contest's application service: every contest change has one shape, load → command →
record → announce, under the contest's lock (issue 19: Telegram-free, beside the handlers).

The command is a pure function of the contest (``engine.contest``); its events are stored in one
transaction, then handed to ``announce`` (the desk queues them in the outbox: stored before they
are sent) and the contest to ``rearm`` (its deadline and clock jobs). Nothing awaits the network
while the lock is held.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from engine.contest import Contest, Event, Step
from storage import Database, StoredContest

Clock = Callable[[], datetime]
Command = Callable[[Contest], Step]
Announcer = Callable[[StoredContest, Sequence[Event]], Awaitable[None]]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class ContestService:
    db: Database
    announce: Announcer
    rearm: Callable[[StoredContest], None]
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)

    def lock(self, contest_id: int) -> asyncio.Lock:
        return self._locks.setdefault(contest_id, asyncio.Lock())

    async def run(self, contest_id: int, command: Command) -> tuple[StoredContest, Step]:
        """Load, command, record, announce: the one shape of every contest change.

        A refusal (:class:`ContestError`) propagates before anything is stored.
        """
        async with self.lock(contest_id):
            stored = await self.db.contests.get(contest_id=contest_id)
            step = command(stored.contest)
            if step.events:
                await self.db.contests.record(contest_id=contest_id, events=step.events)
            after = StoredContest(stored.id, stored.chat_id, step.contest)
            await self.announce(after, step.events)
        self.rearm(after)
        return after, step
