"""Players who block the bot or leave the group (issue 8, finding 10), through the emulator.

The table has no turn clock, so nothing but the departure itself can move the seat: it goes
into 托管 at once, the bot plays for it, and the group is told once. ``/start`` (after a
block) or rejoining the group brings the hand back in a new message that says 托管 is on;
取消托管 then gives the seat back to the player.

Blocking is seen two ways, both tested: the ``my_chat_member`` update Telegram sends when a
user blocks a bot, and (for a bot that does not receive it) the 403 of the next hand edit.
Leaving is seen from the ``left_chat_member`` service message and the ``chat_member`` update
(both arrive here: the notice must still come once).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import aiosqlite
import pytest
from telegram import Update

from demo import take_turn
from emulator.client import BotMessage, Chat, Emulator, Telegram, User, wait_for
from tests.e2e.test_match_e2e import (
    ALICE,
    BOB,
    Table,
    answered_after,
    callback_op,
    cancel_autoplay,
    seat_flags,
)
from tests.e2e.test_storage_faults_e2e import my_turn, running_app

NO_CLOCK = "/newgame wechat-6-deals points_deals=2 turn_seconds=null first_turn_seconds=null"
BLOCKED_NOTICE = "Alice 屏蔽了机器人"
LEFT_NOTICE = "Alice 退出了本群"
AUTOPLAY_LINE = "🤖 已托管；按「取消托管」恢复自己出牌"


async def open_table(telegram: Telegram, table: Table) -> None:
    """Alice (seat 0) and Bob (seat 1) with two AI players, no turn clock."""
    await telegram.set_admins(table.group, [ALICE])
    await telegram.send(ALICE, table.group, NO_CLOCK)
    await table.lobby()
    await table.join(ALICE, 0)
    await table.join(BOB, 1)
    for _ in range(2):
        await table.add_ai(ALICE)
    await table.start(ALICE)


async def notices(telegram: Telegram, group: Chat, text: str) -> int:
    return sum(text in message.content for message in await telegram.messages(group))


async def seat_actions(db_path: Path, seat: int) -> int:
    async with (
        aiosqlite.connect(db_path) as db,
        db.execute("SELECT COUNT(*) FROM actions WHERE seat = ?", (seat,)) as cursor,
    ):
        return int((await cursor.fetchone())[0])


async def bob_plays(telegram: Telegram, stop: asyncio.Event) -> None:
    while not stop.is_set():
        if not await take_turn(telegram, BOB):
            await asyncio.sleep(0.05)


async def turn_of(telegram: Telegram, user: User, other: User) -> None:
    """Until it is ``user``'s turn to play; ``other`` takes the turns that come first."""
    for _ in range(200):
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(my_turn(telegram, user), 2)
            return
        await take_turn(telegram, other)
    raise AssertionError(f"{user.first_name}'s turn never came")


async def newest_id(telegram: Telegram, user: User) -> int:
    shown = await telegram.last_message(Chat.private(user))
    return shown.message_id if shown else 0


async def back_hand(telegram: Telegram, user: User, after: int) -> BotMessage:
    """The hand message sent again (a new message), with its 托管 line and the 取消托管 button.

    Not the one-off "手牌已重新发来" note: 托管 keeps playing, and the next edit (which may come
    before this poll does) replaces the note; the 托管 line stays while 托管 is on."""
    return await telegram.wait_message(
        Chat.private(user),
        lambda m: (
            m.message_id > after
            and bool(m.photo_id)
            and AUTOPLAY_LINE in m.content
            and any(callback_op(b.data) == "a" for row in m.buttons for b in row)
        ),
        timeout=15,
    )


async def goes_on_without(db_path: Path, seat: int, before: int) -> bool:
    return await seat_actions(db_path, seat) > before


async def went_round(db_path: Path) -> None:
    """Until seat 0 (Alice's, in 托管) has acted once more: the table went round, and every
    hand was edited after each action."""
    before = await seat_actions(db_path, 0)
    await wait_for(lambda: goes_on_without(db_path, 0, before), timeout=20, what="the table to go round")


@pytest.mark.parametrize("seen_by", ["my_chat_member", "403"])
async def test_a_player_who_blocks_the_bot_is_played_for_and_comes_back_with_start(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, seen_by: str
) -> None:
    table = Table(telegram, Chat.group(-4200 - len(seen_by), "屏蔽桌"), tmp_path / "g.db")
    allowed = None if seen_by == "my_chat_member" else ["message", "callback_query"]
    async with running_app(emulator, token, table.db_path, seed=9, allowed_updates=allowed):
        await open_table(telegram, table)
        if seen_by == "my_chat_member":
            await turn_of(telegram, ALICE, BOB)  # no clock: only the block itself can move her seat
        else:
            await turn_of(telegram, BOB, ALICE)  # the next edit of Alice's hand meets the 403
        before = await seat_actions(table.db_path, 0)
        await telegram.block_bot(ALICE)
        stop = asyncio.Event()
        bob = asyncio.create_task(bob_plays(telegram, stop))
        try:
            await telegram.wait_message(table.group, lambda m: BLOCKED_NOTICE in m.content, timeout=15)
            await wait_for(lambda: goes_on_without(table.db_path, 0, before), timeout=20, what="托管 plays")
            await wait_for(lambda: autoplay_stored(table.db_path), timeout=10, what="托管 to be stored")
            await went_round(table.db_path)  # every hand edited again since: each met the block
            assert await notices(telegram, table.group, BLOCKED_NOTICE) == 1
            last = await newest_id(telegram, ALICE)
            await telegram.send(ALICE, Chat.private(ALICE), "/start")
            await telegram.wait_message(Chat.private(ALICE), lambda m: "欢迎回来" in m.content)
            await back_hand(telegram, ALICE, after=last)
            await wait_for(lambda: cancel_autoplay(telegram, ALICE), timeout=20, what="取消托管")
            assert await seat_flags(table.db_path, 0) == (0, 0)
            assert await notices(telegram, table.group, BLOCKED_NOTICE) == 1
        finally:
            stop.set()
            await bob


async def autoplay_stored(db_path: Path) -> bool:
    return (await seat_flags(db_path, 0))[0] == 1


async def test_a_player_who_leaves_the_group_is_played_for_and_comes_back_by_rejoining(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    table = Table(telegram, Chat.group(-4210, "退群桌"), tmp_path / "g.db")
    async with running_app(emulator, token, table.db_path, seed=9, allowed_updates=Update.ALL_TYPES):
        await open_table(telegram, table)
        await turn_of(telegram, ALICE, BOB)
        before = await seat_actions(table.db_path, 0)
        await telegram.leave(ALICE, table.group)
        stop = asyncio.Event()
        bob = asyncio.create_task(bob_plays(telegram, stop))
        try:
            await telegram.wait_message(table.group, lambda m: LEFT_NOTICE in m.content, timeout=15)
            await wait_for(lambda: goes_on_without(table.db_path, 0, before), timeout=20, what="托管 plays")
            await went_round(table.db_path)  # every hand edited again since: each met the departure
            assert await notices(telegram, table.group, LEFT_NOTICE) == 1
            stop.set()  # nothing else moves now: the table waits for Bob (Alice is in 托管)
            await bob
            await turn_of(telegram, BOB, ALICE)
            hands = len(await telegram.messages(Chat.private(ALICE)))
            last = await newest_id(telegram, ALICE)
            await telegram.join(ALICE, table.group)
            await back_hand(telegram, ALICE, after=last)
            await answered_after(telegram, BOB, table.group)  # the service message and the chat_member update
            assert len(await telegram.messages(Chat.private(ALICE))) == hands + 1
            await wait_for(lambda: cancel_autoplay(telegram, ALICE), timeout=20, what="取消托管")
            assert await seat_flags(table.db_path, 0) == (0, 0)
        finally:
            stop.set()
            await bob


async def test_a_player_who_leaves_the_group_in_the_lobby_loses_the_seat(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    table = Table(telegram, Chat.group(-4220, "大厅退群"), tmp_path / "g.db")
    async with running_app(emulator, token, table.db_path, seed=9):
        await telegram.set_admins(table.group, [BOB])
        await telegram.send(BOB, table.group, NO_CLOCK)
        await table.lobby()
        await table.join(ALICE, 0)
        await telegram.leave(ALICE, table.group)
        await wait_for(lambda: lobby_without(table, "Alice"), what="the lobby to free Alice's seat")
        async with aiosqlite.connect(table.db_path) as db, db.execute("SELECT COUNT(*) FROM seats") as cursor:
            assert (await cursor.fetchone())[0] == 0


async def lobby_without(table: Table, name: str) -> bool:
    return name not in (await table.lobby()).content
