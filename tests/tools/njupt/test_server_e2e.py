"""The protocol server over real WebSockets on 127.0.0.1, with clients of our own.

Each client keeps a :class:`SeatModel` that checks every message from its seat's side, and
answers ``act`` messages with a seeded random index, like a competition bot would.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from engine.actions import Action
from engine.observation import Observation
from engine.rules import Rules
from players.policies import POLICIES
from tests.tools.njupt.seat_model import SeatModel
from tools.njupt.referee import PLATFORM_DRAW_AFTER_RESETS, PLATFORM_RULES, SEAT_POLICIES, Referee
from tools.njupt.server import MAX_SIZE, ProtocolServer

TIMEOUT = 60


@dataclass
class Client:
    """One outside bot: its model, the error messages it got, what it misbehaves with."""

    model: SeatModel
    bad_answers: list[str] = field(default_factory=list)  # sent, in order, before valid answers
    leave_after_acts: int | None = None
    silent: bool = False  # never answers
    errors: list[dict[str, Any]] = field(default_factory=list)
    acts: list[dict[str, Any]] = field(default_factory=list)
    close_code: int | None = None

    async def play(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] == "error":
                    self.errors.append(message)
                    continue
                self.model.see(message)
                if message["type"] == "act":
                    self.acts.append(message)
                    if self.leave_after_acts is not None and len(self.acts) > self.leave_after_acts:
                        await ws.close()
                        return
                    if not self.silent:
                        await ws.send(self._answer(message))
        except ConnectionClosed:
            pass
        self.close_code = ws.close_code

    def _answer(self, message: dict[str, Any]) -> str:
        if self.bad_answers:
            return self.bad_answers.pop(0)
        return json.dumps({"actIndex": self.model.choose(message)})


@asynccontextmanager
async def running(
    seats: tuple[str, ...], deals: int, seed: int, **options: Any
) -> AsyncIterator[ProtocolServer]:
    referee = Referee(PLATFORM_RULES, seed, deals, draw_after_resets=PLATFORM_DRAW_AFTER_RESETS)
    server = ProtocolServer(referee, seats, port=0, **options)
    task = asyncio.create_task(server.run())
    await asyncio.wait_for(server.listening.wait(), 5)
    try:
        yield server
    finally:
        if not task.done():
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def play(server: ProtocolServer, clients: list[Client]) -> dict[str, Any]:
    """Connect the clients in seat order, play the run out, return the result line's fields."""
    sockets = []
    for i in range(len(clients)):
        sockets.append(await connect(f"ws://127.0.0.1:{server.port}/game/client{i}", max_size=None))
    tasks = [asyncio.create_task(client.play(ws)) for client, ws in zip(clients, sockets, strict=True)]
    await asyncio.wait_for(asyncio.gather(*tasks), TIMEOUT)
    return server.referee.result() | {"protocol_errors": server.errors}


def ext_seats(seats: tuple[str, ...]) -> list[int]:
    return [seat for seat, kind in enumerate(seats) if kind == "ext"]


async def test_four_outside_clients_play_complete_deals_with_tributes_and_anti_tributes() -> None:
    """Seed 1's six deals have tributes, returns and a 抗贡, and every client pays and returns."""
    seats = ("ext",) * 4
    clients = [Client(SeatModel(1 * 4 + seat)) for seat in range(4)]
    async with running(seats, 6, 1) as server:
        result = await play(server, clients)
    assert result["deals"] == 6 and result["protocol_errors"] == [0, 0, 0, 0]
    for seat, client in enumerate(clients):
        stages = client.model.stages
        assert client.model.pos == seat and client.close_code == 1000
        assert stages["notify/beginning"] == stages["notify/episodeOver"] == 6
        assert stages["notify/anti-tribute"] >= 1 and stages["notify/tribute"] >= 1
        assert stages["notify/back"] == stages["notify/tribute"]
        assert stages["act/tribute"] >= 1 and stages["act/back"] >= 1
        assert stages["notify/gameResult"] == 1 and not client.errors
    assert (
        sum(client.model.stages["notify/play"] for client in clients)
        == 4 * clients[0].model.stages["notify/play"]
    )


async def test_outside_clients_against_our_ai() -> None:
    seats = ("ext", "ai", "ext", "ai")
    clients = [Client(SeatModel(seat)) for seat in ext_seats(seats)]
    async with running(seats, 3, 1) as server:
        result = await play(server, clients)
    assert [client.model.pos for client in clients] == [0, 2]
    assert result["deals"] == 3 and result["protocol_errors"] == [0, 0, 0, 0]
    wins = [seat["deal_wins"] for seat in result["seats"]]
    assert wins[0] + wins[1] == 3 and wins[0] == wins[2]
    assert clients[0].model.result == clients[1].model.result is not None


async def test_an_invalid_answer_is_refused_with_an_error_and_asked_again() -> None:
    seats = ("ext", "random", "random", "random")
    bad = ["nonsense", json.dumps({"actIndex": 10_000})]
    client = Client(SeatModel(5), bad_answers=list(bad))
    async with running(seats, 1, 4) as server:
        result = await play(server, [client])
    assert result["protocol_errors"] == [2, 0, 0, 0]
    assert [error["message"][:8] for error in client.errors] == ["not JSON", "actIndex"]
    assert all(error["stage"] == client.acts[0]["stage"] for error in client.errors)
    assert client.acts[0] == client.acts[1] == client.acts[2]  # the same question, asked again
    assert result["deals"] == 1 and client.model.stages["notify/episodeOver"] == 1


async def test_after_too_many_invalid_answers_the_ai_answers_and_the_deal_goes_on() -> None:
    seats = ("ext", "random", "random", "random")
    client = Client(SeatModel(6), bad_answers=[json.dumps({"actIndex": -1})] * 1000)
    async with running(seats, 1, 4, max_invalid=2) as server:
        result = await play(server, [client])
    decisions = len(client.acts) // 2
    assert decisions >= 1 and len(client.acts) == 2 * decisions
    assert result["protocol_errors"] == [3 * decisions, 0, 0, 0]  # 2 invalid + 1 "the AI answers" each
    assert result["deals"] == 1 and client.model.stages["notify/gameResult"] == 1


async def test_a_silent_client_times_out_and_after_three_misses_the_ai_plays_its_seat() -> None:
    """Issue 22.4: a client that never answers ends its run (the default timeout is finite too)."""
    seats = ("ext", "random", "random", "random")
    client = Client(SeatModel(7), silent=True)
    async with running(seats, 1, 4, timeout=0.05) as server:
        result = await play(server, [client])
    assert result["deals"] == 1 and len(client.acts) == 3
    assert result["protocol_errors"][0] == 3 + 1  # three misses, then the drop
    assert [drop["seat"] for drop in server.dropped] == [0]
    assert "3 answers missed in a row" in server.dropped[0]["reason"]
    assert ProtocolServer(server.referee, seats).timeout is not None  # by default too


async def test_a_message_larger_than_the_limit_closes_the_connection_and_the_ai_plays() -> None:
    """Issue 22.4: there was no size limit (a 10 MB answer was accepted)."""
    seats = ("ext", "random", "random", "random")
    client = Client(SeatModel(13), bad_answers=["x" * (MAX_SIZE + 1)])
    async with running(seats, 1, 4) as server:
        await play(server, [client])
        await asyncio.wait_for(finished(server), TIMEOUT)
    assert client.close_code == 1009 and server.referee.deals_played == 1
    assert [drop["seat"] for drop in server.dropped] == [0] and server.errors[0] == 1


async def finished(server: ProtocolServer) -> None:
    while not server.referee.finished:
        await asyncio.sleep(0.02)


async def test_a_client_that_leaves_while_the_table_settles_frees_its_seat() -> None:
    """Issue 22.1: play began the moment the last ext seat was taken, while a (ws4py) client was
    still settling its handshake; it closed, and the AI played its seat for the whole run. Now
    play starts after ``start_delay``: a client gone by then frees the seat for the next one."""
    seats = ("ext", "random", "ext", "random")
    first, last = Client(SeatModel(14)), Client(SeatModel(15))
    async with running(seats, 1, 5, start_delay=0.5) as server:
        ws = await connect(f"ws://127.0.0.1:{server.port}/game/first", max_size=None)
        flaky = await connect(f"ws://127.0.0.1:{server.port}/game/flaky", max_size=None)
        await flaky.close()
        again = await connect(f"ws://127.0.0.1:{server.port}/game/again", max_size=None)
        await asyncio.wait_for(asyncio.gather(first.play(ws), last.play(again)), TIMEOUT)
    assert server.errors == [0, 0, 0, 0] and server.dropped == []
    assert first.model.pos == 0 and last.model.pos == 2 and last.model.stages["notify/episodeOver"] == 1


async def test_a_drop_is_listed_with_its_seat_and_moment_and_may_fail_the_run() -> None:
    seats = ("ext", "ai", "ext", "ai")
    leaver, stayer = Client(SeatModel(16), leave_after_acts=3), Client(SeatModel(17))
    async with running(seats, 3, 2, fail_on_drop=True) as server:
        result = await play(server, [leaver, stayer])
    assert [(drop["seat"], drop["name"], drop["deal"]) for drop in server.dropped] == [(0, "client0", 1)]
    assert server.dropped[0]["decision"] >= 3
    assert server.failed is not None and "seat 0" in server.failed
    assert result["deals"] == 0 and stayer.close_code == 1011


async def test_the_server_answers_connections_while_computer_players_think() -> None:
    """Issue 22.4: the AI ran on the event loop, so nobody was answered while AI seats played."""
    slow = "slow-test-player"

    def sleepy(obs: Observation, rules: Rules, rng: random.Random) -> Action:
        time.sleep(0.01)
        return POLICIES["greedy"](obs, rules, rng)

    SEAT_POLICIES[slow] = sleepy
    try:
        async with running((slow,) * 4, 2, 6) as server:
            await asyncio.sleep(0.05)
            late = await asyncio.wait_for(connect(f"ws://127.0.0.1:{server.port}/game/late"), TIMEOUT)
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(late.recv(), TIMEOUT)
            assert late.close_code == 1013 and not server.referee.finished  # answered mid-run
    finally:
        del SEAT_POLICIES[slow]


async def test_a_message_nobody_asked_for_is_logged_and_dropped() -> None:
    seats = ("ext", "random", "random", "random")
    client = Client(SeatModel(8))
    async with running(seats, 1, 4) as server:
        ws = await connect(f"ws://127.0.0.1:{server.port}/game/eager", max_size=None)
        await ws.send(json.dumps({"actIndex": 0}))  # before anything was asked
        await asyncio.wait_for(client.play(ws), TIMEOUT)
        result = server.referee.result()
    assert server.errors == [1, 0, 0, 0] and result["deals"] == 1


async def test_a_client_that_leaves_is_replaced_by_the_ai() -> None:
    seats = ("ext", "ai", "ext", "ai")
    leaver = Client(SeatModel(9), leave_after_acts=3)
    stayer = Client(SeatModel(10))
    async with running(seats, 2, 2) as server:
        result = await play(server, [leaver, stayer])
    assert result["deals"] == 2 and result["protocol_errors"] == [1, 0, 0, 0]
    assert stayer.model.stages["notify/episodeOver"] == 2 and stayer.model.result is not None


async def test_other_paths_are_refused_and_a_full_table_closes_newcomers() -> None:
    seats = ("ext", "random", "random", "random")
    async with running(seats, 1, 4) as server:
        with pytest.raises(InvalidStatus) as refused:
            await connect(f"ws://127.0.0.1:{server.port}/lobby", max_size=None)
        assert refused.value.response.status_code == 404
        first = await connect(f"ws://127.0.0.1:{server.port}/game/first", max_size=None)
        late = await connect(f"ws://127.0.0.1:{server.port}/game/late", max_size=None)
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(late.recv(), TIMEOUT)
        assert late.close_code == 1013
        client = Client(SeatModel(11))
        await asyncio.wait_for(client.play(first), TIMEOUT)
    assert client.model.stages["notify/gameResult"] == 1


async def test_the_command_line_serves_a_run_and_prints_one_json_line() -> None:
    command = [sys.executable, "-m", "tools.njupt", "--port", "0", "--seats", "ext,easy,random,ai"]
    process = await asyncio.create_subprocess_exec(
        *command, "--deals", "2", "--seed", "3", stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stderr is not None and process.stdout is not None
    try:
        port = None
        while port is None:
            line = (await asyncio.wait_for(process.stderr.readline(), TIMEOUT)).decode()
            assert line, "the server exited before listening"
            found = re.search(r"listening on ws://127\.0\.0\.1:(\d+)/game/", line)
            port = int(found.group(1)) if found else None
        client = Client(SeatModel(12))
        async with connect(f"ws://127.0.0.1:{port}/game/cli", max_size=None) as ws:
            await asyncio.wait_for(client.play(ws), TIMEOUT)
        out, _ = await asyncio.wait_for(process.communicate(), TIMEOUT)
    finally:
        if process.returncode is None:
            process.kill()
    lines = out.decode().splitlines()
    assert process.returncode == 0 and len(lines) == 1
    result = json.loads(lines[0])
    assert result["deals"] == 2 and result["preset"] == "njupt" and result["seed"] == 3
    assert result["seat_kinds"] == ["ext", "easy", "random", "ai"] and result["protocol_errors"] == [
        0,
        0,
        0,
        0,
    ]
    assert [seat["deals"] for seat in result["seats"]] == [2, 2, 2, 2]
    assert sum(seat["deal_wins"] for seat in result["seats"]) == 2 * 2
