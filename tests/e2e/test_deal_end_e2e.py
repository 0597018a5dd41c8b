"""How a deal, a match and a table end in the players' private chats (issue 32, item 1).

Each deal has its own hand message; when the next deal's message comes, the old one loses its
buttons and shows the deal's end: the finishing order, the levels or points it brought, the
player's own place, the hand as the deal ended (nothing left for a player who went out), and
where the next deal is or how the match ended. A stopped table's hand messages say so. Nobody's
old message is left saying 轮到你了 or counting down a clock.
"""

from __future__ import annotations

import re
from pathlib import Path

import aiosqlite

from emulator.client import BotMessage, Chat, Emulator, Telegram, User, wait_for
from engine.match import Match, observe_deal_end
from render.hand import render_hand
from tests.e2e.test_match_e2e import (
    ALICE,
    BOB,
    PINNED_MATCH,
    SINGLE_DOWN_SEED,
    Table,
    answer_to,
    buttons_by_op,
    play_out,
    running_bot,
    set_up,
    settled_hand,
)
from tests.e2e.test_table_on_phone_e2e import stored_log

LIVE_WORDS = ("轮到你", "⏳", "已选", "等待")
"""What only a hand message still in play says: the turn, its clock, a selection, whom it waits for."""


async def hand_messages(telegram: Telegram, user: User) -> list[BotMessage]:
    """The player's hand messages, one per deal, oldest first."""
    return [m for m in await telegram.messages(Chat.private(user)) if m.photo_id]


async def first_deal_played(db_path: Path) -> Match:
    """The match replayed from the stored log up to the action that ended deal 1."""
    rules, seed, history = await stored_log(db_path)
    match = Match.new(rules, seed)
    for seat, action in history:
        match.apply(seat, action)
        if match.deal_results:
            return match
    raise AssertionError("deal 1 did not end")


async def seat_names(db_path: Path) -> list[str]:
    async with (
        aiosqlite.connect(db_path) as db,
        db.execute("SELECT name FROM seats ORDER BY seat") as cursor,
    ):
        return [str(name) for (name,) in await cursor.fetchall()]


async def test_each_deal_message_ends_with_the_deals_result_and_the_players_place(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    table = Table(telegram, Chat.group(-4301, "终局桌"), tmp_path / "g.db")
    async with running(emulator, token, table.db_path):
        await set_up(telegram, table, [ALICE, BOB], PINNED_MATCH)
        await play_out(table, [ALICE, BOB])
        await telegram.wait_idle()
        names, deal_one = await seat_names(table.db_path), await first_deal_played(table.db_path)
        order = deal_one.deal_results[0].finish_order
        for seat, user in enumerate((ALICE, BOB)):
            first, last = await wait_for(
                lambda user=user: closed_pair(telegram, user), what=f"{user.first_name}'s last looks"
            )
            assert "第 1 副结束" in first.content and "下一副在下方的新消息里" in first.content
            assert f"你是{PLACES[order.index(seat)]}。" in first.content
            assert not any(word in first.content for word in LIVE_WORDS), first.content
            end = observe_deal_end(deal_one, seat)
            assert end is not None  # the hand as deal 1 ended: nothing left for a player who went out
            assert await telegram.photo(first) == render_hand(end, locale="zh", names=names)
            assert "第 2 副结束" in last.content and "🏆" in last.content
            assert not any(word in last.content for word in LIVE_WORDS), last.content


async def closed_pair(telegram: Telegram, user: User) -> tuple[BotMessage, BotMessage] | None:
    """The player's two deal messages once both lost their hand's buttons (the match has two
    deals): each keeps one, 🎓 复盘点评, its deal's replay (tests/e2e/test_deal_replay_e2e.py)."""
    hands = await hand_messages(telegram, user)
    if len(hands) != 2 or not all(replay_only(hand, deal) for deal, hand in enumerate(hands, start=1)):
        return None
    return hands[0], hands[1]


def replay_only(hand: BotMessage, deal: int) -> bool:
    kept = [(b.text, b.data or "") for row in hand.buttons for b in row]
    return (
        len(kept) == 1 and kept[0][0] == "🎓 复盘点评" and bool(re.fullmatch(rf"r:d:\d+:{deal}", kept[0][1]))
    )


PLACES = ("上游", "二游", "三游", "下游")


async def test_a_stopped_table_leaves_no_turn_or_clock_in_hands_or_on_the_board(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    table = Table(telegram, Chat.group(-4302, "停桌"), tmp_path / "g.db")
    async with running(emulator, token, table.db_path):
        await set_up(telegram, table, [ALICE, BOB])  # with the turn clock
        await wait_for(lambda: someone_to_play(telegram), what="a turn with its clock")
        await telegram.wait_message(table.group, lambda m: "⏳ 轮到" in m.content)
        await telegram.send(ALICE, table.group, "/stop")
        confirm = await telegram.wait_message(table.group, lambda m: "确定结束本桌" in m.content)
        await answer_to(telegram, ALICE, confirm, buttons_by_op(confirm)["y"][0])
        for user in (ALICE, BOB):
            hand = await telegram.wait_message(Chat.private(user), lambda m: "本桌已结束" in m.content)
            assert not hand.buttons
            assert not any(word in hand.content for word in LIVE_WORDS), hand.content
        board = await telegram.wait_message(table.group, lambda m: m.content.endswith("⏹ 本桌已结束。"))
        assert board.content.startswith("🃏 第 1 副")
        assert [m.content for m in await telegram.messages(table.group) if "⏳" in m.content] == []


async def someone_to_play(telegram: Telegram) -> bool:
    alice, bob = await settled_hand(telegram, ALICE), await settled_hand(telegram, BOB)
    return any("轮到你" in hand.content and "⏳" in hand.content for hand in (alice, bob))


def running(emulator: Emulator, token: str, db_path: Path):
    return running_bot(emulator, token, db_path, seed=SINGLE_DOWN_SEED)
