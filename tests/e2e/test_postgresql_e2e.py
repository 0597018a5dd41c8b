"""Issue 34 from a phone: a match begun on SQLite, the bot killed mid-deal, the database moved
into PostgreSQL with ``python -m storage copy``, and the bot started on the copy
(``GUANDAN_DB=postgresql://…``) resumes the match; the players finish it there."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import asyncpg

from emulator.client import Chat, Emulator, Telegram, wait_for
from emulator.postgresql import Cluster
from tests.e2e.test_match_e2e import (
    ALICE,
    BOB,
    MATCH_TIMEOUT,
    ROOT,
    Table,
    bot_process,
    logged_at_least,
    logged_count,
    set_up,
)


async def test_a_match_moved_into_postgresql_mid_deal_is_finished_there(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, postgresql_cluster: Cluster
):
    humans = [ALICE, BOB]
    table = Table(telegram, Chat.group(-4034, "搬家桌"), tmp_path / "g.db")
    url = postgresql_cluster.new_database()
    with bot_process(emulator, token, table.db_path) as first:
        await set_up(telegram, table, humans)
        players = [asyncio.create_task(table.play(user)) for user in humans]
        await wait_for(lambda: logged_at_least(table.db_path, 30), timeout=60, what="30 actions")
        first.kill()
        first.wait()
    on_sqlite = await logged_count(table.db_path)

    copying = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "storage",
        "copy",
        str(table.db_path),
        url,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await copying.communicate()
    assert copying.returncode == 0, out
    assert f"actions {on_sqlite}" in " ".join(out.decode().split())

    try:
        with bot_process(emulator, token, url):  # GUANDAN_DB: the URL
            await asyncio.wait_for(_trophy(telegram, table.group), MATCH_TIMEOUT)
    finally:
        table.over.set()
        await asyncio.gather(*players, return_exceptions=True)
    db = await asyncpg.connect(url)
    try:
        assert await db.fetchval("SELECT status FROM game_tables") == "finished"
        assert await db.fetchval("SELECT COUNT(*) FROM actions") > on_sqlite
        assert await db.fetchval("SELECT COUNT(*) FROM match_records") == 1
    finally:
        await db.close()


async def _trophy(telegram: Telegram, group: Chat) -> None:
    """Until the group is told who won (🏆)."""
    while not any("🏆" in m.content for m in await telegram.messages(group)):
        await asyncio.sleep(0.3)
