"""/stop in a group whose minute is spent (issue 32): the players' keyboards go at once, whatever
the group's budget; the group's line 本桌已结束 follows when the budget lets it.

The bot runs in this process with a group budget of 10 a minute, and the emulator enforces the
same (edits counted as messages): a table's lobby, its seats and its board spend most of such a
minute, so the group is busy without a crowd. The confirmation's edit used to be awaited before
the hand keyboards were removed, holding the table lock: it waited for the group's budget (a
refresh's share, then 15 s of aging), and the players' buttons stayed live meanwhile, answering
这桌牌局已结束."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

from bot import App, build_application, close_services, open_services
from emulator.client import BotMessage, Chat, Emulator, Telegram, most_in_window, polling, wait_for
from tests.e2e.test_match_e2e import ALICE, PINNED_MATCH, Table, buttons_by_op, final_status

GROUP_BUDGET = 10  # messages a minute in the group, on both sides


@contextlib.asynccontextmanager
async def busy_bot(emulator: Emulator, token: str, db_path: Path) -> AsyncIterator[App]:
    app = build_application(
        token,
        db_path=str(db_path),
        base_url=emulator.base_url,
        base_file_url=emulator.base_file_url,
        group_per_minute=GROUP_BUDGET,
    )
    await open_services(app, db_path=str(db_path))
    app.bot_data.services.tables.new_seed = lambda: 9
    try:
        async with polling(app):
            yield app
    finally:
        await close_services(app)


async def hand(telegram: Telegram) -> BotMessage:
    return await telegram.wait_message(Chat.private(ALICE), lambda m: bool(m.photo_id and m.buttons), 60)


async def test_stop_takes_the_keyboards_away_at_once_in_a_busy_group(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    table = Table(telegram, Chat.group(-3201, "忙群"), tmp_path / "g.db")
    await telegram.enforce_limits(group_per_minute=GROUP_BUDGET, group_edit_weight=1)
    async with busy_bot(emulator, token, table.db_path):
        await telegram.set_admins(table.group, [ALICE])
        await telegram.send(ALICE, table.group, PINNED_MATCH)
        await table.lobby()
        await table.join(ALICE, 0)
        for _ in range(3):
            await table.add_ai(ALICE)
        await table.start(ALICE)
        shown = await hand(telegram)
        for command in ("/help", "/rules", "/stop"):  # the group's minute is spent
            await telegram.send(ALICE, table.group, command)
        confirm = await telegram.wait_message(
            table.group, lambda m: m.content == "确定结束本桌吗？", timeout=120
        )
        pressed = time.monotonic()
        answer = await telegram.wait_answer(
            await telegram.press(ALICE, confirm, buttons_by_op(confirm)["y"][0])
        )
        assert answer.text == "本桌已结束。" and not answer.show_alert, answer

        async def keyboard_gone() -> bool:
            now = next(
                m for m in await telegram.messages(Chat.private(ALICE)) if m.message_id == shown.message_id
            )
            return not now.buttons

        await wait_for(keyboard_gone, timeout=120, what="the hand's keyboard to go")
        assert time.monotonic() - pressed < 10  # not behind the group's edit
        await telegram.wait_message(table.group, lambda m: m.content == "本桌已结束。", timeout=120)
        assert await final_status(table.db_path) == "stopped"
        group = await telegram.messages(table.group, include_deleted=True)
        times = [m.sent_at_ms for m in group if m.sent_at_ms is not None] + [
            at for m in group for at in m.edited_at_ms
        ]
        assert most_in_window(times, 60_000) <= GROUP_BUDGET
        assert (await telegram.limit_stats()).too_many_requests == 0
