"""One scheduler for every request the bot token sends, by value first and within Telegram's limits.

Telegram takes about 30 requests a second from one token, about 20 messages a minute into one
group, and about one message a second into one chat (short bursts pass). PTB's
``AIORateLimiter`` spends those budgets in arrival order: in a sign-up rush fifty card edits
queued ahead of the draw's announcement, and the presses behind them went unanswered for
minutes (issue 17). Here every request waits in one queue ordered by :class:`Priority`, and
the first request whose limits allow it goes; so

* a button's answer (no group budget, only the token's) never waits behind a group's queue;
* the hand a player is waiting for goes before boards, lobbies and cards (issue 23); a look
  nobody waits for (a waiting seat's caption after others' moves, a selection 提示's toast
  already named) goes last, and under load is replaced by the seat's next look unsent;
* what an organiser's command posts for the whole group (the draw, a round's pairings, a
  decision) goes before replies and has the last slot of the group's minute to itself
  (:data:`GROUP_SHARE`, issue 40);
* a reply to a person's command goes before the group's other queued announcements, and they
  leave it room: whoever asks is answered within seconds (issue 32);
* what a group is owed (results, the draw, deadlines) never waits behind a refresh: a
  refresh may use only part of a group's minute, so an announcement always finds room;
* chats stay apart: a request held by its own group's budget lets other chats' requests pass.

The priority is the caller's: :func:`at_priority` sets it for a block (the outbox's workers,
the board, the refreshers); otherwise :func:`default_priority` reads it off the request.

A 429 (``RetryAfter``) holds that chat (or the whole token, for a request without a chat)
for the time Telegram asks, and the request waits again at its priority (up to
:data:`RETRIES` times); a private chat is then paced like a group for a while
(:data:`PACED_AFTER_429`), so what the hold kept back does not meet the next 429 together.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import heapq
import itertools
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from enum import IntEnum
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from common import metrics

log = logging.getLogger(__name__)


class Priority(IntEnum):
    """What a request is worth to the people waiting for it; lower goes first."""

    ANSWER = 0  # answerCallbackQuery: the spinner on the presser's phone (lost after ~15 s)
    HAND = 1  # a player's own hand after their press, the next player's turn: private chats
    DECISION = 2  # an organiser's command the whole group waits for: the draw, pairings, /result
    REPLY = 3  # an answer to a person's command: someone is waiting for it, a queued list is not
    OWED = 4  # the rest of what a group is owed: details, reminders, deal results (the outbox)
    REFRESH = 5  # a card, board, lobby or standings brought up to date: derived from state
    GLANCE = 6  # a private look nobody waits for (others' moves, a selection a toast named)
    WATCH = 7  # a spectator's look (观战): nobody at the table waits for it, so it goes last


PRIORITY: contextvars.ContextVar[Priority | None] = contextvars.ContextVar("request_priority", default=None)


class Turn:
    """A message's place in the token's second and its group's minute, from the moment the
    limiter let it go until a second after its answer. It can change hands: a request let go
    that chooses not to send after all (a newer look of the same message replaces it,
    :class:`Unsent`) hands its place to that look, which goes at once in it
    (:data:`GIVEN_TURN`), waits again only after a 429, and ends the place when its own answer
    comes back. (Ended at the withdrawal instead, the place let another message into a second
    the newer look was still using: the token's second is counted until the answer.)"""

    def __init__(self, end: Callable[[], None]) -> None:
        self._end: Callable[[], None] | None = end

    def end(self) -> None:
        """Its request was answered, or none will use it: from now it holds a second more."""
        if self._end is not None:
            end, self._end = self._end, None
            end()


class Unsent(Exception):
    """Raised by a request's callback that, let go at last, chose not to send: ``turn`` is its
    place, set by the limiter, for whoever sends in its stead (or to :meth:`Turn.end`)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.turn: Turn | None = None


GIVEN_TURN: contextvars.ContextVar[Turn | None] = contextvars.ContextVar("given_turn", default=None)
"""A place a request made in this context takes instead of waiting for one (its first try)."""


@contextlib.contextmanager
def at_priority(priority: Priority) -> Iterator[None]:
    """Requests made in this block (and in tasks it creates) wait at ``priority``."""
    token = PRIORITY.set(priority)
    try:
        yield
    finally:
        PRIORITY.reset(token)


GROUP_LIMIT = 20  # messages a minute Telegram takes from a bot into one group
MARGIN = 0.25
"""Seconds of slack kept on every window and bucket. A request is counted here when it leaves,
and by Telegram when it arrives: two requests that leave exactly a window apart can arrive a
little closer (one waited longer on the network or for the event loop), and Telegram then
answers 429. The slack costs under half a percent of a group's minute."""
GROUP_WINDOW = 60.0 + MARGIN
GROUP_SHARE = {
    Priority.ANSWER: GROUP_LIMIT,
    Priority.HAND: GROUP_LIMIT,
    Priority.DECISION: GROUP_LIMIT,
    Priority.REPLY: GROUP_LIMIT - 1,
    Priority.OWED: GROUP_LIMIT - 2,
    Priority.REFRESH: GROUP_LIMIT - 4,
    Priority.GLANCE: GROUP_LIMIT - 4,
    Priority.WATCH: GROUP_LIMIT - 4,
}
"""How much of a group's minute a request of each priority may use. The last slot is a
decision's alone: what an organiser's command posts for the whole group (the draw, a round's
pairings, a /result decision) never waits behind acknowledgements. When replies could use
the whole minute, a sign-up rush's invitations and their edits filled it and the draw came
45 s after ``/draw`` (issue 40). What is left above an announcement's share is for replies to
people, so one who asks while a queue of announcements fills the group's minute is answered
at once, not when a slot frees (after a burst, most of a minute later); what is left above a
refresh's is for announcements too. The chat's reply queue (``chats.ChatReplies``) holds
replies to a share of their own: a flood of commands leaves the announcements room. Edits
count: Telegram's 20 a minute are shared by sending and editing (tdlib/td#2592)."""

AGED_SHARE = GROUP_LIMIT - 3
"""What a refresh that has waited :data:`AGING` seconds may use: between a refresh's share and an
announcement's, so a busy group's card still changes within a minute or so, an announcement
still finds a slot above it, and replies keep theirs."""

AGING = 15.0

TOKEN_LIMIT = 30
"""Messages (sends and edits) a second from one token. Answers to buttons and look-ups are not
messages and do not wait for them: counted here, a burst of taps on stale keyboards spent the
token's second on answers, so the edits that would have refreshed those keyboards never went
and the taps went on (a four-human match stalled until a turn clock fired).

A message holds its place in the token's second from the moment it is let go until a second
after its answer came back: Telegram counts it when it arrives, which is somewhere in between.
Counted from the moment it was let go, as the groups' windows are, thirty let go at once waited
for the bot's 16 connections and arrived tens of milliseconds apart, and the next thirty, let go
exactly a second later, arrived less than a second after some of them: 429s (a 300-edit burst:
55; Mini App tables, bench/miniapp_load.py: 1,300–2,000 a run, and hand edits failed after
their retries). A fixed margin on the second had to be 0.1 s (a tenth of the token's rate) to
stop them in that burst (0.05 s: 21), and the spread grows with the event loop's load; the
answer's return bounds the arrival whatever the load, and costs one round trip a second."""
WATCH_SHARE = 2 / 3
"""Of the token's second, the part a spectator's look may use (观战): the rest is always free for
the players. Lowest priority alone orders a queue, but a spectator's edit sent while nothing
else waited took a slot of the second that a player's press made a moment later then waited
for (150 tables with 3 spectators each: a press's edit p99 0.64 s → 1.19 s, bench/load.py)."""
CHAT_BURST = 3
"""Messages one group takes at once (Telegram: about one a second, short bursts pass). Private
chats are not paced here: a player's hand edits follow their own presses, and holding them to
one a second made a four-human match crawl (issue 23 measures the token as a whole)."""
CHAT_RATE = 1.0  # messages a second into one chat, after a burst
PACED_AFTER_429 = 60.0
"""Seconds a private chat is paced like a group once Telegram answered it 429: the requests
the hold kept back then leave one a second instead of all at once, which met the next 429
together and, three refusals on, were dropped (a hand edit lost; found by a random walk of
users pressing faster than any person)."""
RETRIES = 3
SLOW = 5.0  # seconds of waiting worth a log line

READS = frozenset({"getChat", "getChatMember", "getChatAdministrators", "getChatMemberCount", "getFile"})


def counts_in_chat(endpoint: str) -> bool:
    """Whether the request puts or changes a message in its chat (Telegram's chat limits)."""
    if endpoint in READS or endpoint == "sendChatAction":
        return False
    return endpoint.startswith(("send", "edit", "copy", "forward"))


def priority_limiter(limiter: BaseRateLimiter[Any] | None) -> PriorityLimiter | None:
    """The :class:`PriorityLimiter` inside a bot's limiter, through the wrappers that keep an
    ``inner`` one (the sender's and the chats' limiters); None when there is none."""
    while limiter is not None and not isinstance(limiter, PriorityLimiter):
        limiter = getattr(limiter, "inner", None)
    return limiter


def default_priority(endpoint: str, chat_id: int | None) -> Priority:
    """A request's priority when its caller set none."""
    if endpoint == "answerCallbackQuery" or chat_id is None or endpoint in READS:
        return Priority.ANSWER
    if chat_id > 0:
        return Priority.HAND
    return Priority.REFRESH if endpoint.startswith("edit") else Priority.REPLY


def _retry_after(error: RetryAfter) -> timedelta:
    """The wait Telegram asked for (read as PTB's own limiter does, without its deprecation)."""
    wait = getattr(error, "_retry_after", None)
    if isinstance(wait, timedelta):
        return wait
    legacy = error.retry_after
    return legacy if isinstance(legacy, timedelta) else timedelta(seconds=legacy)


def _chat_of(data: dict[str, Any]) -> int | None:
    with contextlib.suppress(KeyError, TypeError, ValueError):
        return int(data["chat_id"])
    return None


@dataclass(order=True)
class _Waiter:
    priority: int
    seq: int
    chat_id: int | None = field(compare=False)
    counted: bool = field(compare=False)
    ready: asyncio.Future[None] = field(compare=False)
    asked: float = field(compare=False, default=0.0)
    not_before: float = field(compare=False, default=0.0)  # parked until then (see _release)


class _Window:
    """Moments of the requests sent within the last ``span`` seconds."""

    __slots__ = ("sent", "span")

    def __init__(self, span: float) -> None:
        self.span = span
        self.sent: deque[float] = deque()

    def used(self, now: float) -> int:
        while self.sent and now - self.sent[0] >= self.span:
            self.sent.popleft()
        return len(self.sent)

    def wait(self, now: float, limit: int) -> float:
        """Seconds until fewer than ``limit`` are in the window (0: now)."""
        used = self.used(now)
        if used < limit:
            return 0.0
        return self.sent[used - limit] + self.span - now


class _Bucket:
    """About one message a second into a chat, with short bursts: a bucket of ``size`` tokens
    refilled at ``rate`` a second (as Telegram's 429s behave, and the emulator's).

    A message may go only if the bucket would hold a token even had it arrived :data:`MARGIN`
    seconds early: the refill since the last message is counted less the margin. A burst
    into a full bucket is not slowed, and the steady pace stays one a second."""

    __slots__ = ("last", "rate", "size", "tokens")

    def __init__(self, size: int, rate: float, now: float) -> None:
        self.size, self.rate = size, rate
        self.tokens, self.last = float(size), now  # the tokens left by the last message, and when

    def _held(self, elapsed: float) -> float:
        return min(float(self.size), self.tokens + max(elapsed, 0.0) * self.rate)

    def wait(self, now: float) -> float:
        """Seconds until a message may go (0: now)."""
        if self._held(now - self.last - MARGIN) >= 1:
            return 0.0
        return (1 - self.tokens) / self.rate + MARGIN - (now - self.last)

    def take(self, now: float) -> None:
        self.tokens = self._held(now - self.last) - 1
        self.last = now

    def full(self, now: float) -> bool:
        return self._held(now - self.last) >= self.size


@dataclass
class _Chat:
    second: _Bucket
    minute: _Window = field(default_factory=lambda: _Window(GROUP_WINDOW))
    held_until: float = 0.0  # a 429 for this chat
    paced_until: float = 0.0  # a private chat paced by ``second`` after a 429 (PACED_AFTER_429)

    def paced(self, chat_id: int, now: float) -> bool:
        return chat_id < 0 or self.paced_until > now


class PriorityLimiter(BaseRateLimiter[int]):
    """PTB's rate limiter interface over one priority queue (see the module docstring)."""

    def __init__(
        self,
        *,
        token_limit: int = TOKEN_LIMIT,
        group_limit: int = GROUP_LIMIT,
        chat_burst: int = CHAT_BURST,
        retries: int = RETRIES,
        aging: float = AGING,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.token_limit = token_limit
        self.watch_limit = max(1, int(token_limit * WATCH_SHARE))  # see WATCH_SHARE
        self.shares = {p: max(1, share - (GROUP_LIMIT - group_limit)) for p, share in GROUP_SHARE.items()}
        self.aged_share = max(1, AGED_SHARE - (GROUP_LIMIT - group_limit))
        self.chat_burst = chat_burst
        self.retries = retries
        self.aging = aging
        self.clock = clock
        self._token = _Window(1.0)  # when the answers to messages came back (TOKEN_LIMIT)
        self._in_flight = 0  # messages let go whose answers have not come back
        self._held_until = 0.0  # a 429 for the whole token
        self._chats: dict[int, _Chat] = {}
        self._queue: list[_Waiter] = []  # messages to be looked at, most valuable first
        self._parked: list[tuple[float, int, _Waiter]] = []  # messages no limit lets go before then
        self._free: list[_Waiter] = []  # requests that are not messages (answers, look-ups)
        self._seq = itertools.count()
        self._wake: asyncio.Event | None = None
        self._dispatcher: asyncio.Task[None] | None = None
        self._closed = False  # stops a dispatcher whose cancellation wait_for swallowed (3.11)
        self.waited: dict[Priority, float] = dict.fromkeys(Priority, 0.0)  # seconds waited, by priority
        self.retried = 0  # 429s answered
        self.journal: Callable[[int], Awaitable[None]] | None = None
        """Awaited with a group's id before each message into it leaves (``app.minutes.GroupMinutes``
        stores it, so the next process counts it)."""
        self.group_window = GROUP_WINDOW  # what a new process reads back of the last one's sends

    async def initialize(self) -> None:
        """Nothing to open: the dispatcher starts with the first request that must wait."""

    async def shutdown(self) -> None:
        self._closed = True
        if self._dispatcher is not None:
            self._dispatcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._dispatcher
            self._dispatcher = None
        for waiter in self._waiting():
            if not waiter.ready.done():
                waiter.ready.cancel()
        self._queue.clear()
        self._parked.clear()
        self._free.clear()
        self._closed = False  # a request after shutdown is served as before it

    def wake(self) -> None:
        """Look at the queue again now (a test moved the clock)."""
        if self._queue or self._parked or self._free:
            self._kick()

    def promote(self, chat_id: int, priority: Priority) -> None:
        """Requests of ``chat_id`` waiting below ``priority`` now wait at it: an announcement
        that must follow them (a deal's result after its board's last edit) would otherwise
        wait behind a refresh's share of the group's minute."""
        changed = False
        for waiter in self._waiting():
            if waiter.chat_id == chat_id and waiter.priority > priority:
                waiter.priority = priority
                waiter.not_before = 0.0  # its limits are another priority's now: look again
                changed = True
        if changed:
            self._queue += [waiter for _, _, waiter in self._parked if waiter.not_before == 0.0]
            self._parked = [entry for entry in self._parked if entry[2].not_before != 0.0]
            heapq.heapify(self._queue)
            heapq.heapify(self._parked)
            self._kick()

    def remember(self, sends: Iterable[tuple[int, float]], wall_now: float) -> None:
        """Count group messages an earlier process sent (``(chat_id, sent_at)``, sent_at by the
        wall clock, ``wall_now`` the wall clock now) in their groups' minutes: Telegram counts
        them whichever process sent them (issue 40)."""
        now = self.clock()
        for chat_id, at in sorted(sends, key=lambda send: send[1]):
            moment = now - max(0.0, wall_now - at)
            chat = self._chat(chat_id, now)
            if now - moment < chat.minute.span:
                chat.minute.sent.append(moment)
        for chat in self._chats.values():
            chat.minute.sent = deque(sorted(chat.minute.sent))

    def queued(self) -> int:
        """Requests waiting for their turn (the benchmark, admission control)."""
        return len(self._queue) + len(self._parked) + len(self._free)

    def _waiting(self) -> Iterator[_Waiter]:
        yield from self._queue
        yield from (waiter for _, _, waiter in self._parked)
        yield from self._free

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        chat_id = _chat_of(data)
        counted = chat_id is not None and counts_in_chat(endpoint)
        priority = PRIORITY.get()
        if priority is None:
            priority = default_priority(endpoint, chat_id)
        retries = rate_limit_args if rate_limit_args is not None else self.retries
        given = GIVEN_TURN.get() if counted else None
        for attempt in range(retries + 1):
            place = given or await self._place(priority, chat_id if counted else None, counted)
            given = None  # a retry waits its turn like any request
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as error:
                if attempt == retries:
                    raise
                self._hold(chat_id if counted else None, _retry_after(error))
            except Unsent as unsent:
                unsent.turn, place = place, None  # the newer look that replaces it takes the place
                raise
            finally:
                if place is not None:
                    place.end()
        raise AssertionError("unreachable")

    async def _place(self, priority: Priority, chat_id: int | None, counted: bool) -> Turn | None:
        """Wait for a turn; a message's place in the token's second (None for a request that is
        not one), written in the group's journal as it leaves."""
        await self._turn(priority, chat_id, counted)
        if not counted:
            return None
        place = Turn(self._landed)
        if self.journal is not None and chat_id is not None and chat_id < 0:
            try:
                await self.journal(chat_id)
            except BaseException:
                place.end()
                raise
        return place

    # ------------------------------------------------------------ turns

    async def _turn(self, priority: Priority, chat_id: int | None, counted: bool) -> None:
        """Wait until the limits let this request go, behind every more valuable one."""
        now = self.clock()
        due = self._parked and self._parked[0][0] <= now
        waiting = (self._queue or due) if counted else self._free
        watch = priority is Priority.WATCH
        if not waiting and self._wait(self.shares[priority], chat_id, counted, now, watch=watch) == 0:
            self._note(chat_id, counted, now)
            return
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiter = _Waiter(priority, next(self._seq), chat_id, counted, ready, now)
        heapq.heappush(self._queue if counted else self._free, waiter)
        self._kick()
        asked = now
        try:
            await ready
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()  # the dispatcher skips it
            elif counted and not ready.cancelled():
                self._landed()  # let go, then cancelled before it left: its place ends a second on
            raise
        waited = self.clock() - asked
        self.waited[priority] += waited
        if waited > SLOW:
            log.info("a %s request for chat %s waited %.1f s", priority.name, chat_id, waited)

    def _kick(self) -> None:
        if self._wake is None:
            self._wake = asyncio.Event()
        self._wake.set()
        if self._dispatcher is None or self._dispatcher.done():
            self._dispatcher = asyncio.create_task(self._dispatch(), name="priority-limiter")

    async def _dispatch(self) -> None:
        assert self._wake is not None
        while not self._closed and (self._queue or self._parked or self._free):
            self._wake.clear()
            delay = self._release()
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), delay)
            else:
                await asyncio.sleep(0)  # let the released requests go out

    def _release(self) -> float:
        """Let go every waiter the limits allow now, most valuable first; the seconds until the
        next one might go (0 when some went).

        A message its chat's limits hold is parked until the moment they would let it go as
        things stand. Only time loosens a limit — a request sent, a 429, tighten them; a
        promotion, which changes the limits that apply, looks again at once — so no parked
        message could go sooner. While the token's second is full no message goes at all, and
        the rest stay in line untouched. So a release looks at the messages that go and the few
        newly held, not at every one waiting: sorting and checking hundreds of board edits held
        by their groups' minutes, for every request, was a tenth of the event loop's time at 150
        tables."""
        now = self.clock()
        released = self._release_free(now)
        soonest = self._unpark(now)
        while self._queue:
            waiter = self._queue[0]
            if waiter.ready.done():  # cancelled while waiting
                heapq.heappop(self._queue)
                continue
            full = self._token_wait(now)
            if full > 0:  # no message goes before the token's second frees
                soonest = min(soonest, full)
                break
            heapq.heappop(self._queue)
            parked = self._let_go_or_park(waiter, now)
            if parked is None:
                released = True
            else:
                soonest = min(soonest, parked)
        return 0.0 if released else soonest

    def _unpark(self, now: float) -> float:
        """Put back in line the parked messages whose moment has come; the seconds until the next
        parked one, or the free requests' 429 hold, might go."""
        while self._parked and self._parked[0][0] <= now:
            heapq.heappush(self._queue, heapq.heappop(self._parked)[2])
        soonest = self._parked[0][0] - now if self._parked else float("inf")
        if self._free:
            soonest = min(soonest, self._held_until - now)
        return soonest

    def _let_go_or_park(self, waiter: _Waiter, now: float) -> float | None:
        """Let ``waiter`` go if its chat's limits allow it now (None); else park it until they
        would, or until a refresh comes of age, and give the seconds until then."""
        priority = Priority(waiter.priority)
        share = self.shares[priority]
        aging = 0.0  # seconds until this refresh may use the aged share
        if priority is Priority.REFRESH:
            aging = waiter.asked + self.aging - now
            if aging <= 0:
                share = max(share, self.aged_share)
        wait = self._wait(share, waiter.chat_id, waiter.counted, now, watch=priority is Priority.WATCH)
        if wait == 0:
            self._note(waiter.chat_id, waiter.counted, now)
            waiter.ready.set_result(None)
            return None
        waiter.not_before = now + (min(wait, aging) if aging > 0 else wait)  # or when it comes of age
        heapq.heappush(self._parked, (waiter.not_before, waiter.seq, waiter))
        return waiter.not_before - now

    def _release_free(self, now: float) -> bool:
        """Requests that are not messages wait only for a 429 on the whole token."""
        if not self._free or self._held_until > now:
            return False
        for waiter in self._free:
            if not waiter.ready.done():
                waiter.ready.set_result(None)
        self._free.clear()
        return True

    def _token_wait(self, now: float) -> float:
        return max(self._held_until - now, self._token_full(now, self.token_limit))

    def _token_full(self, now: float, limit: int) -> float:
        """Seconds until fewer than ``limit`` messages hold the token's second: those in flight,
        and those answered within the last second (inf: until an answer comes back)."""
        room = limit - self._in_flight
        if room <= 0:
            return float("inf")
        return self._token.wait(now, room)

    def _landed(self) -> None:
        """A message's answer came back (or it failed): it holds its place a second more."""
        self._in_flight -= 1
        self._token.sent.append(self.clock())
        if self._queue or self._parked:
            self._kick()

    def _wait(
        self, share: int, chat_id: int | None, counted: bool, now: float, *, watch: bool = False
    ) -> float:
        """Seconds until a request may go, using up to ``share`` of its group's minute (``watch``:
        a spectator's look, within :data:`WATCH_SHARE` of the token's second)."""
        if chat_id is None or not counted:
            return max(self._held_until - now, 0.0)
        wait = self._token_wait(now)
        if watch:
            wait = max(wait, self._token_full(now, self.watch_limit))
        chat = self._chats.get(chat_id)
        if chat is None:
            return max(wait, 0.0)
        wait = max(wait, chat.held_until - now)
        if chat.paced(chat_id, now):
            wait = max(wait, chat.second.wait(now))
        if chat_id < 0:
            wait = max(wait, chat.minute.wait(now, share))
        return max(wait, 0.0)

    def _note(self, chat_id: int | None, counted: bool, now: float) -> None:
        if chat_id is None or not counted:
            return
        self._in_flight += 1  # in the token's second until a second after its answer (_landed)
        chat = self._chat(chat_id, now)
        if chat.paced(chat_id, now):
            chat.second.take(now)
        if chat_id < 0:
            chat.minute.sent.append(now)
        if len(self._chats) > 4096:
            self._forget(now)

    def _forget(self, now: float) -> None:
        """Drop chats with nothing in their windows (bounded memory with many chats)."""
        for chat_id in [c for c, chat in self._chats.items() if self._idle(chat, now)]:
            del self._chats[chat_id]

    def _chat(self, chat_id: int, now: float) -> _Chat:
        chat = self._chats.get(chat_id)
        if chat is None:
            chat = self._chats[chat_id] = _Chat(_Bucket(self.chat_burst, CHAT_RATE, now))
        return chat

    @staticmethod
    def _idle(chat: _Chat, now: float) -> bool:
        return (
            chat.minute.used(now) == 0
            and chat.second.full(now)
            and chat.held_until <= now
            and chat.paced_until <= now
        )

    def _hold(self, chat_id: int | None, retry_after: timedelta) -> None:
        """Telegram said 429: nothing more to that chat (or from the token) for that long."""
        seconds = retry_after.total_seconds()
        until = self.clock() + seconds + 0.1
        self.retried += 1
        metrics.rate_limited(chat_id, seconds)
        log.info("429 for chat %s: holding it %.1f s", chat_id, seconds)
        if chat_id is None:
            self._held_until = max(self._held_until, until)
            return
        chat = self._chat(chat_id, self.clock())
        chat.held_until = max(chat.held_until, until)
        if chat_id > 0:  # from the hold's end, one a second: the bucket starts empty
            chat.paced_until = until + PACED_AFTER_429
            chat.second.tokens, chat.second.last = 0.0, until
