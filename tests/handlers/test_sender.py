"""The per-message sender: one request in flight per message, the newest state wins."""

from __future__ import annotations

import asyncio
import contextvars

from telegram.ext import AIORateLimiter

from handlers.sender import LatestWins, Send, TrackingLimiter

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
