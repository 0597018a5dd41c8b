"""Load benchmark: N tables played at once against the Bot API emulator on loopback.

    python bench/load.py [--tables 100] [--deals 1] [--seed 1] [--think 1.0] [--max-seconds 300]
                         [--db sqlite|postgresql|postgresql://…]
                         [--spectators 0] [--lease]

What runs where:

* the emulator (``emulator/server.js``, node) on a free 127.0.0.1 port;
* this process: the real bot ``Application`` from ``bot.build_application`` (same
  builder, the scheduler (``PriorityLimiter``) on unless ``--no-rate-limiter``, a temporary SQLite file,
  or with ``--db postgresql`` a throw-away PostgreSQL cluster started as the tests start theirs
  (emulator/postgresql.py; ``--db postgresql://…``: an empty database of yours), long-polling the
  emulator; it measures;
* a forked child: the simulated people. Each table is a group with one or two humans
  (alternating) and AI seats; the humans open their private chat, sit, add the AIs,
  start, and then play by pressing the bot's own buttons: 提示, then, as its toast says,
  出牌 on the same keyboard (the hint's own keyboard may still be on its way), or 不出 when
  the hint suggests it; tribute and return choices. Each human waits a
  think time before a press (uniform 0.5–1.5 × ``--think`` seconds). Keeping the users out
  of the bot's process keeps their CPU off the bot's event loop. Instead of polling every
  chat, the child is told by this process which chat the bot just wrote to (and which
  callback query it answered); it then reads that chat from the emulator as a user would.

With ``--pin`` the bot runs on the first CPU and the emulator and the users on the others
(:func:`pin_cpus`), so that the load generator does not take the bot's core when it wakes.

Per button press of a hand message (an ``h:`` callback update) it records:

* ``received``: the updater handed the update to the application (``update_queue.put``);
* every Bot API call the handling made: ``asked`` (the handler asked the bot for it, i.e.
  it entered the rate limiter), ``issued`` (the HTTP request left for the emulator, after
  any limiter wait) and ``done`` (the response arrived). Calls are attributed to the update
  through a context variable set by a ``TypeHandler`` in group -1000; the handling ends in
  a ``TypeHandler`` of group 1000. Calls made later by tasks the handling started (the
  coalesced group board, which redraws at most every 3 s, and turn clocks) are counted as
  background calls, not as part of the press.

Figures per press (milliseconds, from ``received``):

* ``bot only``: the last call's issue time minus the time during which some earlier call of
  the press was waiting in the rate limiter or for the emulator's response, i.e. the bot's
  own work (Python, SQLite, event-loop queueing) on the way to its last call — and any wait
  for the table's lock, which another press of the same table may hold while *its* calls
  wait in the limiter (so a saturated limiter also shows here);
* ``server (excl. limiter)``: the last call's issue time minus the time any of the press's
  calls spent waiting in the scheduler (its deliberate pacing for Telegram's limits:
  30 requests/s overall, 20 a minute per group); includes the emulator's response times
  of the calls the handler awaited before its last one (``answerCallbackQuery`` first);
* ``server (incl. limiter)``: the last call's issue time, limiter waits included;
* ``handled``: until the handler returned (includes waiting for the emulator's answers);
* ``queued``: until the handler started.

Memory per table: growth of this process's resident set (VmRSS, and with
``--tracemalloc`` the Python heap traced by tracemalloc, which slows everything down)
from a warmed-up baseline with no table to the peak with all N tables resident, / N.
"Resident" is the most tables the table service held at once (finished tables leave it).

With ``--spectators N`` each table also has N group members who are not seated and press
观战 on the board once the match started: each then follows the table in a private message
the bot edits (handlers/table/spectators.py). Their requests are background calls, made at the
scheduler's lowest priority (``Priority.WATCH``); the report counts them per press apart.

The run is bounded: setup and play stop at ``--max-seconds`` even if tables are
unfinished (they are counted). The last line printed is a JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import ctypes
import gc
import io
import json
import multiprocessing
import os
import pstats
import random
import shutil
import subprocess
import sys
import tempfile
import time
import timeit
import tracemalloc
import urllib.request
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: the project's packages live one level up

from prometheus_client import REGISTRY, generate_latest  # noqa: E402
from telegram import Update  # noqa: E402
from telegram.ext import BaseRateLimiter, TypeHandler  # noqa: E402
from telegram.request import BaseRequest, RequestData  # noqa: E402

from bench.tuned import build_application, open_services  # noqa: E402
from bot import App, close_services, start_monitor  # noqa: E402
from common import metrics  # noqa: E402
from emulator.client import (  # noqa: E402
    BotMessage,
    Chat,
    Emulator,
    EmulatorError,
    Telegram,
    User,
    callback_ops,
    polling,
)
from emulator.postgresql import Cluster, binaries  # noqa: E402
from handlers.platform.monitor import MonitorConfig  # noqa: E402
from handlers.platform.scheduler import PRIORITY, TOKEN_LIMIT, Priority, counts_in_chat  # noqa: E402
from handlers.platform.sender import FLIGHT, DelegatingLimiter  # noqa: E402
from storage.backend import POSTGRESQL_SCHEMES  # noqa: E402
from storage.lease import Lease, bot_id_of  # noqa: E402
from storage.postgresql import PostgresConnection  # noqa: E402

TOKEN = "424242:BENCH"
HAND_KINDS = {
    "h": "hint",
    "p": "play",
    "x": "pass",
    "t": "toggle",
    "g": "tribute",
    "b": "return",
    "r": "reading",
    "z": "reading",
    "a": "autoplay",
    "c": "clear",
}
USER_CONNECTIONS = 12  # the simulated users' connections to the emulator
MEMORY_SAMPLE = 0.5  # seconds between RSS samples
ANSWER_TIMEOUT = 30.0  # a press the bot never answers is counted as lost after this
FALLBACK_POLL = 2.0  # users re-read their chat this often even without a notification


# ============================================================ the bot's side: measuring


@dataclass
class ApiCall:
    endpoint: str
    asked: float
    issued: float | None = None
    done: float | None = None
    awaited: bool = True  # False: a GLANCE look nobody waits for (the press's answer named it)
    watch: bool = False  # a spectator's look (观战), at the lowest priority
    chat_id: int | None = None  # None: not addressed to a chat (answerCallbackQuery)


@dataclass
class Handling:
    """One update as the bot handled it, with the API calls it made."""

    kind: str
    received: float
    started: float
    presser: int | None = None  # the user who pressed (a callback query)
    finished: float | None = None
    calls: list[ApiCall] = field(default_factory=list)
    sqlite: list[tuple[float, float]] = field(default_factory=list)  # awaited store operations

    def last_issue(self) -> float | None:
        """When the last call the presser waits for left (a glance is not waited for)."""
        issued = [call.issued for call in self.calls if call.issued is not None and call.awaited]
        return max(issued) if issued else None

    def sent(self) -> int:
        """Requests that went out (not those withdrawn unsent)."""
        return sum(call.issued is not None for call in self.calls)

    def sent_to_presser(self) -> int:
        """Requests that went out for the presser: the answer and their own chat's edits (not
        the next player's turn, nor the others' captions, which the press also caused)."""
        return sum(call.issued is not None and call.chat_id in (None, self.presser) for call in self.calls)

    def limiter_wait(self, until: float) -> float:
        """Time in [received, until] during which some call of this update sat in the limiter."""
        return self._covered(until, [(call.asked, call.issued) for call in self.calls if call.awaited])

    def outside_wait(self, until: float) -> float:
        """Time in [received, until] during which some call was in the limiter or at the emulator."""
        return self._covered(until, [(call.asked, call.done) for call in self.calls if call.awaited])

    def sqlite_wait(self, until: float) -> float:
        """Time in [received, until] during which the handling awaited the store (SQLite or PostgreSQL)."""
        return self._covered(until, list(self.sqlite))

    def _covered(self, until: float, spans_in: list[tuple[float, float | None]]) -> float:
        spans = sorted(
            (max(start, self.received), min(stop, until)) for start, stop in spans_in if stop is not None
        )
        total, end = 0.0, self.received
        for start, stop in spans:
            if stop > max(start, end):
                total += stop - max(start, end)
                end = stop
        return total


UPDATE: ContextVar[Handling | None] = ContextVar("bench_update", default=None)
CALL: ContextVar[ApiCall | None] = ContextVar("bench_call", default=None)


class Recorder:
    """Collects handlings and API calls; tells the users which chat changed."""

    def __init__(self, notify: Callable[[str], None]) -> None:
        self.notify = notify
        self.received: dict[int, float] = {}
        self.handlings: list[Handling] = []
        self.background: list[ApiCall] = []
        self.recording = False
        self.play_started: float | None = None  # the users began to play (perf_counter)

    def new_call(self, endpoint: str) -> ApiCall:
        call = ApiCall(endpoint, time.perf_counter())
        handling = UPDATE.get()
        if handling is not None and handling.finished is None:
            handling.calls.append(call)
        elif self.recording:
            self.background.append(call)
        return call

    def answered(self, endpoint: str, data: RequestData | None) -> None:
        if data is None:
            return
        parameters = data.parameters
        if "callback_query_id" in parameters:
            self.notify(f"q {parameters['callback_query_id']}")
        elif "chat_id" in parameters and endpoint != "sendChatAction":
            self.notify(f"c {parameters['chat_id']} {endpoint}")

    async def begin(self, update: Update, context: object) -> None:
        now = time.perf_counter()
        handling = Handling(kind_of(update), self.received.pop(update.update_id, now), now)
        if update.callback_query is not None:
            handling.presser = update.callback_query.from_user.id
        UPDATE.set(handling)
        if self.recording:
            self.handlings.append(handling)

    async def end(self, update: Update, context: object) -> None:
        handling = UPDATE.get()
        if handling is not None:
            handling.finished = time.perf_counter()


def kind_of(update: Update) -> str:
    query = update.callback_query
    if query is None or query.data is None:
        return "command"
    parts = query.data.split(":")
    if parts[0] != "h" or len(parts) < 5:
        return "lobby"
    return HAND_KINDS.get(parts[4], "other")


class RecordingRequest(BaseRequest):
    """The bot's HTTP requests, timed when each one goes on the wire."""

    def __init__(self, inner: BaseRequest, recorder: Recorder) -> None:
        self.inner = inner
        self.recorder = recorder

    @property
    def read_timeout(self) -> float | None:
        return self.inner.read_timeout

    async def initialize(self) -> None:
        await self.inner.initialize()

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> tuple[int, bytes]:
        endpoint = url.rsplit("/", 1)[-1]
        call = CALL.get() or self.recorder.new_call(endpoint)
        call.issued = time.perf_counter()
        try:
            result = await self.inner.do_request(url, method, request_data, *args, **kwargs)
        finally:
            call.done = time.perf_counter()
        self.recorder.answered(endpoint, request_data)
        return result


class TimedLimiter(DelegatingLimiter):
    """Wraps the bot's rate limiter to note when a call was asked for (before its wait)."""

    def __init__(self, inner: BaseRateLimiter[Any], recorder: Recorder) -> None:
        super().__init__(inner)
        self.recorder = recorder

    async def process_request(
        self,
        callback: Any,
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        call = self.recorder.new_call(endpoint)
        call.awaited = PRIORITY.get() not in (Priority.GLANCE, Priority.WATCH)
        call.watch = PRIORITY.get() is Priority.WATCH
        with contextlib.suppress(KeyError, TypeError, ValueError):
            call.chat_id = int(data["chat_id"])
        flight = FLIGHT.get()
        if flight is not None and flight.turn_since is not None:
            call.asked = flight.turn_since  # it waited at the limiter in an older look's place
        token = CALL.set(call)
        try:
            return await self.inner.process_request(callback, args, kwargs, endpoint, data, rate_limit_args)
        finally:
            CALL.reset(token)


def instrument(app: App, recorder: Recorder) -> None:
    """Time the updates and API calls of the real application (before it is initialized)."""
    bot = app.bot
    bot._request = (bot._request[0], RecordingRequest(bot._request[1], recorder))
    if bot.rate_limiter is not None:
        bot._rate_limiter = TimedLimiter(bot.rate_limiter, recorder)
    queue = app.update_queue
    put = queue.put

    async def timed_put(item: object) -> None:
        if isinstance(item, Update):
            recorder.received[item.update_id] = time.perf_counter()
        await put(item)

    queue.put = timed_put  # type: ignore[method-assign]
    app.add_handler(TypeHandler(Update, recorder.begin), group=-1000)
    app.add_handler(TypeHandler(Update, recorder.end), group=1000)


def instrument_sqlite(conn: Any) -> None:
    """Time every operation the bot awaits on its aiosqlite connection, per update."""
    execute = conn._execute

    async def timed(fn: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await execute(fn, *args, **kwargs)
        finally:
            handling = UPDATE.get()
            if handling is not None and handling.finished is None:
                handling.sqlite.append((start, time.perf_counter()))

    conn._execute = timed


def instrument_postgresql(conn: PostgresConnection) -> None:
    """Time every statement the bot awaits on its PostgreSQL connection, per update (lock wait
    for the connection included, as aiosqlite's queue is in :func:`instrument_sqlite`)."""
    run = conn._run

    async def timed(call: Any) -> Any:
        start = time.perf_counter()
        try:
            return await run(call)
        finally:
            handling = UPDATE.get()
            if handling is not None and handling.finished is None:
                handling.sqlite.append((start, time.perf_counter()))

    conn._run = timed  # type: ignore[method-assign]


@contextlib.contextmanager
def database(choice: str) -> Iterator[str]:
    """Where the bot stores: a temporary SQLite file, a throw-away PostgreSQL cluster, or a URL."""
    if choice.startswith(POSTGRESQL_SCHEMES):
        yield choice
    elif choice == "postgresql":
        bin_dir = binaries()
        if bin_dir is None:
            raise SystemExit("PostgreSQL is not installed (apt-get install postgresql)")
        cluster = Cluster.start(bin_dir, durable=True)
        try:
            yield cluster.new_database()
        finally:
            cluster.stop()
    else:
        with tempfile.TemporaryDirectory(prefix="guandan-bench-") as folder:
            yield str(Path(folder) / "bench.db")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def trimmed_rss_bytes() -> int:
    """RSS after glibc returns its free heap pages (what the allocator kept but nothing uses)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    return rss_bytes()


def planner_memo_released() -> int:
    """RSS after the 标准 planner's hand-valuation memo (per level, process-wide, bounded: it
    does not grow with the tables) is dropped; the difference is what it held."""
    from players.planner import evaluator

    evaluator.cache_clear()
    gc.collect()
    return trimmed_rss_bytes()


def revision() -> str:
    """The commit measured (with ``+`` if the working tree differs from it)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+" if dirty else "")


def rss_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def warm_up() -> None:
    """Load fonts, sprites and engine tables once so the baseline does not bill them to tables."""
    from engine.match import Match, observe
    from engine.rules import PRESETS
    from render.hand import render_hand

    match = Match.new(PRESETS["wechat-6-deals"].rules, 1)
    render_hand(observe(match, 0), locale="zh", four_color=False, names=["a", "b", "c", "d"])


# ============================================================ the users' side


@dataclass
class UserConfig:
    url: str
    tables: int
    deals: int
    seed: int
    think: float
    max_seconds: float
    concurrency: int = 10
    spectators: int = 0  # group members per table who press 观战 (not seated)


@dataclass
class TableRun:
    index: int
    group: Chat
    humans: list[User]
    spectators: list[User] = field(default_factory=list)
    over: bool = False
    setup_failed: str | None = None
    refused: bool = False  # /newgame answered that the bot is busy (its capacity, issue 23)


class Busy(Exception):
    """The bot refused the table: at its capacity."""


@dataclass
class UserStats:
    presses: Counter[str] = field(default_factory=Counter)
    alerts: Counter[str] = field(default_factory=Counter)
    vanished: int = 0
    lost: int = 0


class People:
    """The simulated users: they react to what the bot shows them, with a think time."""

    def __init__(self, telegram: Telegram, config: UserConfig) -> None:
        self.telegram = telegram
        self.config = config
        self.rng = random.Random(config.seed)
        self.chat_changed: dict[int, asyncio.Event] = {}
        self.photos: dict[int, asyncio.Event] = {}
        self.answers: dict[str, asyncio.Event] = {}
        self.stats = UserStats()
        self.stop = asyncio.Event()

    # ---- notifications from the bot's process

    def notified(self, line: str) -> None:
        kind, key, *endpoint = line.split(" ")
        if kind == "c":
            self.changed(int(key)).set()
            if endpoint == ["sendPhoto"]:
                self.photo_sent(int(key)).set()
        elif kind == "q":
            self.answers.setdefault(key, asyncio.Event()).set()

    def photo_sent(self, chat_id: int) -> asyncio.Event:
        return self.photos.setdefault(chat_id, asyncio.Event())

    def changed(self, chat_id: int) -> asyncio.Event:
        return self.chat_changed.setdefault(chat_id, asyncio.Event())

    async def wait_change(self, chat: Chat, timeout: float = FALLBACK_POLL) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed(chat.id).wait(), timeout)

    async def newest(self, chat: Chat, matches: Callable[[BotMessage], bool], timeout: float) -> BotMessage:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.stop.is_set():
            self.changed(chat.id).clear()
            found = [m for m in await self.telegram.messages(chat) if matches(m)]
            if found:
                return found[-1]
            await self.wait_change(chat, min(FALLBACK_POLL, max(0.0, deadline - time.monotonic())))
        raise TimeoutError(f"nothing matching in chat {chat.id}")

    async def press(self, user: User, message: BotMessage, data: str, kind: str) -> tuple[str, bool] | None:
        """Press and wait for the bot's answer; None if the button was gone or no answer came."""
        try:
            query = await self.telegram.press(user, message, data)
        except EmulatorError:
            self.stats.vanished += 1
            return None
        self.stats.presses[kind] += 1
        event = self.answers.setdefault(query, asyncio.Event())
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while time.monotonic() < deadline:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), FALLBACK_POLL)
            answer = await self.telegram.answer(query)
            if answer is not None:
                del self.answers[query]
                if answer.show_alert:
                    self.stats.alerts[f"{kind}: {answer.text}"] += 1
                return answer.text, answer.show_alert
        self.stats.lost += 1
        return None

    async def think(self) -> None:
        if self.config.think > 0:
            await asyncio.sleep(self.config.think * self.rng.uniform(0.5, 1.5))

    # ---- setup

    async def set_up(self, table: TableRun) -> None:
        first = table.humans[0]
        for user in table.humans:
            dm = Chat.private(user)
            await self.telegram.send(user, dm, "/start")
            await self.newest(dm, lambda m: True, 60)
        command = (
            f"/newgame wechat-6-deals points_deals={self.config.deals} turn_seconds=600 tribute_seconds=600"
        )
        await self.telegram.send(first, table.group, command)
        lobby = await self.newest(
            table.group, lambda m: bool(callback_ops(m).get("s")) or "机器人正忙" in m.content, 60
        )
        if "机器人正忙" in lobby.content:
            raise Busy()
        for seat, user in enumerate(table.humans):
            answer = await self.press(user, lobby, callback_ops(lobby)["s"][seat], "lobby")
            if answer is None or answer[1]:
                raise RuntimeError(f"could not sit: {answer}")
        for _ in range(4 - len(table.humans)):
            answer = await self.press(first, lobby, callback_ops(lobby)["i"][0], "lobby")
            if answer is None or answer[1]:
                raise RuntimeError(f"could not add an AI: {answer}")
        answer = await self.press(first, lobby, callback_ops(lobby)["go"][0], "lobby")
        if answer is None or answer[1]:
            raise RuntimeError(f"could not start: {answer}")
        for user in table.spectators:
            await self.watch_table(table, user)

    async def watch_table(self, table: TableRun, user: User) -> None:
        """A member who is not seated opens the private chat and presses 观战 on the board."""
        dm = Chat.private(user)
        await self.telegram.send(user, dm, "/start")
        await self.newest(dm, lambda m: True, 60)
        board = await self.newest(table.group, lambda m: bool(callback_ops(m).get("v")), 60)
        answer = await self.press(user, board, callback_ops(board)["v"][0], "lobby")
        if answer is None or answer[1]:
            raise RuntimeError(f"could not watch: {answer}")

    # ---- play

    async def play(self, table: TableRun, user: User) -> None:
        dm = Chat.private(user)
        while not table.over and not self.stop.is_set():
            self.changed(dm.id).clear()
            hand = await self.telegram.last_message(dm)
            if hand is None or not await self.step(user, dm, hand):
                await self.wait_change(dm)

    async def step(self, user: User, dm: Chat, hand: BotMessage) -> bool:
        """One decision on the newest hand message; False when there was nothing to do."""
        ops = callback_ops(hand)
        for op, kind in (("g", "tribute"), ("b", "return"), ("r", "reading"), ("a", "autoplay")):
            if op in ops:
                await self.think()
                await self.press(user, hand, ops[op][0], kind)
                return True
        if "h" not in ops or "轮到你" not in hand.content:
            return False
        await self.think()
        self.changed(dm.id).clear()
        hand = await self.shown(dm, hand)  # the phone shows the newest keyboard when the thumb lands
        ops = callback_ops(hand)
        if "h" not in ops or "轮到你" not in hand.content:
            return True
        answer = await self.press(user, hand, ops["h"][0], "hint")
        if answer is None:
            return True
        text, alert = answer
        if "不出" in text and "x" in ops:  # 提示 suggests passing (nothing beats, or the AI would pass)
            await self.think()
            shown = await self.shown(dm, hand)
            await self.press(user, shown, callback_ops(shown).get("x", ops["x"])[0], "pass")
            return True
        if alert or "手牌正在更新" in text:  # refused, or the keyboard is on its way out: look again
            return True
        if text.startswith("提示：") and "p" in ops:  # the toast named the play: 出牌 plays it
            await self.think()
            shown = await self.shown(dm, hand)  # the hint's keyboard, if it came meanwhile
            await self.press(user, shown, callback_ops(shown).get("p", ops["p"])[0], "play")
            return True
        selected = await self.edited(dm, hand)
        play = callback_ops(selected).get("p") if selected is not None else None
        if selected is not None and play:
            await self.think()
            await self.press(user, selected, play[0], "play")
        return True

    async def shown(self, dm: Chat, hand: BotMessage) -> BotMessage:
        """The hand message as the phone shows it now: its newest edit, if one came."""
        fresh = await self.telegram.last_message(dm)
        return fresh if fresh is not None and fresh.message_id == hand.message_id else hand

    async def edited(self, dm: Chat, before: BotMessage) -> BotMessage | None:
        """The hand message once the bot changed it (after 提示), or None if it did not."""
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while time.monotonic() < deadline and not self.stop.is_set():
            fresh = await self.telegram.last_message(dm)
            if fresh is not None and fresh.raw != before.raw:
                return fresh
            await self.wait_change(dm, 0.5)
            self.changed(dm.id).clear()
        return None

    async def watch(self, table: TableRun) -> None:
        """The table is over once the group shows the match result (🏆, a picture)."""
        sent = self.photo_sent(table.group.id)
        while not table.over and not self.stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(sent.wait(), 10 * FALLBACK_POLL)
            sent.clear()
            if any("🏆" in m.content for m in await self.telegram.messages(table.group)):
                table.over = True


def tables_for(config: UserConfig) -> list[TableRun]:
    runs = []
    for index in range(config.tables):
        base = 10_000_000 + index * 10
        humans = [User(base + k, f"P{index}-{k}") for k in range(1 + index % 2)]
        spectators = [User(base + 5 + k, f"S{index}-{k}") for k in range(config.spectators)]
        group = Chat.group(-(10_000_000 + index), f"bench {index}")
        runs.append(TableRun(index, group, humans, spectators))
    return runs


async def run_people(config: UserConfig, commands: int, results: int) -> None:
    """The child process: wait for "go", set the tables up, play, report one JSON line."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(commands, "rb"))
    out = os.fdopen(results, "w", buffering=1)
    emulator = Emulator(config.url, None)  # type: ignore[arg-type]  # the address is all users need
    # A few connections: httpcore scans every pooled connection per request, which made the
    # simulated users cost more CPU than the bot they were measuring.
    async with Telegram(emulator, TOKEN, connections=USER_CONNECTIONS) as telegram:
        people = People(telegram, config)
        go = asyncio.Event()

        async def listen() -> None:
            while line := (await reader.readline()).decode().strip():
                if line == "go":
                    go.set()
                elif line == "stop":
                    people.stop.set()
                else:
                    people.notified(line)
            people.stop.set()

        listener = asyncio.create_task(listen())
        await go.wait()
        deadline = time.monotonic() + config.max_seconds
        tables = tables_for(config)
        gate = asyncio.Semaphore(config.concurrency)

        async def set_up(table: TableRun) -> None:
            async with gate:
                try:
                    await people.set_up(table)
                except Busy:
                    table.refused = True
                    table.setup_failed = "busy"
                except (RuntimeError, TimeoutError, EmulatorError, KeyError, IndexError) as error:
                    table.setup_failed = repr(error)

        started = time.monotonic()
        setting_up = asyncio.gather(*(set_up(table) for table in tables))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(setting_up, max(1.0, deadline - time.monotonic()))
        setup_seconds = time.monotonic() - started
        ready = [table for table in tables if table.setup_failed is None]
        out.write(json.dumps({"event": "playing", "tables": len(ready)}) + "\n")
        tasks = [asyncio.create_task(people.play(t, u)) for t in ready for u in t.humans]
        tasks += [asyncio.create_task(people.watch(t)) for t in ready]
        play_started = time.monotonic()
        while time.monotonic() < deadline and not all(t.over for t in ready) and not people.stop.is_set():
            await asyncio.sleep(0.5)
        people.stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        listener.cancel()
        summary = {
            "event": "done",
            "setup_seconds": round(setup_seconds, 1),
            "play_seconds": round(time.monotonic() - play_started, 1),
            "tables_ready": len(ready),
            "tables_finished": sum(t.over for t in ready),
            "tables_refused": sum(t.refused for t in tables),
            "setup_failures": [t.setup_failed for t in tables if t.setup_failed and not t.refused][:3],
            "presses": dict(people.stats.presses),
            "alerts": dict(people.stats.alerts.most_common(5)),
            "vanished_buttons": people.stats.vanished,
            "unanswered": people.stats.lost,
        }
        out.write(json.dumps(summary, ensure_ascii=False) + "\n")


def people_process(config: UserConfig, commands: int, results: int) -> None:
    asyncio.run(run_people(config, commands, results))


# ============================================================ the run


@dataclass
class Memory:
    baseline_rss: int
    peak_rss: int = 0
    baseline_traced: int = 0
    peak_traced: int = 0
    resident_tables: int = 0
    trimmed_rss: int = 0
    planner_memo: int = 0  # RSS the 标准 planner's bounded, process-wide memo held at the end
    baseline_snapshot: tracemalloc.Snapshot | None = None
    growth: list[str] = field(default_factory=list)

    def sample(self, tables: int) -> None:
        rss = rss_bytes()
        if rss > self.peak_rss:
            self.peak_rss = rss
        if tracemalloc.is_tracing():
            self.peak_traced = max(self.peak_traced, tracemalloc.get_traced_memory()[0])
        self.resident_tables = max(self.resident_tables, tables)


class Pipe:
    """Non-blocking line writer to the users' process (the bot must never block on it)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.transport: asyncio.WriteTransport | None = None

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        self.transport, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(self.fd, "wb"))

    def send(self, line: str) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(line.encode() + b"\n")


async def read_results(fd: int) -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb"))
    return reader


async def run_bot(
    args: argparse.Namespace, emulator: Emulator, recorder: Recorder, pipe: Pipe, results_fd: int
) -> dict[str, Any]:
    """The real bot on a temporary database, instrumented, until the users are done."""
    await pipe.open()
    results = await read_results(results_fd)
    with database(args.db) as db_path:
        async with leading(db_path if args.lease else None) as lease:
            return await run_bot_on(args, db_path, lease, emulator, recorder, pipe, results)


@contextlib.asynccontextmanager
async def leading(db_path: str | None) -> AsyncIterator[Lease | None]:
    """``--lease``: the bot leads as one of several processes would (bot.serve_with_lease): the
    lease taken, renewed every second on this loop, the old sessions fenced; every Bot API
    request then checks it twice and every store session carries its epoch. None: no lease."""
    if db_path is None:
        yield None
        return
    lease = Lease(db_path, bot_id_of(TOKEN))
    await lease.acquire()
    keeping = asyncio.create_task(lease.keep())
    try:
        await lease.fence()
        yield lease
    finally:
        keeping.cancel()
        await asyncio.gather(keeping, return_exceptions=True)
        await lease.close()


async def run_bot_on(
    args: argparse.Namespace,
    db_path: str,
    lease: Lease | None,
    emulator: Emulator,
    recorder: Recorder,
    pipe: Pipe,
    results: asyncio.StreamReader,
) -> dict[str, Any]:
    """The instrumented bot on ``db_path`` (under ``lease`` if given) until the users are done."""
    app = build_application(
        TOKEN,
        db_path=db_path,
        base_url=emulator.base_url,
        base_file_url=emulator.base_file_url,
        rate_limiter=not args.no_rate_limiter,
        lease=lease,
    )
    instrument(app, recorder)
    args.db_path = db_path
    if args.from_store:
        shutil.copyfile(args.from_store, db_path)  # the bot starts on a copy of that store
    if lease is not None:
        await open_services(app, db_path=db_path, session=lease.session)
    else:
        await open_services(app, db_path=db_path)
    if args.metrics:
        args.monitor_port = start_monitor(app, MonitorConfig(port=0)).port
        args.thinking_runs = count_thinking(app)
    store = app.bot_data.services.tables.db.conn
    if isinstance(store, PostgresConnection):
        instrument_postgresql(store)
    else:
        instrument_sqlite(app.bot_data.services.tables.db.sqlite)
    seeds = random.Random(args.seed)
    app.bot_data.services.tables.new_seed = lambda: seeds.getrandbits(48)
    warm_up()
    try:
        async with polling(app):
            return await measure(args, app, recorder, pipe, results)
    finally:
        await close_services(app)


async def measure(
    args: argparse.Namespace, app: App, recorder: Recorder, pipe: Pipe, results: asyncio.StreamReader
) -> dict[str, Any]:
    tables = app.bot_data.services.tables.tables
    memory = Memory(rss_bytes())
    if args.tracemalloc:
        tracemalloc.start()
        memory.baseline_traced = tracemalloc.get_traced_memory()[0]
        memory.baseline_snapshot = tracemalloc.take_snapshot()
    recorder.recording = True
    pipe.send("go")
    playing = json.loads(await asyncio.wait_for(results.readline(), args.max_seconds + 60))
    recorder.play_started = time.perf_counter()
    profiler = cProfile.Profile() if args.profile else None
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    peers_start = {name: cpu_seconds(pid) for name, pid in args.peer_pids.items()}
    load = 0.0
    if profiler is not None:
        profiler.enable()
    side: list[asyncio.Task[Any]] = []
    if args.metrics:
        side.append(asyncio.create_task(scrape(args.monitor_port, args.scrape)))
    backups: list[Backup] = []
    if args.backup_every:
        side.append(asyncio.create_task(back_up(args.db_path, args.backup_every, backups)))
    done_line = asyncio.ensure_future(results.readline())
    give_up = time.monotonic() + args.max_seconds + 90
    while not done_line.done() and time.monotonic() < give_up:
        memory.sample(len(tables))
        load = max(load, os.getloadavg()[0])
        await asyncio.wait([done_line], timeout=MEMORY_SAMPLE)
    if profiler is not None:
        profiler.disable()
    for task in side:
        task.cancel()
    scrapes = sum(n for n in await asyncio.gather(*side, return_exceptions=True) if isinstance(n, int))
    cpu, wall = time.process_time() - cpu_start, time.perf_counter() - wall_start
    peers = {name: cpu_seconds(pid) - peers_start[name] for name, pid in args.peer_pids.items()}
    recorder.recording = False
    memory.sample(len(tables))
    memory.trimmed_rss = trimmed_rss_bytes()
    memory.planner_memo = memory.trimmed_rss - planner_memo_released()
    if memory.baseline_snapshot is not None:
        top = tracemalloc.take_snapshot().compare_to(memory.baseline_snapshot, "lineno")[:12]
        memory.growth = [str(stat) for stat in top]
    if not done_line.done():
        pipe.send("stop")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done_line, 30)
    summary = json.loads(done_line.result()) if done_line.done() and done_line.result() else {}
    if profiler is not None:
        report_profile(profiler, args.profile)
    return {
        "users": summary,
        "playing": playing,
        "memory": memory,
        "cpu": cpu,
        "wall": wall,
        "peers": peers,
        "load": load,
        "scrapes": scrapes,
        "backups": backups,
    }


def count_thinking(app: App) -> Counter[str]:
    """Count the thinking lanes' runs (each passes one metrics hook): a bench-side wrapper."""
    thinking = app.bot_data.services.tables.thinking
    run = thinking.run
    runs: Counter[str] = Counter()

    async def counted(lane: Any, work: Any, *args: Any) -> Any:
        runs["thinking"] += 1
        return await run(lane, work, *args)

    thinking.run = counted  # type: ignore[method-assign]
    return runs


def hooks_cost(presses: int, thinking_runs: int) -> dict[str, float]:
    """What the metrics hooks cost the bot's process in CPU during the run: every hook's calls
    (as the metrics themselves counted them) times its own CPU per call (timed here, best of
    five), plus a scrape of /metrics. Independent of the machine's other load, unlike the
    run's own figures."""
    value = REGISTRY.get_sample_value

    def total(name: str, **labels: str) -> float:
        return sum(
            sample.value
            for family in REGISTRY.collect()
            for sample in family.samples
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items())
        )

    def each(hook: Callable[[], object], n: int = 20_000) -> float:
        return min(timeit.repeat(hook, number=n, repeat=5, timer=time.process_time)) / n

    def press() -> None:
        metrics.press_ended(metrics.press_received("h:x"))
        metrics.press_answered(False)

    def think() -> None:
        with metrics.thinking("moves"):
            pass

    def edit() -> None:
        metrics.edit_queued()
        metrics.edit_done(False)

    counted = {  # read before the hooks are timed: timing them counts too
        "press (received, answered, ended)": total("guandan_presses_total"),
        "Bot API request": total("guandan_telegram_requests_total"),
        "store statement": value("guandan_store_seconds_count") or 0.0,
        "edit (queued, done)": value("guandan_edits_queued_total") or 0.0,
        "thinking run": float(thinking_runs),
    }
    hooks: dict[str, Callable[[], object]] = {
        "press (received, answered, ended)": press,
        "Bot API request": lambda: metrics.telegram_answered(200),
        "store statement": lambda: metrics.store_answered(time.perf_counter(), False),
        "edit (queued, done)": edit,
        "thinking run": think,
    }
    metrics.switch_on()  # the monitor stopped with the bot, and a stopped monitor counts nothing
    try:
        calls = {name: (counted[name], each(hook)) for name, hook in hooks.items()}
    finally:
        metrics.switch_off()
    scrapes = timeit.repeat(lambda: generate_latest(REGISTRY), number=20, repeat=5, timer=time.process_time)
    scrape_s = min(scrapes) / 20
    hooks_s = sum(count * seconds for count, seconds in calls.values())
    for name, (count, seconds) in calls.items():
        print(f"  {name:<36}{count / max(presses, 1):>7.1f} a press × {seconds * 1e6:5.2f} µs")
    print(f"  a scrape of /metrics: {scrape_s * 1000:.2f} ms of CPU")
    return {"hooks_us_per_press": hooks_s * 1e6 / max(presses, 1), "scrape_ms": scrape_s * 1000}


async def scrape(port: int, every: float) -> int:
    """GET /metrics and /healthz every ``every`` seconds, as Prometheus and Docker would (in a
    thread, as another process's requests take none of the loop's time); returns how many."""

    def get(path: str) -> None:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
            answer.read()

    done = 0
    try:
        while True:
            await asyncio.sleep(every)
            await asyncio.to_thread(get, "/metrics")
            await asyncio.to_thread(get, "/healthz")
            done += 1
    except asyncio.CancelledError:
        return done


@dataclass
class Backup:
    """One ``python -m storage backup`` run during play (``perf_counter`` moments)."""

    started: float
    ended: float
    said: str


async def back_up(db_path: str, every: float, backups: list[Backup]) -> None:
    """Back the bot's store up every ``every`` seconds, as a cron job would: ``python -m storage
    backup`` in a process of its own, while the bot plays on."""
    with tempfile.TemporaryDirectory(prefix="guandan-backup-") as folder:
        while True:
            await asyncio.sleep(every)
            started = time.perf_counter()
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "storage", "backup", "--force", str(Path(folder) / "backup.db"),
                cwd=ROOT, env=os.environ | {"GUANDAN_DB": db_path},
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            )  # fmt: skip
            said, _ = await process.communicate()
            backups.append(Backup(started, time.perf_counter(), said.decode().strip()))


def report_backups(presses: list[Handling], backups: list[Backup]) -> dict[str, Any]:
    """Print the backups run during play, and the presses that arrived while one ran apart from
    the rest; the figures for the summary."""
    if not backups:
        return {}
    for backup in backups:
        print(f"backup at {backup.started:.0f}: {backup.ended - backup.started:.2f} s; {backup.said}")
    inside = [h for h in presses if any(b.started <= h.received <= b.ended for b in backups)]
    outside = [h for h in presses if h not in inside]
    during, apart = figures(inside), figures(outside)
    for label, found in (("during backups", during), ("outside backups", apart)):
        print(
            f"presses {label}: {len(found['excl'])}, p99 excl. limiter"
            f" {percentile(found['excl'], 99):.1f} ms, incl. {percentile(found['incl'], 99):.1f} ms"
        )
    return {
        "backups": len(backups),
        "backup_s_max": round(max(b.ended - b.started for b in backups), 2),
        "presses_during_backups": len(during["excl"]),
        "p99_ms_excl_limiter_during_backups": round(percentile(during["excl"], 99), 2),
        "p99_ms_incl_limiter_during_backups": round(percentile(during["incl"], 99), 2),
        "p99_ms_excl_limiter_outside_backups": round(percentile(apart["excl"], 99), 2),
        "p99_ms_incl_limiter_outside_backups": round(percentile(apart["incl"], 99), 2),
    }


def report_profile(profiler: cProfile.Profile, path: str) -> None:
    profiler.dump_stats(path)
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(40)
    print(text.getvalue())


# ============================================================ the report


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def figures(handlings: list[Handling]) -> dict[str, list[float]]:
    """Per-press times in milliseconds, keyed by measure."""
    out: dict[str, list[float]] = {
        "own": [],
        "excl": [],
        "incl": [],
        "handled": [],
        "queued": [],
        "calls": [],
        "own_calls": [],
        "sqlite": [],
        "sqlite_ops": [],
    }
    for h in handlings:
        last = h.last_issue()
        if last is None or h.finished is None:
            continue
        incl = last - h.received
        out["incl"].append(incl * 1000)
        out["excl"].append((incl - h.limiter_wait(last)) * 1000)
        out["own"].append((incl - h.outside_wait(last)) * 1000)
        out["sqlite"].append(h.sqlite_wait(last) * 1000)
        out["sqlite_ops"].append(len(h.sqlite))
        out["handled"].append((h.finished - h.received) * 1000)
        out["queued"].append((h.started - h.received) * 1000)
        out["calls"].append(h.sent())
        out["own_calls"].append(h.sent_to_presser())
    return out


def token_demand(
    presses: list[Handling], recorder: Recorder, run: dict[str, Any], users: dict[str, Any]
) -> tuple[float, float]:
    """Messages a second per playing table that the token had to send (sends and edits, which
    Telegram counts against its ~30 a second), without and with the glances (which yield)."""
    calls = [c for h in presses for c in h.calls] + recorder.background
    sent = [c for c in calls if c.issued is not None and counts_in_chat(c.endpoint)]
    tables = max(int(users.get("tables_ready") or run["playing"].get("tables") or 1), 1)
    per_table = tables * max(run["wall"], 1e-9)
    awaited = sum(c.awaited for c in sent)
    return awaited / per_table, len(sent) / per_table


def print_capacity(
    presses: list[Handling], recorder: Recorder, run: dict[str, Any], users: dict[str, Any]
) -> None:
    awaited, everything = token_demand(presses, recorder, run, users)
    fills = TOKEN_LIMIT / awaited if awaited else float("inf")
    print(
        f"token demand per playing table: {awaited:.3f} messages/s that players wait for "
        f"({everything:.3f} with glances, which yield); the token's {TOKEN_LIMIT}/s fills at about "
        f"{fills:.0f} such tables (capacity: the most tables at which a press's edit still goes within "
        "2 s p99 — compare the figures above)"
    )


def render_caches() -> str:
    from render import faces, hand

    caches = {"sprites": faces._sprite, "header bands": hand._header_band, "label pills": hand._label_pill}
    sizes = {name: cached.cache_info() for name, cached in caches.items()}
    return ", ".join(f"{name} {info.currsize}/{info.maxsize}" for name, info in sizes.items())


def report(args: argparse.Namespace, recorder: Recorder, run: dict[str, Any]) -> dict[str, Any]:
    presses = [h for h in recorder.handlings if h.kind not in ("command", "lobby")]
    overall = figures(presses)
    memory: Memory = run["memory"]
    resident = max(memory.resident_tables, 1)
    users = run["users"]
    print()
    print(
        f"guandan-bot load benchmark at {revision()}: {args.tables} tables, {args.deals} deal(s), "
        f"seed {args.seed}, "
        f"think {args.think:g} s, rate limiter {'off' if args.no_rate_limiter else 'PriorityLimiter'}"
        + (", bot pinned to its own CPU" if args.pin else "")
    )
    print(
        f"tables playing {users.get('tables_ready', run['playing'].get('tables'))}, finished "
        f"{users.get('tables_finished', '?')}; setup {users.get('setup_seconds', '?')} s, "
        f"play {users.get('play_seconds', '?')} s; presses by users {sum(users.get('presses', {}).values())}"
        f" (unanswered {users.get('unanswered', '?')}, vanished buttons {users.get('vanished_buttons', '?')})"
    )
    print()
    header = f"{'per press (ms)':<28}{'n':>7}{'p50':>9}{'p90':>9}{'p99':>9}{'max':>9}"
    print(header)
    print("-" * len(header))
    rows = [
        ("bot only (no limiter/API)", overall["own"]),
        ("server, excl. limiter waits", overall["excl"]),
        ("server, incl. limiter waits", overall["incl"]),
        ("handled (handler returned)", overall["handled"]),
        ("queued before handler", overall["queued"]),
    ]
    for label, values in rows:
        print(
            f"{label:<28}{len(values):>7}{percentile(values, 50):>9.1f}{percentile(values, 90):>9.1f}"
            f"{percentile(values, 99):>9.1f}{max(values, default=float('nan')):>9.1f}"
        )
    steady_from = (recorder.play_started or 0.0) + args.warmup
    steady = figures([h for h in presses if h.received >= steady_from])
    print(
        f"{'  steady: after ' + format(args.warmup, 'g') + ' s':<28}{len(steady['own']):>7}"
        f"{'bot only':>9}{percentile(steady['own'], 50):>9.1f}{percentile(steady['own'], 99):>9.1f}"
        f"{'excl.':>9}{percentile(steady['excl'], 50):>9.1f}{percentile(steady['excl'], 99):>9.1f}"
    )
    print(
        f"{'':<28}{'':>7}{'incl.':>9}{percentile(steady['incl'], 50):>9.1f}"
        f"{percentile(steady['incl'], 99):>9.1f}   (p50, p99: the first seconds, when every table"
    )
    print(f"{'':<28}{'':>7}   makes its first moves at once, left out)")
    print()
    print(
        f"{'by button (ms)':<16}{'n':>6}{'bot p50':>9}{'bot p99':>9}{'excl p50':>9}{'excl p99':>9}"
        f"{'sql p50':>9}{'sql p99':>9}{'sql ops':>8}{'calls':>7}{'own':>6}"
    )
    for kind in sorted({h.kind for h in presses}):
        of_kind = figures([h for h in presses if h.kind == kind])
        n = max(len(of_kind["calls"]), 1)
        print(
            f"{kind:<16}{len(of_kind['excl']):>6}{percentile(of_kind['own'], 50):>9.1f}"
            f"{percentile(of_kind['own'], 99):>9.1f}{percentile(of_kind['excl'], 50):>9.1f}"
            f"{percentile(of_kind['excl'], 99):>9.1f}{percentile(of_kind['sqlite'], 50):>9.1f}"
            f"{percentile(of_kind['sqlite'], 99):>9.1f}{sum(of_kind['sqlite_ops']) / n:>8.1f}"
            f"{sum(of_kind['calls']) / n:>7.2f}{sum(of_kind['own_calls']) / n:>6.2f}"
        )
    print()
    print(
        "calls: requests that went out per press; own: of them, the answer and the presser's own chat"
        " (the rest: the next player's turn, others' captions)"
    )
    print("API calls per press, by method (withdrawn: superseded while queued at the limiter, never sent)")
    for kind in sorted({h.kind for h in presses}):
        pressed = [h for h in presses if h.kind == kind]
        methods = Counter(
            c.endpoint if c.issued is not None else "withdrawn" for h in pressed for c in h.calls
        )
        shares = ", ".join(f"{name} {count / len(pressed):.2f}" for name, count in methods.most_common())
        print(f"  {kind:<14}{shares}")
    trips = [
        (c.done - c.issued) * 1000
        for calls in ([c for h in presses for c in h.calls], recorder.background)
        for c in calls
        if c.issued is not None and c.done is not None
    ]
    watched = [c for c in recorder.background if c.watch and c.issued is not None]
    presses_sent = sum(h.sent() for h in presses)
    others = sum(c.issued is not None and not c.watch for c in recorder.background)
    n_press = max(len(presses), 1)
    print(
        f"requests sent per press: {presses_sent / n_press:.2f} by the press, {others / n_press:.2f} in the "
        f"background (boards, clocks), {len(watched) / n_press:.2f} to spectators "
        f"({args.spectators} a table; edits {sum(c.endpoint.startswith('edit') for c in watched)}, "
        f"sends {sum(c.endpoint.startswith('send') for c in watched)})"
    )
    print(
        f"  round trip to the emulator (request issued → reply read, incl. waiting for a pooled "
        f"connection): p50 {percentile(trips, 50):.1f} ms, p99 {percentile(trips, 99):.1f} ms"
    )
    store_ops = [(stop - start) * 1000 for h in presses for start, stop in h.sqlite]
    print(
        f"  store ({args.db.split('://')[0]}): each awaited operation p50 {percentile(store_ops, 50):.2f}"
        f" ms, p99 {percentile(store_ops, 99):.2f} ms ({len(store_ops)} operations)"
    )
    background = Counter(c.endpoint for c in recorder.background)
    print(f"  {'background':<14}" + ", ".join(f"{name} {count}" for name, count in background.most_common()))
    lobby = figures([h for h in recorder.handlings if h.kind in ("command", "lobby")])
    waits = [
        (c.issued - c.asked) * 1000
        for c in recorder.background
        if c.issued is not None and c.asked is not None
    ]
    print()
    print(
        f"setup updates (commands, lobby): {len(lobby['excl'])}, excl. limiter p50 "
        f"{percentile(lobby['excl'], 50):.1f} ms, p99 {percentile(lobby['excl'], 99):.1f} ms"
    )
    print(
        f"background calls (group board, clocks): {len(recorder.background)}, limiter wait p50 "
        f"{percentile(waits, 50):.0f} ms, p99 {percentile(waits, 99):.0f} ms"
    )
    print_capacity(presses, recorder, run, users)
    n_presses = max(len(presses), 1)
    rss_per_table = (memory.peak_rss - memory.baseline_rss) / resident
    print(
        f"bot process CPU: {run['cpu']:.1f} s over {run['wall']:.1f} s of play "
        f"({run['cpu'] / max(run['wall'], 1e-9):.0%} of one core), {run['cpu'] * 1000 / n_presses:.1f} ms "
        f"per press (includes board redraws, AI moves and SQLite)"
    )
    peers = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in run["peers"].items())
    print(
        f"other CPU during play: {peers}; peak 1-min load average {run['load']:.1f} on "
        f"{os.cpu_count()} cores (other sessions' work included)"
    )
    scraped = f"on, /metrics and /healthz scraped {run['scrapes']} times"
    print(f"metrics: {scraped if args.metrics else 'off'}")
    print(f"lease: {'on, every request and store session checked and fenced' if args.lease else 'off'}")
    cost: dict[str, float] = {}
    if args.metrics:
        cost = hooks_cost(n_presses, args.thinking_runs["thinking"])
        per_press = cost["hooks_us_per_press"] + cost["scrape_ms"] * 1000 * run["scrapes"] / n_presses
        cost["metrics_cpu_share"] = per_press / (run["cpu"] * 1e6 / n_presses)
        print(
            f"metrics' CPU: {cost['hooks_us_per_press']:.1f} µs of hooks a press, with the scrapes"
            f" {per_press:.1f} µs: {cost['metrics_cpu_share']:.2%} of the"
            f" {run['cpu'] * 1000 / n_presses:.1f} ms of CPU a press (hooks timed alone: the machine's"
            " other load does not blur it)"
        )
    during = report_backups(presses, run["backups"])
    print(
        f"memory: RSS {memory.baseline_rss / 2**20:.1f} MiB → peak {memory.peak_rss / 2**20:.1f} MiB "
        f"with {resident} tables resident: {rss_per_table / 2**20:.3f} MiB per table (RSS growth / N)"
    )
    beyond_memo = (memory.peak_rss - memory.baseline_rss - memory.planner_memo) / resident
    print(
        f"memory: of the growth, the 标准 planner's memo (bounded, process-wide: the same at 1 table "
        f"or 1,000) held {memory.planner_memo / 2**20:.1f} MiB; without it "
        f"{beyond_memo / 2**20:.3f} MiB per table"
    )
    print(
        f"memory: RSS at the end after malloc_trim {memory.trimmed_rss / 2**20:.1f} MiB; render caches "
        f"(bounded LRU of PIL images): {render_caches()}"
    )
    traced_per_table = None
    if args.tracemalloc:
        traced_per_table = (memory.peak_traced - memory.baseline_traced) / resident
        print(
            f"memory: tracemalloc heap growth {traced_per_table / 2**20:.3f} MiB per table "
            "(latencies above are inflated by tracemalloc)"
        )
        print("largest heap growth by line:")
        for line in memory.growth:
            print(f"  {line}")
    unfinished = [h for h in recorder.handlings if h.finished is None]
    if unfinished:
        kinds = Counter(h.kind for h in unfinished)
        calls = Counter(c.endpoint for h in unfinished for c in h.calls)
        print(f"updates still being handled at the end: {dict(kinds)}, their API calls: {dict(calls)}")
    if users.get("setup_failures"):
        print(f"setup failures (first 3): {users['setup_failures']}")
    if users.get("alerts"):
        print(f"alerts shown to users: {users['alerts']}")
    p99 = percentile(overall["excl"], 99)
    summary = {
        "revision": revision(),
        "db": args.db.split("://")[0],
        "pinned": bool(args.pin),
        "lease": bool(args.lease),
        "tables": args.tables,
        "deals": args.deals,
        "seed": args.seed,
        "think_s": args.think,
        "rate_limiter": not args.no_rate_limiter,
        "max_tables": args.max_tables,
        "tables_refused": users.get("tables_refused"),
        "token_demand_per_table": round(token_demand(presses, recorder, run, users)[0], 4),
        "tables_finished": users.get("tables_finished"),
        "presses": len(overall["excl"]),
        "spectators_per_table": args.spectators,
        "spectator_requests_per_press": round(len(watched) / n_press, 3),
        "requests_per_press": round((presses_sent + others + len(watched)) / n_press, 3),
        "p50_ms_bot_only": round(percentile(overall["own"], 50), 2),
        "p99_ms_bot_only": round(percentile(overall["own"], 99), 2),
        "p50_ms_excl_limiter": round(percentile(overall["excl"], 50), 2),
        "p99_ms_excl_limiter": round(p99, 2),
        "p50_ms_incl_limiter": round(percentile(overall["incl"], 50), 2),
        "p99_ms_incl_limiter": round(percentile(overall["incl"], 99), 2),
        "p99_ms_handled": round(percentile(overall["handled"], 99), 2),
        "store_op_p50_ms": round(percentile(store_ops, 50), 3),
        "store_op_p99_ms": round(percentile(store_ops, 99), 3),
        "warmup_s": args.warmup,
        "steady_presses": len(steady["excl"]),
        "p99_ms_bot_only_steady": round(percentile(steady["own"], 99), 2),
        "p99_ms_excl_limiter_steady": round(percentile(steady["excl"], 99), 2),
        "p99_ms_incl_limiter_steady": round(percentile(steady["incl"], 99), 2),
        "cpu_ms_per_press": round(run["cpu"] * 1000 / n_presses, 2),
        "metrics": bool(args.metrics),
        **{key: round(number, 5) for key, number in cost.items()},
        "load_average_peak": round(run["load"], 2),
        **during,
        "rss_mib_per_table": round(rss_per_table / 2**20, 3),
        "rss_mib_per_table_beyond_planner_memo": round(
            (memory.peak_rss - memory.baseline_rss - memory.planner_memo) / resident / 2**20, 3
        ),
        "traced_mib_per_table": None if traced_per_table is None else round(traced_per_table / 2**20, 3),
        "target_p99_le_50ms": p99 <= 50.0,
        "target_p99_le_50ms_steady": percentile(steady["excl"], 99) <= 50.0,
        "target_mem_le_1mb": rss_per_table <= 2**20,
    }
    print()
    print(json.dumps(summary))
    return summary


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=100, help="tables played at once (default 100)")
    parser.add_argument("--deals", type=int, default=1, help="deals per match (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="seeds the deals and the think times")
    parser.add_argument(
        "--think", type=float, default=1.0, help="mean seconds a user waits before a press (default 1.0)"
    )
    parser.add_argument(
        "--max-seconds", type=float, default=300.0, help="stop setup + play after this (default 300)"
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=10.0,
        help="presses in the first SECONDS of play (every table's first moves at once) are also "
        "reported apart from the steady state after them (default 10)",
    )
    parser.add_argument(
        "--no-rate-limiter",
        action="store_true",
        help="build the bot without its rate limiter (the scheduler)",
    )
    parser.add_argument(
        "--max-tables",
        type=int,
        default=None,
        help="the bot's capacity (GUANDAN_MAX_TABLES; default: the bot's own; 0: no limit)",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="the bot on the first CPU, the emulator and the simulated users on the others (see pin_cpus)",
    )
    parser.add_argument(
        "--metrics",
        action="store_true",
        help="serve /healthz and /metrics as GUANDAN_METRICS_PORT does, and scrape both every --scrape"
        " seconds (without it no metric is counted: the cost of metrics is this flag's difference)",
    )
    parser.add_argument("--scrape", type=float, default=5.0, help="seconds between scrapes (default 5)")
    parser.add_argument(
        "--from-store",
        metavar="PATH",
        help="start the bot on a copy of this SQLite store (bench/backup.py)",
    )
    parser.add_argument(
        "--backup-every",
        type=float,
        metavar="SECONDS",
        help="run `python -m storage backup` every SECONDS of play (presses during backups reported apart)",
    )
    parser.add_argument(
        "--db",
        default="sqlite",
        help="sqlite (a temporary file, the default), postgresql (a throw-away cluster) or the "
        "postgresql:// URL of an empty database",
    )
    parser.add_argument(
        "--spectators",
        type=int,
        default=0,
        help="group members per table (up to 4) who press 观战 and follow it in private (default 0)",
    )
    parser.add_argument(
        "--lease",
        action="store_true",
        help="with a PostgreSQL --db: lead by the lease as one of several processes (each request and"
        " session checked against it and fenced); the cost of those checks is this flag's difference",
    )
    parser.add_argument("--tracemalloc", action="store_true", help="also trace Python heap growth (slow)")
    parser.add_argument("--profile", metavar="FILE", help="cProfile the bot during play; dump to FILE")
    args = parser.parse_args(argv)
    if args.lease and not (args.db == "postgresql" or args.db.startswith(POSTGRESQL_SCHEMES)):
        parser.error("--lease needs a PostgreSQL --db (the lease lives in PostgreSQL)")
    if args.tables < 1 or args.deals < 1 or args.max_seconds <= 0 or args.think < 0:
        parser.error("--tables and --deals must be ≥ 1, --max-seconds > 0, --think ≥ 0")
    if not 0 <= args.spectators <= 4:
        parser.error("--spectators must be 0 to 4")
    return args


def pin_cpus() -> tuple[set[int], set[int]] | tuple[None, None]:
    """The bot's CPU and the load generator's (``--pin``); none on a single CPU.

    Unpinned on a 2-core machine, every request the bot wrote on loopback woke the emulator,
    and the kernel often ran the woken process on the bot's own core at once: a socket write
    took 1.2 ms on average in the bot's profile (17% of the event loop's samples), and a
    press's tail was the load generator's. On Telegram the other end is another machine.
    """
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None, None
    return {cpus[0]}, set(cpus[1:])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.max_tables is not None:
        os.environ["GUANDAN_MAX_TABLES"] = str(args.max_tables)  # read by bot.open_services
    bot_cpus, peer_cpus = pin_cpus() if args.pin else (None, None)
    if peer_cpus is not None:
        os.sched_setaffinity(0, peer_cpus)  # inherited by the emulator and the users' process
    emulator = Emulator.start()
    commands_read, commands_write = os.pipe()
    results_read, results_write = os.pipe()
    config = UserConfig(
        emulator.url,
        args.tables,
        args.deals,
        args.seed,
        args.think,
        args.max_seconds,
        spectators=args.spectators,
    )
    child = multiprocessing.get_context("fork").Process(
        target=people_process, args=(config, commands_read, results_write), daemon=True
    )
    try:
        child.start()
        if bot_cpus is not None:
            os.sched_setaffinity(0, bot_cpus)  # before the bot's threads exist: they inherit it
        args.peer_pids = {"emulator (node)": emulator.process.pid, "simulated users": child.pid}
        os.close(commands_read)
        os.close(results_write)
        pipe = Pipe(commands_write)
        recorder = Recorder(pipe.send)
        run_result = asyncio.run(run_bot(args, emulator, recorder, pipe, results_read))
        report(args, recorder, run_result)
    finally:
        child.join(timeout=10)
        if child.is_alive():
            child.kill()
            child.join()
        emulator.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
