"""Each group's minute outlives the process: what the bot sent into a group is stored as it
leaves, and a starting bot counts the last minute's sends before it sends anything.

Telegram counts a group's 20 messages a minute whichever process sent them. A new process (a
restart, a ``kill -9``, a standby taking over on PostgreSQL) that started every group's window
empty put 24 messages into one group within 60 s in the 000-E flow, and the extra ones came
back as 429s just as its tables were resuming (issue 40). Two ways were weighed:

* every group's window treated as full for the first minute after a start: nothing to store,
  but every group, busy or not, would hear nothing for a minute — a hundred resuming tables'
  boards frozen, every command unanswered, at the moment people look to see whether the bot
  is back;
* each send recorded and read back (this module): only the groups that were busy wait, and
  only until their own minute frees; the rest are served at once.

A send is written before it leaves, in one INSERT with every other send leaving at that moment
(group commit: one write, however many groups), so a ``kill -9`` cannot lose a send Telegram
counted. The wall clock is stored, since a standby on another machine reads the rows. A store
that fails or is slow does not hold the message: after :data:`WRITE_WAIT` it goes (recorded
late, or not at all), as it would have before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

from storage.group_sends import GroupSendRepository

log = logging.getLogger(__name__)

WRITE_WAIT = 0.2
"""Seconds a group message waits for its record at most (a write takes milliseconds). Under the
scheduler's ``MARGIN``: the minute counts a message from when it was let go, and one that left
later than that by more than the margin could meet Telegram's count of the minute early."""
FORGET_EVERY = 60.0
"""Seconds between deletions of old sends: one DELETE a minute, not one per write."""


class GroupWindows(Protocol):
    """What paces the sends into groups (``handlers.platform.scheduler.PriorityLimiter``): each
    group's window, which the last process's sends fill, and the journal told of each send."""

    group_window: float
    journal: Callable[[int], Awaitable[None]] | None

    def remember(self, sends: Iterable[tuple[int, float]], wall_now: float) -> None: ...


class GroupMinutes:
    """The scheduler's journal of group sends (:attr:`GroupWindows.journal`), and its reader."""

    def __init__(
        self, repo: GroupSendRepository, *, wall: Callable[[], float] = time.time, wait: float = WRITE_WAIT
    ) -> None:
        self.repo = repo
        self.wall = wall
        self.wait = wait
        self._batch: list[tuple[int, float]] = []
        self._written: asyncio.Future[None] | None = None  # done when the batch is stored
        self._writer: asyncio.Task[None] | None = None
        self._forgot = float("-inf")  # when old sends were last deleted (the wall clock)

    async def restore(self, limiter: GroupWindows) -> int:
        """Count the last minute's sends (any process's of this bot) in the limiter's windows;
        then record every new one. Returns how many were counted."""
        now = self.wall()
        sends = await self.repo.since(since=now - limiter.group_window)
        limiter.remember(sends, now)
        limiter.journal = self.record
        if sends:
            log.info(
                "%d group messages of the last minute counted, in %d groups",
                len(sends),
                len({c for c, _ in sends}),
            )
        return len(sends)

    async def record(self, chat_id: int) -> None:
        """Store that a message leaves for the group now; returns once stored (or given up)."""
        if self._written is None:
            self._written = asyncio.get_running_loop().create_future()
        written = self._written
        self._batch.append((chat_id, self.wall()))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write(), name="group-minutes")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(written), self.wait)

    async def _write(self) -> None:
        while self._batch:
            batch, written = self._batch, self._written
            self._batch, self._written = [], None
            try:
                await self.repo.record(sends=batch)
                if self.wall() - self._forgot >= FORGET_EVERY:
                    self._forgot = self.wall()
                    await self.repo.forget(now=self._forgot)
            except Exception as error:  # the store is down or fenced: the messages go all the same
                log.warning("%d group sends not recorded: %r", len(batch), error)
            finally:
                if written is not None and not written.done():
                    written.set_result(None)

    async def close(self, limiter: GroupWindows | None) -> None:
        """Stop recording (the store is closing): the last batch is written first."""
        if limiter is not None and limiter.journal == self.record:
            limiter.journal = None
        if self._writer is not None:
            await asyncio.gather(self._writer, return_exceptions=True)
