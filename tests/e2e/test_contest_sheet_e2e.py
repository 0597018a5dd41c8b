"""A recorder's score sheet through the emulator (issue 11): a 000-E final at a real table.

Two pairs are drawn into a self-scheduled round. A player presses the pairing message's
``📝 1桌记分`` before ever writing to the bot and is told to /start it first; after /start the
sheet arrives in their private chat. They enter the six deals by its buttons (a fast double
tap enters its deal once, an undo takes a wrong deal back), draw the first leader (🎴), and
✅ submit: the group gets the official ``掼蛋N组`` line and the details with the points, the
📝 button leaves the pairing message, and the sheet says it was submitted. The bot restarts
in the middle, and the sheet it shows afterwards is the same.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from emulator.client import BotMessage, Chat, Emulator, Telegram, User, wait_for
from engine.contest import seating
from tests.e2e.contest_support import (
    BOT,
    CARD,
    Clock,
    contest_in,
    press,
    running_bot,
    sign_up_pairs,
    wait_text,
)

ORGANISER = User(8100, "Sara", username="sara81")
PLAYERS = [User(8101 + i, f"S{i}", username=f"s{i}x") for i in range(4)]
HALL = Chat.group(-8101, "记分群")


def person(user_id: int) -> User:
    return next(u for u in PLAYERS if u.id == user_id)


async def sheet_of(telegram: Telegram, chat: Chat, text: str, version: int) -> BotMessage:
    """The sheet in ``chat`` once it shows ``text`` and its buttons carry ``version``."""

    def fits(message: BotMessage) -> bool:
        datas = [b.data or "" for row in message.buttons for b in row]
        fresh = not datas or any(d.split(".")[1] == str(version) for d in datas if d.startswith("k:sh:"))
        return "📝" in message.content and text in message.content and fresh

    return await telegram.wait_message(chat, fits, timeout=30)


async def test_a_recorder_fills_the_sheet_by_buttons_and_the_group_gets_the_result(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    db_path = tmp_path / "sheet.db"
    clock = Clock()
    async with running_bot(emulator, token, db_path, clock):
        await telegram.set_admins(HALL, [ORGANISER, BOT])
        await telegram.send(ORGANISER, HALL, f"/contest new 记分杯 deadline={clock.typed(18)}")
        await wait_text(telegram, HALL, CARD)
        await sign_up_pairs(telegram, HALL, [(PLAYERS[0], PLAYERS[1]), (PLAYERS[2], PLAYERS[3])])
        await telegram.send(ORGANISER, HALL, "/draw")
        pairings = await wait_text(telegram, HALL, "第 1 轮对阵")
        assert pairings.button("📝 1桌记分").data
        contest = await contest_in(db_path, HALL)
        match = contest.rounds[0].matches[0]
        seats = seating(contest.seed, match, contest.round_rules(1).seat_assignment)
        recorder = person(contest.pair(seats.ew).user_ids[0])
        dm = Chat.private(recorder)

        text, alert = await press(telegram, recorder, pairings, "📝 1桌记分")
        assert alert and "/start" in text  # the bot may not write to them yet
        await telegram.send(recorder, dm, "/start")
        await telegram.wait_idle()
        text, alert = await press(telegram, recorder, pairings, "📝 1桌记分")
        assert not alert and "私聊" in text
        sheet = await sheet_of(telegram, dm, "还没有记录", 0)
        assert f"南北 {seats.ns}组" in sheet.content and f"东西 {seats.ew}组" in sheet.content

        text, alert = await press(telegram, recorder, sheet, "🎴 首出")
        sheet = await sheet_of(telegram, dm, "🎴 第1副", 0)
        assert "先摸牌" in sheet.content

        # a fast double tap: both presses carry version 0, the second is stale
        first, second = await asyncio.gather(
            telegram.press_text(recorder, sheet, "南北 双下"),
            telegram.press_text(recorder, sheet, "南北 双下"),
        )
        answers = [await telegram.wait_answer(q) for q in (first, second)]
        assert sorted(a.text for a in answers) == [
            "已记录：南北 双下",
            "记分表刚刚有变化：已刷新，请再按一次。",
        ]
        assert not any(a.show_alert for a in answers)
        sheet = await sheet_of(telegram, dm, "1. 南北 双下 → 3 : 0", 1)
        assert "2. " not in sheet.content

        await press(telegram, recorder, sheet, "东西 1·4")
        sheet = await sheet_of(telegram, dm, "2. 东西 1·4 → 3 : 1", 2)
        await press(telegram, recorder, sheet, "↩ 撤销")  # a wrong deal taken back
        sheet = await sheet_of(telegram, dm, "下一副：第2副", 3)
        assert "2. 东西" not in sheet.content

    async with running_bot(emulator, token, db_path, clock):  # restarted: the same sheet, its buttons work
        for version, label in enumerate(
            ["东西 1·3", "南北 1·4", "南北 双下", "东西 双下", "南北 1·3"], start=3
        ):
            text, alert = await press(telegram, recorder, sheet, label)
            assert not alert, text
            sheet = await sheet_of(telegram, dm, "📝", version + 1)
        # NS: 3 + 1 + 3 + 2 = 9, EW: 2 + 3 = 5 after six deals
        assert "🏁" in sheet.content and f"{seats.ns}组胜" in sheet.content
        text, alert = await press(telegram, recorder, sheet, "✅ 提交")
        assert not alert, text
        await telegram.wait_message(HALL, lambda m: m.content == f"掼蛋{seats.ns}组")
        details = await telegram.wait_message(  # the details follow the official line
            HALL, lambda m: match.code in m.content and "9:5" in m.content, timeout=30
        )
        assert "9:5" in details.content  # the points, from the sheet
        await wait_for(
            lambda: _submitted(telegram, dm), timeout=20, what="the sheet marked submitted, without buttons"
        )

        async def no_sheet_button() -> bool:
            shown = next(m for m in await telegram.messages(HALL) if m.message_id == pairings.message_id)
            return all(b.text != "📝 1桌记分" for row in shown.buttons for b in row)

        await wait_for(no_sheet_button, timeout=20, what="the 📝 button gone from the pairing message")
        stored = await contest_in(db_path, HALL)
        result = stored.match_by_code(match.code).result
        assert result is not None and result.winner == seats.ns and result.figures is not None
        assert sorted(result.figures.points) == [5, 9]


async def _submitted(telegram: Telegram, dm: Chat) -> bool:
    shown = await telegram.last_message(dm)
    return shown is not None and "✅ 已提交" in shown.content and not shown.buttons
