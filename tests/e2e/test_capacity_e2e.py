"""The bot's capacity through the emulator (issue 23): at its limit of open tables, /newgame in
another group is answered that the bot is busy (how many tables, when to retry) instead of
opening a table that would slow every match in play; once a table ends, /newgame works again."""

from __future__ import annotations

from pathlib import Path

from emulator.client import Chat, Emulator, Telegram, User
from tests.e2e.test_match_e2e import running_bot

HOST = User(8801, "老张")
OTHER = User(8802, "小李")
FIRST = Chat.group(-8801, "一号群")
SECOND = Chat.group(-8802, "二号群")


async def test_newgame_beyond_the_capacity_is_answered_busy(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    async with running_bot(emulator, token, tmp_path / "busy.db", seed=1) as app:
        app.bot_data.services.tables.capacity = 1
        await telegram.set_admins(FIRST, [HOST])
        await telegram.send(HOST, FIRST, "/newgame")
        await telegram.wait_message(FIRST, lambda m: bool(m.buttons))

        await telegram.send(OTHER, SECOND, "/newgame")
        busy = await telegram.wait_message(SECOND, lambda m: "机器人正忙" in m.content)
        assert "已有 1 桌" in busy.content and "/newgame" in busy.content
        assert not busy.buttons  # no lobby was opened
        assert not [m for m in await telegram.messages(SECOND) if m.buttons]

        await telegram.send(HOST, FIRST, "/stop")  # a table ends: room for one more
        question = await telegram.wait_message(FIRST, lambda m: "确定结束本桌" in m.content)
        answer = await telegram.wait_answer(
            await telegram.press(HOST, question, question.buttons[0][0].data or "")
        )
        assert not answer.show_alert, answer.text
        await telegram.send(OTHER, SECOND, "/newgame")
        await telegram.wait_message(SECOND, lambda m: bool(m.buttons))
