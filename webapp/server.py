"""The Mini App's web server (aiohttp): the page, its files and one WebSocket per open page.

A connection proves its user with Telegram's ``initData`` as its first message
(:mod:`webapp.initdata`); the table and seat are looked up by that user id and fixed for the
connection's life, so no later message can act for another seat or table. The server pushes
the seat's view whenever the table's flow publishes a change (:meth:`MiniApp.publish`, called
beside the group board and 观战) — built under the table lock, sent outside it, newest only.
Moves go through :mod:`webapp.moves` under the table lock, then through the chat's own flow
(``ChatSide.after_move``: the others' hand messages, the board, the clocks).

Bounds: a message is at most :data:`webapp.protocol.MAX_MESSAGE` bytes; a connection has
:data:`HELLO_SECONDS` to say hello and spends a token bucket per message (:data:`BURST`,
:data:`PER_SECOND`); past it the connection is closed. A seat keeps at most
:data:`PER_SEAT` pages open and the server :data:`MAX_CONNECTIONS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from app.i18n import normalize_locale
from app.table.refusals import TableRefusal
from app.table.tables import LiveTable, Outcome, TableError, TableService
from app.table.texts import _
from app.table.watching import MAX_SPECTATORS
from common.faults import StorageUnavailable
from engine.actions import Event
from render.words import describe_play
from webapp import moves, view
from webapp.initdata import InitDataRefused, WebAppUser, validate
from webapp.protocol import MAX_MESSAGE, BadMessage, Hello, Message, Ping, SetLocale, encode, parse
from webapp.settings import WebAppConfig

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
HELLO_SECONDS = 10.0
BURST = 20
"""Messages a page may send at once (a swipe's play and a few taps are one or two)."""
PER_SECOND = 5.0
"""Messages a second a page may keep sending: a person taps a few times a second at most."""
PER_SEAT = 3
SEATS = (0, 1, 2, 3, None)
"""The keys a table's pages are kept under with its id (None: 观战): a change looks up its own
five instead of every open page's (450 tables keep 1,800)."""
MAX_CONNECTIONS = 4000
BAD_MESSAGES = 5
"""Malformed messages a connection may send before it is closed (a stale page after an update)."""
PONG = encode({"t": "pong"})
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
        "style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


@dataclass(frozen=True, slots=True)
class ChatSide:
    """What the bot's Telegram side does for the Mini App (wired by ``handlers/table/miniapp.py``)."""

    after_move: Callable[[LiveTable, Outcome], Awaitable[Awaitable[object]]]
    """Show the change in chat (hands, board, clocks), table lock held: its delivery, to await after."""
    came_back: Callable[[LiveTable, int], Awaitable[None]]
    """The seat's last page closed: its chat hand message catches up (takes the table lock)."""
    locale_of: Callable[[int], Awaitable[str]]
    """A user's /lang."""
    clock: Callable[[LiveTable], int | None]
    """Seconds of the current turn's clock, or None."""
    watching: Callable[[int, int], Awaitable[bool]]
    """Whether the user pressed 观战 for the table in the chat, where only the group sees the
    button: the page's 观战 goes no wider than the chat's."""


@dataclass
class Bucket:
    """Messages a connection may still send now (refilled over time)."""

    tokens: float = BURST
    at: float = field(default_factory=time.monotonic)

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.at) * PER_SECOND)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass(eq=False)
class Page:
    """One open page: its socket, the seat it plays (None: 观战) and the newest state to send."""

    ws: web.WebSocketResponse
    user: WebAppUser
    table_id: int
    seat: int | None
    locale: str
    cursor: moves.HintCursor = field(default_factory=moves.HintCursor)
    newest: str | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def push(self, message: str) -> None:
        """Send ``message`` soon, replacing one not sent yet (the newest look wins)."""
        self.newest = message
        self.wake.set()


class MiniApp:
    """The server and its open pages."""

    def __init__(
        self,
        tables: TableService,
        token: str,
        config: WebAppConfig,
        chat: ChatSide,
        *,
        now: Callable[[], float] = time.time,
        leading: Callable[[], bool] = lambda: True,
    ) -> None:
        self.tables = tables
        self.token = token
        self.config = config
        self.chat = chat
        self.now = now
        self.leading = leading
        """Does this process still serve the tables (on PostgreSQL: it holds the lease)?"""
        self.pages: dict[tuple[int, int | None], list[Page]] = {}
        self.turns: dict[int, tuple[tuple[int, int], float]] = {}  # table → (turn key, when it began)
        self.runner: web.AppRunner | None = None
        self.port: int | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._deliveries: set[asyncio.Future[object]] = set()  # moves' chat sides still going out
        self.closing = False  # a stop: pages closing now leave their chat messages as they are

    # ---------------------------------------------------------------- server

    def application(self) -> web.Application:
        app = web.Application(client_max_size=MAX_MESSAGE)
        app.router.add_get("/", self.page)
        app.router.add_get("/ws", self.socket)
        app.router.add_get("/healthz", self.health)
        app.router.add_get("/static/{name}", self.asset)
        return app

    async def start(self) -> None:
        self.runner = web.AppRunner(self.application(), access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.config.host, self.config.port)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else self.config.port
        log.info("Mini App served on %s:%s for %s", self.config.host, self.port, self.config.url)

    async def close(self) -> None:
        """Close every page (they reconnect to the next process) and stop serving."""
        self.closing = True
        for page in [p for pages in self.pages.values() for p in pages]:
            with contextlib.suppress(Exception):
                await page.ws.close(code=1012, message=b"restarting")
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    @property
    def serving(self) -> bool:
        """Pages may connect here: not stopping, and (on PostgreSQL) still the lease's holder."""
        return not self.closing and self.leading()

    async def health(self, request: web.Request) -> web.Response:
        """The proxy's check (the Caddyfile's ``health_uri``): 200 while this process serves the
        tables, 503 once it stops or its lease is lost. A standby does not listen at all and a
        frozen leader does not answer, so the proxy sends the pages to the process leading now."""
        if not self.serving:
            return web.Response(status=503, text="not serving: stopping, or another process leads\n")
        return web.Response(text="ok: serving the Mini App\n")

    async def page(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers=PAGE_HEADERS)

    async def asset(self, request: web.Request) -> web.StreamResponse:
        """One of the page's own files (a fixed list: no path reaches the file system)."""
        name = request.match_info["name"]
        if name not in {"app.js", "app.css"}:
            raise web.HTTPNotFound()
        return web.FileResponse(STATIC / name, headers=PAGE_HEADERS)

    # ---------------------------------------------------------------- the chat's side

    def publish(self, table: LiveTable, events: tuple[Event, ...] | list[Event] = ()) -> None:
        """The table changed (table lock held): each of its pages gets its seat's new view."""
        watching = [(seat, pages) for seat in SEATS if (pages := self.pages.get((table.id, seat)))]
        if not watching or table.match is None:
            return
        self._note_turn(table)
        for seat, pages in watching:
            for locale in {page.locale for page in pages}:
                message = encode(view.seat_state(table, seat, locale, clock=self._clock(table)))
                for page in pages:
                    if page.locale == locale:
                        page.push(message)

    def playing(self, table_id: int, seat: int) -> bool:
        """Does the seat's player have the Mini App open (their chat message then waits)?"""
        return bool(self.pages.get((table_id, seat)))

    def table_url(self, table_id: int) -> str:
        """The 🃏 button's address for one table."""
        return self.config.table_url(table_id)

    def _note_turn(self, table: LiveTable) -> None:
        assert table.match is not None
        key = (table.match.deal_number, table.match.version)
        if table.id not in self.turns or self.turns[table.id][0] != key:
            self.turns[table.id] = (key, time.monotonic())

    def _clock(self, table: LiveTable) -> tuple[int, float] | None:
        seconds = self.chat.clock(table) if table.match is not None and not table.match.is_over else None
        if seconds is None:
            return None
        began = self.turns.get(table.id, ((0, 0), time.monotonic()))[1]
        return seconds, max(0.0, seconds - (time.monotonic() - began))

    # ---------------------------------------------------------------- one page

    async def socket(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=30.0)
        if not self._same_origin(request):
            raise web.HTTPForbidden()
        if not self.serving:  # a leader that lost its lease: the page tries again, reaching the new one
            raise web.HTTPServiceUnavailable()
        await ws.prepare(request)
        if sum(len(pages) for pages in self.pages.values()) >= MAX_CONNECTIONS:
            await ws.close(code=1013, message=b"busy")
            return ws
        page = await self._hello(ws)
        if page is None:
            return ws
        sender = asyncio.create_task(self._send_newest(page))
        self._tasks.add(sender)
        try:
            await self._serve(page)
        finally:
            sender.cancel()
            self._tasks.discard(sender)
            await self._leave(page)
        return ws

    def _same_origin(self, request: web.Request) -> bool:
        """A browser's Origin must be the page's own (the public URL, or the host it was asked by)."""
        origin = request.headers.get("Origin")
        return origin is None or origin in (self.config.origin, f"{request.scheme}://{request.host}")

    async def _hello(self, ws: web.WebSocketResponse) -> Page | None:
        """The first message: initData validated, the user's table and seat found, the view sent."""
        try:
            message = await ws.receive(timeout=HELLO_SECONDS)
        except TimeoutError:
            await ws.close(code=1008, message=b"no hello")
            return None
        hello = _hello_of(message)
        if hello is None:
            await ws.close(code=1008, message=b"hello first")
            return None
        try:
            user = validate(hello.init_data, self.token, now=self.now(), max_age=self.config.max_age)
        except InitDataRefused as refused:
            log.info("Mini App: initData refused (%s)", refused.reason)
            locale = normalize_locale(hello.locale)
            text = _("This page could not prove who you are: open it again from your hand message.", locale)
            await self._bye(ws, str(refused.reason), text)
            return None
        locale = normalize_locale(hello.locale) if hello.locale else await self.chat.locale_of(user.id)
        found = await self._seat_of(user, hello.table)
        if isinstance(found, TableRefusal):
            await self._bye(ws, found.value, moves.refusal(found, locale).text)
            return None
        table, seat = found
        page = Page(ws, user, table.id, seat, locale)
        pages = self.pages.setdefault((table.id, seat), [])
        pages.append(page)
        for old in pages[:-PER_SEAT]:  # a seat's oldest page gives way
            await old.ws.close(code=1008, message=b"opened elsewhere")
        async with table.lock:
            self._note_turn(table)
            await ws.send_str(encode(view.seat_state(table, seat, locale, clock=self._clock(table))))
        return page

    async def _seat_of(
        self, user: WebAppUser, wanted: int | None
    ) -> tuple[LiveTable, int | None] | TableRefusal:
        """The table the user sits at (the one asked for, else their latest match) and their seat;
        at a table they do not sit at, 观战 (seat None) where the table allows spectators."""
        seated = [(t, s) for t, s in self.tables.tables_of_user(user.id) if t.match is not None]
        if wanted is None:
            return max(seated, key=lambda found: found[0].id) if seated else TableRefusal.NO_TABLE
        for table, seat in seated:
            if table.id == wanted:
                return table, seat
        try:
            table = self.tables.get(wanted)
        except TableError as error:
            return error.code
        return await self._spectator_at(table, user)

    async def _spectator_at(
        self, table: LiveTable, user: WebAppUser
    ) -> tuple[LiveTable, None] | TableRefusal:
        """观战 in the Mini App: the chat's rules (spectators on, a match in play, a bounded
        crowd) for those who pressed 观战 in the chat; the view has no hand, as the public view
        never does."""
        if not table.rules.spectators:
            return TableRefusal.NO_SPECTATORS
        if table.match is None or table.match.is_over:
            return TableRefusal.TABLE_NOT_PLAYING
        if not await self.chat.watching(table.id, user.id):
            return TableRefusal.WATCH_FROM_BOARD
        if len(self.pages.get((table.id, None), [])) >= MAX_SPECTATORS:
            return TableRefusal.SPECTATORS_FULL
        return table, None

    async def _bye(self, ws: web.WebSocketResponse, code: str, text: str) -> None:
        await ws.send_str(encode({"t": "bye", "code": code, "text": text}))
        await ws.close(code=4003, message=code.encode()[:100])

    async def _serve(self, page: Page) -> None:
        """Read the page's moves until it closes; a page sending too much is closed."""
        bucket, bad = Bucket(), 0
        async for message in page.ws:
            if message.type is not WSMsgType.TEXT:
                break
            if not bucket.take():
                await page.ws.close(code=1008, message=b"too many messages")
                break
            try:
                parsed = parse(message.data)
            except BadMessage:
                bad += 1
                if bad > BAD_MESSAGES:
                    await page.ws.close(code=1008, message=b"bad messages")
                    break
                continue
            await self._handle(page, parsed)

    async def _handle(self, page: Page, message: Message) -> None:
        if isinstance(message, Ping):  # the page checks that this process is not frozen
            await page.ws.send_str(PONG)
            return
        if isinstance(message, Hello):  # the first fixed the table and seat: another names none
            await page.ws.send_str(_refused(moves.refusal(TableRefusal.PAGE_BOUND, page.locale)))
            return
        if isinstance(message, SetLocale):
            page.locale = normalize_locale(message.locale)
            await self._resend(page)
            return
        if page.seat is None:  # 观战: a spectator's page moves for nobody, as their chat buttons
            await page.ws.send_str(_refused(moves.refusal(TableRefusal.NOT_SEATED, page.locale)))
            return
        try:
            table = self.tables.get(page.table_id)
        except TableError as error:
            await page.ws.send_str(_refused(moves.refusal(error.code, page.locale)))
            return
        if table.seat_of(page.user.id) != page.seat:  # left the seat since: this page plays no more
            await page.ws.send_str(_refused(moves.refusal(TableRefusal.NOT_SEATED, page.locale)))
            return
        async with table.lock:
            try:
                result = await moves.make(self.tables, table, page.seat, message, page.cursor, page.locale)
            except StorageUnavailable as error:  # nothing changed: the player sends it again
                log.warning("Mini App move at table %s not saved: %s", table.id, error)
                result = moves.refusal(TableRefusal.NOT_SAVED, page.locale)
            delivery = await self.chat.after_move(table, result) if isinstance(result, Outcome) else None
        await self._answer(page, table, result)
        if delivery is not None:
            self._deliver_later(delivery)

    def _deliver_later(self, delivery: Awaitable[object]) -> None:
        """The chat's side of a move (hand edits waiting at the rate limiter) goes on without the
        page: awaited here, the page's next message (its next 提示) waited for the token — seconds,
        with 300 busy tables' first "playing in the Mini App" edits queued (bench/miniapp_load.py)."""
        task = asyncio.ensure_future(delivery)  # not cancelled at close: the sender owns its futures
        self._deliveries.add(task)
        task.add_done_callback(self._delivered)

    def _delivered(self, task: asyncio.Future[object]) -> None:
        self._deliveries.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("a Mini App move's chat delivery failed", exc_info=task.exception())

    async def _answer(self, page: Page, table: LiveTable, result: moves.Result) -> None:
        level = table.match.level if table.match is not None else None
        if isinstance(result, moves.Refusal):
            await page.ws.send_str(_refused(result))
        elif isinstance(result, moves.Suggestion):
            await page.ws.send_str(encode({"t": "hint", "cards": view.cards(result.cards)}))
        elif isinstance(result, moves.Readings) and level is not None:
            options = [
                {"cards": view.cards(play.cards), "text": describe_play(play, level, page.locale)}
                for play in result.options
            ]
            await page.ws.send_str(encode({"t": "readings", "options": options}))

    async def _resend(self, page: Page) -> None:
        try:
            table = self.tables.get(page.table_id)
        except TableError:
            return
        async with table.lock:
            page.push(encode(view.seat_state(table, page.seat, page.locale, clock=self._clock(table))))

    async def _send_newest(self, page: Page) -> None:
        """Send the page's newest view whenever there is one (a slow page skips the looks between)."""
        while not page.ws.closed:
            await page.wake.wait()
            page.wake.clear()
            message, page.newest = page.newest, None
            if message is not None:
                with contextlib.suppress(ConnectionError):
                    await page.ws.send_str(message)

    async def _leave(self, page: Page) -> None:
        """The page closed; the seat's last one gone, its chat hand message catches up."""
        key = (page.table_id, page.seat)
        pages = self.pages.get(key, [])
        if page in pages:
            pages.remove(page)
        if pages:
            return
        self.pages.pop(key, None)
        if page.seat is None or self.closing:
            return
        try:
            table = self.tables.get(page.table_id)
        except TableError:
            return
        try:
            await self.chat.came_back(table, page.seat)
        except Exception:  # the chat's catch-up failed: its next move shows the hand anyway
            log.exception("table %s seat %s: the chat hand did not catch up", table.id, page.seat)


def _hello_of(message: Any) -> Hello | None:
    if message.type is not WSMsgType.TEXT:
        return None
    try:
        parsed = parse(message.data)
    except BadMessage:
        return None
    return parsed if isinstance(parsed, Hello) else None


def _refused(refusal: moves.Refusal) -> str:
    return encode({"t": "refused", "code": refusal.code.value, "text": refusal.text})
