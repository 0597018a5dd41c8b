"""What the group is owed arrives once, through failed sends and restarts (issue 8, finding 6).

A table of four AI players plays a whole two-deal match within the press that starts it,
so the two deal results and the match's end are announced together. The bot's HTTP
requests are wrapped so that ``sendPhoto`` stalls and fails (a timeout, a network error,
a 429) the first times: the pictures still arrive, each exactly once. Then the bot is
stopped while every announcement is stored but none could be sent; started again on the
same database, it sends them, once. Before the outbox, the result queue was emptied before
the send, so a failure dropped the announcement for good.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiosqlite
from telegram.error import NetworkError, TimedOut

from bot import App, build_application, close_services, open_services
from emulator.client import Chat, Emulator, Telegram, User, polling, wait_for
from tests.e2e.test_match_e2e import Table

ALICE = User(3101, "Alice")
MATCH = "/newgame wechat-6-deals points_deals=2"
OWED = 3  # two deal results and the match's end


class FlakyPhotos:
    """Wraps the bot's request object: the first ``failures`` sendPhoto calls fail as listed
    (``None``: every one fails)."""

    def __init__(self, app: App, failures: list[str] | None) -> None:
        self.app = app
        self.failures = failures
        self.attempts = 0
        request = app.bot.request
        self._real = request.do_request
        request.do_request = self._do_request  # type: ignore[method-assign]

    async def _do_request(self, url: str, method: str, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        if url.endswith("/sendPhoto"):
            self.attempts += 1
            failure = (
                "network" if self.failures is None else (self.failures.pop(0) if self.failures else None)
            )
            if failure == "stall":  # no answer for a while, then the read timeout
                await asyncio.sleep(0.3)
                raise TimedOut("stalled")
            if failure == "network":
                raise NetworkError("connection reset")
            if failure == "429":
                body = {"ok": False, "error_code": 429, "description": "Too Many Requests: retry after 1"}
                return 429, json.dumps(body | {"parameters": {"retry_after": 1}}).encode()
        return await self._real(url, method, *args, **kwargs)


@contextlib.asynccontextmanager
async def bot_with(
    emulator: Emulator, token: str, db_path: Path, failures: list[str] | None
) -> AsyncIterator[FlakyPhotos]:
    app = build_application(
        token, db_path=str(db_path), base_url=emulator.base_url, base_file_url=emulator.base_file_url
    )
    await app.initialize()
    flaky = FlakyPhotos(app, failures)
    await open_services(app, db_path=str(db_path))
    services = app.bot_data.services
    services.tables.new_seed = lambda: 4
    services.outbox.first_delay = 0.2  # retries every 0.2, 0.4, 0.8 … s instead of 1, 2, 4 …
    try:
        async with polling(app):
            yield flaky
    finally:
        await close_services(app)


async def play_ai_match(telegram: Telegram, table: Table) -> None:
    await telegram.set_admins(table.group, [ALICE])
    await telegram.send(ALICE, table.group, MATCH)
    await table.lobby()
    for _ in range(4):
        await table.add_ai(ALICE)
    await table.start(ALICE)


async def photos(telegram: Telegram, group: Chat) -> list[str]:
    return [m.caption or "" for m in await telegram.messages(group) if m.photo_id]


async def outbox_rows(db_path: Path) -> int:
    async with aiosqlite.connect(db_path) as db, db.execute("SELECT COUNT(*) FROM outbox") as cursor:
        return int((await cursor.fetchone())[0])


async def settled(flaky: FlakyPhotos, db_path: Path) -> None:
    """Nothing is owed any more: every stored result is delivered (its row gone) and the
    outbox's senders have finished, so a duplicate, were one coming, has been sent."""

    async def nothing_owed() -> bool:
        return await outbox_rows(db_path) == 0

    await wait_for(nothing_owed, timeout=30, what="every stored result delivered")
    await flaky.app.bot_data.services.outbox.join()


async def test_results_arrive_once_through_stalls_errors_and_429(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    table = Table(telegram, Chat.group(-4201, "结果群"), tmp_path / "g.db")
    failures = ["stall", "network", "429", "network", "stall"]
    async with bot_with(emulator, token, table.db_path, failures) as flaky:
        await play_ai_match(telegram, table)

        async def all_owed() -> bool:
            return len(await photos(telegram, table.group)) >= OWED

        await wait_for(all_owed, timeout=60, what="the results and the match's end")
        await settled(flaky, table.db_path)  # a duplicate would have come by now
        captions = await photos(telegram, table.group)
        assert flaky.attempts >= OWED + 5
    assert len(captions) == OWED
    assert len(set(captions)) == OWED
    assert "🏆" in captions[-1]
    assert await outbox_rows(table.db_path) == 0


async def test_results_stored_before_a_stop_are_sent_after_the_restart(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    table = Table(telegram, Chat.group(-4202, "重启结果群"), tmp_path / "g.db")
    async with bot_with(emulator, token, table.db_path, None) as flaky:  # every sendPhoto fails
        await play_ai_match(telegram, table)

        async def stored() -> bool:
            return await outbox_rows(table.db_path) == OWED and flaky.attempts > 0

        await wait_for(stored, timeout=30, what="the results stored, not sent")
    assert await photos(telegram, table.group) == []
    async with bot_with(emulator, token, table.db_path, []) as flaky:

        async def all_owed() -> bool:
            return len(await photos(telegram, table.group)) >= OWED

        await wait_for(all_owed, timeout=60, what="the results after the restart")
        await settled(flaky, table.db_path)
        captions = await photos(telegram, table.group)
    assert len(captions) == OWED
    assert len(set(captions)) == OWED
    assert "🏆" in captions[-1]
    assert await outbox_rows(table.db_path) == 0
