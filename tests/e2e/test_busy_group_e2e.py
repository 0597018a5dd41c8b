"""Presses in a group whose minute is spent (issue 32): what a press does shows at once where it
can, and no handler waits for the group's budget.

The bot runs in this process with a group budget of 10 a minute, and the emulator enforces the
same (edits counted as messages): a lobby, its seats and a few replies spend most of such a
minute, so the group is busy without a crowd.

* /stop: the confirmation's edit used to be awaited before the hand keyboards were removed,
  holding the table lock: it waited for the group's budget (a refresh's share, then 15 s of
  aging), and the players' buttons stayed live meanwhile, answering 这桌牌局已结束.
* A contest button whose answer edits the pressed message (取消 on the round's close, 确认 on a
  report's details, a partner's answer), and ◀ ▶ on a group's 复盘, awaited that edit: each such
  press held one of the group's update slots until the group's budget let it go, and the
  group's other presses waited for a slot.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

from app.records.keeper import RecordKeeper
from bench.group import ORGANISER, open_contest
from bot import App, build_application, close_services, open_services
from emulator.client import BotMessage, Chat, Emulator, Telegram, User, most_in_window, polling, wait_for
from handlers.platform.chats import ChatFairProcessor
from storage import Database
from tests.e2e.test_match_e2e import ALICE, BOB, PINNED_MATCH, Table, buttons_by_op, final_status
from tests.records.support import SHORT, played, store_match

GROUP_BUDGET = 10  # messages a minute in the group, on both sides


@contextlib.asynccontextmanager
async def busy_bot(
    emulator: Emulator, token: str, db_path: Path, *, per_chat: int | None = None
) -> AsyncIterator[App]:
    """The bot at a group budget of :data:`GROUP_BUDGET`; ``per_chat``: updates of one chat
    handled at once (fewer than the default's 16 make a handler that waits hold them all)."""
    app = build_application(
        token,
        db_path=str(db_path),
        base_url=emulator.base_url,
        base_file_url=emulator.base_file_url,
        group_per_minute=GROUP_BUDGET,
    )
    if per_chat is not None:
        assert isinstance(app.update_processor, ChatFairProcessor)
        app.update_processor.per_chat = per_chat
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
        await within_budget(telegram, table.group)


async def within_budget(telegram: Telegram, group: Chat) -> None:
    """Never more than the budget in any minute, and no 429."""
    shown = await telegram.messages(group, include_deleted=True)
    times = [m.sent_at_ms for m in shown if m.sent_at_ms is not None]
    times += [at for m in shown for at in m.edited_at_ms]
    assert most_in_window(times, 60_000) <= GROUP_BUDGET
    assert (await telegram.limit_stats()).too_many_requests == 0


async def test_a_contest_press_whose_edit_waits_holds_no_update_slot(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """With one update of the group handled at a time, 取消 on the round's close, whose edit waits
    for the spent budget, is answered, and so is 赛况 pressed right after it."""
    group = Chat.group(-3202, "忙赛群")
    await telegram.enforce_limits(group_per_minute=GROUP_BUDGET, group_edit_weight=1)
    async with busy_bot(emulator, token, tmp_path / "c.db", per_chat=1):
        card = await open_contest(telegram, group, "忙杯")
        for n in range(4):
            await telegram.wait_answer(await telegram.press_text(User(32000 + n, f"P{n}"), card, "报名"))
        await telegram.send(ORGANISER, group, "/draw")
        await telegram.wait_message(group, lambda m: "第 1 轮对阵" in m.content, timeout=120)
        for command in ("/help", "/rules", "/round close"):  # the group's minute is spent
            await telegram.send(ORGANISER, group, command)
        question = await telegram.wait_message(
            group, lambda m: any(b.text == "取消" for row in m.buttons for b in row), timeout=120
        )
        cancel = await telegram.press_text(ORGANISER, question, "取消")
        standings = await telegram.press_text(User(32100, "Fan"), card, "赛况")
        for query in (cancel, standings):
            answer = await telegram.wait_answer(query, timeout=60)
            assert answer.seconds is not None and answer.seconds < 10, answer
        await telegram.wait_message(group, lambda m: m.content == "本轮继续。", timeout=120)
        await within_budget(telegram, group)


async def test_a_replay_step_whose_edit_waits_holds_no_update_slot(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """With one update of the group handled at a time and the group's minute spent, ▶ on the
    group's 复盘 is answered, its picture follows, and 导出 pressed right after it is answered."""
    group = Chat.group(-3203, "忙复盘群")
    db_path = tmp_path / "r.db"
    db = await Database.open(str(db_path))
    try:  # a finished match whose 复盘 the group may see, and its record
        match = played(SHORT.replace(replay_in_group=True), 5)
        people: list[tuple[int | None, str]] = [
            (ALICE.id, "Alice"),
            (None, "AI"),
            (BOB.id, "Bob"),
            (None, "AI"),
        ]
        await store_match(db, match, chat_id=group.id, people=people)
        await RecordKeeper(db).backfill()
    finally:
        await db.close()
    await telegram.enforce_limits(group_per_minute=GROUP_BUDGET, group_edit_weight=1)
    async with busy_bot(emulator, token, db_path, per_chat=1):
        await telegram.send(BOB, group, "/history")
        history = await telegram.wait_message(group, lambda m: "复盘 #" in str(m.raw), timeout=120)
        replay_button = next(b for row in history.buttons for b in row if b.text.startswith("复盘"))
        await telegram.wait_answer(await telegram.press_text(BOB, history, replay_button.text))
        first = await telegram.wait_message(group, lambda m: bool(m.photo_id) and "r:s:" in str(m.raw), 120)
        for command in ("/help", "/rules", "/contest help", "/top", "/standings"):  # the minute is spent
            await telegram.send(BOB, group, command)
        await telegram.wait_idle()
        forward = await telegram.press_text(BOB, first, "▶")
        export_button = next(b for row in history.buttons for b in row if b.text.startswith("导出"))
        export = await telegram.press_text(ALICE, history, export_button.text)
        for query in (forward, export):
            answer = await telegram.wait_answer(query, timeout=60)
            assert answer.seconds is not None and answer.seconds < 10, answer
        await telegram.wait_message(
            group, lambda m: m.message_id == first.message_id and m.raw != first.raw, timeout=120
        )
        await within_budget(telegram, group)
