"""A deal's 复盘 with its 🎓 点评 while the match goes on (issue 35.3: a player is coached as
soon as a deal ends, not when the match does). Deal 1 is played to its end and the match waits
in deal 2: 🎓 复盘点评 on Alice's ended deal-1 message opens her replay of deal 1 in her private
chat, 🎓 点评本副 marks her decisions, ▶ stops at deal 1's last trick, forged presses (the deal in
play, a stranger, a group, another table, the finished-match buttons) are refused and show
nothing, and after a restart the old button still opens it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from emulator.client import BotMessage, Chat, Emulator, Telegram, User, wait_for
from engine.review import frames, review_through
from tests.e2e.test_deal_end_e2e import hand_messages
from tests.e2e.test_match_e2e import ALICE, BOB, CAROL, Table, running_bot, set_up
from tests.e2e.test_records_e2e import COACH_WAIT, PASSING_SEED, button_data, labels, pass_when_following
from tests.e2e.test_table_on_phone_e2e import stored_log

TWO_DEALS = "/newgame wechat-6-deals points_deals=2 turn_seconds=null first_turn_seconds=null"
"""No turn clock: once the players stop pressing, the match waits in deal 2 for them."""


async def play_deal_one(table: Table, command: str) -> BotMessage:
    """Alice (passing when she may) and Bob play deal 1 to its end, then stop: the match waits
    in deal 2. Alice's deal-1 message, closed, with its button."""
    await set_up(table.telegram, table, [ALICE, BOB], command)
    players = [
        asyncio.create_task(pass_when_following(table, ALICE)),
        asyncio.create_task(table.play(BOB)),
    ]
    try:
        ended = await wait_for(
            lambda: deal_one_closed(table.telegram, ALICE), timeout=240, what="deal 1's end"
        )
    finally:
        table.over.set()
        await asyncio.gather(*players, return_exceptions=True)
    await table.telegram.wait_idle()
    return ended


async def deal_one_closed(telegram: Telegram, user: User) -> BotMessage | None:
    """The player's deal-1 hand message once deal 2's has replaced it (with its one button)."""
    hands = await hand_messages(telegram, user)
    if len(hands) < 2 or "r:d:" not in str(hands[0].raw):
        return None
    return hands[0]


def shown(message: BotMessage) -> tuple[int, int]:
    """(SHOWN, TO) of a deal replay's ▶ (r:ds:T:N:SHOWN:TO)."""
    parts = button_data(message, "▶").split(":")
    assert parts[:2] == ["r", "ds"], parts
    return int(parts[4]), int(parts[5])


async def forged(
    telegram: Telegram, emulator: Emulator, token: str, chat: Chat, datas: list[str]
) -> BotMessage:
    """A message in ``chat`` with buttons carrying ``datas``: what a client that sends callback
    data no button of the bot showed would press (Telegram, like the emulator, refuses those)."""
    keyboard = {"inline_keyboard": [[{"text": str(i), "callback_data": d}] for i, d in enumerate(datas)]}
    async with httpx.AsyncClient() as http:
        response = await http.post(
            f"{emulator.base_url}{token}/sendMessage",
            json={"chat_id": chat.id, "text": "forged", "reply_markup": keyboard},
        )
    message_id = response.json()["result"]["message_id"]
    return await wait_for(
        lambda: message_numbered(emulator, token, chat, message_id), what="the planted buttons"
    )


async def message_numbered(emulator: Emulator, token: str, chat: Chat, message_id: int) -> BotMessage | None:
    async with Telegram(emulator, token) as users:
        return next((m for m in await users.messages(chat) if m.message_id == message_id), None)


async def replays_in(telegram: Telegram, chat: Chat) -> list[BotMessage]:
    """The deal replays sent to ``chat`` (their buttons carry r:ds:)."""
    return [m for m in await telegram.messages(chat) if m.photo_id and "r:ds:" in str(m.raw)]


async def refused(telegram: Telegram, user: User, message: BotMessage, data: str) -> str:
    answer = await telegram.wait_answer(await telegram.press(user, message, data))
    assert answer.show_alert, (data, answer.text)
    return answer.text


async def test_a_player_replays_and_coaches_an_ended_deal_while_the_match_goes_on(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    group = Chat.group(-4051, "边打边复盘")
    table = Table(telegram, group, tmp_path / "d.db")
    alice = Chat.private(ALICE)
    async with running_bot(emulator, token, table.db_path, seed=PASSING_SEED):
        ended = await play_deal_one(table, TWO_DEALS)
        assert labels(ended) == ["🎓 复盘点评"] and "下一副在下方的新消息里" in ended.content
        button = button_data(ended, "🎓")
        table_id = int(button.split(":")[2])
        assert button == f"r:d:{table_id}:1"
        rules, seed, log = await stored_log(table.db_path)
        reviewed = review_through(rules, seed, log, 1)
        assert reviewed is not None and review_through(rules, seed, log, 2) is None  # deal 2 in play
        last = len(frames(reviewed[0])) - 1

        answer = await telegram.wait_answer(await telegram.press(ALICE, ended, button))
        assert not answer.show_alert
        replay = await wait_for(lambda: newest_replay(telegram, alice), what="Alice's replay of deal 1")
        assert shown(replay) == (0, 1) and not replay.content  # deal 1's hands; no 点评 until asked
        assert (await telegram.photo(replay)).startswith(b"\x89PNG")
        assert "下一副 ⏩" not in labels(replay)

        # hostile presses, each refused with an alert, none of them sending or moving anything
        deal_two = f"r:d:{table_id}:2"
        refusals = {
            deal_two: "还没打完",  # the deal in play
            f"r:ds:{table_id}:2:0:{last + 1}": "还没打完",
            f"r:dc:{table_id}:2:{last + 1}": "还没打完",
            f"r:ds:{table_id}:1:0:{last + 1}": "过期",  # a step past deal 1's end
            f"r:d:{table_id + 1}:1": "不在记录中",  # another table
            f"r:v:{table_id}": "不在记录中",  # /history's buttons: finished matches only
            f"r:s:{table_id}:0:1": "不在记录中",
            f"r:c:{table_id}:0": "不在记录中",
        }
        planted = await forged(telegram, emulator, token, alice, list(refusals))
        for data, refusal in refusals.items():
            assert refusal in await refused(telegram, ALICE, planted, data)
        for stranger in (BOB, CAROL):  # on Alice's own message: Bob's seat is not hers, Carol has none
            assert "只有本桌的玩家" in await refused(telegram, stranger, ended, button)
        await telegram.send(CAROL, Chat.private(CAROL), "/start")  # her private chat with the bot
        await telegram.wait_message(Chat.private(CAROL), lambda m: bool(m.content))
        carols = await forged(telegram, emulator, token, Chat.private(CAROL), [button])
        assert "只有本桌的玩家" in await refused(telegram, CAROL, carols, button)
        in_group = await forged(telegram, emulator, token, group, [button])
        assert "只有本桌的玩家" in await refused(telegram, ALICE, in_group, button)
        await telegram.wait_idle()
        assert [m.message_id for m in await replays_in(telegram, alice)] == [replay.message_id]
        assert await replays_in(telegram, Chat.private(BOB)) == []
        assert await replays_in(telegram, Chat.private(CAROL)) == []
        assert (await telegram.messages(alice))[-2].raw == replay.raw  # unmoved; then the planted one

        # 🎓 点评本副: judged in the worker; the replay moves to her first marked decision
        waiting = await telegram.wait_answer(await telegram.press(ALICE, replay, button_data(replay, "🎓")))
        assert "大师正在推演" in waiting.text and not waiting.show_alert
        coached = await telegram.wait_message(
            alice, lambda m: m.message_id == replay.message_id and "🎓 点评" in m.content, timeout=COACH_WAIT
        )
        assert "① 第" in coached.content and "第 1 副" in coached.content

        # ▶ to the end of deal 1, and no further: the deal in play is never stepped into
        seen = coached
        while shown(seen)[1] != shown(seen)[0]:
            await telegram.wait_answer(await telegram.press(ALICE, seen, button_data(seen, "▶")))
            seen = await telegram.wait_message(
                alice, lambda m, s=seen: m.message_id == s.message_id and m.raw != s.raw
            )
        assert shown(seen) == (last, last) and "下一副 ⏩" not in labels(seen)
        assert "🎓 点评" in seen.content  # still deal 1, still its 点评

    # after a restart the old button reads everything from the store
    async with running_bot(emulator, token, table.db_path, seed=PASSING_SEED):
        answer = await telegram.wait_answer(await telegram.press(ALICE, ended, button))
        assert not answer.show_alert
        again = await wait_for(
            lambda: newest_replay(telegram, alice, besides=replay.message_id), what="the replay again"
        )
        assert shown(again) == (0, 1) and "🎓 点评" in again.content  # the stored 点评, at once
        assert "还没打完" in await refused(telegram, ALICE, planted, deal_two)
        bobs = await wait_for(lambda: deal_one_closed(telegram, BOB), what="Bob's deal-1 message")
        await telegram.wait_answer(await telegram.press(BOB, bobs, button_data(bobs, "🎓")))
        bob_replay = await wait_for(lambda: newest_replay(telegram, Chat.private(BOB)), what="Bob's replay")
        assert "r:dc:" in str(bob_replay.raw) and not bob_replay.content  # his own seat, not coached yet


async def newest_replay(telegram: Telegram, chat: Chat, besides: int | None = None) -> BotMessage | None:
    found = [m for m in await replays_in(telegram, chat) if m.message_id != besides]
    return found[-1] if found else None


async def test_at_a_no_shuffle_table_the_deal_the_one_in_play_was_dealt_from_waits(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """不洗牌: deal 2 is dealt from deal 1's cards in the order they were played; deal 1's replay
    with Alice's new hand would give deal 2's hands away, so it waits for deal 2's end."""
    table = Table(telegram, Chat.group(-4052, "不洗牌复盘"), tmp_path / "n.db")
    async with running_bot(emulator, token, table.db_path, seed=PASSING_SEED):
        ended = await play_deal_one(table, TWO_DEALS + " shuffle=none")
        assert labels(ended) == ["🎓 复盘点评"]
        assert "不洗牌" in await refused(telegram, ALICE, ended, button_data(ended, "🎓"))
        await telegram.wait_idle()
        assert await replays_in(telegram, Chat.private(ALICE)) == []
