"""The group's board across a restart (issue 32, item 6): the bot goes on editing the deal's
live board message instead of opening a new one and leaving the old one saying ⏳ 轮到 forever.

The bot is stopped in the middle of a deal, once the group's board shows whose turn it is, and
started again on the same database; the match is then played out. A board left by a run from
before its range was stored (board_deal NULL) is marked as moved, in one edit.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiosqlite

from emulator.client import BotMessage, Chat, Emulator, Telegram, wait_for
from handlers.table.board import CLOSE_WAIT
from tests.e2e.test_match_e2e import (
    ALICE,
    BOB,
    MATCH_TIMEOUT,
    PINNED_MATCH,
    SINGLE_DOWN_SEED,
    Table,
    answer_to,
    assert_clean_finish,
    buttons_by_op,
    final_status,
    logged_at_least,
    play_out,
    plays_missing_from,
    plays_of_match,
    running_bot,
    set_up,
)

HUMANS = [ALICE, BOB]
EARLY = 16
"""Actions after which the players stop: the pinned deal's first trick is won by then (it takes
six), and the two humans hold too many cards for a press still under way to end the deal."""
HELD = 3600.0
"""A board interval no test waits out: after its first redraw the board waits, as it does when
the bot stops during its usual 3-second wait between redraws."""


async def live_board(telegram: Telegram, group: Chat) -> BotMessage | None:
    """The board message showing whose turn it is, once a trick of the deal has been won."""
    boards = [m for m in await telegram.messages(group) if "⏳ 轮到" in m.content and "✔" in m.content]
    return boards[-1] if boards else None


async def stop_mid_deal(emulator: Emulator, telegram: Telegram, token: str, table: Table) -> BotMessage:
    """Play deal 1's first tricks and stop the players; once the board shows a won trick and a
    turn, stop the bot. The players stop before the board is looked at: waiting for a live
    board while they played found, in some runs, deal 2's (the match goes at machine speed,
    the board is redrawn every 3 s), and the press still under way then ended the match before
    the stop: the table was no longer mid-deal (``test_a_match_that_ended_before_…`` is that case)."""
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED):
        await set_up(telegram, table, HUMANS, PINNED_MATCH)
        players = [asyncio.create_task(table.play(user)) for user in HUMANS]
        await wait_for(lambda: logged_at_least(table.db_path, EARLY), timeout=60, what="deal 1's tricks")
        table.over.set()
        await asyncio.gather(*players)
        await telegram.wait_idle()
        board = await wait_for(lambda: live_board(telegram, table.group), timeout=60, what="a live board")
    assert board.content.startswith("🃏 第 1 副") and await final_status(table.db_path) == "playing"
    table.over = asyncio.Event()
    return board


async def play_on(emulator: Emulator, telegram: Telegram, token: str, table: Table) -> list[BotMessage]:
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED):
        await play_out(table, HUMANS)
        await assert_clean_finish(telegram, table)
    return await telegram.messages(table.group)


async def test_a_restart_goes_on_editing_the_deals_board(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    table = Table(telegram, Chat.group(-4401, "重启看板"), tmp_path / "g.db")
    board = await stop_mid_deal(emulator, telegram, token, table)
    messages = await play_on(emulator, telegram, token, table)
    assert [m.content for m in messages if "⏳" in m.content] == []
    resumed = next(m for m in messages if m.message_id == board.message_id)
    heading = board.content.split("\n")[0]
    assert resumed.edit_count > board.edit_count and resumed.content.startswith(heading)


async def test_a_board_left_without_its_range_is_marked_as_moved(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    table = Table(telegram, Chat.group(-4402, "旧看板"), tmp_path / "g.db")
    board = await stop_mid_deal(emulator, telegram, token, table)
    async with aiosqlite.connect(table.db_path) as db:  # as a run before migration 0014 left it
        await db.execute("UPDATE game_tables SET board_deal = NULL, board_first = 0")
        await db.commit()
    messages = await play_on(emulator, telegram, token, table)
    assert [m.content for m in messages if "⏳" in m.content] == []
    moved = next(m for m in messages if m.message_id == board.message_id)
    assert moved.content == "⏬ 本副的牌局移到了下方的新消息里。"


async def test_a_match_that_ended_before_its_board_caught_up_is_shown_after_a_restart(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """The match ends while the board waits for its next redraw, and the bot stops (a stop
    cancels that wait): the next run finishes the board, although the table is no longer in
    play, with every play, each deal's board closed before its result goes, and the results
    go at once, not after ``CLOSE_WAIT``."""
    table = Table(telegram, Chat.group(-4403, "停前终局"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED, board_interval=HELD):
        await set_up(telegram, table, HUMANS, PINNED_MATCH)
        await first_board(telegram, table)
        players = [asyncio.create_task(table.play(user)) for user in HUMANS]
        await wait_for(lambda: match_over(table), timeout=MATCH_TIMEOUT, what="the match to end")
        table.over.set()
        await asyncio.gather(*players)
    plays = await plays_of_match(table.db_path)
    assert plays_missing_from(plays, await telegram.messages(table.group)) != []  # the board waited
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED):
        await telegram.wait_message(table.group, lambda m: "🏆" in m.content, timeout=CLOSE_WAIT / 2)
    messages = await telegram.messages(table.group)
    assert [m.content for m in messages if "⏳" in m.content] == []
    assert plays_missing_from(plays, messages) == []
    for deal in (1, 2):
        board = next(m for m in messages if m.content.startswith(f"🃏 第 {deal} 副"))
        result = next(m for m in messages if m.content.startswith(f"第 {deal} 副结束"))
        assert result.sent_at_ms is not None and board.sent_at_ms is not None
        assert max((board.sent_at_ms, *board.edited_at_ms)) <= result.sent_at_ms, f"deal {deal}"


async def test_a_table_stopped_before_its_board_caught_up_says_so_after_a_restart(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """/stop while the board waits for its next redraw, then the bot stops: the next run edits
    the board to show the deal's plays and that the table was stopped, with no turn line."""
    table = Table(telegram, Chat.group(-4404, "停桌看板"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED, board_interval=HELD):
        await set_up(telegram, table, HUMANS, PINNED_MATCH)
        board = await first_board(telegram, table)
        players = [asyncio.create_task(table.play(user)) for user in HUMANS]
        await wait_for(lambda: logged_at_least(table.db_path, 16), timeout=60, what="a few tricks")
        table.over.set()
        await asyncio.gather(*players)
        await telegram.send(ALICE, table.group, "/stop")
        confirm = await telegram.wait_message(table.group, lambda m: "确定结束本桌吗" in m.content)
        await answer_to(telegram, ALICE, confirm, buttons_by_op(confirm)["y"][0])
        await telegram.wait_message(table.group, lambda m: m.content == "本桌已结束。")
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED):
        await telegram.wait_message(
            table.group, lambda m: m.message_id == board.message_id and "⏹" in m.content
        )
    messages = await telegram.messages(table.group)
    assert [m.content for m in messages if "⏳" in m.content] == []
    assert plays_missing_from(await plays_of_match(table.db_path), messages) == []


async def first_board(telegram: Telegram, table: Table) -> BotMessage:
    """The deal's board as its first redraw sent it (the only one, with :data:`HELD`)."""
    return await telegram.wait_message(table.group, lambda m: m.content.startswith("🃏 第 1 副"))


async def match_over(table: Table) -> bool:
    return await final_status(table.db_path) == "finished"
