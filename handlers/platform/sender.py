"""Edits of one Telegram message, sent one at a time, newest state only.

Handlers compose a message's new look with the table lock held (so it shows what was
committed) and hand the edit to :class:`LatestWins`; the request leaves after the lock
is released, so the table's next press does not queue behind the rate limiter. Per
message at most one request is in flight; an edit queued while an older one is still
unsent replaces it, so an older state is never sent after a newer one.

Under load most of an edit's life is spent waiting for the rate limiter (Telegram
allows about 30 requests a second in all). When a newer look of the message arrives
meanwhile, the waiting edit keeps its place in the limiter's queue but, when its turn
comes, the newest look is sent in its stead: one request, the freshest state, and a busy
message (a waiting seat whose caption changes with every play) is never starved by its
own updates. :class:`TrackingLimiter` wraps the bot's rate limiter to make that swap: the
newest look takes the older one's place (:class:`~handlers.platform.scheduler.Turn`), so it is
counted once in the token's second and the group's minute, and a 429 on it waits and is sent
again like any request's.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Callable, Coroutine, Hashable
from dataclasses import dataclass, field
from typing import Any

from telegram.ext import BaseRateLimiter

from common import metrics
from handlers.platform.scheduler import GIVEN_TURN, Turn, Unsent

log = logging.getLogger(__name__)

Send = Callable[[], Coroutine[Any, Any, None]]


@dataclass
class Flight:
    """How far one edit got, for :class:`TrackingLimiter` and the sender to agree on."""

    turn: Turn | None = None  # an older look's place, given by the limiter: no second wait
    turn_since: float | None = None  # when that older look began waiting for it (perf_counter)
    superseded: bool = False  # a newer look arrived: this one must not be sent
    left: bool = False  # the request went out: too late to replace
    waiting_since: float | None = None  # entered the rate limiter's queue (perf_counter)


class Withdrawn(Unsent):
    """An edit was replaced by a newer look before its request left.

    ``turn`` is set when it had already been let through the rate limiter (having queued there
    since ``turn_since``): the newer look is sent at once in its place.
    """

    def __init__(self, turn_since: float | None, turn: Turn | None = None) -> None:
        super().__init__("superseded by a newer look")
        self.turn_since = turn_since
        self.turn = turn


FLIGHT: contextvars.ContextVar[Flight | None] = contextvars.ContextVar("sender_flight", default=None)
"""The edit the current task is sending, for :class:`TrackingLimiter` to consult."""


class DelegatingLimiter(BaseRateLimiter[int]):
    """A rate limiter that wraps another and, unless a subclass says otherwise, defers to it."""

    def __init__(self, inner: BaseRateLimiter[int]) -> None:
        self.inner = inner

    async def initialize(self) -> None:
        await self.inner.initialize()

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        return await self.inner.process_request(callback, args, kwargs, endpoint, data, rate_limit_args)


class TrackingLimiter(DelegatingLimiter):
    """The bot's rate limiter, letting a newer look of a message take an older one's turn."""

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        flight = FLIGHT.get()
        if flight is None:
            return await self.inner.process_request(callback, args, kwargs, endpoint, data, rate_limit_args)
        if flight.left:  # an earlier request of this edit went out: the rest follow as usual
            return await self.inner.process_request(callback, args, kwargs, endpoint, data, rate_limit_args)
        if flight.superseded:
            raise Withdrawn(flight.turn_since, flight.turn)
        if flight.turn is not None:  # in the place an older look was given: it goes at once
            flight.left = True
            given = GIVEN_TURN.set(flight.turn)
            try:
                return await super().process_request(callback, args, kwargs, endpoint, data, rate_limit_args)
            finally:
                GIVEN_TURN.reset(given)

        async def leave(*call_args: Any, **call_kwargs: Any) -> Any:
            if flight.superseded:
                raise Withdrawn(flight.waiting_since)
            flight.left = True
            return await callback(*call_args, **call_kwargs)

        flight.waiting_since = time.perf_counter()
        return await self.inner.process_request(leave, args, kwargs, endpoint, data, rate_limit_args)


@dataclass
class _Mailbox:
    """The newest unsent edit of one message and everyone waiting for it (or a newer one)."""

    send: Send | None = None
    context: contextvars.Context | None = None
    waiters: list[asyncio.Future[None]] = field(default_factory=list)
    sending: Flight | None = None  # the edit under way
    task: asyncio.Task[None] | None = None  # and its task
    submitted: float = 0.0  # when ``send`` was queued (perf_counter)


class LatestWins:
    """Per-message senders keyed by e.g. ``(chat_id, message_id)``."""

    def __init__(self) -> None:
        self._boxes: dict[Hashable, _Mailbox] = {}
        self._workers: set[asyncio.Task[None]] = set()
        self._closed = False

    def submit(self, key: Hashable, send: Send) -> asyncio.Future[None]:
        """Queue ``send`` as the newest state of ``key``.

        The future resolves when this edit, or one that replaced it, has been sent (or
        failed and was logged). ``send`` runs in the submitter's context variables.
        """
        if self._closed:
            return sent()
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        box = self._boxes.get(key)
        if box is None:
            box = self._boxes[key] = _Mailbox()
            worker = asyncio.create_task(self._drain(key, box))
            self._workers.add(worker)
            worker.add_done_callback(self._workers.discard)
        elif box.sending is not None and not box.sending.left:
            box.sending.superseded = True  # sent in its stead when its turn comes
        if box.send is not None:  # queued behind the one under way, never started
            metrics.edit_superseded()
        metrics.edit_queued()
        box.send, box.context = send, contextvars.copy_context()
        box.submitted = time.perf_counter()
        box.waiters.append(done)
        return done

    def waiting(self, key: Hashable) -> bool:
        """Whether an edit of ``key`` is queued or waiting for the rate limiter (not yet sent)."""
        box = self._boxes.get(key)
        if box is None:
            return False
        return box.send is not None or (box.sending is not None and not box.sending.left)

    async def _drain(self, key: Hashable, box: _Mailbox) -> None:
        turn: Turn | None = None
        turn_since: float | None = None
        try:
            while box.send is not None:
                send, context, waiters = box.send, box.context, box.waiters
                box.send, box.context, box.waiters = None, None, []
                assert context is not None
                if turn_since is not None:
                    turn_since = max(turn_since, box.submitted)
                box.sending = flight = Flight(turn=turn, turn_since=turn_since)
                context.run(FLIGHT.set, flight)
                task = box.task = asyncio.create_task(send(), context=context)
                await asyncio.wait([task])
                box.sending = box.task = None
                error = None if task.cancelled() else task.exception()
                if isinstance(error, Withdrawn):
                    metrics.edit_superseded()
                    turn, turn_since = error.turn, error.turn_since
                    box.waiters[:0] = waiters  # the newer look answers them
                    continue
                if turn is not None:
                    turn.end()  # unused when the look failed before its request: idempotent
                turn = turn_since = None
                metrics.edit_done(failed=error is not None or task.cancelled())
                if error is not None:
                    log.error("edit of message %s failed", key, exc_info=error)
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_result(None)
        finally:
            if turn is not None:
                turn.end()  # the bot is stopping: nobody will send in it
            del self._boxes[key]

    async def close(self) -> None:
        """Stop sending: the bot is stopping. Queued edits are dropped and those under way
        cancelled — each shows state that is stored, and a restarted bot shows every hand
        afresh. Left to run, they waited in the scheduler until the HTTP session had closed
        and failed, each with a traceback (18 at the end of a 300-table run)."""
        self._closed = True
        for box in self._boxes.values():
            box.send = None
            for waiter in box.waiters:
                if not waiter.done():
                    waiter.set_result(None)
            box.waiters = []
            if box.task is not None:
                box.task.cancel()
        await self.join()

    async def join(self) -> None:
        """Wait until every queued edit has been sent (shutdown, tests)."""
        while self._workers:
            await asyncio.gather(*self._workers, return_exceptions=True)


def sent() -> asyncio.Future[None]:
    """A delivery that is already complete: nothing needed sending."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    done.set_result(None)
    return done
