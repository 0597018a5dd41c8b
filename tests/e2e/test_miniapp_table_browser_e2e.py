"""Issue 42's table tests in a real browser (Debian's chromium through Playwright) and over raw
WebSockets, against the real bot and the Bot API emulator.

* Four players, two in the Mini App (two pages) and two in the chat, play a whole match whose
  pinned seed gives 双下 in deal 1: deal 2 opens with two tributes and two returns, one of each
  made from a page's 进贡/还贡 button; every page move is 提示 then 出牌 (or 不出) pressed on the page.
* 观战 in the Mini App: a fifth user, not seated, presses 观战 on the board and opens the page
  from the web_app button of their 观战 message; every WebSocket frame that page receives over
  the whole match is checked against the stored log replayed (no hand, no tribute or return
  choice, only cards already played in the deal), and the page shows no card in hand while it
  follows the plays. A table with ``spectators=off`` says so on the page, in the user's language.
* One connection cannot act for another seat or table: moves naming another seat or table act
  for the connection's own seat or are refused (not your turn), a second hello is refused, a
  spectator's moves are refused; nothing is stored and neither table changes.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import aiosqlite
import pytest
from playwright import async_api as playwright

from app.table.refusals import TableRefusal
from app.table.tables import LiveTable
from app.table.texts import error_text
from emulator.client import BotMessage, Chat, Emulator, Telegram, User, wait_for
from emulator.miniapp import init_data
from engine.actions import DealStarted, Played
from engine.match import Match, action_from_json
from engine.rules import Rules
from tests.e2e.test_match_e2e import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    DOUBLE_DOWN_SEED,
    FACE_PATTERN,
    MATCH_TIMEOUT,
    PINNED_MATCH,
    SINGLE_DOWN_SEED,
    Table,
    exchanges,
    final_status,
    set_up,
)
from tests.e2e.test_miniapp_browser_e2e import ARGS, CHROMIUM, CORNER, PHONE, page_url
from tests.e2e.test_miniapp_e2e import PAGE_URL, miniapp_bot, port_of
from tests.e2e.test_spectators_e2e import board, buttons_by_op, open_private_chat, spectator_message

EVE = User(2005, "Eve")
"""The fifth user: a member of the group who sits at no table."""
CARD = re.compile(r'"(?:[SHCD][2-9TJQKA]|BJ|RJ)"')
"""A card in the engine's notation, as a JSON string."""
# CI installs it (`make test` runs scripts/system-deps.sh): there a missing browser fails, never skips
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists() and os.environ.get("CI") != "true", reason="Debian's chromium is not installed"
)


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    """Debian's chromium; each page is opened in a context of its own (:meth:`Tab.open`), as each
    player holds a phone of their own: one browser window each, none of them in the background
    (a background tab's animation frames are held back, and Playwright's clicks wait on them)."""
    async with playwright.async_playwright() as driver:
        chromium = await driver.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            yield chromium
        finally:
            await chromium.close()


@dataclass
class Tab:
    """One open page and every WebSocket frame it received (Playwright's ``framereceived``)."""

    page: Any
    frames: list[dict[str, Any]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    acted: int = -1  # the version of the state the page last moved on
    given: list[tuple[str, int]] = field(default_factory=list)  # 进贡 / 还贡 pressed, of how many cards
    moves: int = 0  # moves made on the page

    @classmethod
    async def open(cls, browser: Any, url: str) -> Tab:
        """``url`` in a new phone of 360 px (a fresh context: its own storage and window)."""
        # Playwright's wait_for_function evaluates strings; the page's CSP forbids that
        context = await browser.new_context(viewport=PHONE, bypass_csp=True)
        tab = cls(await context.new_page())
        tab.page.on("websocket", lambda ws: ws.on("framereceived", tab._received))
        await tab.page.goto(url)
        return tab

    def _received(self, payload: str | bytes) -> None:
        text = payload if isinstance(payload, str) else payload.decode()
        self.raw.append(text)
        self.frames.append(json.loads(text))

    @property
    def states(self) -> list[dict[str, Any]]:
        return [frame for frame in self.frames if frame["t"] == "state"]

    @property
    def state(self) -> dict[str, Any] | None:
        states = self.states
        return states[-1] if states else None

    async def frame_after(self, seen: int, accept: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first frame after the first ``seen`` that ``accept`` takes (waited for)."""

        async def found() -> dict[str, Any] | None:
            return next((frame for frame in self.frames[seen:] if accept(frame)), None)

        return await wait_for(found, timeout=30, what="the page's answer")

    async def take_turn(self) -> bool:
        """One move if the newest state is this seat's turn, pressed on the page: a tribute or
        return card and 进贡/还贡, else 提示 then 出牌 (or 不出 when 提示 selects nothing)."""
        state = self.state
        if state is None or state["match_over"] or state["seat"] not in state["to_act"]:
            return False
        version, seat = state["version"], state["seat"]
        if version == self.acted:
            return False
        self.acted, seen = version, len(self.frames)
        if state["tribute"] or state["return"]:
            give = self.page.locator("#give")
            await give.wait_for(state="visible")  # the page drew the exchange: only its cards are on
            await self.page.locator("#hand .card:not(.off)").first.click(position=CORNER)
            choices = state["tribute"] or state["return"]
            self.given.append(("tribute" if state["tribute"] else "return", len(set(choices))))
            await give.click()  # Playwright waits for it to be enabled: one card selected
        else:
            await self.page.locator("#hint").click()  # enabled once the page shows the turn
            hint = await self.frame_after(seen, lambda f: f["t"] in ("hint", "refused"))
            if hint["t"] == "refused":
                self.acted = -1
                return True
            await self.page.locator("#play" if hint["cards"] else "#pass").click()
        answer = await self.frame_after(
            seen,
            lambda f: (
                f["t"] == "refused"
                or (
                    f["t"] == "state"
                    and f["version"] > version
                    and (
                        seat not in f["to_act"] or f["version"] > version + 1
                    )  # another seat's move came first
                )
            ),
        )
        if answer["t"] == "refused":
            self.acted = -1
        self.moves += 1
        return True


async def stored(db_path: Path, table_id: int) -> list[tuple[int, int | None, str]]:
    """The table's logged actions: (version, seat, action JSON)."""
    async with (
        aiosqlite.connect(db_path) as db,
        db.execute(
            "SELECT version, seat, action_json FROM actions WHERE table_id = ? ORDER BY version", (table_id,)
        ) as cursor,
    ):
        return [(int(version), seat, str(text)) for version, seat, text in await cursor.fetchall()]


async def actions_count(db_path: Path) -> int:
    async with aiosqlite.connect(db_path) as db, db.execute("SELECT COUNT(*) FROM actions") as cursor:
        return int((await cursor.fetchone())[0])  # type: ignore[index]


def live(app: Any, table: Table) -> LiveTable:
    found = app.bot_data.services.tables.in_chat(table.group.id)
    assert isinstance(found, LiveTable)
    return found


# ---------------------------------------------------------------- 1. two pages, two chat players


@needs_chromium
async def test_two_pages_and_two_chat_players_play_a_match_with_tribute_and_return(
    emulator: Emulator,
    telegram: Telegram,
    token: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    browser: Any,
) -> None:
    """Carol (south) and Dave (east) in pages, Alice and Bob in the chat; deal 1's 双下 makes
    Alice and Carol pay and Bob and Dave return. Alice's tribute is forced (one card: paid for
    her), Carol chooses hers of two 2s on her page and Dave his return on his. Both pages end
    showing the last deal's result and the match's."""
    table = Table(telegram, Chat.group(-4801, "四人小程序桌"), tmp_path / "g.db")
    async with miniapp_bot(emulator, token, table.db_path, DOUBLE_DOWN_SEED, monkeypatch) as app:
        await set_up(telegram, table, [ALICE, BOB, CAROL, DAVE], PINNED_MATCH)
        port, table_id = port_of(app), live(app, table).id
        pages = [
            await Tab.open(browser, page_url(port, init_data(token, user.id, name=user.first_name), table_id))
            for user in (CAROL, DAVE)
        ]
        players = [asyncio.create_task(table.play(user)) for user in (ALICE, BOB)]
        watcher = asyncio.create_task(table.watch())
        began = time.monotonic()
        try:
            while not table.over.is_set():
                assert time.monotonic() < began + MATCH_TIMEOUT, "the match did not end in time"
                moved = [await tab.take_turn() for tab in pages]
                if not any(moved):
                    await asyncio.sleep(0.05)
        finally:
            table.over.set()
            await asyncio.gather(*players, watcher, return_exceptions=True)
        assert await final_status(table.db_path) == "finished"
        assert table.leaks == []
        last_deal = max(state["deal"] for state in pages[0].states)
        for tab in pages:
            await tab.page.wait_for_function(
                "document.getElementById('result').textContent.includes('🏆')", polling=100
            )
            shown = await tab.page.locator("#result").text_content()
            assert await tab.page.locator("#result").is_visible()
            assert f"第 {last_deal} 副结束" in shown and "🏆" in shown, shown
            assert tab.state is not None and tab.state["match_over"]
            assert [s["seat"] for s in tab.states] == [tab.states[0]["seat"]] * len(tab.states)
        assert min(tab.moves for tab in pages) > 10  # their turns, played on the pages
        assert pages[0].given == [("tribute", 2)] and [kind for kind, _n in pages[1].given] == ["return"]
    # deal 1's 双下: north and south pay (Carol from her page), west and east return (Dave from his)
    assert await exchanges(table.db_path) == {("tribute", 0), ("tribute", 2), ("return", 1), ("return", 3)}


# ---------------------------------------------------------------- 2. 观战 in the Mini App


async def spectator_page_url(telegram: Telegram, user: User) -> str:
    """The address of the web_app button on ``user``'s 观战 message (the deal in play's)."""
    message: BotMessage = await spectator_message(telegram, user, "你正在观战本桌")
    urls = [
        button["web_app"]["url"]
        for row in message.raw["reply_markup"]["inline_keyboard"]
        for button in row
        if "web_app" in button
    ]
    assert len(urls) == 1, message.raw["reply_markup"]
    return str(urls[0])


def played_by_version(
    rules: Rules, seed: int, log: list[tuple[int, int | None, str]]
) -> dict[int, Counter[str]]:
    """The cards played so far in the deal in play, at each version of the stored match."""
    match = Match.new(rules, seed)
    played: Counter[str] = Counter()
    at = {match.version: Counter(played)}
    for _version, seat, text in log:
        for event in match.apply(seat, action_from_json(json.loads(text))):
            if isinstance(event, DealStarted):
                played = Counter()
            elif isinstance(event, Played):
                played.update(str(card) for card in event.play.cards)
        at[match.version] = Counter(played)
    return at


def spectator_leaks(frame: dict[str, Any], played: Counter[str]) -> list[str]:
    """What a spectator's ``state`` frame shows that is not public: a hand, an exchange choice,
    记牌器, a card anywhere but the seats' plays and the trick, or a card not played yet."""
    leaks = [f"{key}={frame[key]!r}" for key in ("hand", "tribute", "return", "counter") if frame[key]]
    leaks += [f"seat={frame['seat']}"] if frame["seat"] is not None else []
    plays = [card for seat in frame["seats"] for card in seat["play"] or []]
    trick = frame["trick"]["cards"] if frame["trick"] else []
    rest = {**frame, "seats": [{**seat, "play": None} for seat in frame["seats"]], "trick": None}
    leaks += [f"card {card} outside the plays" for card in CARD.findall(json.dumps(rest))]
    leaks += [f"{card} not played yet" for card in Counter(plays) - played]
    leaks += [f"{card} on the trick, not played yet" for card in Counter(trick) - played]
    leaks += [f"{face} in the header" for face in FACE_PATTERN.findall(frame["header"] + frame["trick_text"])]
    return leaks


SPECTATOR_DOM = """() => ({
    hand: document.querySelectorAll('#hand .card').length,
    counter: document.getElementById('counter').hidden ? '' : document.getElementById('counter').textContent,
    plays: document.querySelectorAll('.seat .played .mini, #trick-cards .mini').length,
    buttons: [...document.querySelectorAll('#actions button')].filter(b => !b.hidden && !b.disabled).length,
})"""
"""What the spectator's page shows: cards in hand (none), 记牌器, cards played, buttons to press."""


@needs_chromium
async def test_a_spectators_page_never_holds_a_hand_in_play(
    emulator: Emulator,
    telegram: Telegram,
    token: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    browser: Any,
) -> None:
    """Eve presses 观战 on the board; her 观战 message opens the table's page, which follows the
    whole match (deal 2 with its tribute) without a card of a hand in play in any frame."""
    table = Table(telegram, Chat.group(-4802, "小程序观战桌"), tmp_path / "g.db")
    async with miniapp_bot(emulator, token, table.db_path, SINGLE_DOWN_SEED, monkeypatch) as app:
        await set_up(telegram, table, [ALICE, BOB], PINNED_MATCH)
        playing = live(app, table)
        table_id, rules, seed = playing.id, playing.rules, playing.record.seed
        await open_private_chat(telegram, EVE)
        shown = await board(telegram, table)
        answer = await telegram.wait_answer(await telegram.press(EVE, shown, buttons_by_op(shown)["v"][0]))
        assert not answer.show_alert, answer.text
        url = await spectator_page_url(telegram, EVE)
        assert url == f"{PAGE_URL}?t={table_id}"
        asked = int(parse_qs(urlsplit(url).query)["t"][0])
        tab = await Tab.open(browser, page_url(port_of(app), init_data(token, EVE.id, name="Eve"), asked))
        await wait_for(lambda: _has_state(tab), timeout=30, what="the spectator's first state")
        players = [asyncio.create_task(table.play(user)) for user in (ALICE, BOB)]
        watcher = asyncio.create_task(table.watch())
        looks: list[dict[str, Any]] = []
        deadline = time.monotonic() + MATCH_TIMEOUT
        try:
            while not table.over.is_set():
                assert time.monotonic() < deadline, "the match did not end in time"
                looks.append(await tab.page.evaluate(SPECTATOR_DOM))
                await asyncio.sleep(0.1)
        finally:
            table.over.set()
            await asyncio.gather(*players, watcher, return_exceptions=True)
        log = await stored(table.db_path, table_id)
        await wait_for(
            lambda: _caught_up(tab, log[-1][0]), timeout=30, what="the spectator's page at the match's end"
        )
        await tab.page.wait_for_function(
            "document.getElementById('result').textContent.includes('🏆')", polling=100
        )
        looks.append(await tab.page.evaluate(SPECTATOR_DOM))
        played = played_by_version(rules, seed, log)
    assert {frame["t"] for frame in tab.frames} <= {"state", "pong"}
    states = tab.states
    assert {state["table"] for state in states} == {table_id}
    leaks = [(state["version"], spectator_leaks(state, played[state["version"]])) for state in states]
    assert [leak for leak in leaks if leak[1]] == []
    assert {state["deal"] for state in states} >= {1, 2}  # the whole match, deal 2's tribute included
    assert len({state["version"] for state in states}) > 20  # it followed the table, move by move
    assert [look for look in looks if look["hand"] or look["counter"] or look["buttons"]] == []
    assert max(look["plays"] for look in looks) > 0  # the page drew the plays
    assert await exchanges(table.db_path) == {("tribute", 1), ("return", 0)}


async def _has_state(tab: Tab) -> bool:
    return tab.state is not None


async def _caught_up(tab: Tab, version: int) -> bool:
    return tab.state is not None and tab.state["version"] == version and tab.state["match_over"]


@needs_chromium
async def test_a_table_without_spectators_says_so_on_the_page(
    emulator: Emulator,
    telegram: Telegram,
    token: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    browser: Any,
) -> None:
    """spectators=off: Eve's page gets the chat's refusal in her language and shows no table."""
    table = Table(telegram, Chat.group(-4803, "不观战桌"), tmp_path / "g.db")
    async with miniapp_bot(emulator, token, table.db_path, SINGLE_DOWN_SEED, monkeypatch) as app:
        await set_up(telegram, table, [ALICE], PINNED_MATCH + " spectators=off")
        port, table_id = port_of(app), live(app, table).id
        for language in ("zh", "en"):
            signed = init_data(token, EVE.id, name="Eve", language=language)
            tab = await Tab.open(browser, page_url(port, signed, table_id))
            await tab.page.wait_for_function("document.body.dataset.refused === 'no_spectators'", polling=100)
            text = error_text(TableRefusal.NO_SPECTATORS, language)
            assert await tab.page.locator("#status").text_content() == text
            assert [frame["t"] for frame in tab.frames] == ["bye"]
            assert (
                await tab.page.evaluate(
                    """() => [...document.querySelectorAll('#header, .seat, #trick, #hand, #actions button')]
                    .map(e => e.textContent.trim()).join('')"""
                )
                == ""
            )
            assert await tab.page.locator("#result").is_hidden()
            await tab.page.context.close()
    assert text == "This table does not take spectators."


# ---------------------------------------------------------------- 3. no connection acts for another


class Connection:
    """A page's WebSocket without a page (aiohttp), and the frames it received."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []

    @classmethod
    async def hello(cls, session: aiohttp.ClientSession, port: int, init: str, table_id: int) -> Connection:
        connection = cls(await session.ws_connect(f"http://127.0.0.1:{port}/ws"))
        await connection.ws.send_str(json.dumps({"t": "hello", "init": init, "table": table_id}))
        await connection.next(lambda frame: frame["t"] == "state")
        return connection

    async def next(self, accept: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The next frame ``accept`` takes (the states pushed meanwhile kept)."""
        while True:
            message = await self.ws.receive(timeout=15)
            assert message.type is aiohttp.WSMsgType.TEXT, message
            frame = json.loads(message.data)
            self.frames.append(frame)
            if accept(frame):
                return frame

    async def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send ``message``; its answer (the first frame that is not a pushed state)."""
        await self.ws.send_str(json.dumps(message))
        return await self.next(lambda frame: frame["t"] != "state")

    @property
    def state(self) -> dict[str, Any]:
        return [frame for frame in self.frames if frame["t"] == "state"][-1]


async def refused_hello(session: aiohttp.ClientSession, port: int, init: str, table_id: int) -> str:
    """The code of the ``bye`` a hello gets."""
    async with session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws:
        await ws.send_str(json.dumps({"t": "hello", "init": init, "table": table_id}))
        frame = json.loads((await ws.receive(timeout=15)).data)
    assert frame["t"] == "bye", frame
    return str(frame["code"])


async def _waiting_for(table: LiveTable, seats: set[tuple[int, ...]]) -> bool:
    return table.match is not None and table.match.to_act in seats


async def test_a_connection_acts_for_its_own_seat_only(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice (north at one table) names Bob's seat and Carol's table in her moves: on her turn the
    move is hers, on Bob's it is refused; a second hello (Carol's initData, the other table) is
    refused; Eve's spectator page moves for nobody. Each refusal in the page's language, nothing
    stored, neither table changed."""
    db_path = tmp_path / "g.db"
    here, there = (
        Table(telegram, Chat.group(-4804, "本桌"), db_path),
        Table(telegram, Chat.group(-4805, "邻桌"), db_path),
    )
    async with miniapp_bot(emulator, token, db_path, SINGLE_DOWN_SEED, monkeypatch) as app:
        await set_up(telegram, here, [ALICE, BOB], PINNED_MATCH)
        await set_up(telegram, there, [CAROL], PINNED_MATCH)
        mine, other = live(app, here), live(app, there)
        port = port_of(app)
        carol_init = init_data(token, CAROL.id, name="Carol")
        await wait_for(lambda: _waiting_for(other, {(0,)}), what="the other table waiting for Carol")
        await wait_for(lambda: _waiting_for(mine, {(0,), (1,)}), what="Alice's or Bob's turn")
        async with aiohttp.ClientSession() as session:
            alice = await Connection.hello(session, port, init_data(token, ALICE.id, name="Alice"), mine.id)
            assert await refused_hello(session, port, init_data(token, EVE.id, name="Eve"), mine.id) == (
                "watch_from_board"  # the page's 观战 is for who pressed 观战 where the group is
            )
            await open_private_chat(telegram, EVE)
            shown = await board(telegram, here)
            answer = await telegram.wait_answer(
                await telegram.press(EVE, shown, buttons_by_op(shown)["v"][0])
            )
            assert not answer.show_alert, answer.text
            eve = await Connection.hello(session, port, init_data(token, EVE.id, name="Eve"), mine.id)
            assert (alice.state["table"], alice.state["seat"]) == (mine.id, 0)
            assert (eve.state["table"], eve.state["seat"], eve.state["hand"]) == (mine.id, None, [])
            assert mine.match is not None and mine.match.to_act == (1,), "the seed has Bob lead deal 1"
            # Bob's turn: nothing Alice's connection sends moves for him, or for the other table
            count, before, theirs = await actions_count(db_path), mine.version, other.version
            card = alice.state["hand"][0][0]
            not_your_turn = ("refused", "not_your_turn", "还没轮到你")
            for move in (
                {"t": "pass", "seat": 1},
                {"t": "hint", "seat": 1, "table": other.id},
                {"t": "play", "cards": [card], "seat": 1, "table": other.id},
                {"t": "tribute", "card": card, "seat": 1, "table": other.id},
            ):
                answer = await alice.ask(move)
                assert (answer["t"], answer["code"], answer["text"]) == not_your_turn, move
            bound = ("refused", "page_bound", error_text(TableRefusal.PAGE_BOUND, "zh"))
            for init in (carol_init, alice_init := init_data(token, ALICE.id, name="Alice")):
                answer = await alice.ask({"t": "hello", "init": init, "table": other.id})
                assert (answer["t"], answer["code"], answer["text"]) == bound
            await alice.ws.send_str(json.dumps({"t": "locale", "locale": "en"}))
            answer = await alice.ask({"t": "pass", "seat": 1, "table": other.id})
            assert (answer["code"], answer["text"]) == ("not_your_turn", "It is not your turn yet")
            answer = await alice.ask({"t": "hello", "init": alice_init, "table": other.id})
            assert (answer["code"], answer["text"]) == (
                "page_bound",
                error_text(TableRefusal.PAGE_BOUND, "en"),
            )
            # a spectator's connection moves for nobody
            not_seated = ("refused", "not_seated", "你不在这一桌。")
            for move in (
                {"t": "play", "cards": [card]},
                {"t": "pass"},
                {"t": "hint"},
                {"t": "tribute", "card": card},
                {"t": "return", "card": card},
                {"t": "autoplay", "on": True},
                {"t": "pass", "seat": 1, "table": mine.id},
            ):
                answer = await eve.ask(move)
                assert (answer["t"], answer["code"], answer["text"]) == not_seated, move
            await eve.ws.send_str(json.dumps({"t": "locale", "locale": "en"}))
            answer = await eve.ask({"t": "autoplay", "on": True, "seat": 1})
            assert (answer["code"], answer["text"]) == ("not_seated", "You are not seated at this table.")
            for connection in (alice, eve):  # every message handled before the counts are read
                assert (await connection.ask({"t": "ping"}))["t"] == "pong"
            assert await actions_count(db_path) == count
            assert (mine.version, other.version, mine.match.to_act) == (before, theirs, (1,))
            assert not any(state.record.autoplay for state in mine.seats.values() if not state.is_bot)
            assert {(s["table"], s["seat"]) for s in alice.frames if s["t"] == "state"} == {(mine.id, 0)}
            assert {(s["table"], s["seat"], len(s["hand"])) for s in eve.frames if s["t"] == "state"} == {
                (mine.id, None, 0)
            }
            # Alice's turn (Bob plays in the chat): a move naming Bob's seat and the other table
            # is Alice's own, at her table
            bob = asyncio.create_task(here.play(BOB))
            await wait_for(lambda: _waiting_for(mine, {(0,)}), timeout=30, what="Alice's turn")
            here.over.set()
            await bob
            before = mine.version
            hint = await alice.ask({"t": "hint", "seat": 1, "table": other.id})
            hand = [card for group in alice.state["hand"] for card in group]
            assert hint["t"] == "hint" and not Counter(hint["cards"]) - Counter(hand)
            move = {"t": "play", "cards": hint["cards"]} if hint["cards"] else {"t": "pass"}
            await alice.ws.send_str(json.dumps(move | {"seat": 1, "table": other.id}))
            await alice.next(lambda frame: frame["t"] == "state" and frame["version"] > before)
            version, seat, _text = (await stored(db_path, mine.id))[-1]
            assert (version, seat) == (before + 1, 0)
            assert other.version == theirs
            assert {(s["table"], s["seat"]) for s in alice.frames if s["t"] == "state"} == {(mine.id, 0)}
