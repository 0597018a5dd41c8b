"""The tasks a service starts, owned by it: a stop cancels and awaits every one.

A task nobody awaits outlives its service: the event loop closes with it pending and asyncio
logs "Task was destroyed but it is pending!" at exit, or it wakes after the database or the
HTTP session closed and fails with a traceback. A service that starts background work (the
board's redraws, the spectators' looks, the outbox's senders, 提示 thought ahead, 点评) keeps
its tasks here, and its ``close`` awaits :meth:`Tasks.close` (``tests/e2e/test_clean_stop_e2e.py``
stops the real bot and allows no such line).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class Tasks:
    """Running tasks, each forgotten once it ends."""

    def __init__(self) -> None:
        self._running: set[asyncio.Task[Any]] = set()
        self.closed = False

    def start(
        self,
        job: Coroutine[Any, Any, T],
        *,
        name: str | None = None,
        context: contextvars.Context | None = None,
    ) -> asyncio.Task[T]:
        """``job`` as a task of this owner; once the owner is closed it is cancelled at once."""
        task = asyncio.create_task(job, name=name, context=context)
        if self.closed:
            task.cancel()
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        return task

    def __len__(self) -> int:
        return len(self._running)

    async def close(self) -> None:
        """Cancel every running task and wait until each has ended (one started meanwhile too)."""
        self.closed = True
        while self._running:
            running = list(self._running)
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
