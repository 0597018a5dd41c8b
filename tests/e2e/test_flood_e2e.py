"""One group's flood of commands never stalls the other chats (issue 8, finding 4).

The real Application (with its scheduler, PriorityLimiter: 20 messages a minute per group) runs
against the emulator, which has no rate limits of its own, so the limiter is the thing
under test. Alice floods group A with commands and keeps flooding until group B's
``/newgame`` and a private ``/help`` are answered: they must be, within seconds, while A's
flood goes on. Before the fix every concurrent-update slot waited in A's group limiter
(300 replies at 20 a minute: a quarter of an hour) and neither got an answer; shutdown
waited behind them too.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator
from pathlib import Path

from app.table.texts import too_many_text
from bot import App, build_application, close_services, open_services
from emulator.client import Chat, Emulator, Telegram, User, polling

ALICE, BOB, CAROL = User(3001, "Alice"), User(3002, "Bob"), User(3003, "Carol")
FLOODED, OTHER = Chat.group(-4101, "刷屏群"), Chat.group(-4102, "另一群")
FLOOD = ("/help", "/rules", "/lang", "/stop", "/fourcolor", "/newgame no-such-preset")
"""Commands with different answers; each answer is given once however often it is asked."""
BEFORE_OTHERS = 320  # more than the 256 concurrent-update slots, plus the limiter's burst of 20
ANSWER_TIMEOUT = 15.0  # far below the quarter of an hour the unfixed bot needed
SHUTDOWN_TIMEOUT = 30.0  # generous: bench/flood.py measures it


@contextlib.asynccontextmanager
async def running(emulator: Emulator, token: str, db_path: Path) -> AsyncIterator[App]:
    """The bot in this process; stopping it must not take more than ``SHUTDOWN_TIMEOUT``."""
    app = build_application(
        token, db_path=str(db_path), base_url=emulator.base_url, base_file_url=emulator.base_file_url
    )
    await open_services(app, db_path=str(db_path))
    stack = contextlib.AsyncExitStack()
    try:
        await stack.enter_async_context(polling(app))
        yield app
    finally:
        await asyncio.wait_for(stop(stack, app), SHUTDOWN_TIMEOUT)


async def stop(stack: contextlib.AsyncExitStack, app: App) -> None:
    await stack.aclose()
    await close_services(app)


async def flood(telegram: Telegram, sent: list[int], done: asyncio.Event) -> None:
    """Alice sends commands to group A, 20 at a time, until told to stop."""
    commands = itertools.cycle(FLOOD)
    while not done.is_set():
        await asyncio.gather(*(telegram.send(ALICE, FLOODED, next(commands)) for _ in range(20)))
        sent[0] += 20


async def test_a_flooded_group_never_stalls_another_group_or_a_private_chat(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    sent, done = [0], asyncio.Event()
    async with running(emulator, token, tmp_path / "g.db"):
        flooding = asyncio.create_task(flood(telegram, sent, done))
        try:
            while sent[0] < BEFORE_OTHERS:
                await asyncio.sleep(0.05)
            await telegram.send(BOB, OTHER, "/newgame")
            await telegram.send(CAROL, Chat.private(CAROL), "/help")
            lobby = telegram.wait_message(OTHER, lambda m: bool(m.buttons), timeout=ANSWER_TIMEOUT)
            helped = telegram.wait_message(
                Chat.private(CAROL), lambda m: "/newgame" in m.content, timeout=ANSWER_TIMEOUT
            )
            await asyncio.gather(lobby, helped)
            assert not flooding.done()  # answered while A's flood was still coming in
        finally:
            done.set()
            await flooding
        flooded = await telegram.messages(FLOODED)
    assert sent[0] > BEFORE_OTHERS
    answers = [m.content for m in flooded if m.content != too_many_text("zh")]
    assert len(flooded) - len(answers) <= 1  # at most one "too many commands" notice
    assert len(answers) == len(set(answers))  # equal answers coalesced (the flood lasted seconds)
    assert len(answers) <= len(FLOOD) + 1  # /fourcolor answers "on" and "off"


async def test_shutdown_under_a_flood_does_not_wait_for_the_flooded_group(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """The bot is stopped while hundreds of one group's commands are in flight: it stops
    (within ``SHUTDOWN_TIMEOUT``; before the fix, after every reply went out at 20 a minute)."""
    sent, done = [0], asyncio.Event()
    async with running(emulator, token, tmp_path / "g.db"):
        flooding = asyncio.create_task(flood(telegram, sent, done))
        try:
            while sent[0] < BEFORE_OTHERS:
                await asyncio.sleep(0.05)
            await telegram.wait_message(FLOODED, lambda m: True)
        finally:
            done.set()
            await flooding
