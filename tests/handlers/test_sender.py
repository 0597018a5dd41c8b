"""The per-message sender: one request in flight per message, the newest state wins."""

from __future__ import annotations

import asyncio
import contextvars

from handlers.sender import LatestWins, Send

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
