"""The server with ws4py clients, the library most published competition bots are written with.

Their threaded client finishes its handshake on two threads; when ``notify/beginning`` came at
once it sometimes closed with 1006 (issue 22.1). Here two such clients play whole runs.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from typing import Any

import pytest

from tools.njupt.referee import PLATFORM_DRAW_AFTER_RESETS, PLATFORM_RULES, Referee
from tools.njupt.server import ProtocolServer

threadedclient = pytest.importorskip("ws4py.client.threadedclient")

TIMEOUT = 60


class Bot(threadedclient.WebSocketClient):  # type: ignore[misc]
    """A competition bot as published ones are written: a random legal index for every act."""

    def __init__(self, url: str, seed: int) -> None:
        super().__init__(url)
        self.rng = random.Random(seed)
        self.stages: list[str] = []
        self.close_code: int | None = None
        self.done = threading.Event()

    def received_message(self, message: Any) -> None:
        data = json.loads(message.data)
        self.stages.append(f"{data['type']}/{data.get('stage')}")
        if data["type"] == "act":
            self.send(json.dumps({"actIndex": self.rng.randint(0, data["indexRange"])}))

    def closed(self, code: int, reason: str | None = None) -> None:
        self.close_code = code
        self.done.set()


def play_bots(port: int, seeds: list[int]) -> list[Bot]:
    bots = [Bot(f"ws://127.0.0.1:{port}/game/ws4py{seed}", seed) for seed in seeds]
    for bot in bots:
        bot.connect()
        threading.Thread(target=bot.run_forever, daemon=True).start()
    for bot in bots:
        assert bot.done.wait(TIMEOUT), "the run did not end"
    return bots


@pytest.mark.parametrize("seed", range(10))  # with no start delay about 1 run in 5 dropped a bot
async def test_two_ws4py_bots_play_a_whole_run_with_no_drop(seed: int) -> None:
    referee = Referee(PLATFORM_RULES, seed, 2, draw_after_resets=PLATFORM_DRAW_AFTER_RESETS)
    server = ProtocolServer(referee, ("ext", "ai", "ext", "ai"), port=0)
    task = asyncio.create_task(server.run())
    await asyncio.wait_for(server.listening.wait(), 5)
    bots = await asyncio.to_thread(play_bots, server.port, [seed * 10, seed * 10 + 1])
    result = await asyncio.wait_for(task, TIMEOUT)
    assert result["dropped"] == [] and result["protocol_errors"] == [0, 0, 0, 0]
    assert result["deals"] == 2
    for bot in bots:
        assert bot.close_code == 1000
        assert bot.stages.count("notify/beginning") == bot.stages.count("notify/episodeOver") == 2
        assert bot.stages[-1] == "notify/gameResult"
