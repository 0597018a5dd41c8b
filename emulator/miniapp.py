"""A Mini App user without a browser: initData as Telegram's app signs it for a page, and a
player who plays through the page's WebSocket (the tests and bench/miniapp.py share it); and
for the bench scripts that open the page in Chromium, a table of the bot in this process."""

from __future__ import annotations

import asyncio
import json
import os
import random
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode
from uuid import uuid4

import aiohttp

from bot import build_application, close_services, open_services
from emulator.client import Chat, Emulator, Telegram, User, polling
from emulator.tables import GroupTable, set_up
from webapp.initdata import sign


def init_data(
    token: str, user_id: int, *, name: str = "Ann", auth_date: int | None = None, language: str = "zh"
) -> str:
    """A query string like the one Telegram puts in ``#tgWebAppData=…``, signed with ``token``."""
    user = {"id": user_id, "first_name": name, "language_code": language}
    fields = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(user, separators=(",", ":"), ensure_ascii=False),
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
    }
    return urlencode(fields | {"hash": sign(fields, token)})


class PagePlayer:
    """One open page of the Mini App: the newest state, and moves on the seat's turn."""

    def __init__(self, port: int, token: str, user_id: int, name: str, *, think: float = 0.0) -> None:
        self.think = think
        """Mean seconds a move waits after its turn is shown (a person's pace; 0: at once)."""
        self.url = f"http://127.0.0.1:{port}/ws"
        self.init = init_data(token, user_id, name=name)
        self.states: list[dict[str, Any]] = []
        self.refusals: list[dict[str, Any]] = []
        self.bye: dict[str, Any] | None = None
        self.moves = 0
        self.connections = 0  # hellos sent: more than one means the page was dropped and came back
        self.latencies: list[float] = []  # a move sent → the page's next state (press → screen)
        self._sent_at: float | None = None

    @property
    def state(self) -> dict[str, Any] | None:
        return self.states[-1] if self.states else None

    async def hello(
        self, session: aiohttp.ClientSession, init: str | None = None
    ) -> aiohttp.ClientWebSocketResponse:
        ws = await session.ws_connect(self.url)
        self.connections += 1
        await ws.send_str(json.dumps({"t": "hello", "init": self.init if init is None else init}))
        return ws

    async def play(self, over: asyncio.Event) -> None:
        """Until ``over``: on each state that is the seat's turn, move (reconnecting if dropped)."""
        async with aiohttp.ClientSession() as session:
            while not over.is_set():
                try:
                    ws = await self.hello(session)
                    await self._play(ws, over)
                except aiohttp.ClientError:
                    await asyncio.sleep(0.3)
                if self.bye is not None:
                    return

    async def _play(self, ws: aiohttp.ClientWebSocketResponse, over: asyncio.Event) -> None:
        acted = -1
        async for message in ws:
            data = json.loads(message.data)
            if data["t"] == "bye":
                self.bye = data
                return
            if data["t"] == "refused":
                self.refusals.append(data)
                acted = -1
            elif data["t"] == "hint":
                await ws.send_str(
                    json.dumps({"t": "play", "cards": data["cards"]} if data["cards"] else {"t": "pass"})
                )
                self.moves += 1
                continue
            elif data["t"] == "state":
                self.states.append(data)
                if self._sent_at is not None:
                    self.latencies.append(time.perf_counter() - self._sent_at)
                    self._sent_at = None
            state = self.state
            if over.is_set():
                await ws.close()
                return
            if state is None or state["seat"] not in state["to_act"] or state["version"] == acted:
                continue
            acted = state["version"]
            if self.think:
                await asyncio.sleep(random.uniform(0.5, 1.5) * self.think)
            self._sent_at = time.perf_counter()
            if state["tribute"]:
                await ws.send_str(json.dumps({"t": "tribute", "card": state["tribute"][0]}))
            elif state["return"]:
                await ws.send_str(json.dumps({"t": "return", "card": state["return"][0]}))
            elif state["phase"] == "play":
                await ws.send_str(json.dumps({"t": "hint"}))
                continue
            self.moves += 1


# A mid-range phone on a slow mobile network, as the page budget is set for: Chrome
# DevTools' "Fast 3G"-like link (1.6 Mbit/s down, 750 kbit/s up, 150 ms round trip) and a CPU
# four times slower than this machine's.
PHONE_NETWORK = {
    "offline": False,
    "latency": 150,
    "downloadThroughput": 1_600_000 / 8,
    "uploadThroughput": 750_000 / 8,
}
PHONE_CPU_SLOWDOWN = 4


@dataclass(frozen=True, slots=True)
class PageLoad:
    """One cold load of the page on the throttled phone profile."""

    transferred: int
    """Bytes on the wire for the page and its files (headers included; the WebSocket not)."""
    responses: tuple[tuple[str, int], ...]
    """Each response's address and bytes on the wire."""
    first_paint_ms: float
    """first-contentful-paint as the page's own Performance API reports it."""
    hand_ms: float
    """From navigation until the seat's hand is on screen (the first state over the WebSocket)."""


async def load_throttled(context: Any, url: str) -> PageLoad:
    """Open ``url`` in a new tab of a Playwright Chromium ``context`` on the phone profile, cache
    off, and measure what its first load costs (Chrome DevTools Protocol, as DevTools does)."""
    page = await context.new_page()
    cdp = await context.new_cdp_session(page)
    sizes: dict[str, int] = {}
    addresses: dict[str, str] = {}

    def received(event: dict[str, Any]) -> None:
        addresses[event["requestId"]] = event["response"]["url"]

    def finished(event: dict[str, Any]) -> None:
        sizes[event["requestId"]] = int(event["encodedDataLength"])

    cdp.on("Network.responseReceived", received)
    cdp.on("Network.loadingFinished", finished)
    await cdp.send("Network.enable")
    await cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    await cdp.send("Network.emulateNetworkConditions", PHONE_NETWORK)
    await cdp.send("Emulation.setCPUThrottlingRate", {"rate": PHONE_CPU_SLOWDOWN})
    await page.goto(url)
    await page.wait_for_function("document.querySelectorAll('#hand .card').length > 0", polling=50)
    hand_ms = await page.evaluate("performance.now()")
    first_paint = await page.evaluate(
        """() => performance.getEntriesByType('paint')
            .filter(e => e.name === 'first-contentful-paint').map(e => e.startTime)"""
    )
    await cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    responses = tuple((addresses.get(key, "?"), size) for key, size in sizes.items())
    return PageLoad(sum(sizes.values()), responses, float(first_paint[0]), float(hand_ms))


@dataclass(frozen=True, slots=True)
class ServedTable:
    """A running table of the bot in this process, and how a seated user's page opens it."""

    telegram: Telegram
    token: str
    port: int

    def page_url(self, user_id: int, name: str, table: int = 1) -> str:
        """The address Telegram opens for ``user_id``: initData in the fragment, as its apps put it."""
        signed = quote(init_data(self.token, user_id, name=name))
        return f"http://127.0.0.1:{self.port}/?t={table}#tgWebAppData={signed}"


@asynccontextmanager
async def served_table(
    humans: Sequence[User], command: str, *, seed: int | None = None
) -> AsyncIterator[ServedTable]:
    """The real bot (the Bot API emulator behind it, the Mini App on a free port, a temporary
    SQLite store) with one group table opened by ``command``: ``humans`` (emulator ``User``s)
    seated in order, computer players in the other seats, the match started; ``seed`` pins
    the deal, as the e2e tests do."""
    emulator = Emulator.start()
    token = f"{uuid4().int % 10**9}:BENCH{uuid4().hex}"
    db_path = str(Path(tempfile.mkdtemp()) / "b.db")
    os.environ |= {"GUANDAN_WEBAPP_URL": "https://bench.example/app", "GUANDAN_WEBAPP_PORT": "0"}
    app = build_application(
        token, db_path=db_path, base_url=emulator.base_url, base_file_url=emulator.base_file_url
    )
    await open_services(app, db_path=db_path)
    if seed is not None:
        app.bot_data.services.tables.new_seed = lambda: seed
    try:
        async with Telegram(emulator, token) as telegram, polling(app):
            await set_up(telegram, GroupTable(telegram, Chat.group(-52_000, "掼蛋")), list(humans), command)
            yield ServedTable(telegram, token, int(getattr(app.bot_data.services.miniapp, "port", 0)))
    finally:
        await close_services(app)
        emulator.stop()


class StateWatch:
    """The newest ``state`` a page in Chromium received over its WebSocket (Playwright's
    ``websocket`` events): what the page itself was told, for a script that waits on it."""

    def __init__(self, page: Any) -> None:
        self.state: dict[str, Any] = {}
        page.on("websocket", lambda ws: ws.on("framereceived", self._received))

    def _received(self, frame: str | bytes) -> None:
        message = json.loads(frame)
        if message.get("t") == "state":
            self.state = message

    async def turn(self, after: int = -1) -> int:
        """Until the seat may play in a state newer than ``after``; that state's version."""
        while not (
            self.state.get("version", -1) > after
            and self.state["phase"] == "play"
            and self.state["seat"] in self.state["to_act"]
        ):
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)  # the page draws it
        return int(self.state["version"])
