"""The per-message sender: one request in flight per message, the newest state wins."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import AIORateLimiter

from handlers.platform.scheduler import Priority, PriorityLimiter, at_priority
from handlers.platform.sender import LatestWins, Send, TrackingLimiter
from tests.handlers.test_scheduler import Clock, advance, recorder, settle

press: contextvars.ContextVar[str] = contextvars.ContextVar("press", default="")


def _recorder(log: list[tuple[str, str]], name: str, gate: asyncio.Event | None = None) -> Send:
    async def send() -> None:
        if gate is not None:
            await gate.wait()
        log.append((name, press.get()))

    return send


async def test_a_newer_edit_replaces_an_unsent_one_and_order_is_kept() -> None:
    sender, sent, gate = LatestWins(), [], asyncio.Event()
    press.set("a")
    first = sender.submit("m", _recorder(sent, "v1", gate))
    await asyncio.sleep(0)  # v1 is in flight now
    press.set("b")
    second = sender.submit("m", _recorder(sent, "v2"))
    press.set("c")
    third = sender.submit("m", _recorder(sent, "v3"))
    assert not second.done()
    gate.set()
    await asyncio.gather(first, second, third)
    assert sent == [("v1", "a"), ("v3", "c")]  # v2 was never sent; each in its submitter's context
    await sender.join()


async def test_messages_do_not_wait_for_each_other_and_failures_resolve() -> None:
    sender, sent, gate = LatestWins(), [], asyncio.Event()

    async def broken() -> None:
        raise RuntimeError("boom")

    slow = sender.submit("m1", _recorder(sent, "slow", gate))
    failed = sender.submit("m2", broken)
    fast = sender.submit("m3", _recorder(sent, "fast"))
    await asyncio.gather(failed, fast)
    assert sent == [("fast", "")] and not slow.done()
    gate.set()
    await slow
    await sender.join()


async def test_an_edit_still_waiting_at_the_rate_limiter_is_withdrawn_for_a_newer_one() -> None:
    """Only the newest look is worth a request; one that already left is never cut short."""
    tracking = TrackingLimiter(AIORateLimiter(overall_max_rate=1, overall_time_period=0.3, group_max_rate=0))
    await tracking.initialize()
    sender, sent = LatestWins(), []

    def edit(name: str) -> Send:
        async def send() -> None:
            async def request() -> None:
                await asyncio.sleep(0.05)  # on the wire: v1 is past withdrawing here
                sent.append(name)

            await tracking.process_request(request, (), {}, "editMessageCaption", {"chat_id": 7}, None)

        return send

    first = sender.submit("m", edit("v1"))
    await asyncio.sleep(0.01)
    second = sender.submit("m", edit("v2"))  # queued behind v1, which has left
    await first
    await asyncio.sleep(0.01)  # v2 now waits at the limiter (one request per 0.3 s)
    third = sender.submit("m", edit("v3"))
    await asyncio.gather(second, third)
    assert sent == ["v1", "v3"]
    await sender.join()
    await tracking.shutdown()


async def test_an_edit_superseded_while_being_drawn_is_withdrawn_at_the_limiter() -> None:
    """A picture still being drawn when a newer look arrives never spends a request."""
    tracking = TrackingLimiter(AIORateLimiter(overall_max_rate=30, overall_time_period=1, group_max_rate=0))
    await tracking.initialize()
    sender, sent, drawing = LatestWins(), [], asyncio.Event()

    def edit(name: str, gate: asyncio.Event | None = None) -> Send:
        async def send() -> None:
            if gate is not None:
                await gate.wait()  # drawing the picture, before any request

            async def request() -> None:
                sent.append(name)

            await tracking.process_request(request, (), {}, "editMessageMedia", {"chat_id": 7}, None)

        return send

    first = sender.submit("m", edit("v1", drawing))
    await asyncio.sleep(0.01)
    second = sender.submit("m", edit("v2"))
    drawing.set()
    await asyncio.gather(first, second)
    assert sent == ["v2"]
    await sender.join()
    await tracking.shutdown()


async def test_a_message_updated_faster_than_the_limiter_keeps_its_place_in_the_queue() -> None:
    """A waiting seat's caption changes with every play while other tables keep the limiter
    busy: if each new look went to the back of the queue, the seat would never see one."""
    clock = Clock()
    scheduler = PriorityLimiter(token_limit=1, clock=clock)
    tracking = TrackingLimiter(scheduler)
    sender, sent = LatestWins(), []

    def edit(name: str, chat_id: int) -> Send:
        async def send() -> None:
            await tracking.process_request(
                recorder(sent, name), (), {}, "editMessageCaption", {"chat_id": chat_id}, None
            )

        return send

    others = []
    for step in range(40):  # other messages at 2 a second against 1, and a new look of "m" each step
        others.append(sender.submit(("other", step), edit("other", 100 + step)))
        sender.submit("m", edit(f"m{step}", 7))
        await advance(scheduler, clock, 0.5)
    shown = [name for name in sent if name.startswith("m")]
    assert len(shown) >= 2, sent  # the seat saw its message change while the table was busy
    while not all(other.done() for other in others):
        await advance(scheduler, clock, 1.0)
    await sender.join()
    assert [name for name in sent if name.startswith("m")][-1] == "m39"


async def test_a_glance_waiting_for_the_token_gives_its_turn_to_the_look_the_player_awaits() -> None:
    """Issue 23: a look nobody waits for (GLANCE) queues last; when the seat's awaited look
    supersedes it, promoting the chat sends the new look at HAND, before a board's refresh,
    and the glance never goes: one request instead of two."""
    clock = Clock()
    scheduler = PriorityLimiter(token_limit=1, clock=clock)
    tracking = TrackingLimiter(scheduler)
    sender, sent = LatestWins(), []

    def edit(name: str, chat_id: int) -> Send:
        async def send() -> None:
            await tracking.process_request(
                recorder(sent, name), (), {}, "editMessageCaption", {"chat_id": chat_id}, None
            )

        return send

    await scheduler.process_request(
        recorder(sent, "first"), (), {}, "editMessageCaption", {"chat_id": 1}, None
    )
    with at_priority(Priority.REFRESH):
        board = asyncio.create_task(
            scheduler.process_request(
                recorder(sent, "board"), (), {}, "editMessageText", {"chat_id": -5}, None
            )
        )
    with at_priority(Priority.GLANCE):
        glance = sender.submit("hand", edit("glance", 7))
    await settle()
    assert sender.waiting("hand")
    with at_priority(Priority.HAND):
        awaited = sender.submit("hand", edit("awaited", 7))
    scheduler.promote(7, Priority.HAND)
    await advance(scheduler, clock, 1.0)
    await asyncio.gather(glance, awaited)
    assert sent == ["first", "awaited"]
    await advance(scheduler, clock, 1.0)
    await board
    assert sent == ["first", "awaited", "board"] and not sender.waiting("hand")
    await sender.join()


async def test_closing_drops_queued_edits_and_cancels_the_one_under_way(caplog) -> None:
    """At shutdown hand edits still waiting for the scheduler went out after the HTTP session
    closed, and each failed with a traceback: closing the sender first drops them quietly."""
    sender, sent, gate = LatestWins(), [], asyncio.Event()
    under_way = sender.submit("m", _recorder(sent, "v1", gate))
    await asyncio.sleep(0)
    queued = sender.submit("m", _recorder(sent, "v2"))
    await sender.close()
    assert under_way.done() and queued.done() and sent == []
    later = sender.submit("m", _recorder(sent, "v3"))
    assert later.done()
    gate.set()
    await asyncio.sleep(0)
    assert sent == [] and "failed" not in caplog.text


Request = Callable[[], Coroutine[Any, Any, str]]


def _edit_through(tracking: TrackingLimiter, request: Request, chat_id: int) -> Send:
    async def send() -> None:
        await tracking.process_request(request, (), {}, "editMessageCaption", {"chat_id": chat_id}, None)

    return send


async def _let_v1_go_with_v2_in_its_place(
    sent: list[str], v2: Request
) -> tuple[Clock, PriorityLimiter, LatestWins, asyncio.Future[None]]:
    """The token's second is full; the hand's look v1 waits for it, and v2 replaces v1 before
    its turn: when the turn comes, v2 goes in v1's place."""
    clock = Clock()
    scheduler = PriorityLimiter(token_limit=1, clock=clock)
    tracking = TrackingLimiter(scheduler)
    sender = LatestWins()
    await scheduler.process_request(recorder(sent, "first"), (), {}, "editMessageText", {"chat_id": 1}, None)
    sender.submit("hand", _edit_through(tracking, recorder(sent, "v1"), 7))
    await settle()
    newer = sender.submit("hand", _edit_through(tracking, v2, 7))
    await advance(scheduler, clock, 1.0)
    return clock, scheduler, sender, newer


async def test_a_newer_look_refused_429_in_an_older_ones_place_is_sent_again(caplog) -> None:
    """The look that takes a withdrawn edit's place used to go straight to the server, past
    the scheduler: a 429 on it was not retried, and the hand kept its older look."""
    refused, sent = [], []

    async def v2() -> str:
        if not refused:
            refused.append(True)
            raise RetryAfter(2)
        sent.append("v2")
        return "v2"

    clock, scheduler, sender, newer = await _let_v1_go_with_v2_in_its_place(sent, v2)
    assert refused and sent == ["first"] and not newer.done()
    for _ in range(10):  # the chat's hold, then its turn again, one a second
        await advance(scheduler, clock, 1.0)
    assert newer.done()
    assert sent == ["first", "v2"] and "failed" not in caplog.text
    await sender.join()


async def test_a_newer_look_holds_the_older_ones_place_in_the_tokens_second_until_its_answer() -> None:
    """A message holds its place in the token's second until a second after its answer (else
    429s); a withdrawn edit's place ended when it was withdrawn, while the look sent in its
    stead was still on its way."""
    answer, sent = asyncio.Event(), []

    async def v2() -> str:
        sent.append("v2")
        await answer.wait()  # Telegram answers slowly
        return "v2"

    clock, scheduler, sender, newer = await _let_v1_go_with_v2_in_its_place(sent, v2)
    assert sent == ["first", "v2"]
    other = asyncio.create_task(
        scheduler.process_request(recorder(sent, "other"), (), {}, "sendMessage", {"chat_id": 9}, None)
    )
    await advance(scheduler, clock, 5.0)
    assert sent == ["first", "v2"]  # v2 still holds the token's one place
    answer.set()
    await settle()
    await advance(scheduler, clock, 1.0)
    await asyncio.gather(newer, other)
    assert sent == ["first", "v2", "other"]
    await sender.join()
