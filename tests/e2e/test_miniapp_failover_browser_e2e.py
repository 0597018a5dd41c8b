"""Issue 42's failover in a real browser: two ``bot.py`` processes for one token on one throw-away
PostgreSQL, each serving the Mini App on a loopback port of its own, and Debian's ``caddy`` in
front of both running the repository's own Caddyfile (plain HTTP on a loopback port, no admin
endpoint, as the global options below say). Alice's page is opened in headless chromium through
caddy's address, as Telegram opens it through the public one; Bob plays in the chat.

* The leader killed (SIGKILL) on Alice's turn: the standby takes the lease and listens; the page,
  dropped by caddy, reconnects by itself through caddy and shows the same hand and the same table
  (each seat's count and last play, the trick, whose turn); Alice's next move from the page is
  played by the new leader. The time from the kill to the page showing the table is printed.
* The leader frozen (SIGSTOP) on Alice's turn, its sockets open and silent: caddy's health checks
  take it out, so a page opened now reaches the new leader and shows the same table; the open
  page, whose ping goes unanswered, drops its socket and comes back through caddy to the new
  leader, the same, and plays on; the old leader, woken, steps down (exit 75).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright import async_api as playwright

from emulator.client import Chat, Emulator, Telegram, free_port, wait_for
from emulator.miniapp import init_data
from emulator.postgresql import Cluster
from handlers.platform.leader import STEP_DOWN_EXIT
from tests.e2e.test_failover_e2e import (
    Players,
    actions,
    bot_process,
    leading,
    lease_holder,
    standing_by,
)
from tests.e2e.test_match_e2e import ALICE, BOB, PINNED_MATCH, ROOT, Table, set_up
from tests.e2e.test_miniapp_browser_e2e import ARGS, CHROMIUM, PHONE, page_url, take_page_turn

CADDY = shutil.which("caddy") or "/usr/bin/caddy"
LOOPBACK = """{
	admin off
	auto_https off
	default_bind 127.0.0.1
}
"""
"""Global options put before the repository's Caddyfile: plain HTTP on loopback, no admin port."""
PAGE_MOVES = 2
"""Moves Alice makes from the page before the failover: the table is mid-deal, not at its start."""
# CI installs both (`make test` runs scripts/system-deps.sh): there a missing program fails, never skips
pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and Path(CADDY).exists()) and os.environ.get("CI") != "true",
    reason="Debian's chromium or caddy is not installed",
)
SNAPSHOT = """() => ({
    hand: [...document.querySelectorAll('#hand .card')].map(e => e.dataset.card),
    table: document.getElementById('table').textContent,
    turn: [...document.querySelectorAll('.seat.turn')].map(e => e.id),
    header: document.getElementById('header').textContent,
    status: document.getElementById('status').textContent,
})"""
"""What the player sees: the hand, every seat and the trick, whose turn, the heading, the status line."""


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Any]:
    """A fresh chromium profile at 360 px (as the other browser tests)."""
    async with playwright.async_playwright() as driver:
        context = await driver.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(CHROMIUM),
            args=ARGS,
            headless=True,
            viewport=PHONE,
            bypass_csp=True,  # Playwright's wait_for_function evaluates strings; the page's CSP forbids that
        )
        try:
            yield context
        finally:
            await context.close()


@contextlib.contextmanager
def caddy(port: int, upstreams: tuple[int, ...], folder: Path) -> Iterator[subprocess.Popen[bytes]]:
    """The repository's Caddyfile run by Debian's caddy on 127.0.0.1:``port`` in front of the
    bot processes' Mini App ports ``upstreams`` (its own folders for whatever it keeps)."""
    folder.mkdir()
    config = folder / "Caddyfile"
    config.write_text(LOOPBACK + (ROOT / "Caddyfile").read_text(encoding="utf-8"), encoding="utf-8")
    env = os.environ | {
        "MINIAPP_DOMAIN": f"http://127.0.0.1:{port}",
        "MINIAPP_UPSTREAMS": " ".join(f"127.0.0.1:{upstream}" for upstream in upstreams),
        "HOME": str(folder),
        "XDG_CONFIG_HOME": str(folder),
        "XDG_DATA_HOME": str(folder),
    }
    with (folder / "caddy.log").open("wb") as log:
        command = [CADDY, "run", "--config", str(config), "--adapter", "caddyfile"]
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            yield process
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def answers(port: int) -> bool:
    """Something listens on the loopback port."""
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    writer.close()
    await writer.wait_closed()
    return True


def healthz(port: int) -> int:
    """The Mini App's ``/healthz`` status on a process's own port (0: nothing answered)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return int(refused.code)
    except OSError:
        return 0


async def healthy(port: int) -> bool:
    return await asyncio.to_thread(healthz, port) == 200


@dataclass
class Tab:
    """One open page and the WebSockets it opened (a second one: it reconnected)."""

    page: Any
    sockets: list[Any] = field(default_factory=list)


async def snapshot(tab: Tab) -> dict[str, Any]:
    return dict(await tab.page.evaluate(SNAPSHOT))


async def alices_turn(tab: Tab) -> bool:
    """The page shows Alice's turn to play (its 提示 is on) and no connection trouble."""
    shown = await snapshot(tab)
    return shown["status"] == "" and await tab.page.locator("#hint").is_enabled()


async def back_with(tab: Tab, sockets: int, before: dict[str, Any]) -> bool:
    """The page opened a socket since it had ``sockets`` and shows ``before`` through it (until a
    state arrives on a new socket the status line says it is reconnecting)."""
    return len(tab.sockets) > sockets and await snapshot(tab) == before


class Failover:
    """Two bot processes, caddy in front, Alice's page through caddy on her turn mid-deal."""

    def __init__(self, emulator: Emulator, telegram: Telegram, token: str, url: str, folder: Path) -> None:
        self.emulator, self.telegram, self.token = emulator, telegram, token
        self.url, self.folder = url, folder
        self.proxy_port = free_port()
        self.ports = free_port(), free_port()

    def settings(self, port: int) -> dict[str, str]:
        return {
            "GUANDAN_WEBAPP_URL": f"http://127.0.0.1:{self.proxy_port}/",
            "GUANDAN_WEBAPP_PORT": str(port),
        }

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]]:
        """The leader (the first process, caddy's first address) and its standby, caddy in front."""
        with (
            caddy(self.proxy_port, self.ports, self.folder / "caddy"),
            bot_process(self.emulator, self.token, self.url, self.settings(self.ports[0])) as first,
        ):
            await wait_for(lambda: leading(self.url, self.token, first), timeout=60, what="the first to lead")
            with bot_process(self.emulator, self.token, self.url, self.settings(self.ports[1])) as second:
                await wait_for(
                    lambda: standing_by(self.url, self.token, second.pid), timeout=60, what="a standby"
                )
                await wait_for(lambda: answers(self.proxy_port), timeout=30, what="caddy to listen")
                await wait_for(lambda: healthy(self.ports[0]), timeout=30, what="the leader's Mini App")
                assert not await answers(self.ports[1])  # the standby serves no page
                yield first, second

    async def open_page(self, browser: Any) -> Tab:
        tab = Tab(await browser.new_page())
        tab.page.on("websocket", lambda socket: tab.sockets.append(socket))
        await tab.page.goto(page_url(self.proxy_port, init_data(self.token, ALICE.id, name="Alice")))
        await tab.page.wait_for_function("document.querySelectorAll('#hand .card').length > 0", polling=100)
        return tab

    async def mid_deal(self, tab: Tab, bob: Players) -> dict[str, Any]:
        """Alice makes :data:`PAGE_MOVES` moves from the page, Bob his in the chat, until it is
        Alice's turn again; Bob puts his phone down. What the page shows then."""
        for _ in range(PAGE_MOVES):
            await wait_for(lambda: alices_turn(tab), timeout=120, what="Alice's turn on the page")
            await self.move(tab)
        await wait_for(lambda: alices_turn(tab), timeout=120, what="Alice's turn on the page")
        await bob.pause()  # the table now waits for Alice alone: nothing moves until she does
        shown = await snapshot(tab)
        assert shown["hand"] and shown["turn"] == ["seat-me"]
        return shown

    async def move(self, tab: Tab) -> None:
        """Alice's move from the page (提示 then 出牌, or 不出): stored, and the page shows the table
        after it."""
        shown, logged = await snapshot(tab), await actions(self.url)
        assert await take_page_turn(tab.page)
        await wait_for(lambda: _more(self.url, logged[0]), timeout=30, what="Alice's move stored")
        await wait_for(lambda: _moved_on(tab, shown), timeout=30, what="the page showing her move")


async def _more(url: str, count: int) -> bool:
    return (await actions(url))[0] > count


async def _moved_on(tab: Tab, before: dict[str, Any]) -> bool:
    shown = await snapshot(tab)
    return shown["status"] == "" and (shown["table"], shown["turn"]) != (before["table"], before["turn"])


async def first_healthy(port: int, since: float) -> float:
    """Seconds from ``since`` until the process on ``port`` answers /healthz with 200."""
    await wait_for(lambda: healthy(port), timeout=90, what="the new leader's /healthz")
    return time.monotonic() - since


@dataclass
class MidDeal:
    """Alice's page mid-deal behind caddy, the first process leading, Bob playing in the chat."""

    failover: Failover
    first: subprocess.Popen[bytes]
    second: subprocess.Popen[bytes]
    tab: Tab
    bob: Players
    before: dict[str, Any]
    logged: tuple[int, int]
    sockets: int


@contextlib.asynccontextmanager
async def mid_deal(
    emulator: Emulator, telegram: Telegram, token: str, url: str, tmp_path: Path, browser: Any, group: Chat
) -> AsyncIterator[MidDeal]:
    failover = Failover(emulator, telegram, token, url, tmp_path)
    table = Table(telegram, group, tmp_path / "unused.db")
    async with failover.running() as (first, second):
        await set_up(telegram, table, [ALICE, BOB], PINNED_MATCH)
        tab = await failover.open_page(browser)
        bob = Players(telegram, [BOB])
        try:
            before = await failover.mid_deal(tab, bob)
            logged, sockets = await actions(failover.url), len(tab.sockets)
            yield MidDeal(failover, first, second, tab, bob, before, logged, sockets)
        finally:
            await bob.stop()


async def test_a_killed_leaders_page_comes_back_through_caddy_with_the_same_table(
    emulator: Emulator,
    telegram: Telegram,
    token: str,
    tmp_path: Path,
    postgresql_cluster: Cluster,
    browser: Any,
) -> None:
    url, group = postgresql_cluster.new_database(), Chat.group(-4311, "接班小程序桌")
    async with mid_deal(emulator, telegram, token, url, tmp_path, browser, group) as play:
        killed = time.monotonic()
        play.first.send_signal(signal.SIGKILL)
        play.first.wait()
        listening = asyncio.create_task(first_healthy(play.failover.ports[1], killed))
        await wait_for(
            lambda: back_with(play.tab, play.sockets, play.before), timeout=90, what="the page's table again"
        )
        back = time.monotonic() - killed
        print(
            f"\nSIGKILL → the new leader's /healthz 200 after {await listening:.1f} s;"
            f" the page showing the same table after {back:.1f} s"
        )
        assert await lease_holder(url, token) == play.second.pid
        assert await actions(url) == play.logged  # nothing was played for Alice meanwhile
        await play.failover.move(play.tab)
        play.bob.go.set()  # the new leader takes Bob's presses too
        await wait_for(lambda: alices_turn(play.tab), timeout=120, what="Alice's turn after Bob's")


async def test_a_frozen_leaders_page_moves_to_the_new_leader_through_caddy(
    emulator: Emulator,
    telegram: Telegram,
    token: str,
    tmp_path: Path,
    postgresql_cluster: Cluster,
    browser: Any,
) -> None:
    url, group = postgresql_cluster.new_database(), Chat.group(-4312, "冻结小程序桌")
    async with mid_deal(emulator, telegram, token, url, tmp_path, browser, group) as play:
        frozen = time.monotonic()
        play.first.send_signal(signal.SIGSTOP)  # its sockets stay open: only the page's ping tells
        try:
            listening = await first_healthy(play.failover.ports[1], frozen)
            assert await lease_holder(url, token) == play.second.pid
            fresh = await play.failover.open_page(browser)  # caddy passes the frozen process by
            await wait_for(lambda: back_with(fresh, 0, play.before), timeout=60, what="a new page's table")
            opened = time.monotonic() - frozen
            await fresh.page.close()
            await wait_for(
                lambda: back_with(play.tab, play.sockets, play.before), timeout=60, what="the page back"
            )
            back = time.monotonic() - frozen
            print(
                f"\nSIGSTOP → the new leader's /healthz 200 after {listening:.1f} s; a page opened"
                f" through caddy showing the table after {opened:.1f} s; the open page back after"
                f" {back:.1f} s"
            )
            await play.failover.move(play.tab)  # played by the new leader while the old one is still frozen
        finally:
            play.first.send_signal(signal.SIGCONT)
        assert await asyncio.to_thread(play.first.wait, 30) == STEP_DOWN_EXIT  # woken, it steps down
        assert (await actions(url))[0] == play.logged[0] + 1  # Alice's one move, once
