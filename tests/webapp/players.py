"""A Mini App player without a browser: the page's protocol spoken over aiohttp's WebSocket client,
playing as the chat's simulated players do (提示's first suggestion, or the first tribute card)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp

from tests.webapp.support import init_data


class PagePlayer:
    """One open page of the Mini App: the newest state, and moves on the seat's turn."""

    def __init__(self, port: int, token: str, user_id: int, name: str) -> None:
        self.url = f"http://127.0.0.1:{port}/ws"
        self.init = init_data(token, user_id, name=name)
        self.states: list[dict[str, Any]] = []
        self.refusals: list[dict[str, Any]] = []
        self.bye: dict[str, Any] | None = None
        self.moves = 0
        self.latencies: list[float] = []  # a move sent → the page's next state (press → screen)
        self._sent_at: float | None = None

    @property
    def state(self) -> dict[str, Any] | None:
        return self.states[-1] if self.states else None

    async def hello(
        self, session: aiohttp.ClientSession, init: str | None = None
    ) -> aiohttp.ClientWebSocketResponse:
        ws = await session.ws_connect(self.url)
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
            self._sent_at = time.perf_counter()
            if state["tribute"]:
                await ws.send_str(json.dumps({"t": "tribute", "card": state["tribute"][0]}))
            elif state["return"]:
                await ws.send_str(json.dumps({"t": "return", "card": state["return"][0]}))
            elif state["phase"] == "play":
                await ws.send_str(json.dumps({"t": "hint"}))
                continue
            self.moves += 1
