"""The Mini App against the real bot and the Bot API emulator: a page player and a chat player
at one table play a whole match (tribute and return included); forged, expired and another
user's initData are refused; the hand message carries the 🃏 web_app button and waits while
its player is in the Mini App."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from telegram import MenuButtonWebApp

from bot import App, build_application, close_services, open_services
from emulator.client import Chat, Emulator, Telegram, polling, wait_for
from emulator.miniapp import PagePlayer, init_data
from tests.e2e.test_match_e2e import (
    ALICE,
    BOB,
    MATCH_TIMEOUT,
    PINNED_MATCH,
    SINGLE_DOWN_SEED,
    Table,
    exchanges,
    final_status,
    set_up,
)

PAGE_URL = "https://guandan.example/app"


@contextlib.asynccontextmanager
async def miniapp_bot(
    emulator: Emulator, token: str, db_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[App]:
    """The bot in this process with the Mini App on a free port."""
    monkeypatch.setenv("GUANDAN_WEBAPP_URL", PAGE_URL)
    monkeypatch.setenv("GUANDAN_WEBAPP_PORT", "0")
    app = build_application(
        token, db_path=str(db_path), base_url=emulator.base_url, base_file_url=emulator.base_file_url
    )
    await open_services(app, db_path=str(db_path))
    app.bot_data.services.tables.new_seed = lambda: seed
    try:
        async with polling(app):
            yield app
    finally:
        await close_services(app)


def port_of(app: App) -> int:
    miniapp = app.bot_data.services.miniapp
    assert miniapp is not None
    port = getattr(miniapp, "port", None)
    assert isinstance(port, int)
    return port


async def test_a_page_player_and_a_chat_player_play_a_match(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(telegram, Chat.group(-4201, "小程序桌"), tmp_path / "g.db")
    async with miniapp_bot(emulator, token, table.db_path, SINGLE_DOWN_SEED, monkeypatch) as app:
        await set_up(telegram, table, [ALICE, BOB], PINNED_MATCH)
        hand = await telegram.wait_message(Chat.private(ALICE), lambda m: bool(m.buttons))
        web_apps = [b for row in hand.raw["reply_markup"]["inline_keyboard"] for b in row if "web_app" in b]
        assert [b["web_app"]["url"] for b in web_apps] == [f"{PAGE_URL}?t=1"]
        alice = PagePlayer(port_of(app), token, ALICE.id, ALICE.first_name)
        players = [asyncio.create_task(alice.play(table.over)), asyncio.create_task(table.play(BOB))]
        watcher = asyncio.create_task(table.watch())
        try:
            await asyncio.wait_for(table.over.wait(), MATCH_TIMEOUT)
        finally:
            table.over.set()
            players[0].cancel()  # the page waits on its socket
            await asyncio.gather(*players, watcher, return_exceptions=True)
            print("page:", alice.moves, alice.refusals[-3:], alice.state)
        assert await final_status(table.db_path) == "finished"
        assert table.leaks == []
        assert alice.moves > 10 and alice.bye is None
        assert alice.states[-1]["match_over"] and alice.states[-1]["result"]
        captions = [m.content for m in await telegram.messages(Chat.private(ALICE))]
        assert any("正在小程序中打牌" in c for c in captions)
    # the seed's 单下: Bob (chat) pays, Alice returns from the Mini App
    assert await exchanges(table.db_path) == {("tribute", 1), ("return", 0)}


async def test_forged_expired_and_strangers_init_data_are_refused(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(telegram, Chat.group(-4202, "安全桌"), tmp_path / "g.db")
    async with miniapp_bot(emulator, token, table.db_path, SINGLE_DOWN_SEED, monkeypatch) as app:
        await set_up(telegram, table, [ALICE, BOB], PINNED_MATCH)
        port = port_of(app)
        cases = {
            "forged": init_data("1:OTHER", ALICE.id),
            "expired": init_data(token, ALICE.id, auth_date=int(time.time()) - 2 * 86_400),
            "no_table": init_data(token, 9999, name="Mallory"),
        }
        async with aiohttp.ClientSession() as session:
            for expected, text in cases.items():
                ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws")
                await ws.send_str(json.dumps({"t": "hello", "init": text}))
                first = json.loads((await ws.receive(timeout=10)).data)
                assert (first["t"], first["code"]) == ("bye", expected), first
                assert (await ws.receive(timeout=10)).type in (
                    aiohttp.WSMsgType.CLOSE,
                    aiohttp.WSMsgType.CLOSED,
                )
            ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws")  # no hello: a move is not one
            await ws.send_str(json.dumps({"t": "pass"}))
            assert (await ws.receive(timeout=10)).type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            bob = PagePlayer(
                port, token, BOB.id, BOB.first_name
            )  # Bob's page is Bob's seat, whatever it asks
            ws = await bob.hello(session)
            state = json.loads((await ws.receive(timeout=10)).data)
            assert state["t"] == "state" and state["seat"] == 1
            assert sum(len(group) for group in state["hand"]) == state["seats"][1]["count"] > 20
            for _ in range(40):  # a flood: the connection is closed, the table untouched
                await ws.send_str(json.dumps({"t": "hint"}))
            closed = False
            with contextlib.suppress(TimeoutError):
                while not closed:
                    message = await ws.receive(timeout=5)
                    closed = message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            assert closed


MARK = "正在小程序中打牌"


async def test_the_chat_hand_waits_while_the_page_is_open_and_catches_up(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(telegram, Chat.group(-4203, "切换桌"), tmp_path / "g.db")
    private = Chat.private(ALICE)
    async with miniapp_bot(emulator, token, table.db_path, SINGLE_DOWN_SEED, monkeypatch) as app:
        await set_up(telegram, table, [ALICE, BOB], PINNED_MATCH)
        alice = PagePlayer(port_of(app), token, ALICE.id, ALICE.first_name)
        page_over = asyncio.Event()
        page = asyncio.create_task(alice.play(page_over))
        bob = asyncio.create_task(table.play(BOB))
        try:
            hand = await telegram.wait_message(private, lambda m: MARK in m.content, timeout=30)
            moves = alice.moves
            await wait_for(
                lambda: _at_least(alice, moves + 4), timeout=60, what="four more moves from the page"
            )
            still = await telegram.last_message(private)
            assert still is not None and still.message_id == hand.message_id
            assert still.edit_count == hand.edit_count  # no edit for each move while the page is open
            page.cancel()  # the page closes: the chat message catches up at once
            await asyncio.gather(page, return_exceptions=True)
            back = await telegram.wait_message(
                private, lambda m: bool(m.buttons) and MARK not in m.content, timeout=15
            )
            assert back.message_id == hand.message_id
        finally:
            table.over.set()
            page.cancel()
            await asyncio.gather(page, bob, return_exceptions=True)


async def _at_least(player: PagePlayer, moves: int) -> bool:
    return player.moves >= moves


async def test_the_bot_sets_its_menu_button_to_the_page(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At start the menu button beside every private chat's input field opens the Mini App."""
    table = Table(telegram, Chat.group(-4204, "菜单桌"), tmp_path / "g.db")
    async with miniapp_bot(emulator, token, table.db_path, SINGLE_DOWN_SEED, monkeypatch) as app:
        await set_up(telegram, table, [ALICE, BOB], PINNED_MATCH)
        for chat_id in (None, ALICE.id):  # the bot's button, and what Alice's chat shows
            button = await app.bot.get_chat_menu_button(chat_id=chat_id)
            assert isinstance(button, MenuButtonWebApp)
            assert (button.text, button.web_app.url) == ("🃏 在小程序中打牌", PAGE_URL)
