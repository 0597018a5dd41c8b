"""The Enterprise WeChat mirror when its webhook fails: one warning line per try (no
traceback), one line when it is given up, and the contest's group lane never waits for it.

Real parts: a SQLite database, the real outbox and contest desk, and a local HTTP server
standing in for the webhook that answers every POST with a 500.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, cast

import pytest
from aiohttp import web

from app.contest.store import ContestStore
from handlers.contest.desk import ContestDesk
from handlers.contest.wechat import MIRROR_LANE, WECHAT
from handlers.platform.chats import ChatBudget
from handlers.platform.outbox import MAX_FAILURES, Outbox
from storage import Database
from tests.engine.contest.support import new_contest


@pytest.fixture
async def broken_webhook() -> Any:
    hits: list[int] = []

    async def handle(request: web.Request) -> web.Response:
        hits.append(1)
        return web.Response(status=500, text="down")

    app = web.Application()
    app.router.add_post("/cgi-bin/webhook/send", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield f"http://127.0.0.1:{port}/cgi-bin/webhook/send?key=SECRET", hits
    await runner.cleanup()


async def test_a_failing_webhook_logs_a_line_per_try_gives_up_and_blocks_nothing(
    tmp_path: Path, broken_webhook: Any, caplog: pytest.LogCaptureFixture
) -> None:
    url, hits = broken_webhook
    db = await Database.open(tmp_path / "mirror.db")
    outbox = Outbox(db.outbox, first_delay=0.01, max_delay=0.02)
    desk = ContestDesk(cast(Any, None), ContestStore(db), outbox, ChatBudget(), cast(Any, None))
    try:
        stored = await db.contests.create(chat_id=-7, contest=new_contest())
        await db.contest_links.set_mirror(contest_id=stored.id, url=url, set_by=1)
        group: list[str] = []

        async def group_sender(chat_id: int, payload: dict[str, Any]) -> None:
            group.append(str(payload["text"]))

        outbox.register("probe", group_sender)
        caplog.set_level(logging.INFO, logger="handlers.platform.outbox")
        mirrored = outbox.post(MIRROR_LANE - stored.id, WECHAT, {"contest_id": stored.id, "text": "掼蛋3组"})
        outbox.post(-7, "probe", {"text": "掼蛋3组"})
        await asyncio.sleep(0)
        await asyncio.wait_for(outbox.join(), 10)
        assert mirrored.done() and group == ["掼蛋3组"]
    finally:
        await desk.close()
        await outbox.close()
        await db.close()
    assert len(hits) == MAX_FAILURES
    lines = [r for r in caplog.records if r.name == "handlers.platform.outbox"]
    assert all(r.exc_info is None and r.levelno == logging.WARNING for r in lines)
    assert len(lines) == MAX_FAILURES
    assert "given up" in lines[-1].getMessage() and "HTTP 500" in lines[-1].getMessage()
    assert all("SECRET" not in r.getMessage() for r in lines)
    assert await _rows_left(tmp_path / "mirror.db") == 0


async def _rows_left(path: Path) -> int:
    db = await Database.open(path)
    try:
        return len(await db.outbox.pending())
    finally:
        await db.close()
