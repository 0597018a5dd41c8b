"""One chat never stalls another: per-chat replies, per-chat update admission, quota-free reads.

Telegram takes about 20 messages a minute in a group, and the bot's rate limiter makes a
request wait for its group's quota. A handler that awaited its reply there kept one of the
application's concurrent-update slots the whole time: 300 ``/help`` in one group held every
slot for minutes, so no other chat was answered and shutdown waited behind them (issue 8,
finding 4). Three parts keep chats apart:

* :class:`ChatReplies`: a handler hands its reply to its chat's queue and returns; one task
  per chat sends them in order, within the replies' share of the group's minute (counted in
  the chat's :class:`ChatBudget` too, for the announcements to see). A reply equal to
  one queued or sent in the last ``coalesce`` seconds is dropped (a flood of ``/help`` gets
  one answer); beyond ``backlog`` queued replies new ones are dropped, and the chat gets one
  short notice per ``notice_window``.
* :class:`ChatFairProcessor`: at most ``per_chat`` updates of one chat are handled at once,
  the rest of that chat's updates wait (without taking a slot) or, beyond ``backlog``, are
  dropped. Whatever a handler still awaits, a flooded chat holds at most ``per_chat`` slots.
* :class:`MessagesOnlyLimiter`: look-ups such as ``getChatMember`` post nothing in the chat,
  so they skip the group's message quota (an admin check never waits behind a flood).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Any

from telegram import MaybeInaccessibleMessage, Message, Update
from telegram.ext import BaseUpdateProcessor

from common import metrics
from handlers.platform.scheduler import Priority, at_priority
from handlers.platform.sender import DelegatingLimiter

log = logging.getLogger(__name__)

GROUP_LIMIT = 20  # messages per minute Telegram accepts in a group
WINDOW = 60.0


class ChatBudget:
    """Counts the messages sent to each group in the last minute (edits are not messages)."""

    def __init__(self, limit: int = GROUP_LIMIT - 2, window: float = WINDOW) -> None:
        self.limit = limit
        self.window = window
        self._sent: dict[int, deque[float]] = {}

    def used(self, chat_id: int) -> int:
        sent = self._sent.setdefault(chat_id, deque())
        while sent and time.monotonic() - sent[0] > self.window:
            sent.popleft()
        return len(sent)

    def has_room(self, chat_id: int, reserve: int = 0) -> bool:
        return self.used(chat_id) + reserve < self.limit

    def delay(self, chat_id: int, reserve: int = 0) -> float:
        """Seconds until one more message fits with ``reserve`` kept free (0: now); a negative
        ``reserve`` reaches above the budget's limit (:data:`DECISION_REACH`)."""
        used = self.used(chat_id)
        if used + reserve < self.limit or used == 0:
            return 0.0
        # the send that must leave the window first is the (used + reserve - limit)-th oldest
        oldest = self._sent[chat_id][max(0, min(used - 1, used + reserve - self.limit))]
        return max(0.05, self.window - (time.monotonic() - oldest))

    def note(self, chat_id: int) -> None:
        """Count one message sent now."""
        self.used(chat_id)
        self._sent[chat_id].append(time.monotonic())

    async def acquire(self, chat_id: int, reserve: int = 0) -> None:
        """Wait until one more message fits in the window (``reserve`` kept free), then count it."""
        while (wait := self.delay(chat_id, reserve)) > 0:
            await asyncio.sleep(wait)
        self.note(chat_id)


DECISION_REACH = -2
"""The ``reserve`` of a decision (the draw, a round's pairings, a /result decision): it may use the
two messages a minute the budget keeps above its limit, as the scheduler's
``Priority.DECISION`` may (issue 40: the draw is never held behind a rush's replies)."""


# ---------------------------------------------------------------- replies


@dataclass
class _Reply:
    text: str
    send: Callable[[], Awaitable[None]]
    limited: bool = True  # within the replies' share of a group's minute (the lobby, the notice: not)
    coalesce: bool = True


@dataclass
class _Chat:
    queue: deque[_Reply] = field(default_factory=deque)
    recent: dict[str, float] = field(default_factory=dict)  # reply text → when it was queued
    noticed: float = float("-inf")  # when the last "too many" notice was queued
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    worker: asyncio.Task[None] | None = None


REPLY_RESERVE = 3
"""Group messages a minute that command replies leave to what the group is owed (results, the
board, announcements): replies get at most 15 of the budget's 18, counting their own messages
only. Announcements do not count against replies: a person's answer goes ahead of a queue of
announcements (the scheduler sends it first), and a flood of commands still leaves the
announcements a share of every minute. When announcements were counted, a reply waited until
the group's minute held fewer than 15 of them, which under a queue of them meant until it was
empty: ``/bracket`` came a minute late after 32 matches were settled (issue 32)."""


class ChatReplies:
    """Replies to commands, sent by one task per chat, so no handler waits for a chat's quota."""

    def __init__(
        self,
        budget: ChatBudget,
        notice: Callable[[str], str],
        *,
        backlog: int = 3,
        coalesce: float = 10.0,
        notice_window: float = WINDOW,
    ) -> None:
        self.budget = budget
        self.notice = notice  # locale → the localized "too many commands" text
        self.backlog = backlog
        self.coalesce = coalesce
        self.notice_window = notice_window
        self._own = ChatBudget(limit=budget.limit - REPLY_RESERVE, window=budget.window)  # replies alone
        self._chats: dict[int, _Chat] = {}
        self._closed = False

    def reply(self, message: Message, text: str, locale: str, **kwargs: Any) -> bool:
        """Queue ``message.reply_text(text, **kwargs)``; False if coalesced or dropped."""

        async def send() -> None:
            await message.reply_text(text, **kwargs)

        return self.send(message, text, send, locale)

    def send(
        self,
        message: MaybeInaccessibleMessage,
        text: str,
        send: Callable[[], Awaitable[None]],
        locale: str,
        *,
        owed: bool = False,
        repeat: bool = False,
        keep: bool = False,
        spare: bool = False,
    ) -> bool:
        """Queue ``send``, which answers ``message`` with ``text``; False if coalesced or dropped.

        ``owed`` (the lobby of a table just created) is never coalesced nor dropped, and not held
        to the replies' share. ``repeat`` (an organiser's /result, refused twice in the same
        words) is not coalesced with an equal answer, yet stays within the backlog and the
        replies' share, as other replies do. ``keep`` (a partner's invitation: their 接受 button)
        is never dropped nor counted in the backlog, yet waits for the replies' share: six
        ``/signup @partner`` typed at once lost an invitation to the backlog of three, and its
        partner had no button to press (issue 40). ``spare`` (an acknowledgement another message
        also shows: a sign-up, which the card lists) is dropped while other replies wait: in a
        rush the group's minute goes to what only a reply can say.
        """
        chat_id = message.chat.id
        chat = self._chats.setdefault(chat_id, _Chat())
        now = time.monotonic()
        if spare and chat.queue:
            return False
        if not owed and not repeat and self._said_lately(chat, text, now):
            return False
        if not owed and not keep and sum(reply.coalesce for reply in chat.queue) >= self.backlog:
            self._too_many(message, chat, locale, now)
            return False
        chat.recent[text] = now
        chat.queue.append(_Reply(text, send, limited=not owed, coalesce=not (owed or keep)))
        self._kick(chat_id, chat)
        return True

    def _said_lately(self, chat: _Chat, text: str, now: float) -> bool:
        """The same answer went out within the coalescing window, or still waits for the quota."""
        if now - chat.recent.get(text, float("-inf")) < self.coalesce:
            return True
        return any(reply.text == text for reply in chat.queue)

    def _too_many(self, message: MaybeInaccessibleMessage, chat: _Chat, locale: str, now: float) -> None:
        """At most one notice per window: it goes first, beyond the replies' share."""
        if now - chat.noticed < self.notice_window:
            return
        chat.noticed = now
        text = self.notice(locale)

        async def send() -> None:
            await message.get_bot().send_message(message.chat.id, text)

        chat.queue.appendleft(_Reply(text, send, limited=False, coalesce=False))
        self._kick(message.chat.id, chat)

    def _kick(self, chat_id: int, chat: _Chat) -> None:
        chat.wake.set()
        if chat.worker is None or chat.worker.done():
            chat.worker = asyncio.create_task(
                self._drain(chat_id, chat),
                name=f"replies:{chat_id}",
                context=contextvars.Context(),  # the chat's, not the priority of whoever came first
            )

    async def _drain(self, chat_id: int, chat: _Chat) -> None:
        """Send the chat's replies in order, at a reply's priority (a person waits for each); one
        beyond the replies' share (the notice, a lobby) may overtake replies waiting for it."""
        while chat.queue and not self._closed:
            ready = next((reply for reply in chat.queue if self._wait(chat_id, reply) == 0), None)
            if ready is None:
                chat.wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(chat.wake.wait(), min(self._wait(chat_id, r) for r in chat.queue))
                continue
            chat.queue.remove(ready)
            if chat_id < 0:
                self.budget.note(chat_id)
                self._own.note(chat_id)
            try:
                with at_priority(Priority.REPLY):
                    await ready.send()
            except Exception:
                log.exception("reply %r in chat %s failed", ready.text[:40], chat_id)
        self._forget(chat_id, chat)

    def _wait(self, chat_id: int, reply: _Reply) -> float:
        """Seconds until the reply fits the replies' share of the group's minute; private chats
        have none."""
        return self._own.delay(chat_id) if chat_id < 0 and reply.limited else 0.0

    def _forget(self, chat_id: int, chat: _Chat) -> None:
        now = time.monotonic()
        chat.recent = {text: at for text, at in chat.recent.items() if now - at < self.coalesce}
        if not chat.recent and now - chat.noticed >= self.notice_window:
            self._chats.pop(chat_id, None)

    def pending(self, chat_id: int) -> int:
        """Replies queued for the chat (tests, the benchmark)."""
        chat = self._chats.get(chat_id)
        return len(chat.queue) if chat is not None else 0

    async def close(self) -> None:
        """Shutdown: replies not yet sent are dropped (a command's answer is not owed).

        ``_closed`` stops a worker whose cancellation Python 3.11's ``wait_for`` swallowed (its
        wake-up, a reply queued just before, came in the same turn): it then waited out the
        group's minute, twice, and shutdown with it."""
        self._closed = True
        workers = [chat.worker for chat in self._chats.values() if chat.worker is not None]
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        self._chats.clear()


# ---------------------------------------------------------------- update admission


def update_chat(update: object) -> int | None:
    """The chat an update belongs to (``None``: not tied to one chat)."""
    if isinstance(update, Update) and update.effective_chat is not None:
        return update.effective_chat.id
    if isinstance(update, Update) and update.effective_user is not None:
        return update.effective_user.id
    return None


@dataclass
class _Gate:
    running: asyncio.Semaphore
    active: int = 0  # updates of the chat waiting or running


PER_CHAT = 16
"""Updates of one chat handled at once. A sign-up rush is fifty presses on one card in a second:
with 4 at a time the last press waited 1.4 s for its answer (they queue for the contest's lock,
but their reads before it and their answers after it overlap); with 16, 0.74 s (bench/group.py).
Replies and edits never hold a slot while they wait for the group's budget, so 16 of 256
slots is still a flood kept to itself."""

BACKLOG = 200
"""Updates of one chat waiting beyond those handled: a rush of a hundred presses is answered,
not dropped; a flood past it is dropped (and bounds what shutdown waits for)."""


_RECEIVED: ContextVar[float | None] = ContextVar("update_received", default=None)


def mark_received(at: float | None = None) -> Token[float | None]:
    """Stamp the current task's update as received ``at`` (now by default)."""
    return _RECEIVED.set(time.monotonic() if at is None else at)


def received_at() -> float:
    """When the update being handled reached the bot (``time.monotonic()``), before it waited
    for its chat's turn or a slot: what the user did is judged by when they did it, not by
    when the bot got round to it. Outside an update: now."""
    received = _RECEIVED.get()
    return time.monotonic() if received is None else received


class ChatFairProcessor(BaseUpdateProcessor):
    """Concurrent updates, at most ``per_chat`` of one chat at once and ``total`` in all.

    PTB's own semaphore (taken before :meth:`do_process_update`) is set far above
    ``total``: an update waiting for its chat's turn must not hold one of the ``total``
    slots, which it takes only when it may run. A chat with ``backlog`` updates waiting
    has further ones dropped (logged), which bounds what shutdown waits for.
    """

    def __init__(self, total: int = 256, *, per_chat: int = PER_CHAT, backlog: int = BACKLOG) -> None:
        super().__init__(max_concurrent_updates=1 << 20)
        self.per_chat = per_chat
        self.backlog = backlog
        self._slots = asyncio.BoundedSemaphore(total)
        self._gates: dict[int, _Gate] = {}
        self.dropped = 0

    async def initialize(self) -> None:
        """Nothing to open."""

    async def shutdown(self) -> None:
        """Nothing to close: the application runs or drops what is still queued."""

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        mark_received()  # in this update's own task, where its handler's coroutine runs
        press = None
        if isinstance(update, Update) and update.callback_query is not None:
            press = metrics.press_received(update.callback_query.data)
        try:
            await self._process(update, coroutine, press)
        finally:
            metrics.press_ended(press)

    async def _process(self, update: object, coroutine: Awaitable[Any], press: metrics.Press | None) -> None:
        chat_id = update_chat(update)
        if chat_id is None:
            async with self._slots:
                await coroutine
            return
        gate = self._gates.get(chat_id)
        if gate is None:
            gate = self._gates[chat_id] = _Gate(asyncio.Semaphore(self.per_chat))
        if gate.active - self.per_chat >= self.backlog:
            self.dropped += 1
            if press is not None:
                press.dropped = True
            log.warning("chat %s floods: an update was dropped", chat_id)
            if inspect.iscoroutine(coroutine):
                coroutine.close()
            return
        gate.active += 1
        try:
            async with gate.running, self._slots:
                await coroutine
        finally:
            gate.active -= 1
            if gate.active == 0:
                self._gates.pop(chat_id, None)


# ---------------------------------------------------------------- reads skip the chat's quota


READ_ONLY = frozenset({"getChat", "getChatMember", "getChatAdministrators", "getChatMemberCount"})
"""Bot API methods that post nothing in the chat they name: Telegram's per-group limit is
on messages, so these need not wait for the group's quota."""


class MessagesOnlyLimiter(DelegatingLimiter):
    """The bot's rate limiter, except that look-ups in a chat do not count as its messages."""

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        if endpoint in READ_ONLY:  # the limiter decides by chat_id only; the request keeps it
            data = {key: value for key, value in data.items() if key != "chat_id"}
        return await self.inner.process_request(callback, args, kwargs, endpoint, data, rate_limit_args)
