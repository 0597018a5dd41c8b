"""What a chat is owed (deal results, level changes, the match's end; later contest
announcements) reaches it in order (``first`` messages ahead), once, through timeouts, network
errors, 429s and restarts.

``post(chat_id, kind, payload, key=…)`` stores a row (``storage/outbox.py``) right away and
returns; one task per chat sends its rows oldest first through the sender registered for
the row's ``kind``. A row is deleted only when its sender returned (Telegram accepted the
message) or when Telegram refused it for good (blocked, chat gone, a malformed message).
Timeouts and network errors are retried after 1, 2, 4 … 60 s, a 429 after the time Telegram
asks for; :meth:`Outbox.start` resends what a previous run left.

The payload is what a sender needs to *rebuild* the message (e.g. a table id and a deal
number: the board replays the match), so a row stays small and is re-rendered after a
restart in the group's language of the moment.

Exactly once as far as Telegram lets us: a ``key`` makes ``post`` idempotent forever (the
keys of delivered rows are kept), so announcing again what may have been lost is safe. A
send whose request reached Telegram but whose answer was lost (a timeout after the message
was posted, or a crash between the answer and the row's deletion) is sent again: Telegram's
Bot API has no idempotency key, so that duplicate is the price of never losing a message.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol

from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError

from handlers.platform.scheduler import Priority, at_priority

log = logging.getLogger(__name__)

Payload = dict[str, Any]
Sender = Callable[[int, Payload], Awaitable[None]]
"""Rebuilds one message from its payload and sends it to the chat; returns once accepted."""

FIRST_DELAY = 1.0  # seconds before the first retry after a timeout or network error
MAX_DELAY = 60.0
MAX_FAILURES = 8
"""Unexpected errors (not Telegram's: a bug rebuilding the message) before a row is given up."""


class OutboxRecord(Protocol):
    """A stored row (``storage/outbox.py``) as the outbox reads it."""

    @property
    def id(self) -> int: ...  # rows of one chat are delivered in id order

    @property
    def chat_id(self) -> int: ...

    @property
    def kind(self) -> str: ...

    @property
    def payload_json(self) -> str: ...

    @property
    def dedupe_key(self) -> str | None: ...


class OutboxRepository(Protocol):
    """Where the rows are kept (``storage.outbox.OutboxRepository``, which the caller hands in):
    named here so the shared plumbing does not import storage."""

    async def add(
        self, *, chat_id: int, kind: str, payload_json: str, dedupe_key: str | None = None
    ) -> OutboxRecord | None: ...

    async def pending(self) -> Sequence[OutboxRecord]: ...

    async def failed(self, *, id: int, error: str) -> None: ...

    async def done(self, *, id: int) -> None: ...


class Undeliverable(Exception):
    """A sender's verdict that the message can never be built (e.g. its table was deleted)."""


class TryLater(Exception):
    """A sender's verdict that a service outside Telegram failed this time (e.g. a webhook that
    answered 500): retried like a network error, logged as one warning line (no traceback),
    and given up after ``MAX_FAILURES`` tries with one more line."""


@dataclass
class _Item:
    chat_id: int
    kind: str
    payload: Payload
    key: str | None
    stored: asyncio.Future[OutboxRecord | None]  # the row, None if its key was enqueued before
    first: bool = False  # goes before the chat's other messages (an official result line)
    delivered: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class Outbox:
    """Durable, ordered, retried delivery per chat."""

    def __init__(
        self, repo: OutboxRepository, *, first_delay: float = FIRST_DELAY, max_delay: float = MAX_DELAY
    ) -> None:
        self.repo = repo
        self.first_delay = first_delay
        self.max_delay = max_delay
        self._senders: dict[str, Sender] = {}
        self._queues: dict[int, deque[_Item]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._keys: dict[str, _Item] = {}
        self._closed = False

    def register(self, kind: str, send: Sender) -> None:
        self._senders[kind] = send

    def post(
        self, chat_id: int, kind: str, payload: Payload, *, key: str | None = None, first: bool = False
    ) -> asyncio.Future[None]:
        """Store and queue one message (callable with a lock held: it does not wait).

        ``first`` messages (results and decisions, the draw) go before the chat's others still
        queued, in their own order: eight reports at once give the group eight result lines
        before the eight detail messages, not one line every two messages. Returns the delivery:
        done when Telegram accepted the message, or it was given up, or ``key`` had been
        enqueued before.
        """
        return self._post(chat_id, kind, payload, key, first).delivered

    async def enqueue(self, chat_id: int, kind: str, payload: Payload, *, key: str | None = None) -> None:
        """:meth:`post`, returning once the message is stored (not when it is sent)."""
        await asyncio.shield(self._post(chat_id, kind, payload, key).stored)

    def _post(self, chat_id: int, kind: str, payload: Payload, key: str | None, first: bool = False) -> _Item:
        if key is not None and key in self._keys:
            return self._keys[key]
        stored = asyncio.ensure_future(
            self.repo.add(chat_id=chat_id, kind=kind, payload_json=json.dumps(payload), dedupe_key=key)
        )
        item = _Item(chat_id, kind, payload, key, stored, first)
        self._queue(item)
        return item

    def queued(self, key: str) -> bool:
        """The message with ``key`` is stored and waiting to be sent (not yet delivered)."""
        return key in self._keys

    async def delivered(self, key: str) -> None:
        """Wait until the message with ``key`` is delivered (or given up); at once if none is queued."""
        item = self._keys.get(key)
        if item is not None:
            await asyncio.shield(item.delivered)

    async def start(self) -> None:
        """Queue what an earlier run stored and never delivered (before anything is posted)."""
        if self._queues:
            raise RuntimeError("Outbox.start() must come before the first post")
        for record in await self.repo.pending():
            stored: asyncio.Future[OutboxRecord | None] = asyncio.get_running_loop().create_future()
            stored.set_result(record)
            payload = json.loads(record.payload_json)
            self._queue(_Item(record.chat_id, record.kind, payload, record.dedupe_key, stored))
            log.info("outbox: %s for chat %s left by the last run, sending it", record.kind, record.chat_id)

    def _queue(self, item: _Item) -> asyncio.Future[None]:
        if item.key is not None:
            self._keys[item.key] = item
        self._queues.setdefault(item.chat_id, deque()).append(item)
        worker = self._workers.get(item.chat_id)
        if (worker is None or worker.done()) and not self._closed:
            self._workers[item.chat_id] = asyncio.create_task(
                self._drain(item.chat_id), name=f"outbox:{item.chat_id}"
            )
        return item.delivered

    async def _drain(self, chat_id: int) -> None:
        """Deliver the chat's messages oldest first. If cancelled (shutdown), the message
        under way stays stored and queued."""
        queue = self._queues[chat_id]
        while queue:
            item = next((queued for queued in queue if queued.first), queue[0])
            try:
                await self._deliver(item)
            except Exception:  # e.g. the row could not be deleted: it is sent again next run
                log.exception("outbox: %s for chat %s", item.kind, chat_id)
            queue.remove(item)
            if item.key is not None and self._keys.get(item.key) is item:
                del self._keys[item.key]
            item.delivered.set_result(None)
        del self._queues[chat_id]
        del self._workers[chat_id]

    async def _deliver(self, item: _Item) -> None:
        try:
            record = await item.stored
        except Exception:  # the database failed: still send it, as long as this run lasts
            log.exception("outbox: %s for chat %s not stored", item.kind, item.chat_id)
            record = None
        else:
            if record is None:  # its key was enqueued before: it is (being) sent already
                return
        if await self._send(item, record) and record is not None:
            await self.repo.done(id=record.id)

    async def _send(self, item: _Item, record: OutboxRecord | None) -> bool:
        """Send until accepted or refused for good; True unless the row must stay."""
        send = self._senders.get(item.kind)
        if send is None:
            log.error("outbox: no sender for %r (chat %s); the row stays", item.kind, item.chat_id)
            return False
        backoff = _Backoff(self.first_delay, self.max_delay)
        while True:
            try:
                with at_priority(Priority.OWED):  # before refreshes and replies (scheduler.py)
                    await send(item.chat_id, item.payload)
                return True
            except Exception as error:
                failed = error
                wait = _after_failure(item, error, backoff)
            if wait is None:
                return True
            if record is not None:
                await self._note_failure(record, failed)
            await asyncio.sleep(wait)

    async def _note_failure(self, record: OutboxRecord, error: Exception) -> None:
        try:
            await self.repo.failed(id=record.id, error=repr(error))
        except Exception:
            log.exception("outbox: failure of row %s not recorded", record.id)

    def pending(self, chat_id: int | None = None) -> int:
        """Messages queued (for one chat, or all): tests and the benchmark."""
        if chat_id is not None:
            return len(self._queues.get(chat_id, ()))
        return sum(len(queue) for queue in self._queues.values())

    async def join(self) -> None:
        """Wait until every queued message is delivered or given up (tests)."""
        while self._workers:
            await asyncio.gather(*list(self._workers.values()), return_exceptions=True)

    async def close(self) -> None:
        """Stop sending; what is not delivered stays stored for the next run. A row still being
        stored is waited for (the store closes after the outbox): no write is left pending."""
        self._closed = True
        workers = list(self._workers.values())
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        storing = [item.stored for queue in self._queues.values() for item in queue]
        await asyncio.gather(*storing, return_exceptions=True)


def _seconds(value: float | timedelta) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


@dataclass
class _Backoff:
    """One item's retries: the next wait (doubling up to ``cap``) and the failures counted."""

    delay: float
    cap: float
    failures: int = 0

    def longer(self) -> float:
        """The wait now; the next one is twice as long, up to the cap."""
        wait, self.delay = self.delay, min(self.delay * 2, self.cap)
        return wait


def _after_failure(item: _Item, error: Exception, backoff: _Backoff) -> float | None:
    """Seconds to wait before sending ``item`` again after ``error``; None when it is done with:
    refused for good (it is dropped) or given up after :data:`MAX_FAILURES` tries. Called in the
    ``except`` block, so a bug's traceback is logged."""
    match error:
        case RetryAfter():
            wait = _seconds(error.retry_after)
        case BadRequest():  # PTB makes it a NetworkError, but it never succeeds
            log.warning("outbox: %s for chat %s refused, dropped: %r", item.kind, item.chat_id, error)
            return None
        case NetworkError():  # timeouts included: try again, waiting longer each time
            wait = backoff.longer()
        case TelegramError() | Undeliverable():  # blocked, chat gone, bad request…
            log.warning("outbox: %s for chat %s dropped: %r", item.kind, item.chat_id, error)
            return None
        case TryLater():
            backoff.failures += 1
            if backoff.failures >= MAX_FAILURES:
                log.warning("outbox: %s given up after %s tries: %s", item.kind, backoff.failures, error)
                return None
            wait = backoff.longer()
            log.warning("outbox: %s: %s (try %s), again in %.0f s", item.kind, error, backoff.failures, wait)
            return wait
        case _:  # a bug: a few more tries, then it is given up
            backoff.failures += 1
            log.exception("outbox: %s for chat %s failed (%s×)", item.kind, item.chat_id, backoff.failures)
            if backoff.failures >= MAX_FAILURES:
                return None
            wait = backoff.longer()
    log.info("outbox: %s for chat %s: %r, retry in %.1f s", item.kind, item.chat_id, error, wait)
    return wait
