"""Issue 40: fencing and the lease's time to live, from the outside. Two ``bot.py`` processes for
one token on one PostgreSQL, each reaching the emulator through a reverse proxy of its own that
logs every Bot API request it passes on (:class:`Proxy`), so what each process sent is known.

* The Bot API slow (5 s a request) and 30 tables playing, the leader's 16 connections busy and
  requests queued for them, the leader's lease session is ended: after the new leader's first
  request the old one sends none (the lease is checked once a request holds its connection).
* The leader frozen (SIGSTOP for 35 s) or its event loop blocked (20 s): it stops renewing, the
  standby takes over within 15 s and every table plays on; the old process, awake again, sends
  nothing, exits 75, and every table's action log is one row per version.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import asyncpg
from aiohttp import web

from emulator.client import Chat, Emulator, Telegram, User, free_port, wait_for
from emulator.postgresql import Cluster
from handlers.platform.leader import STEP_DOWN_EXIT
from storage.lease import LEASE_PREFIX, bot_id_of
from tests.e2e.test_failover_e2e import Players, _true, standing_by
from tests.e2e.test_match_e2e import ROOT, SHORT_MATCH, Table, set_up
from tests.test_compose import bot_environment

MATCH = SHORT_MATCH + " turn_seconds=null first_turn_seconds=null"


class Proxy:
    """A reverse proxy in front of the emulator for one bot process: the arrival time
    (``time.monotonic()``) and Bot API method of every request, and how many are in flight."""

    def __init__(self, target: str) -> None:
        self.target = target.removesuffix("/bot")
        self.log: list[tuple[float, str]] = []
        self.in_flight = 0
        self._runner: web.AppRunner | None = None
        self._client: aiohttp.ClientSession | None = None
        self.base_url = ""

    async def start(self) -> None:
        self._client = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{path:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.base_url = f"http://127.0.0.1:{port}/bot"

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._client is not None:
            await self._client.close()

    def sent_since(self, since: float) -> list[str]:
        return [method for at, method in self.log if at >= since]

    def first(self) -> float | None:
        return self.log[0][0] if self.log else None

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        self.log.append((time.monotonic(), request.path.rsplit("/", 1)[-1]))
        self.in_flight += 1
        try:
            assert self._client is not None
            body = await request.read()
            headers = {k: v for k, v in request.headers.items() if k.lower() == "content-type"}
            async with self._client.request(
                request.method, self.target + request.path_qs, data=body, headers=headers
            ) as answer:
                payload = await answer.read()
                kind = answer.headers.get("Content-Type", "application/json")
                return web.Response(status=answer.status, body=payload, headers={"Content-Type": kind})
        finally:
            self.in_flight -= 1


@contextlib.asynccontextmanager
async def proxied_bot(
    emulator: Emulator, token: str, url: str, extra: dict[str, str] | None = None
) -> AsyncIterator[tuple[subprocess.Popen[bytes], Proxy]]:
    """``bot.py`` with compose.yaml's environment, its Bot API through a :class:`Proxy`."""
    proxy = Proxy(emulator.base_url)
    await proxy.start()
    env = os.environ | bot_environment(token, url) | {"TELEGRAM_API_BASE": proxy.base_url}
    env["GUANDAN_METRICS_PORT"] = str(free_port())  # both on one machine here
    env |= extra or {}
    process = subprocess.Popen([sys.executable, "bot.py"], cwd=ROOT, env=env)
    try:
        yield process, proxy
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGCONT)
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                await asyncio.to_thread(process.wait, 30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        await proxy.close()


async def end_lease_session(url: str, token: str, pid: int) -> int:
    admin = await asyncpg.connect(url)
    try:
        return int(
            await admin.fetchval(
                "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE application_name LIKE $1",
                f"{LEASE_PREFIX}:{bot_id_of(token)}:%-{pid}",
            )
        )
    finally:
        await admin.close()


async def action_logs(url: str) -> dict[int, tuple[int, int, int]]:
    """Per table: (rows, distinct versions, highest version) of its action log."""
    db = await asyncpg.connect(url)
    try:
        rows = await db.fetch(
            "SELECT table_id, COUNT(*), COUNT(DISTINCT version), MAX(version) FROM actions GROUP BY table_id"
        )
    finally:
        await db.close()
    return {int(r[0]): (int(r[1]), int(r[2]), int(r[3])) for r in rows}


async def logged(url: str) -> int:
    return sum(count for count, _, _ in (await action_logs(url)).values())


@contextlib.asynccontextmanager
async def tables_playing(telegram: Telegram, count: int, tmp_path: Path, base: int) -> AsyncIterator[Players]:
    """``count`` groups, each a table of one human (playing with 提示 in private) and three AIs."""
    humans = [User(base + i, f"F{i}") for i in range(count)]
    groups = [Chat.group(-base - i, f"围栏{i}") for i in range(count)]
    for first in range(0, count, 10):  # as people arrive, not all in one instant
        batch = range(first, min(first + 10, count))
        tables = {i: Table(telegram, groups[i], tmp_path / "unused.db") for i in batch}  # SQLite's: unused
        await asyncio.gather(*(set_up(telegram, table, [humans[i]], MATCH) for i, table in tables.items()))
    players = Players(telegram, humans)
    try:
        yield players
    finally:
        await players.stop()


def _leading(proxy: Proxy) -> bool:
    return any(method == "getUpdates" for _, method in proxy.log)


async def test_a_slow_bot_api_queue_sends_nothing_after_the_new_leaders_first_request(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, postgresql_cluster: Cluster
) -> None:
    url = postgresql_cluster.new_database()
    async with proxied_bot(emulator, token, url) as (first, old):
        await wait_for(lambda: _true(_leading(old)), timeout=60, what="the first process to poll")
        async with proxied_bot(emulator, token, url) as (second, new):
            await wait_for(lambda: standing_by(url, token, second.pid), timeout=60, what="a standby")
            async with tables_playing(telegram, 30, tmp_path, 610_000):
                await wait_for(lambda: _true(len(old.log) > 300), timeout=240, what="play under way")
                await telegram.set_latency(5000)  # Telegram answering in 5 s
                await wait_for(lambda: _true(old.in_flight >= 16), timeout=60, what="16 requests in flight")
                assert await end_lease_session(url, token, first.pid) == 1
                assert await asyncio.to_thread(first.wait, 90) == STEP_DOWN_EXIT
                await wait_for(lambda: _true(new.first() is not None), timeout=60, what="the new leader")
                await telegram.set_latency(None)
    taken = new.first()
    assert taken is not None and old.sent_since(taken) == []


async def _frozen_leader_is_replaced(
    emulator: Emulator,
    telegram: Telegram,
    token: str,
    tmp_path: Path,
    url: str,
    freeze: signal.Signals,
    base: int,
) -> None:
    """Shared by SIGSTOP and the blocked loop: the standby serves within 15 s, every table plays
    on, the old process sends nothing more and exits 75, every action log is contiguous."""
    hooks = {"GUANDAN_TEST_HOOKS": "1"}
    async with proxied_bot(emulator, token, url, hooks) as (first, old):
        await wait_for(lambda: _true(_leading(old)), timeout=60, what="the first process to poll")
        async with proxied_bot(emulator, token, url, hooks) as (second, new):
            await wait_for(lambda: standing_by(url, token, second.pid), timeout=60, what="a standby")
            async with tables_playing(telegram, 3, tmp_path, base) as players:
                await wait_for(lambda: _true(len(old.log) > 100), timeout=120, what="play under way")
                frozen = time.monotonic()
                first.send_signal(freeze)
                serving = lambda: _true(new.first() is not None)  # noqa: E731
                await wait_for(serving, timeout=15, what="the standby to serve")
                taken = new.first()
                assert taken is not None
                moved_on = {table: rows + 4 for table, (rows, _, _) in (await action_logs(url)).items()}
                await wait_for(
                    lambda: _tables_moved_on(url, moved_on), timeout=90, what="every table to play on"
                )
                if freeze == signal.SIGSTOP:
                    await asyncio.sleep(max(0.0, frozen + 35 - time.monotonic()))  # frozen for 35 s
                    first.send_signal(signal.SIGCONT)
                assert await asyncio.to_thread(first.wait, 90) == STEP_DOWN_EXIT
                await players.pause()
                assert old.sent_since(taken) == []  # nothing after the new leader's first request
                for table, (rows, versions, highest) in (await action_logs(url)).items():
                    assert rows == versions == highest, f"table {table}: {rows} rows, {versions} versions"


async def _tables_moved_on(url: str, moved_on: dict[int, int]) -> bool:
    now = await action_logs(url)
    return all(now.get(table, (0, 0, 0))[0] >= rows for table, rows in moved_on.items())


async def test_a_frozen_leader_is_replaced_and_sends_nothing_when_it_wakes(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, postgresql_cluster: Cluster
) -> None:
    url = postgresql_cluster.new_database()
    await _frozen_leader_is_replaced(emulator, telegram, token, tmp_path, url, signal.SIGSTOP, 620_000)


async def test_a_leader_whose_event_loop_is_blocked_is_replaced(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, postgresql_cluster: Cluster
) -> None:
    url = postgresql_cluster.new_database()
    await _frozen_leader_is_replaced(emulator, telegram, token, tmp_path, url, signal.SIGUSR1, 630_000)
