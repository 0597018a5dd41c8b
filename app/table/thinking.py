"""Where the pure players think: off the event loop, on as few threads as serve.

A computer player's move and the first 提示 of a turn are pure Python (标准 takes tens of
milliseconds on a full hand, 大师 up to a second). On the event loop they would stall every
table. On asyncio's default pool (six threads on two cores) they do not think in parallel — the
GIL runs one at a time — but every busy thread competes with the event loop for the GIL: six
大师 searches at once would hold it nearly always. So each kind of thinking has one thread of
its own (a lane): 提示, which a player is waiting for, never queues behind computer players;
标准's quick moves never queue behind 大师's searches; and few threads contend with the loop.
At 100 busy tables the threads held the GIL 6.5% of the time, the loop 28% (py-spy).

Quick moves have two threads: most 标准 decisions take a millisecond, a few on full hands with
wildcards fifty, and in one queue a table's quick move waited behind another table's slow one.
With two, the quick one goes on beside it (the GIL shares them at the switch interval). At 150
busy tables the p99 of 不出, which the computer players' moves follow, went from 66 to 56 ms of
the bot's time (one run each, 300 asked, pinned: within this machine's noise, as reasoned).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from enum import Enum
from functools import partial
from typing import TypeVar

from app.tasks import Tasks
from common import metrics

T = TypeVar("T")


def yield_to_the_loop() -> None:
    """Initializer of the bot's worker threads (thinking, pictures): ``SCHED_BATCH``.

    Handing a thread work wakes it, and Linux runs a woken thread at once on the waker's core
    if it can (wakeup preemption): the event loop, halfway through a press, stopped until the
    worker blocked on the GIL — ``ThreadPoolExecutor.submit`` was 12% of the loop's samples at
    100 busy tables. A batch thread is not preempted for and does not preempt on wakeup; it
    still gets its fair share of the CPU, on the other core or once the loop waits.
    """
    policy = getattr(os, "SCHED_BATCH", None)
    if policy is not None and hasattr(os, "sched_setscheduler"):
        with contextlib.suppress(OSError):  # 0: the calling thread (Linux schedules threads)
            os.sched_setscheduler(0, policy, os.sched_param(0))


class Lane(Enum):
    HINTS = "hints"  # a player's 提示: the suggestion they wait for
    AHEAD = "ahead"  # 提示's suggestions thought out when the turn begins, before anyone waits
    MOVES = "moves"  # computer players' (and 托管's) quick moves: 简单, 标准
    SEARCHES = "searches"  # 大师's searches, up to a second each

    @property
    def threads(self) -> int:
        """Quick moves two (see the module's docstring), every other lane one."""
        return 2 if self is Lane.MOVES else 1


class Thinking:
    """One pool of :attr:`Lane.threads` per :class:`Lane`, made on first use (tests build many
    services)."""

    def __init__(self) -> None:
        self._pools: dict[Lane, ThreadPoolExecutor] = {}
        self._ahead = Tasks()  # thought out before anyone asked (app/table/hints.py)

    async def run(self, lane: Lane, work: Callable[..., T], *args: object) -> T:
        """``work(*args)`` in the lane's thread; the event loop goes on meanwhile."""
        pool = self._pools.get(lane)
        if pool is None:
            pool = self._pools[lane] = ThreadPoolExecutor(
                max_workers=lane.threads, thread_name_prefix=lane.value, initializer=yield_to_the_loop
            )
        with metrics.thinking(lane.value):
            return await asyncio.get_running_loop().run_in_executor(pool, partial(work, *args))

    def ahead(self, lane: Lane, work: Callable[..., T], *args: object) -> asyncio.Task[T]:
        """:meth:`run` as a task nobody may await: one of the thinking's own, cancelled by :meth:`close`."""
        return self._ahead.start(self.run(lane, work, *args))

    async def close(self) -> None:
        """The bot is stopping: thinking ahead is cancelled and awaited, and the threads end
        once the work they hold is done."""
        await self._ahead.close()
        for pool in self._pools.values():
            pool.shutdown(wait=False)
        self._pools.clear()
