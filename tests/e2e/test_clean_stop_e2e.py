"""A clean stop leaves nothing behind (issue 40, item 7): every task the bot started is
cancelled and awaited before the event loop closes.

``python bot.py`` runs as its own process, as in production, through a short scenario that
starts every kind of background work: a table in play (hand edits, the group's board, the
players' thinking lanes, turn clocks), a spectator (观战) who then stops watching, a contest
opened in another group, and a reply in each chat; then SIGTERM. A task left pending is
destroyed with the loop and logged by asyncio ("Task was destroyed but it is pending!") at
exit, after everything the test could watch from the outside: so the test reads the whole
output and allows no such line, no ERROR line and no traceback. The second test stops the bot
in the middle of a match instead, with a player on the Mini App's page (its WebSocket open) and
one in the chat, both pressing as the signal comes.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from emulator.client import Chat, Emulator, Telegram, free_port, wait_for
from emulator.miniapp import PagePlayer
from tests.e2e.contest_support import BOT, wait_text
from tests.e2e.test_match_e2e import (
    ALICE,
    BOB,
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
    await stopped_cleanly(
        emulator, token, table, tmp_path / "bot.log", {}, lambda: scenario(telegram, table, contest_group)
    )


async def test_a_stop_in_the_middle_of_a_match_with_a_page_open_is_clean(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    table = Table(telegram, Chat.group(-4703, "停机页桌"), tmp_path / "p.db")
    port = free_port()
    settings = {"GUANDAN_WEBAPP_URL": "https://guandan.example/app", "GUANDAN_WEBAPP_PORT": str(port)}
    page = PagePlayer(port, token, ALICE.id, ALICE.first_name)

    async def mid_match() -> list[asyncio.Task[None]]:
        await set_up(telegram, table, [ALICE, BOB], PINNED_MATCH)
        players = [asyncio.create_task(page.play(table.over)), asyncio.create_task(table.play(BOB))]
        await wait_for(lambda: logged_at_least(table.db_path, 16), timeout=90, what="a few plays")
        assert page.moves > 0 and page.state is not None  # the page is open and playing
        return players  # still pressing as the signal comes

    await stopped_cleanly(emulator, token, table, tmp_path / "bot.log", settings, mid_match)


async def stopped_cleanly(
    emulator: Emulator,
    token: str,
    table: Table,
    output: Path,
    settings: dict[str, str],
    scenario: Callable[[], Awaitable[list[asyncio.Task[None]]]],
) -> None:
    """Run ``bot.py`` through ``scenario`` (its players, still pressing), SIGTERM it, and read
    its whole output: exit 0, and no pending task destroyed, no ERROR, no traceback, no unclosed
    session."""
    env = (
        os.environ
        | settings
        | {
            "TELEGRAM_BOT_TOKEN": token,
            "GUANDAN_DB": str(table.db_path),
            "TELEGRAM_API_BASE": emulator.base_url,
        }
    )
    with output.open("wb") as log:
        bot = subprocess.Popen(
            [sys.executable, "bot.py"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        players: list[asyncio.Task[None]] = []
        try:
            players = await scenario()
            bot.send_signal(signal.SIGTERM)
            code = await asyncio.to_thread(bot.wait, STOP_TIMEOUT)
        finally:
            table.over.set()
            await asyncio.gather(*players, return_exceptions=True)
            if bot.poll() is None:
                bot.kill()
                bot.wait()
    lines = output.read_text(encoding="utf-8", errors="replace").splitlines()
    assert code == 0, "\n".join(lines[-40:])
    bad = [line for line in lines if any(word in line for word in FORBIDDEN)]
    assert bad == [], "\n".join(lines[-80:])


async def scenario(telegram: Telegram, table: Table, contest_group: Chat) -> list[asyncio.Task[None]]:
    """A table in play with a spectator who comes and goes, a contest opened elsewhere; the
    table is stopped (nobody is pressing at the signal)."""
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
    return []
