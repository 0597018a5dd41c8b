"""A clean stop leaves nothing behind (issue 40, item 7): every task the bot started is
cancelled and awaited before the event loop closes.

``python bot.py`` runs as its own process, as in production, through a short scenario that
starts every kind of background work: a table in play (hand edits, the group's board, the
players' thinking lanes, turn clocks), a spectator (观战) who then stops watching, a contest
opened in another group, and a reply in each chat; then SIGTERM. A task left pending is
destroyed with the loop and logged by asyncio ("Task was destroyed but it is pending!") at
exit, after everything the test could watch from the outside: so the test reads the whole
output and allows no such line, no ERROR line and no traceback.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

from emulator.client import Chat, Emulator, Telegram, wait_for
from tests.e2e.contest_support import BOT, wait_text
from tests.e2e.test_match_e2e import (
    ALICE,
    CAROL,
    DAVE,
    PINNED_MATCH,
    ROOT,
    Table,
    answer_to,
    buttons_by_op,
    logged_at_least,
    logged_count,
    set_up,
)
from tests.e2e.test_spectators_e2e import open_private_chat, spectator_message, watch

STOP_TIMEOUT = 30.0
"""Seconds a stopped bot has to exit: far above what a stop takes (about a second)."""
FORBIDDEN = ("Task was destroyed", " ERROR ", "Traceback", "Unclosed")


async def test_a_stop_leaves_no_task_pending_and_logs_no_error(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    table = Table(telegram, Chat.group(-4701, "停机群"), tmp_path / "g.db")
    contest_group = Chat.group(-4702, "停机杯群")
    output = tmp_path / "bot.log"
    env = os.environ | {
        "TELEGRAM_BOT_TOKEN": token,
        "GUANDAN_DB": str(table.db_path),
        "TELEGRAM_API_BASE": emulator.base_url,
    }
    with output.open("wb") as log:
        bot = subprocess.Popen(
            [sys.executable, "bot.py"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            await scenario(telegram, table, contest_group)
            bot.send_signal(signal.SIGTERM)
            code = await asyncio.to_thread(bot.wait, STOP_TIMEOUT)
        finally:
            if bot.poll() is None:
                bot.kill()
                bot.wait()
    lines = output.read_text(encoding="utf-8", errors="replace").splitlines()
    assert code == 0, "\n".join(lines[-40:])
    bad = [line for line in lines if any(word in line for word in FORBIDDEN)]
    assert bad == [], "\n".join(lines[-80:])


async def scenario(telegram: Telegram, table: Table, contest_group: Chat) -> None:
    """A table in play with a spectator who comes and goes, a contest opened elsewhere; the
    table is stopped."""
    await set_up(telegram, table, [ALICE], PINNED_MATCH)
    await open_private_chat(telegram, CAROL)
    text, alert = await watch(telegram, table, CAROL)
    assert not alert and "观战中" in text
    watching = await spectator_message(telegram, CAROL, "你正在观战本桌")
    player = asyncio.create_task(table.play(ALICE))
    try:
        await wait_for(lambda: logged_at_least(table.db_path, 12), timeout=60, what="a few plays")
        await telegram.press(CAROL, watching, buttons_by_op(watching)["u"][0])
        await spectator_message(telegram, CAROL, "你已停止观战本桌")
        await telegram.set_admins(contest_group, [DAVE, BOT])
        await telegram.send(DAVE, contest_group, "/contest new 停机杯")
        await wait_text(telegram, contest_group, "抽签种子 SHA-256")
        played = await logged_count(table.db_path)
        await wait_for(lambda: logged_at_least(table.db_path, played + 4), timeout=60, what="play to go on")
    finally:
        table.over.set()
        await asyncio.gather(player, return_exceptions=True)
    await telegram.send(ALICE, table.group, "/stop")  # the table's spectator desk and board end
    confirm = await telegram.wait_message(table.group, lambda m: "确定结束本桌吗" in m.content)
    await answer_to(telegram, ALICE, confirm, buttons_by_op(confirm)["y"][0])
    await telegram.wait_message(table.group, lambda m: m.content == "本桌已结束。")
    await telegram.wait_idle()
