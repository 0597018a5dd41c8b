"""The WebSocket side of the protocol server: seats, sending, asking and validating answers.

Thin on purpose: what to send and what an answer means come from
:class:`~tools.njupt.referee.Referee` and :mod:`tools.njupt.protocol`; this module
moves JSON between them and the clients.

- Clients connect to ``ws://HOST:PORT/game/{user_info}``; the first connections take the
  ``ext`` seats in seat order; other paths get HTTP 404, connections beyond the ext seats
  are closed (1013, table full). Play starts once every ext seat is taken.
- An invalid answer (not JSON, no integer ``actIndex``, out of range) is a protocol error:
  logged, answered with ``{"type": "error", …}`` and the same ``act`` again; after
  ``max_invalid`` of them for one decision the fallback AI answers for the seat. A message
  sent when nothing was asked is logged and dropped.
- A client that leaves, or takes longer than ``timeout``, is a protocol error too: the
  fallback AI plays that decision, and every later one once the client is gone (after
  ``max_timeouts`` answers missed in a row it counts as gone). Every departure is a *drop*,
  logged as an error and listed in the result (seat, name, deal, decision, why); with
  ``fail_on_drop`` the run stops there instead and the result says why.
- Play starts ``start_delay`` seconds after the last ``ext`` seat is taken, not at once: a
  ws4py client still finishing its handshake on two threads closed (1006) when
  ``notify/beginning`` came at once (3 of 300 connections; none of 1,000 after 50 ms).
- Every run ends by default: a ``timeout`` per decision, a ``max_size`` per message (an
  answer is a few bytes; a larger message closes the connection, 1009), and the computer
  players think in a worker thread, so the loop keeps answering connections meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request as HttpRequest
from websockets.http11 import Response

from engine.actions import Action
from engine.errors import EngineError
from tools.njupt import protocol
from tools.njupt.referee import Notice, Referee, Request

log = logging.getLogger("tools.njupt")

EXT = "ext"
PATH_PREFIX = "/game/"
MAX_INVALID = 5
"""Invalid answers to one ``act`` before the fallback AI answers for the seat."""

TIMEOUT = 30.0
"""Seconds a client may think by default: generous for the published bots (rule bots answer in
milliseconds, learned ones in about a second), short enough that a silent client ends."""

MAX_TIMEOUTS = 3
"""Decisions missed in a row before a client counts as gone (the AI plays the seat)."""

MAX_SIZE = 64 * 1024
"""The largest message accepted from a client, in bytes (an answer is ``{"actIndex": i}``)."""

START_DELAY = 0.25
"""Seconds between the last ``ext`` seat taken and ``notify/beginning``: lets a client's
handshake settle (ws4py dropped 3 of 300 connections with no pause, none of 1,000 with 50 ms)."""


@dataclass
class _Client:
    seat: int
    connection: ServerConnection
    name: str
    inbox: asyncio.Queue[str | bytes | None] = field(default_factory=asyncio.Queue)
    gone: bool = False
    timeouts: int = 0  # answers missed in a row


class ProtocolServer:
    """One run: seats from ``seats`` (``ext`` or a policy name), the referee, the clients."""

    def __init__(
        self,
        referee: Referee,
        seats: Sequence[str],
        *,
        host: str = "127.0.0.1",
        port: int = 23456,
        timeout: float | None = TIMEOUT,
        max_invalid: int = MAX_INVALID,
        max_timeouts: int = MAX_TIMEOUTS,
        max_size: int | None = MAX_SIZE,
        start_delay: float = START_DELAY,
        fail_on_drop: bool = False,
    ) -> None:
        self.referee, self.seats = referee, tuple(seats)
        self.host, self.port, self.timeout, self.max_invalid = host, port, timeout, max_invalid
        self.max_timeouts, self.max_size, self.start_delay = max_timeouts, max_size, start_delay
        self.fail_on_drop = fail_on_drop
        self.errors = [0, 0, 0, 0]
        self.dropped: list[dict[str, Any]] = []
        self.failed: str | None = None
        self._decisions = 0
        self._clients: dict[int, _Client] = {}
        self._seated = asyncio.Event()
        self._last_seated = 0.0  # loop time the latest ext seat was taken
        self._started = False
        self._over = False  # departures after the last message are no error
        self.listening = asyncio.Event()  # set once ``port`` is the bound port

    async def run(self) -> dict[str, Any]:
        """Serve until every deal is played; the result line's fields."""
        async with serve(
            self._handle, self.host, self.port, process_request=_check_path, max_size=self.max_size
        ) as server:
            self.port = server.sockets[0].getsockname()[1]
            log.info(
                "listening on ws://%s:%d%s{user_info}; seats %s",
                self.host,
                self.port,
                PATH_PREFIX,
                ",".join(self.seats),
            )
            self.listening.set()
            await self._wait_for_seats()
            self._started = True
            await self._play()
            self._over = True
            for client in self._clients.values():
                await client.connection.close(1000 if self.failed is None else 1011, "run over")
        result = {**self.referee.result(), "seat_kinds": list(self.seats), "protocol_errors": self.errors}
        return result | {"dropped": self.dropped} | ({"failed": self.failed} if self.failed else {})

    async def _wait_for_seats(self) -> None:
        """Until every ``ext`` seat is taken and still held ``start_delay`` seconds later."""
        if EXT not in self.seats:
            return
        loop = asyncio.get_running_loop()
        while True:
            await self._seated.wait()
            settled = self._last_seated + self.start_delay
            if loop.time() >= settled:
                return
            await asyncio.sleep(settled - loop.time())

    # ------------------------------------------------------------ connections

    async def _handle(self, connection: ServerConnection) -> None:
        seat = self._free_seat()
        if seat is None:
            await connection.close(1013, "the table is full")
            return
        name = connection.request.path[len(PATH_PREFIX) :] if connection.request else ""
        client = self._clients[seat] = _Client(seat, connection, name)
        self._last_seated = asyncio.get_running_loop().time()
        log.info("seat %d taken by %r", seat, name)
        if all(s in self._clients for s, kind in enumerate(self.seats) if kind == EXT):
            self._seated.set()
        try:
            async for message in connection:
                client.inbox.put_nowait(message)
        except ConnectionClosed:
            pass
        client.inbox.put_nowait(None)
        if self._over:
            return
        if self._started:
            self._leave(client)
        else:  # left before play began: the seat is free again
            client.gone = True
            del self._clients[seat]
            self._seated.clear()
            log.warning("seat %d (%r) left before the start; the seat is free again", seat, name)

    def _free_seat(self) -> int | None:
        free = (s for s, kind in enumerate(self.seats) if kind == EXT and s not in self._clients)
        return next(free, None) if not self._started else None

    # ------------------------------------------------------------ the run

    async def _play(self) -> None:
        await self._send(self.referee.start())
        while self.failed is None and (request := self.referee.request()) is not None:
            action = await self._decide(request)
            self._decisions += 1
            try:
                notices = self.referee.answer(request.seat, action)
            except EngineError as exc:  # a listed action refused: our bug, never the client's
                log.error("seat %d: the engine refused %r: %s; the AI answers", request.seat, action, exc)
                notices = self.referee.answer(request.seat, await self._ai(request.seat))
            await self._send(notices)

    async def _decide(self, request: Request) -> Action:
        kind = self.seats[request.seat]
        client = self._clients.get(request.seat)
        if kind != EXT:
            return await self._ai(request.seat, kind)
        if client is not None and not client.gone:
            answer = await self._ask(client, request)
            if answer is not None:
                return answer
        return await self._ai(request.seat)

    async def _ai(self, seat: int, kind: str | None = None) -> Action:
        """A computer player's action, thought out in a worker thread: the loop keeps serving
        (nothing else touches the referee while ``_play`` awaits this)."""
        if kind is None:
            return await asyncio.to_thread(self.referee.ai_action, seat)
        return await asyncio.to_thread(self.referee.ai_action, seat, kind)

    async def _ask(self, client: _Client, request: Request) -> Action | None:
        """The client's choice, or ``None`` when it left, timed out or kept answering wrongly."""
        self._drop_unasked(client)
        stage = request.message["stage"]
        for _ in range(self.max_invalid):
            if not await self._deliver(client, request.message):
                return None
            try:
                raw = await asyncio.wait_for(client.inbox.get(), self.timeout)
            except TimeoutError:
                self._error(client.seat, f"no answer to act/{stage} within {self.timeout} s; the AI answers")
                client.timeouts += 1
                if client.timeouts >= self.max_timeouts:
                    self._leave(client, f"{client.timeouts} answers missed in a row")
                return None
            client.timeouts = 0
            if raw is None:
                self._leave(client)
                return None
            try:
                return request.actions[protocol.parse_answer(raw, len(request.actions) - 1)]
            except protocol.ProtocolError as exc:
                self._error(client.seat, f"invalid answer to act/{stage}: {exc}")
                if not await self._deliver(client, protocol.error(stage, str(exc))):
                    return None
        self._error(client.seat, f"{self.max_invalid} invalid answers to one act/{stage}; the AI answers")
        return None

    def _drop_unasked(self, client: _Client) -> None:
        while not client.inbox.empty():
            stale = client.inbox.get_nowait()
            if stale is None:
                client.inbox.put_nowait(None)  # keep the departure for _ask
                return
            self._error(client.seat, f"message sent when nothing was asked, dropped: {str(stale)[:80]}")

    async def _send(self, notices: Sequence[Notice]) -> None:
        for notice in notices:
            client = self._clients.get(notice.seat)
            if client is not None and not client.gone:
                await self._deliver(client, notice.message)

    async def _deliver(self, client: _Client, message: protocol.Message) -> bool:
        try:
            await client.connection.send(json.dumps(message, ensure_ascii=False))
        except ConnectionClosed:
            self._leave(client)
            return False
        return True

    def _leave(self, client: _Client, why: str = "the client left") -> None:
        """A drop: loud in the log and the result, and the end of the run with ``fail_on_drop``."""
        if client.gone:
            return
        client.gone = True
        code = client.connection.close_code
        drop = {
            "seat": client.seat,
            "name": client.name,
            "deal": self.referee.deals_played + 1,
            "decision": self._decisions,
            "reason": why if code is None else f"{why} (close code {code})",
        }
        self.dropped.append(drop)
        self._error(client.seat, f"{drop['reason']}; the AI plays the seat from now on")
        log.error(
            "seat %d (%r) dropped in deal %d, decision %d",
            client.seat,
            client.name,
            drop["deal"],
            drop["decision"],
        )
        if self.fail_on_drop and self.failed is None:
            self.failed = (
                f"seat {client.seat} ({client.name}) dropped in deal {drop['deal']}: {drop['reason']}"
            )
            log.error("run stopped (fail on drop): %s", self.failed)

    def _error(self, seat: int, reason: str) -> None:
        self.errors[seat] += 1
        log.warning("protocol error, seat %d: %s", seat, reason)


def _check_path(connection: ServerConnection, request: HttpRequest) -> Response | None:
    if not request.path.startswith(PATH_PREFIX):
        return connection.respond(404, f"connect to {PATH_PREFIX}{{user_info}}\n")
    return None
