"""What an operator relies on (issue 33), against the running bot and the emulator.

* ``/healthz`` turns 503, with the reason, when Telegram is unreachable (a relay between the
  bot and the emulator is shut: connections refused and cut) or the store refuses writes
  (tests/faults.py), and back to 200 when they return; the Dockerfile's own HEALTHCHECK command
  says the same through its exit status.
* ``/metrics`` is Prometheus text with every metric docs/operations.md lists; a press counts
  once, by its kind and how it ended.
* ``python -m storage backup`` run mid-match against the running bot (a process of its own)
  gives a copy that, put where ``GUANDAN_DB`` points, starts and plays the match to its end.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import sys
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

from bot import App, build_application, close_services, open_services, start_monitor
from emulator.client import Chat, Emulator, Telegram, free_port, polling, wait_for
from emulator.tables import STARTUP_WAIT
from handlers.platform.monitor import MonitorConfig
from tests.e2e.test_match_e2e import (
    ALICE,
    BOB,
    MATCH_TIMEOUT,
    ROOT,
    Table,
    assert_clean_finish,
    bot_process,
    buttons_by_op,
    logged_at_least,
    logged_count,
    set_up,
)
from tests.faults import StorageFault


class Relay:
    """A TCP relay from the bot to the emulator that the test can shut: while shut, new
    connections are refused and those open are cut, as when Telegram cannot be reached."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.shut = False
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)

    async def close(self) -> None:
        self.cut()
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    def cut(self) -> None:
        self.shut = True
        for writer in list(self._open):
            writer.transport.abort()
        self._open.clear()

    def mend(self) -> None:
        self.shut = False

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.shut:
            writer.transport.abort()
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self._open |= {writer, up_writer}
        try:
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            self._open -= {writer, up_writer}
            writer.transport.abort()
            up_writer.transport.abort()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    writer.transport.abort()


@contextlib.asynccontextmanager
async def monitored_bot(
    emulator: Emulator, token: str, db_path: Path
) -> AsyncIterator[tuple[App, Relay, int]]:
    """The bot in this process, reaching the emulator through a :class:`Relay`, with its
    monitor on a free port: (app, relay, port)."""
    relay = Relay(urlsplit(emulator.base_url).port or 80)
    await relay.start()
    base = f"http://127.0.0.1:{relay.port}"
    app = build_application(
        token, db_path=str(db_path), base_url=f"{base}/bot", base_file_url=f"{base}/file/bot"
    )
    await open_services(app, db_path=str(db_path))
    monitor = start_monitor(app, MonitorConfig(port=0))
    try:
        async with polling(app):
            yield app, relay, monitor.port
    finally:
        await close_services(app)
        await relay.close()


async def fetch(port: int, path: str) -> tuple[int, str]:
    """GET ``path`` from the monitor (in a thread: the bot's loop must stay free to answer)."""

    def get() -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=20) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    return await asyncio.to_thread(get)


def docker_healthcheck() -> list[str]:
    """The command of the Dockerfile's HEALTHCHECK (exec form), as Docker would run it."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    found = re.search(r"^HEALTHCHECK .*?\bCMD (\[.*\])\s*$", text, re.MULTILINE)
    assert found, "the Dockerfile has no HEALTHCHECK in exec form"
    return list(json.loads(found.group(1)))


async def healthcheck_status(port: int) -> int:
    """The HEALTHCHECK command's exit status against the monitor on ``port``."""
    process = await asyncio.create_subprocess_exec(
        *docker_healthcheck(),
        cwd=ROOT,
        env=os.environ | {"GUANDAN_METRICS_PORT": str(port)},
        stdout=asyncio.subprocess.DEVNULL,
    )
    return await process.wait()


async def health_says(port: int, status: int, reason: str = "") -> bool:
    answer, body = await fetch(port, "/healthz")
    return answer == status and reason in body


async def test_health_turns_503_when_telegram_or_the_store_is_unreachable_and_back(
    emulator: Emulator, token: str, tmp_path: Path
) -> None:
    db_path = tmp_path / "g.db"
    async with monitored_bot(emulator, token, db_path) as (app, relay, port):
        await wait_for(lambda: health_says(port, 200, "ok"), what="healthy at start")
        assert await healthcheck_status(port) == 0

        relay.cut()
        await wait_for(lambda: health_says(port, 503, "telegram:"), what="503 for Telegram")
        assert await healthcheck_status(port) == 1
        relay.mend()
        await wait_for(lambda: health_says(port, 200), what="healthy once Telegram is back")

        for kind in ("read_only", "locked"):
            fault = StorageFault(kind, app.bot_data.services.tables.db, db_path)
            await fault.on()
            try:
                await wait_for(lambda: health_says(port, 503, "store:"), what=f"503 for a {kind} store")
                assert await healthcheck_status(port) == 1
            finally:
                await fault.off()
            await wait_for(lambda: health_says(port, 200), what=f"healthy once the {kind} store is back")
        assert await healthcheck_status(port) == 0


METRICS = (
    "guandan_presses_total",
    "guandan_press_answer_seconds",
    "guandan_telegram_requests_total",
    "guandan_telegram_429_total",
    "guandan_telegram_retry_after_seconds_total",
    "guandan_scheduler_waiting",
    "guandan_edits_queued_total",
    "guandan_edits_sent_total",
    "guandan_edits_superseded_total",
    "guandan_edits_failed_total",
    "guandan_tables_open",
    "guandan_tables_admitted_total",
    "guandan_tables_refused_total",
    "guandan_thinking_queued",
    "guandan_store_seconds",
    "guandan_store_unavailable_total",
    "guandan_build_info",
    "process_start_time_seconds",
)
"""Every metric docs/operations.md lists, as its ``# HELP`` line names it."""


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample in Prometheus text (0 when absent)."""
    wanted = ",".join(f'{key}="{value}"' for key, value in labels.items())
    line = re.search(rf"^{re.escape(name)}(?:\{{{re.escape(wanted)}\}})? (\S+)$", text, re.MULTILINE)
    return float(line.group(1)) if line else 0.0


def delta(after: str, before: str, name: str, **labels: str) -> float:
    return sample(after, name, **labels) - sample(before, name, **labels)


async def test_metrics_count_each_press_once_by_kind_and_outcome(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    table = Table(telegram, Chat.group(-4311, "指标桌"), tmp_path / "g.db")
    async with monitored_bot(emulator, token, table.db_path) as (_app, _relay, port):
        _, before = await fetch(port, "/metrics")
        await telegram.set_admins(table.group, [ALICE])
        await telegram.send(ALICE, table.group, "/newgame")
        await table.join(ALICE, 0)  # a lobby press, answered
        lobby = await table.lobby()
        early = await telegram.press(ALICE, lobby, buttons_by_op(lobby)["go"][0])  # 开始 with one player
        assert (await telegram.wait_answer(early)).show_alert

        async def counted() -> str | None:
            _, text = await fetch(port, "/metrics")
            return (
                text
                if delta(text, before, "guandan_presses_total", kind="lobby", outcome="refused")
                else None
            )

        after = await wait_for(counted, what="the refused press counted")
    assert [name for name in METRICS if f"\n# HELP {name} " not in after] == []
    assert delta(after, before, "guandan_presses_total", kind="lobby", outcome="refused") == 1
    assert delta(after, before, "guandan_presses_total", kind="lobby", outcome="answered") == 1
    assert delta(after, before, "guandan_press_answer_seconds_count", kind="lobby") == 2
    assert sample(after, "guandan_tables_open") == 1
    assert delta(after, before, "guandan_tables_admitted_total") == 1


async def healthy(port: int) -> bool:
    return await healthcheck_status(port) == 0


BACKUP_AT = 30
"""Actions logged before the backup is taken: mid-deal."""


async def test_a_backup_taken_mid_match_restores_and_the_match_goes_on(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    humans = [ALICE, BOB]
    live, copy, restored = tmp_path / "live.db", tmp_path / "backup.db", tmp_path / "restored.db"
    table = Table(telegram, Chat.group(-4312, "备份桌"), live)
    with bot_process(emulator, token, live):
        await set_up(telegram, table, humans)
        players = [asyncio.create_task(table.play(user)) for user in humans]
        await wait_for(lambda: logged_at_least(live, BACKUP_AT), timeout=60, what=f"{BACKUP_AT} actions")
        backup = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "storage", "backup", str(copy),
            cwd=ROOT, env=os.environ | {"GUANDAN_DB": str(live)},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        said, complaint = await backup.communicate()
        assert backup.returncode == 0, complaint.decode()
        assert re.search(r"\d+ tables, [\d,]+ rows, [\d,]+ bytes .* in [\d.]+ s", said.decode()), said
        backed_up = await logged_count(copy)
        assert backed_up >= BACKUP_AT
        await wait_for(lambda: logged_at_least(live, backed_up + 4), timeout=60, what="play after the backup")
    assert await logged_count(live) > backed_up  # what a restore loses: the play since the backup

    shutil.copyfile(copy, restored)  # the restore (docs/operations.md): the copy where GUANDAN_DB points
    table.db_path = restored
    port = free_port()
    with bot_process(emulator, token, restored, GUANDAN_METRICS_PORT=str(port)):
        await wait_for(
            lambda: healthy(port), STARTUP_WAIT, what="the restored bot healthy, as its HEALTHCHECK says"
        )
        watcher = asyncio.create_task(table.watch())
        try:
            await asyncio.wait_for(table.over.wait(), MATCH_TIMEOUT)
        finally:
            table.over.set()
            await asyncio.gather(*players, watcher, return_exceptions=True)
        assert await logged_count(restored) > backed_up
        await assert_clean_finish(telegram, table)
