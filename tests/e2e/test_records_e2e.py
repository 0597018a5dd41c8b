"""Issue 21 from a phone: a match is played, then /stats, /top, /history, 复盘 ◀ ▶ (with a
stale press), the transcript export read back by the engine, bad input, and /forgetme; and
issue 35.3's 复盘点评: a weak player's three costliest decisions, ◀ 点评 ▶ between them."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import aiosqlite
import pytest

from app.records.coaching import coaching_from_json
from demo import press, take_turn
from emulator.client import BotMessage, Chat, Emulator, Telegram, User, callback_ops
from engine.match import Match, action_from_json
from engine.notation import read_transcript
from engine.review import Frame, frames, review
from engine.rules import Rules
from players.coach import Coaching
from tests.e2e.test_match_e2e import (
    ALICE,
    BOB,
    MATCH_TIMEOUT,
    SINGLE_DOWN_SEED,
    Table,
    play_out,
    running_bot,
    set_up,
)

GROUP_WAIT = 75.0
"""A reply in the group after a whole match may wait for the group's minute (20 messages, the
board and results included) to have room: the scheduler keeps to it."""
ALICE_NAMED = User(ALICE.id, ALICE.first_name, username="alice_gd")


async def stored_match(db_path: Path) -> Match:
    async with aiosqlite.connect(db_path) as db:
        async with db.execute("SELECT rules_json, seed FROM game_tables") as cursor:
            rules_json, seed = await cursor.fetchone()
        async with db.execute("SELECT seat, action_json FROM actions ORDER BY version") as cursor:
            history = [(seat, action_from_json(json.loads(text))) for seat, text in await cursor.fetchall()]
    return Match.replay(Rules.from_json(rules_json), int(seed), history)


def button_data(message: BotMessage, label_start: str) -> str:
    for row in message.buttons:
        for button in row:
            if button.text.startswith(label_start) and button.data is not None:
                return button.data
    raise LookupError(f"no button {label_start!r} in {[b.text for r in message.buttons for b in r]}")


async def test_records_replay_export_and_forgetme(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    group = Chat.group(-4021, "战绩群")
    table = Table(telegram, group, tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED):
        await set_up(telegram, table, [ALICE, BOB])
        await play_out(table, [ALICE, BOB])
        match = await stored_match(table.db_path)
        alice_won = match.winner_team == 0

        await telegram.send(ALICE_NAMED, group, "/stats")
        card = await telegram.wait_message(
            group, lambda m: bool(m.photo_id) and "Alice 的战绩" in m.content, timeout=GROUP_WAIT
        )
        assert "本群" in card.content and "1 场" in card.content
        assert ("胜 1" if alice_won else "胜 0") in card.content
        assert (await telegram.photo(card)).startswith(b"\x89PNG")

        await telegram.send(BOB, group, "/stats @alice_gd")
        await telegram.wait_message(
            group,
            lambda m: bool(m.photo_id) and m is not card and "Alice 的战绩" in m.content,
            timeout=GROUP_WAIT,
        )
        await telegram.send(BOB, group, "/stats @nobody")
        await telegram.wait_message(group, lambda m: "没有找到 @nobody" in m.content, timeout=GROUP_WAIT)

        await telegram.send(BOB, group, "/top")
        top = await telegram.wait_message(group, lambda m: "排行榜" in m.content, timeout=GROUP_WAIT)
        assert "电脑玩家" in top.content  # computer players shown apart, nobody ranked after one match

        await telegram.send(BOB, group, "/history")
        history = await telegram.wait_message(
            group, lambda m: "最近的对局" in m.content and bool(m.buttons), timeout=GROUP_WAIT
        )
        assert "Alice" in history.content and "Bob" in history.content

        answer = await telegram.wait_answer(await telegram.press(BOB, history, button_data(history, "复盘")))
        assert answer.text == "复盘已私聊发给你。"
        private = Chat.private(BOB)
        first = await telegram.wait_message(private, lambda m: bool(m.photo_id) and "r:s:" in str(m.raw))
        forward = button_data(first, "▶")
        await telegram.wait_answer(await telegram.press(BOB, first, forward))
        moved = await telegram.wait_message(
            private, lambda m: m.message_id == first.message_id and m.raw != first.raw
        )
        assert button_data(moved, "◀") != button_data(first, "▶")
        stale = await telegram.wait_answer(await telegram.press(BOB, moved, forward))  # the old ▶ (step 0)
        assert stale.show_alert and "过期" in stale.text

        await telegram.wait_answer(await telegram.press(BOB, history, button_data(history, "导出")))
        document = await telegram.wait_message(private, lambda m: m.document is not None)
        transcript = read_transcript((await telegram.document(document)).decode())
        assert transcript.replay().events == match.events

        await telegram.send(ALICE, group, "/forgetme")
        await telegram.wait_message(group, lambda m: "私聊中发送 /forgetme" in m.content, timeout=GROUP_WAIT)
        await telegram.send(ALICE, Chat.private(ALICE), "/forgetme")
        prompt = await telegram.wait_message(Chat.private(ALICE), lambda m: "无法撤销" in m.content)
        await telegram.wait_answer(await telegram.press(ALICE, prompt, button_data(prompt, "删除")))
        await telegram.wait_message(Chat.private(ALICE), lambda m: m.content.startswith("已完成"))
        await telegram.send(BOB, group, "/stats @alice_gd")
        await telegram.wait_message(group, lambda m: "没有找到 @alice_gd" in m.content, timeout=GROUP_WAIT)
        await telegram.send(BOB, group, "/history")
        await telegram.wait_message(
            group, lambda m: "已注销" in m.content and "最近的对局" in m.content, timeout=GROUP_WAIT
        )


async def test_a_double_tap_on_a_forgetme_answer_fails_nothing(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Both taps of 保留 (and of 删除) are answered, and the second one's edit, which finds the
    message already saying so, is no failure (it was an ERROR with a traceback each time;
    found by ``test_random_walk_e2e``)."""
    caplog.set_level(logging.ERROR)
    private = Chat.private(ALICE)
    async with running_bot(emulator, token, tmp_path / "r.db", seed=9):
        for label, answered in (("保留", "没有删除"), ("删除", "已完成")):
            await telegram.send(ALICE, private, "/forgetme")
            prompt = await telegram.wait_message(
                private, lambda m: "无法撤销" in m.content and bool(m.buttons)
            )
            data = button_data(prompt, label)
            taps = await asyncio.gather(*(telegram.press(ALICE, prompt, data) for _ in range(2)))
            for tap in taps:
                assert not (await telegram.wait_answer(tap)).show_alert
            await telegram.wait_message(
                private, lambda m, a=answered, p=prompt: m.message_id == p.message_id and a in m.content
            )
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


ONE_DEAL = (
    "/newgame wechat-6-deals points_deals=1 turn_seconds=null first_turn_seconds=null replay_in_group=true"
)
PASSING_SEED = 3
"""Alice (north) passes whenever she may and Bob plays 提示's choice: in this first deal the
master finds three of Alice's decisions costly, in three different tricks."""
TRIBUTE_OPS = {"g", "b", "r"}  # a tribute, its return, a reading: demo.take_turn's first steps
COACH_WAIT = 180.0  # judging a deal takes 10–40 s on a busy two-core machine (bench/coaching.py)


async def pass_when_following(table: Table, user: User) -> None:
    """A weak player: 不出 whenever the table has a play to beat, else 提示 then 出牌.

    Every choice is made on one reading of the hand message: reading it again to play (as
    :func:`take_turn` does) could find the turn that reading missed (an edit arriving between
    the two), and she would play 提示's choice where she passes."""
    private = Chat.private(user)
    while not table.over.is_set():
        hand = await table.telegram.last_message(private)
        ops = callback_ops(hand) if hand is not None else {}
        if hand is not None and "轮到你" in hand.content:
            if "x" in ops:
                answer = await press(table.telegram, user, hand, ops["x"][0])
                if answer is None or not answer[1]:  # passed, or a lagging keyboard: look again
                    continue
            await take_turn(table.telegram, user)  # refused: she leads, and it stays her turn
        elif ops.keys() & TRIBUTE_OPS:
            await take_turn(table.telegram, user)
        else:
            await asyncio.sleep(0.05)


def shown_step(message: BotMessage) -> int:
    """The step a replay message shows: the SHOWN of its ▶ (r:s:T:SHOWN:TO)."""
    return int(button_data(message, "▶").split(":")[3])


def labels(message: BotMessage) -> list[str]:
    return [button.text for row in message.buttons for button in row]


async def stored_coaching(db_path: Path) -> tuple[Coaching, tuple[Frame, ...]]:
    """Alice's stored 点评 of deal 1 and the replay's steps, read back from the database."""
    async with (
        aiosqlite.connect(db_path) as db,
        db.execute("SELECT coaching_json FROM coaching WHERE deal = 0 AND seat = 0") as cursor,
    ):
        (text,) = await cursor.fetchone()
    match = await stored_match(db_path)
    return coaching_from_json(text), frames(review(match.rules, match.seed, match.history))


async def test_a_player_opens_the_coaching_of_a_deal_and_steps_through_it(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    group = Chat.group(-4031, "点评群")
    table = Table(telegram, group, tmp_path / "c.db")
    alice = Chat.private(ALICE)
    async with running_bot(emulator, token, table.db_path, seed=PASSING_SEED):
        await set_up(telegram, table, [ALICE, BOB], ONE_DEAL)
        players = [
            asyncio.create_task(pass_when_following(table, ALICE)),
            asyncio.create_task(table.play(BOB)),
        ]
        watcher = asyncio.create_task(table.watch())
        try:
            await asyncio.wait_for(table.over.wait(), MATCH_TIMEOUT)
        finally:
            table.over.set()
            await asyncio.gather(*players, watcher, return_exceptions=True)

        await telegram.send(ALICE, alice, "/history")
        history = await telegram.wait_message(alice, lambda m: "最近的对局" in m.content and bool(m.buttons))
        await telegram.wait_answer(await telegram.press(ALICE, history, button_data(history, "复盘")))
        replay = await telegram.wait_message(alice, lambda m: bool(m.photo_id) and "r:c:" in str(m.raw))
        assert not replay.content  # no 点评 until she asks for it

        waiting = await telegram.wait_answer(await telegram.press(ALICE, replay, button_data(replay, "🎓")))
        assert "大师正在推演" in waiting.text and not waiting.show_alert
        coached = await telegram.wait_message(
            alice, lambda m: m.message_id == replay.message_id and "🎓 点评" in m.content, timeout=COACH_WAIT
        )
        coaching, steps = await stored_coaching(table.db_path)
        assert len(coaching.decisions) == 3
        marks = sorted(
            {
                i
                for i, f in enumerate(steps)
                if f.kind == "trick" and f.deal == 0 and f.trick in {d.trick for d in coaching.decisions}
            }
        )
        assert len(marks) == 3
        for number, decision in zip("①②③", coaching.decisions, strict=True):
            assert f"{number} 第 {decision.trick + 1} 墩" in coached.content
        assert "第 1 副" in coached.content and "北 Alice" in coached.content
        assert shown_step(coached) == marks[0] and "◀ 点评" not in labels(coached)

        seen = coached
        for mark in marks[1:]:  # 点评 ▶ to each marked moment in turn
            await telegram.wait_answer(await telegram.press(ALICE, seen, button_data(seen, "点评 ▶")))
            seen = await telegram.wait_message(
                alice, lambda m, s=seen: m.message_id == s.message_id and m.raw != s.raw
            )
            assert shown_step(seen) == mark and "🎓 点评" in seen.content
        assert "点评 ▶" not in labels(seen)
        await telegram.wait_answer(await telegram.press(ALICE, seen, button_data(seen, "◀ 点评")))
        back = await telegram.wait_message(
            alice, lambda m, s=seen: m.message_id == s.message_id and m.raw != s.raw
        )
        assert shown_step(back) == marks[1]

        # reopened, the replay shows the stored 点评 at once: no judging, no 🎓 to press
        await telegram.wait_answer(await telegram.press(ALICE, history, button_data(history, "复盘")))
        again = await telegram.wait_message(
            alice, lambda m: bool(m.photo_id) and "r:s:" in str(m.raw) and m.message_id != replay.message_id
        )
        assert "🎓 点评" in again.content and "r:c:" not in str(again.raw) and shown_step(again) == 0
        await telegram.wait_answer(await telegram.press(ALICE, again, button_data(again, "点评 ▶")))
        first = await telegram.wait_message(
            alice, lambda m: m.message_id == again.message_id and m.raw != again.raw
        )
        assert shown_step(first) == marks[0]

        # privacy: Bob's own replay offers his own 点评 only; in the group nobody's
        bob = Chat.private(BOB)
        await telegram.send(BOB, bob, "/history")
        bobs = await telegram.wait_message(bob, lambda m: "最近的对局" in m.content and bool(m.buttons))
        await telegram.wait_answer(await telegram.press(BOB, bobs, button_data(bobs, "复盘")))
        bob_replay = await telegram.wait_message(bob, lambda m: bool(m.photo_id) and "r:c:" in str(m.raw))
        assert not bob_replay.content
        await telegram.send(BOB, group, "/history")
        listing = await telegram.wait_message(
            group, lambda m: "最近的对局" in m.content and bool(m.buttons), timeout=GROUP_WAIT
        )
        await telegram.wait_answer(await telegram.press(ALICE, listing, button_data(listing, "复盘")))
        shared = await telegram.wait_message(
            group, lambda m: bool(m.photo_id) and "r:s:" in str(m.raw), timeout=GROUP_WAIT
        )
        assert "r:c:" not in str(shared.raw) and not shared.content
        await telegram.wait_answer(await telegram.press(ALICE, shared, button_data(shared, "▶")))
        stepped = await telegram.wait_message(
            group, lambda m: m.message_id == shared.message_id and m.raw != shared.raw, timeout=GROUP_WAIT
        )
        assert "r:c:" not in str(stepped.raw) and not stepped.content  # deal 1 is coached, not here
