"""Storage faults through the real bot and the emulator (issue 8, finding 9).

The database turns read-only, is locked by another process, or is full, while a player
presses 出牌: the press is answered with an alert saying it was not saved, the hand message
keeps the ticked cards (pressing again says the same, not "select cards first"), nothing is
logged or shown; once storage is back the same button plays the cards. And a turn clock that
rings during the fault rings again until its action can be stored: the table goes on by
itself (it used to stall for good). Faults: :mod:`tests.faults`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import aiosqlite
import pytest

from app.table.texts import error_text
from bot import build_application, close_services, open_services
from emulator.client import BotMessage, Chat, Emulator, Telegram, User, polling, wait_for
from handlers.table import flow
from tests.e2e.test_match_e2e import (
    ALICE,
    Table,
    answer_to,
    buttons_by_op,
    logged_count,
    set_up,
    settled_hand,
)
from tests.faults import FAULTS, StorageFault

NOT_SAVED = error_text("not_saved", "zh")


@contextlib.asynccontextmanager
async def running_app(
    emulator: Emulator, token: str, db_path: Path, seed: int, allowed_updates: Sequence[str] | None = None
) -> AsyncIterator[Any]:
    """The bot in this process, its Application given to the test (to reach its database)."""
    app = build_application(
        token, db_path=str(db_path), base_url=emulator.base_url, base_file_url=emulator.base_file_url
    )
    await open_services(app, db_path=str(db_path))
    app.bot_data.services.tables.new_seed = lambda: seed
    try:
        async with polling(app, allowed_updates=allowed_updates):
            yield app
    finally:
        await close_services(app)


async def my_turn(telegram: Telegram, user: User) -> BotMessage:
    """The user's settled hand message once it is their turn to play."""

    async def ready() -> BotMessage | None:
        hand = await settled_hand(telegram, user)
        return hand if "轮到你" in hand.content and "h" in buttons_by_op(hand) else None

    return await wait_for(ready, timeout=30, what=f"{user.first_name}'s turn")


async def select_a_play(telegram: Telegram, user: User) -> BotMessage:
    """Press 提示 on the user's turns (passing when 提示 says 不出) until cards are ticked."""
    for _ in range(20):
        hand = await my_turn(telegram, user)
        text, alert = await answer_to(telegram, user, hand, buttons_by_op(hand)["h"][0])
        if not alert and "不出" not in text:
            return await settled_hand(telegram, user)
        await answer_to(telegram, user, hand, buttons_by_op(hand)["x"][0])
    raise AssertionError("no play to select in 20 turns")


async def table_actions(db_path: Path) -> int:
    """Actions of the game (the disk-full fault logs probe rows for a table of its own)."""
    async with (
        aiosqlite.connect(db_path) as db,
        db.execute("SELECT COUNT(*) FROM actions WHERE table_id = 1") as cursor,
    ):
        return int((await cursor.fetchone())[0])


@pytest.mark.parametrize("kind", FAULTS)
async def test_a_press_during_a_storage_fault_says_not_saved_and_works_once_storage_is_back(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, kind: str
) -> None:
    table = Table(telegram, Chat.group(-4100 - FAULTS.index(kind), "存储桌"), tmp_path / "g.db")
    async with running_app(emulator, token, table.db_path, seed=9) as app:
        await set_up(telegram, table, [ALICE])
        selected = await select_a_play(telegram, ALICE)
        play = buttons_by_op(selected)["p"][0]
        logged = await table_actions(table.db_path)
        fault = StorageFault(kind, app.bot_data.services.tables.db, table.db_path)
        await fault.on()
        for _ in range(2):  # pressing again: still the ticked cards, still not saved
            assert await answer_to(telegram, ALICE, selected, play) == (NOT_SAVED, True)
            assert (await settled_hand(telegram, ALICE)).raw == selected.raw  # nothing new shown
        assert await table_actions(table.db_path) == logged
        await fault.off()
        text, alert = await answer_to(telegram, ALICE, selected, play)
        assert not alert, text
        await wait_for(lambda: more_than(table.db_path, logged), what="the play to be logged")
        async with aiosqlite.connect(table.db_path) as db:
            query = "SELECT seat, action_json FROM actions WHERE table_id = 1 AND version = ?"
            async with db.execute(query, (logged + 1,)) as cursor:
                seat, text = await cursor.fetchone()
        assert (seat, json.loads(text)["type"]) == (0, "play")


async def more_than(db_path: Path, count: int) -> bool:
    return await table_actions(db_path) > count


async def test_a_turn_clock_during_a_full_disk_acts_once_space_is_back(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 1-in-4 stall: the clock rang, its action could not be stored, and nothing ever
    rang again. Now it rings again every RETRY_SECONDS until the timeout can be stored."""
    monkeypatch.setattr(flow, "RETRY_SECONDS", 0.3)
    rang_unstored: list[str] = []  # each time a clock rang and its action could not be stored
    ring_again = flow._ring_again

    def noting(context: Any, name: str) -> None:
        rang_unstored.append(name)
        ring_again(context, name)

    monkeypatch.setattr(flow, "_ring_again", noting)
    table = Table(telegram, Chat.group(-4110, "超时存储桌"), tmp_path / "g.db")
    async with running_app(emulator, token, table.db_path, seed=9) as app:
        await telegram.set_admins(table.group, [ALICE])
        await telegram.send(ALICE, table.group, "/newgame wechat-6-deals points_deals=2 turn_seconds=2")
        await table.lobby()
        await table.join(ALICE, 0)
        for _ in range(3):
            await table.add_ai(ALICE)
        await table.start(ALICE)
        await my_turn(telegram, ALICE)
        fault = StorageFault("full", app.bot_data.services.tables.db, table.db_path)
        await fault.on()
        logged = await table_actions(table.db_path)

        async def rang_twice() -> bool:
            return len(rang_unstored) >= 2

        await wait_for(rang_twice, timeout=10, what="the clock to ring (2 s) and ring again, unstored")
        assert await table_actions(table.db_path) == logged
        assert "超时" not in (await settled_hand(telegram, ALICE)).content
        await fault.off()
        await wait_for(lambda: more_than(table.db_path, logged), timeout=5, what="the timeout to be stored")
        await telegram.wait_message(Chat.private(ALICE), lambda m: "超时" in m.content, timeout=10)
        await wait_for(lambda: more_than(table.db_path, logged + 4), timeout=15, what="play to go on")
    assert await logged_count(table.db_path) > logged


async def test_a_command_that_fails_on_storage_is_answered_not_saved(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """Handlers without their own storage-fault answer (here /fourcolor, a write) are answered
    by the application's error handler instead of staying silent; after the fault it works."""
    db_path = tmp_path / "bot.db"
    async with running_app(emulator, token, db_path, seed=1) as app:
        dm = Chat.private(ALICE)
        await telegram.send(ALICE, dm, "/start")
        await telegram.wait_message(dm, lambda m: "/newgame" in m.content)
        fault = StorageFault("read_only", app.bot_data.services.tables.db, db_path)
        await fault.on()
        await telegram.send(ALICE, dm, "/fourcolor")
        await telegram.wait_message(dm, lambda m: m.content == NOT_SAVED)
        await fault.off()
        await telegram.send(ALICE, dm, "/fourcolor")
        await telegram.wait_message(dm, lambda m: "四色" in m.content)
