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

from app.contest.store import ContestStore, HeldContest, busy_is_told
from engine.contest import Contest, Event, Step

Clock = Callable[[], datetime]
Command = Callable[[Contest], Step]
Announcer = Callable[[HeldContest, Sequence[Event]], Awaitable[None]]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class ContestService:
    store: ContestStore
    announce: Announcer
    rearm: Callable[[HeldContest], None]
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)

    def lock(self, contest_id: int) -> asyncio.Lock:
        return self._locks.setdefault(contest_id, asyncio.Lock())

    @busy_is_told
    async def run(self, contest_id: int, command: Command) -> tuple[HeldContest, Step]:
        """Load, command, record, announce: the one shape of every contest change.

        A refusal (:class:`ContestError`) propagates before anything is stored; so do
        :class:`ContestGone` and :class:`StoreBusy`.
        """
        async with self.lock(contest_id):
            held = await self.store.get(contest_id)
            step = command(held.contest)
            if step.events:
                await self.store.record(contest_id, step.events)
            after = HeldContest(held.id, held.chat_id, step.contest)
            await self.announce(after, step.events)
        self.rearm(after)
        return after, step
