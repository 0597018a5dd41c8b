"""Busy tables with four Mini App players each: what one process and one token carry (issue 42).

    .venv/bin/python bench/miniapp_load.py                    # 150 tables, 30 s warm-up, 120 s measured
    .venv/bin/python bench/miniapp_load.py --tables 450 --seconds 120 --think 2

What runs where:

* the Bot API emulator (node) on a free 127.0.0.1 port, enforcing Telegram's limits;
* this process: the real bot as ``bot.py`` runs it (``bench.tuned``: the scheduler on, a
  temporary SQLite file, no admission limit — ``GUANDAN_MAX_TABLES=0`` — and the Mini App
  served on a free port), long-polling the emulator; it measures its own CPU, memory and
  Bot API requests;
* a forked child: the people. Each table is a group whose four players sit and start through
  the chat (as bench/miniapp.py does), then each opens the Mini App: a WebSocket client of the
  page's protocol (``webapp/protocol.py``). On its turn a page waits a think time (uniform
  0.5–1.5 × ``--think`` s), sends 提示, glances at the suggestion (0.2–0.6 s) and sends 出牌 with
  it, or 不出 when it suggests passing; tributes and returns at the same pace. The child's
  CPU is not the bot's: its process and its event loop's lag are printed apart.

The run goes in steps, the bot's RSS read after each (a second of quiet first): half the tables
set up, all of them, every page open and idle (the scheduler's queue drained); then ``--warmup``
seconds of play not measured (every table's first moves at once, and each seat's one "playing
in the Mini App" caption edit, which its first move after the page opened sends), then
``--seconds`` measured (RSS sampled every 0.5 s, the peak kept). Memory per table
is (RSS at N − RSS at N/2) / (N − N/2), a table's match, records and chat messages without a
page; memory per WebSocket is (RSS with the pages open − RSS without) / pages.

Press → screen, from the page's side (the child's clock, so its own loop's lag is included):

* 提示 → the page has the suggestion;
* a move (出牌, 不出, 进贡, 还贡) → the mover's page has the table's new state;
* the same move → each other seat's page has it.

The bot's CPU per press is the process's CPU time (all its threads) over the play window /
the pages' presses in it (提示 counts as a press, as a chat 提示 does in bench/load.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import json
import multiprocessing
import os
import random
import resource
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: the project's packages live one level up

import aiohttp  # noqa: E402

from app.table import hints  # noqa: E402
from bench.load import cpu_seconds, percentile, report_profile, revision, rss_bytes, warm_up  # noqa: E402
from bench.tuned import build_application, open_services  # noqa: E402
from bot import close_services  # noqa: E402
from emulator.client import Chat, Emulator, EmulatorError, Telegram, User, polling  # noqa: E402
from emulator.miniapp import init_data  # noqa: E402
from emulator.tables import GroupTable, set_up  # noqa: E402
from handlers.platform import transport  # noqa: E402
from handlers.platform.scheduler import priority_limiter  # noqa: E402
from webapp import moves  # noqa: E402

TOKEN = "424243:MINIAPPLOAD"
MATCH = "/newgame wechat-6-deals points_deals={deals} turn_seconds=null first_turn_seconds=null"
USER_CONNECTIONS = 12  # the people's connections to the emulator (setup only)
QUIET = 1.0  # seconds before each RSS reading between steps
DRAIN_TIMEOUT = 300.0  # the longest the run waits for the scheduler to send the pages' caption edits
GLANCE = (0.2, 0.6)  # seconds between the suggestion's arrival and 出牌 (a look at the selection)
Key = tuple[int, int]  # (deal, version): a state is newer than another when its key is larger


# ============================================================ the people's side


@dataclass
class Move:
    """A move a page sent, waiting to be seen: by its own page and by the table's other pages."""

    mover: int
    base: Key
    sent: float
    seen: set[int] = field(default_factory=set)


@dataclass
class Timings:
    """Press → screen samples, each (seconds since play began, milliseconds)."""

    hint: list[tuple[float, float]] = field(default_factory=list)
    own: list[tuple[float, float]] = field(default_factory=list)
    others: list[tuple[float, float]] = field(default_factory=list)
    presses: list[tuple[str, float]] = field(default_factory=list)  # (kind, seconds since play began)
    refusals: Counter[str] = field(default_factory=Counter)
    reopened: int = 0
    began: float = 0.0

    def pressed(self, kind: str) -> None:
        self.presses.append((kind, time.perf_counter() - self.began))


class TableClock:
    """One table's newest move, so that each page can tell when it first showed it."""

    def __init__(self, timings: Timings) -> None:
        self.timings = timings
        self.move: Move | None = None

    def sent(self, seat: int, base: Key) -> None:
        self.move = Move(seat, base, time.perf_counter())

    def refused(self, seat: int) -> None:
        if self.move is not None and self.move.mover == seat:
            self.move = None

    def shown(self, seat: int, key: Key, playing: bool) -> None:
        """A page of ``seat`` received the state ``key``: the first newer one ends its wait."""
        move = self.move
        if move is None or key <= move.base or seat in move.seen:
            return
        move.seen.add(seat)
        if playing:
            now = time.perf_counter()
            sample = (move.sent - self.timings.began, (now - move.sent) * 1000)
            (self.timings.own if seat == move.mover else self.timings.others).append(sample)


class Page:
    """One player's open Mini App page: its WebSocket, the newest state, its moves."""

    def __init__(self, port: int, user: User, table: TableClock, think: float, rng: random.Random) -> None:
        self.url = f"http://127.0.0.1:{port}/ws"
        self.init = init_data(TOKEN, user.id, name=user.first_name)
        self.table = table
        self.think = think
        self.rng = rng
        self.state: dict[str, Any] | None = None
        self.opened = asyncio.Event()
        self.playing = asyncio.Event()
        self.hint_sent: float | None = None
        self.acted: Key | None = None
        self.turn: asyncio.Task[None] | None = None
        self.ws: aiohttp.ClientWebSocketResponse | None = None

    @property
    def key(self) -> Key:
        assert self.state is not None
        return (int(self.state["deal"]), int(self.state["version"]))

    async def run(self, session: aiohttp.ClientSession, stop: asyncio.Event) -> None:
        """Keep the page open until ``stop`` (reopened if the server closes it)."""
        first = True
        while not stop.is_set():
            try:
                async with session.ws_connect(self.url, max_msg_size=0) as ws:
                    self.ws = ws
                    if not first:
                        self.table.timings.reopened += 1
                    first = False
                    await ws.send_str(json.dumps({"t": "hello", "init": self.init}))
                    await self._read(ws, stop)
            except (aiohttp.ClientError, ConnectionError):
                pass
            if self.turn is not None:
                self.turn.cancel()
            if not stop.is_set():
                await asyncio.sleep(0.5)

    async def _read(self, ws: aiohttp.ClientWebSocketResponse, stop: asyncio.Event) -> None:
        async for message in ws:
            if message.type is not aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(message.data)
            kind = data["t"]
            if kind == "state":
                self.state = data
                self.opened.set()
                seat = data["seat"]
                self.table.shown(seat, self.key, self.playing.is_set())
                self._maybe_act(ws)
            elif kind == "hint":
                self._hinted(ws, data["cards"])
            elif kind == "refused":
                self.table.timings.refusals[data.get("code", "?")] += 1
                if self.state is not None:
                    self.table.refused(self.state["seat"])
                self.acted = None
                self._maybe_act(ws)
            elif kind == "bye":
                self.table.timings.refusals[f"bye {data.get('code')}"] += 1
                return
            if stop.is_set():
                return

    def start(self) -> None:
        """Play from now on: the state shown now counts as seen, and a turn it shows is taken."""
        self.playing.set()
        if self.state is not None and self.ws is not None:
            self._maybe_act(self.ws)

    def _maybe_act(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        state = self.state
        if not self.playing.is_set() or state is None or state["match_over"] or state["stopped"]:
            return
        if state["seat"] not in state["to_act"] or self.acted == self.key:
            return
        if self.turn is not None and not self.turn.done():
            return
        self.acted = self.key
        self.turn = asyncio.create_task(self._act(ws, self.key))

    async def _act(self, ws: aiohttp.ClientWebSocketResponse, key: Key) -> None:
        await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)
        state = self.state
        if state is None or self.key != key or ws.closed:
            return
        if state["tribute"]:
            await self._move(ws, "tribute", {"t": "tribute", "card": state["tribute"][0]})
        elif state["return"]:
            await self._move(ws, "return", {"t": "return", "card": state["return"][0]})
        elif state["phase"] == "play":
            self.hint_sent = time.perf_counter()
            self.table.timings.pressed("hint")
            await ws.send_str('{"t":"hint"}')

    def _hinted(self, ws: aiohttp.ClientWebSocketResponse, cards: list[str]) -> None:
        if self.hint_sent is not None:
            now = time.perf_counter()
            began = self.table.timings.began
            self.table.timings.hint.append((self.hint_sent - began, (now - self.hint_sent) * 1000))
            self.hint_sent = None
        self.turn = asyncio.create_task(self._play_hint(ws, self.key, cards))

    async def _play_hint(self, ws: aiohttp.ClientWebSocketResponse, key: Key, cards: list[str]) -> None:
        await asyncio.sleep(self.rng.uniform(*GLANCE))
        if self.key != key or ws.closed:
            return
        if cards:
            await self._move(ws, "play", {"t": "play", "cards": cards})
        else:
            await self._move(ws, "pass", {"t": "pass"})

    async def _move(self, ws: aiohttp.ClientWebSocketResponse, kind: str, message: dict[str, Any]) -> None:
        assert self.state is not None
        self.table.timings.pressed(kind)
        self.table.sent(self.state["seat"], self.key)
        await ws.send_str(json.dumps(message))


@dataclass(frozen=True)
class Plan:
    """What the people do: how many tables, at what pace."""

    tables: int
    think: float
    deals: int
    seed: int
    setup_concurrency: int = 16


def users_of(table: int) -> list[User]:
    return [User(40_000_000 + 4 * table + k, f"M{table}-{k}") for k in range(4)]


async def set_up_table(telegram: Telegram, index: int, deals: int) -> None:
    users = users_of(index)
    table = GroupTable(telegram, Chat.group(-(40_000_000 + index), f"mini {index}"))
    await set_up(telegram, table, users, MATCH.format(deals=deals))
    for user in users:  # the deal's hand messages are set-up, not play
        await telegram.wait_message(Chat.private(user), lambda m: bool(m.buttons), timeout=120)


class LoopLag:
    """How late the people's event loop wakes (their lag is in the press → screen figures)."""

    def __init__(self) -> None:
        self.samples: list[float] = []

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            before = time.perf_counter()
            await asyncio.sleep(0.05)
            self.samples.append((time.perf_counter() - before - 0.05) * 1000)


async def people(plan: Plan, emulator_url: str, conn: Connection) -> None:
    """The child: set the tables up in two halves, open the pages, play on "play" until "stop"."""

    async def told() -> Any:
        return await asyncio.to_thread(conn.recv)

    port = await told()
    emulator = Emulator(emulator_url, None)  # type: ignore[arg-type]  # the address is all users need
    rng = random.Random(plan.seed)
    timings = Timings()
    failures: list[str] = []
    ready: list[int] = []
    async with Telegram(emulator, TOKEN, connections=USER_CONNECTIONS) as telegram:
        await telegram.enforce_limits()
        gate = asyncio.Semaphore(plan.setup_concurrency)

        async def one(index: int) -> None:
            async with gate:
                try:
                    await set_up_table(telegram, index, plan.deals)
                    ready.append(index)
                except (AssertionError, TimeoutError, EmulatorError, KeyError, IndexError) as error:
                    failures.append(repr(error))

        started = time.monotonic()
        half = plan.tables // 2
        await asyncio.gather(*(one(i) for i in range(half)))
        conn.send(("half", len(ready)))
        await told()
        await asyncio.gather(*(one(i) for i in range(half, plan.tables)))
        setup_seconds = time.monotonic() - started
        conn.send(("all", len(ready)))
        await told()
        stop = asyncio.Event()
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            pages = []
            for index in sorted(ready):
                clock = TableClock(timings)
                pages += [Page(port, user, clock, plan.think, rng) for user in users_of(index)]
            tasks = [asyncio.create_task(page.run(session, stop)) for page in pages]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*(p.opened.wait() for p in pages)), 120)
            conn.send(("pages", sum(p.opened.is_set() for p in pages)))
            await told()  # "play"
            lag = LoopLag()
            lagging = asyncio.create_task(lag.run(stop))
            timings.began = time.perf_counter()
            for page in pages:
                page.start()
            await told()  # "stop"
            stop.set()
            played = time.perf_counter() - timings.began
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, lagging, return_exceptions=True)
        limits = await telegram.limit_stats()
    conn.send(
        (
            "done",
            {
                "setup_seconds": round(setup_seconds, 1),
                "tables_ready": len(pages) // 4,
                "setup_failures": failures[:3],
                "played_seconds": round(played, 1),
                "hint": timings.hint,
                "own": timings.own,
                "others": timings.others,
                "presses": timings.presses,
                "refusals": dict(timings.refusals),
                "reopened": timings.reopened,
                "loop_lag_ms": lag.samples,
                "too_many_requests": limits.too_many_requests,
                "too_many_by_limit": limits.by_limit,
            },
        )
    )


def people_process(plan: Plan, emulator_url: str, conn: Connection) -> None:
    asyncio.run(people(plan, emulator_url, conn))


# ============================================================ the bot's side


REQUESTS: Counter[str] = Counter()
"""Bot API requests answered while :data:`COUNTING` is set, by method (``getUpdates`` apart)."""
COUNTING = False


def count_requests() -> None:
    """Count each request the Bot API answers by its method (wraps ``transport._noted``)."""
    noted = transport._noted

    def counted(url: str, request_data: Any, status: int) -> None:
        if COUNTING:
            REQUESTS[url.rsplit("/", 1)[-1]] += 1
        noted(url, request_data, status)

    transport._noted = counted


THOUGHTS: list[tuple[str, float, float]] = []
"""Each turn's suggestions thought out during play: (lane, thread CPU ms, wall ms in the thread)."""
HINT_WAITS: list[float] = []
"""Milliseconds a 提示 from a page waited for its suggestions (on the event loop, lock held)."""


def time_thinking() -> None:
    """Time 提示's thinking: in the lane's thread (CPU and wall, which includes waiting for the GIL
    and the machine) and as the press waits for it (wraps ``suggestions`` and ``hints_for``)."""
    thought = hints.suggestions
    waited = moves.hints_for  # type: ignore[attr-defined]

    def timed(*args: Any) -> Any:
        cpu, wall = time.thread_time(), time.perf_counter()
        try:
            return thought(*args)
        finally:
            lane = threading.current_thread().name.split("_")[0]
            if COUNTING:
                THOUGHTS.append(
                    (lane, (time.thread_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000)
                )

    async def timed_wait(*args: Any) -> Any:
        start = time.perf_counter()
        try:
            return await waited(*args)
        finally:
            if COUNTING:
                HINT_WAITS.append((time.perf_counter() - start) * 1000)

    hints.suggestions = timed  # type: ignore[assignment]
    moves.hints_for = timed_wait  # type: ignore[attr-defined,assignment]


STORE_OPS: list[float] = []
"""Milliseconds each awaited SQLite operation took during play (aiosqlite's queue included)."""


def time_store(conn: Any) -> None:
    """Time every operation the bot awaits on its aiosqlite connection (its one writer thread)."""
    execute = conn._execute

    async def timed(fn: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await execute(fn, *args, **kwargs)
        finally:
            if COUNTING:
                STORE_OPS.append((time.perf_counter() - start) * 1000)

    conn._execute = timed


def cpu_now() -> float:
    """This process's CPU seconds so far, every thread (the loop, the lanes, render, aiosqlite)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Snapshot:
    """The bot process and the machine at one moment."""

    at: float
    cpu: float
    peers: dict[str, float]
    load: float

    @classmethod
    def take(cls, peers: dict[str, int]) -> Snapshot:
        seconds = {name: cpu_seconds(pid) for name, pid in peers.items()}
        return cls(time.perf_counter(), cpu_now(), seconds, os.getloadavg()[0])


async def quiet_rss() -> int:
    """The bot's RSS after a second of quiet and a collection (what is held, not in flight)."""
    await asyncio.sleep(QUIET)
    gc.collect()
    return rss_bytes()


async def drained(app: Any, timeout: float) -> float:
    """Wait until the scheduler holds no request (the pages' caption edits sent); seconds waited."""
    limiter = priority_limiter(app.bot.rate_limiter)
    started = time.monotonic()
    while limiter is not None and limiter.queued() and time.monotonic() - started < timeout:
        await asyncio.sleep(0.5)
    return time.monotonic() - started


async def run_bot(
    args: argparse.Namespace, emulator: Emulator, conn: Connection, peers: dict[str, int]
) -> dict[str, Any]:
    """Serve the people's tables and pages; measure each step (see the module's docstring)."""
    global COUNTING

    async def heard(expected: str) -> Any:
        kind, value = await asyncio.to_thread(conn.recv)
        if kind != expected:
            raise RuntimeError(f"the people said {kind!r}, not {expected!r}")
        return value

    folder = Path(tempfile.mkdtemp(prefix="guandan-miniapp-load-"))
    db_path = str(folder / "bench.db")
    count_requests()
    time_thinking()
    app = build_application(
        TOKEN, db_path=db_path, base_url=emulator.base_url, base_file_url=emulator.base_file_url
    )
    await open_services(app, db_path=db_path)
    time_store(app.bot_data.services.db.sqlite)
    result: dict[str, Any] = {}
    try:
        async with polling(app):
            port = getattr(app.bot_data.services.miniapp, "port", None)
            assert port is not None, "the Mini App is not served"
            warm_up()
            result["rss_idle"] = await quiet_rss()
            conn.send(port)
            result["half"] = await heard("half")
            result["rss_half"] = await quiet_rss()
            conn.send("go")
            result["all"] = await heard("all")
            result["rss_all"] = await quiet_rss()
            conn.send("go")
            result["pages"] = await heard("pages")
            result["drain_seconds"] = await drained(app, DRAIN_TIMEOUT)
            result["rss_pages"] = await quiet_rss()
            profiler = cProfile.Profile() if args.profile else None
            limiter = priority_limiter(app.bot.rate_limiter)
            conn.send("play")
            await asyncio.sleep(args.warmup)  # every table's first moves, and its seats' first captions
            REQUESTS.clear()
            COUNTING = True
            before = Snapshot.take(peers)
            if profiler is not None:
                profiler.enable()
            peak, load, queued = 0, 0.0, [limiter.queued() if limiter is not None else 0]
            deadline = time.perf_counter() + args.seconds
            while time.perf_counter() < deadline:
                await asyncio.sleep(0.5)
                peak, load = max(peak, rss_bytes()), max(load, os.getloadavg()[0])
                queued.append(limiter.queued() if limiter is not None else 0)
            result["queued"] = queued
            if profiler is not None:
                profiler.disable()
            after = Snapshot.take(peers)
            COUNTING = False
            conn.send("stop")
            result["people"] = await heard("done")
            result |= {"before": before, "after": after, "rss_peak": peak, "load_peak": load}
            result["requests"] = dict(REQUESTS)
            result["thoughts"], result["hint_waits"] = list(THOUGHTS), list(HINT_WAITS)
            result["store_ops"] = list(STORE_OPS)
            if profiler is not None:
                report_profile(profiler, args.profile)
    finally:
        await close_services(app)
    return result


# ============================================================ the report


def ms(samples: list[list[float]] | list[tuple[float, float]], q: float, since: float = 0.0) -> float:
    return percentile([value for at, value in samples if at >= since], q)


def print_thinking(thoughts: list[tuple[str, float, float]], waits: list[float]) -> None:
    print(f"提示's suggestions thought out during play: {len(thoughts)}")
    for lane in sorted({lane for lane, _, _ in thoughts}):
        cpu = [c for name, c, _ in thoughts if name == lane]
        wall = [w for name, _, w in thoughts if name == lane]
        print(
            f"  in the {lane} lane {len(cpu)}: CPU {sum(cpu) / 1000:.1f} s, p50 {percentile(cpu, 50):.1f} ms,"
            " "
            f"p99 {percentile(cpu, 99):.1f} ms; wall in the thread p50 {percentile(wall, 50):.1f} ms, "
            f"p99 {percentile(wall, 99):.1f} ms"
        )
    print(
        f"  a page's 提示 waited for them (lock held): p50 {percentile(waits, 50):.1f} ms, "
        f"p99 {percentile(waits, 99):.1f} ms ({len(waits)})"
    )


def report(args: argparse.Namespace, run: dict[str, Any]) -> dict[str, Any]:
    people_said = run["people"]
    before, after = run["before"], run["after"]
    wall = after.at - before.at
    presses = Counter(kind for kind, at in people_said["presses"] if at >= args.warmup)
    n_presses = max(sum(presses.values()), 1)
    n_moves = max(n_presses - presses["hint"], 1)
    cpu = after.cpu - before.cpu
    tables = people_said["tables_ready"]
    pages = run["pages"]
    requests = run["requests"]
    sent = sum(count for name, count in requests.items() if name != "getUpdates")
    half = run["half"]
    per_table = (run["rss_all"] - run["rss_half"]) / max(tables - half, 1)
    per_socket = (run["rss_pages"] - run["rss_all"]) / max(pages, 1)
    per_table_playing = (run["rss_peak"] - run["rss_idle"]) / max(tables, 1)
    print(
        f"tables {tables} of {args.tables} (set up in {people_said['setup_seconds']:.0f} s), pages {pages},"
        f" think {args.think:.1f} s, {wall:.1f} s of play; revision {revision()}"
    )
    if people_said["setup_failures"]:
        print(f"setup failures (first 3): {people_said['setup_failures']}")
    print(
        f"presses {n_presses} ({n_presses / wall:.0f} a second): "
        + ", ".join(f"{kind} {count}" for kind, count in presses.most_common())
        + f"; refused {dict(people_said['refusals']) or 0}; pages reopened {people_said['reopened']}"
    )
    warm = args.warmup
    print()
    print(
        f"press → screen (ms; sent in the measured {wall:.0f} s)" + " " * 18 + "p50     p99      n"
        f"   (warm-up p99, first {warm:.0f} s)"
    )
    for name, label in (
        ("hint", "提示 → the suggestion on the page"),
        ("own", "move → the mover's page has the new state"),
        ("others", "move → each other seat's page has it"),
    ):
        samples = people_said[name]
        early = [(at, value) for at, value in samples if at < warm]
        print(
            f"  {label:<44}{ms(samples, 50, warm):>7.1f}{ms(samples, 99, warm):>8.1f}"
            f"{len(samples) - len(early):>7}   ({ms(early, 99):.1f})"
        )
    queued = run["queued"]
    print(
        f"  requests waiting at the scheduler (the token's 30 a second): {queued[0]} at the start, "
        f"{max(queued)} at most, {queued[-1]} at the end"
    )
    lag = people_said["loop_lag_ms"]
    print(
        f"  (the people's own event loop woke late by p50 {percentile(lag, 50):.1f} ms, p99 "
        f"{percentile(lag, 99):.1f} ms: that is in the figures above)"
    )
    print()
    print(
        f"bot process CPU: {cpu:.1f} s over {wall:.1f} s ({cpu / wall:.0%} of one core): "
        f"{cpu * 1000 / n_presses:.2f} ms a press, {cpu * 1000 / n_moves:.2f} ms a move (提示 excluded)"
    )
    others = ", ".join(f"{name} {after.peers[name] - before.peers[name]:.1f} s" for name in after.peers)
    print(
        f"other CPU during play: {others}; 1-min load average {before.load:.2f} at the start, peak "
        f"{run['load_peak']:.2f}, {after.load:.2f} at the end, on {os.cpu_count()} cores"
        " (others' work included)"
    )
    print(
        f"Bot API requests during play: {sent} without getUpdates ({sent / n_presses:.3f} a press, "
        f"{sent / n_moves:.3f} a move); 429s from the emulator in the whole run: "
        f"{people_said['too_many_requests']} {people_said['too_many_by_limit'] or ''}"
    )
    print(
        "  " + ", ".join(f"{name} {count}" for name, count in sorted(requests.items(), key=lambda i: -i[1]))
    )
    print_thinking(run["thoughts"], run["hint_waits"])
    store = run["store_ops"]
    print(
        f"SQLite operations awaited during play: {len(store)} ({len(store) / wall:.0f} a second), each p50 "
        f"{percentile(store, 50):.2f} ms, p99 {percentile(store, 99):.2f} ms (aiosqlite's queue included)"
    )
    mib = 2**20
    print()
    print(
        f"memory: RSS idle {run['rss_idle'] / mib:.1f} MiB, {half} tables {run['rss_half'] / mib:.1f}, "
        f"{tables} tables {run['rss_all'] / mib:.1f}, with {pages} pages open {run['rss_pages'] / mib:.1f} "
        f"(caption edits drained in {run['drain_seconds']:.0f} s), peak in play {run['rss_peak'] / mib:.1f}"
    )
    print(
        f"memory: {per_table / mib:.3f} MiB a table (N/2 → N, no page), {per_socket / 1024:.1f} KiB a "
        f"WebSocket page (idle, open vs none), {per_table_playing / mib:.3f} MiB a table in play with "
        "its four pages (peak − idle) / N"
    )
    own = people_said["own"]
    summary = {
        "revision": revision(),
        "tables": tables,
        "pages": pages,
        "think_s": args.think,
        "seconds": round(wall, 1),
        "presses": n_presses,
        "moves": n_moves,
        "warmup_s": warm,
        "p50_ms_hint": round(ms(people_said["hint"], 50, warm), 1),
        "p99_ms_hint": round(ms(people_said["hint"], 99, warm), 1),
        "p50_ms_move_own": round(ms(own, 50, warm), 1),
        "p99_ms_move_own": round(ms(own, 99, warm), 1),
        "p50_ms_move_others": round(ms(people_said["others"], 50, warm), 1),
        "p99_ms_move_others": round(ms(people_said["others"], 99, warm), 1),
        "p99_ms_move_own_warmup": round(ms([(a, v) for a, v in own if a < warm], 99), 1),
        "people_loop_lag_p99_ms": round(percentile(lag, 99), 1),
        "cpu_ms_per_press": round(cpu * 1000 / n_presses, 2),
        "cpu_ms_per_move": round(cpu * 1000 / n_moves, 2),
        "cpu_share_of_a_core": round(cpu / wall, 3),
        "requests_per_press": round(sent / n_presses, 4),
        "rss_mib_per_table": round(per_table / mib, 3),
        "rss_kib_per_websocket": round(per_socket / 1024, 1),
        "rss_mib_per_table_in_play": round(per_table_playing / mib, 3),
        "load_average_start": round(before.load, 2),
        "load_average_peak": round(run["load_peak"], 2),
        "target_p99_le_200ms": ms(own, 99, warm) <= 200.0,
    }
    print()
    print(json.dumps(summary))
    return summary


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--tables", type=int, default=150, help="tables of four Mini App players (default 150)"
    )
    parser.add_argument("--seconds", type=float, default=120.0, help="seconds of play measured (default 120)")
    parser.add_argument(
        "--think",
        type=float,
        default=2.0,
        help="mean seconds before a move's 提示 (uniform 0.5–1.5×; default 2)",
    )
    parser.add_argument("--deals", type=int, default=6, help="deals a match lasts (default 6: none ends)")
    parser.add_argument("--seed", type=int, default=1, help="seeds the think times")
    parser.add_argument(
        "--warmup",
        type=float,
        default=30.0,
        help="SECONDS of play before the measured --seconds (every table's first moves at once, and"
        " each seat's first 'playing in the Mini App' edit; default 30)",
    )
    parser.add_argument(
        "--profile", metavar="FILE", help="cProfile the bot's event loop during play; dump to FILE"
    )
    args = parser.parse_args(argv)
    if args.tables < 2 or args.seconds <= 0 or args.think < 0:
        parser.error("--tables must be ≥ 2, --seconds > 0, --think ≥ 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ |= {
        "GUANDAN_WEBAPP_URL": "https://bench.example/app",
        "GUANDAN_WEBAPP_PORT": "0",
        "GUANDAN_MAX_TABLES": "0",  # no admission limit: the bench looks for the limit itself
    }
    emulator = Emulator.start(limits=True)
    ours, theirs = multiprocessing.Pipe()
    plan = Plan(args.tables, args.think, args.deals, args.seed)
    child = multiprocessing.get_context("fork").Process(
        target=people_process, args=(plan, emulator.url, theirs), daemon=True
    )
    try:
        child.start()
        assert child.pid is not None
        peers = {"emulator (node)": emulator.process.pid, "people (WebSocket clients)": child.pid}
        run = asyncio.run(run_bot(args, emulator, ours, peers))
        report(args, run)
    finally:
        child.join(timeout=10)
        if child.is_alive():
            child.kill()
            child.join()
        emulator.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
