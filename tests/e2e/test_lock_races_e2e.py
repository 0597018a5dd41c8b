"""Commands that wait for a table's lock act on the seat as it is once they hold it: while
they waited, a lobby seat may have been left, or taken by someone else (found by
``test_random_walk_e2e``: ``/autopass`` failed with a KeyError when its seat was left)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from app.table.tables import LiveTable, TableService
from emulator.client import Chat, Emulator, Telegram, User
from tests.e2e.test_match_e2e import running_bot

ALICE, BOB = User(7201, "Alice"), User(7202, "Bob")
GROUP = Chat.group(-7200, "抢座群")


class WatchedLock(asyncio.Lock):
    """The table's lock, telling the test when a handler starts waiting for it."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = asyncio.Event()

    async def acquire(self) -> bool:
        if self.locked():
            self.waiting.set()
        return await super().acquire()


@asynccontextmanager
async def lobby_with(telegram: Telegram, tables: TableService, users: list[User]) -> AsyncIterator[LiveTable]:
    """A lobby in GROUP with ``users`` seated in order from seat 0, its lock watched."""
    await telegram.set_admins(GROUP, users[:1])
    await telegram.send(users[0], GROUP, "/newgame")
    await telegram.wait_message(GROUP, lambda m: bool(m.buttons))
    table = tables.in_chat(GROUP.id)
    async with table.lock:
        for seat, user in enumerate(users):
            await tables.take_seat(table, seat=seat, user_id=user.id, name=user.first_name, locale=None)
    table.lock = WatchedLock()
    yield table


async def test_autopass_and_arrange_after_the_seat_was_left(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    async with running_bot(emulator, token, tmp_path / "g.db", seed=9) as app:
        tables = app.bot_data.services.tables
        async with lobby_with(telegram, tables, [ALICE]) as table:
            for command, reply in (("/autopass", "自动不出：开"), ("/arrange", "理牌")):
                await tables.take_seat(table, seat=0, user_id=ALICE.id, name="Alice", locale=None)
                assert isinstance(table.lock, WatchedLock)
                table.lock.waiting.clear()
                async with table.lock:
                    await telegram.send(ALICE, Chat.private(ALICE), command)
                    await asyncio.wait_for(table.lock.waiting.wait(), 10)
                    await tables.leave(table, seat=0)
                await telegram.wait_message(Chat.private(ALICE), lambda m, r=reply: r in m.content)
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_leaving_the_group_frees_the_seat_the_player_holds_then(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """Alice leaves the group while Bob takes over her seat: Bob keeps it."""
    async with running_bot(emulator, token, tmp_path / "g.db", seed=9) as app:
        tables = app.bot_data.services.tables
        async with lobby_with(telegram, tables, [ALICE]) as table:
            assert isinstance(table.lock, WatchedLock)
            async with table.lock:
                await telegram.leave(ALICE, GROUP)
                await asyncio.wait_for(table.lock.waiting.wait(), 10)
                await tables.leave(table, seat=0)
                await tables.take_seat(table, seat=0, user_id=BOB.id, name="Bob", locale=None)

            async with table.lock:  # queued behind the departure, which held it first (FIFO)
                assert table.seat_of(BOB.id) == 0
