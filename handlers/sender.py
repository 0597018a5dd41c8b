"""Edits of one Telegram message, sent one at a time, newest state only.

Handlers compose a message's new look with the table lock held (so it shows what was
committed) and hand the edit to :class:`LatestWins`; the request leaves after the lock
is released, so the table's next press does not queue behind the rate limiter. Per
message at most one request is in flight; an edit queued while an older one is still
unsent replaces it, so an older state is never sent after a newer one.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable, Coroutine, Hashable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

Send = Callable[[], Coroutine[Any, Any, None]]


@dataclass
class _Mailbox:
    """The newest unsent edit of one message and everyone waiting for it (or a newer one)."""

    send: Send | None = None
    context: contextvars.Context | None = None
    waiters: list[asyncio.Future[None]] = field(default_factory=list)


class LatestWins:
    """Per-message senders keyed by e.g. ``(chat_id, message_id)``."""

    def __init__(self) -> None:
        self._boxes: dict[Hashable, _Mailbox] = {}
        self._workers: set[asyncio.Task[None]] = set()

    def submit(self, key: Hashable, send: Send) -> asyncio.Future[None]:
        """Queue ``send`` as the newest state of ``key``.

        The future resolves when this edit, or one that replaced it, has been sent (or
        failed and was logged). ``send`` runs in the submitter's context variables.
        """
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        box = self._boxes.get(key)
        if box is None:
            box = self._boxes[key] = _Mailbox()
            worker = asyncio.create_task(self._drain(key, box))
            self._workers.add(worker)
            worker.add_done_callback(self._workers.discard)
        box.send, box.context = send, contextvars.copy_context()
        box.waiters.append(done)
        return done

    async def _drain(self, key: Hashable, box: _Mailbox) -> None:
        try:
            while box.send is not None:
                send, context, waiters = box.send, box.context, box.waiters
                box.send, box.context, box.waiters = None, None, []
                try:
                    await asyncio.create_task(send(), context=context)
                except Exception:
                    log.exception("edit of message %s failed", key)
                finally:
                    for waiter in waiters:
                        if not waiter.done():
                            waiter.set_result(None)
        finally:
            del self._boxes[key]

    async def join(self) -> None:
        """Wait until every queued edit has been sent (shutdown, tests)."""
        while self._workers:
            await asyncio.gather(*self._workers, return_exceptions=True)


def sent() -> asyncio.Future[None]:
    """A delivery that is already complete: nothing needed sending."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    done.set_result(None)
    return done
