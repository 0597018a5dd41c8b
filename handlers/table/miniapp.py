"""The Mini App wired to the chat (issue 42): what ``webapp`` may not import, handed to it.

``webapp.server.MiniApp`` knows the tables, not Telegram: after a move from a page the chat's
own flow shows it (the other players' hand messages, the group board, 观战, the clocks), a
page's closing brings the seat's chat hand message up to date, and a user's /lang is read
from the store. Started by ``bot.py`` when ``GUANDAN_WEBAPP_URL`` is set, which then also
makes the bot's menu button (beside every private chat's input field) open the page, and gives
a spectator's 观战 message a button that opens the table's page (观战 there, no hand).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from telegram import MenuButtonWebApp, WebAppInfo
from telegram.error import BadRequest
from telegram.ext import ExtBot, JobQueue

from app.table.tables import LiveTable, Outcome
from app.table.texts import _
from common.faults import StorageUnavailable
from handlers.platform.context import Services
from handlers.table import flow, timers
from handlers.table.board import BoardPublisher
from handlers.table.hand_message import post_hand
from handlers.table.spectators import SpectatorDesk
from webapp.server import ChatSide, MiniApp
from webapp.settings import WebAppConfig

log = logging.getLogger(__name__)


async def open_miniapp(
    bot: ExtBot[None],
    services: Services,
    job_queue: JobQueue[Any] | None,
    env: Mapping[str, str],
    *,
    lease_check: Callable[[], None] | None = None,
) -> MiniApp | None:
    """Serve the Mini App when its URL is set (None otherwise: the bot runs as without it).
    ``lease_check``: the store session's check (bot.py, on PostgreSQL), which raises once this
    process's lease is lost or stale; the server's ``/healthz`` then answers 503."""
    config = WebAppConfig.from_env(env)
    if config is None:
        return None

    chat = chat_side(bot, services, job_queue)
    miniapp = MiniApp(services.tables, bot.token, config, chat, leading=holding(lease_check))
    await miniapp.start()
    services.miniapp = miniapp
    if isinstance(services.board, BoardPublisher):  # tests may hand in a board of their own
        services.board.unwatched = partial(everyone_in_miniapp, miniapp)
    desk = getattr(services.spectators, "screen", None)
    if isinstance(desk, SpectatorDesk):  # 观战's message opens the table's page as well
        desk.web_app = miniapp.table_url
    await set_menu_button(bot, config.url)
    return miniapp


def chat_side(bot: ExtBot[None], services: Services, job_queue: JobQueue[Any] | None) -> ChatSide:
    """What a page's moves and visits do in the chat: the same posting as a chat press."""

    async def after_move(table: LiveTable, outcome: Outcome) -> asyncio.Future[Any]:
        return await flow.post(bot, services, job_queue, table, outcome)

    async def came_back(table: LiveTable, seat: int) -> None:
        async with table.lock:
            if table.match is None or seat not in table.seats:
                return
            delivery = await post_hand(bot, services, table, seat)
        await delivery

    async def locale_of(user_id: int) -> str:
        return await services.languages.of_user(user_id)

    def clock(table: LiveTable) -> int | None:
        return timers.seconds_for(table) if table.match is not None else None

    async def watching(table_id: int, user_id: int) -> bool:
        return services.spectators is not None and await services.spectators.watches(table_id, user_id)

    return ChatSide(after_move, came_back, locale_of, clock, watching)


def holding(lease_check: Callable[[], None] | None) -> Callable[[], bool]:
    """Does this process hold its lease now (always, without one: SQLite, a single process)?"""

    def leading() -> bool:
        if lease_check is None:
            return True
        try:
            lease_check()
        except StorageUnavailable:
            return False
        return True

    return leading


def everyone_in_miniapp(miniapp: MiniApp, table: LiveTable) -> bool:
    """Does every human seat have the Mini App open? No player then needs the group's board."""
    humans = [seat for seat, state in table.seats.items() if not state.is_bot]
    return bool(humans) and all(miniapp.playing(table.id, seat) for seat in humans)


async def set_menu_button(bot: ExtBot[None], url: str) -> None:
    """The bot's menu button opens the Mini App (no table in the address: the page finds the
    user's seat). One text for everyone, Chinese, as Telegram keeps one default button per bot."""
    if not url.startswith("https://"):  # Telegram opens Mini Apps over HTTPS only (a local test page)
        log.warning("the menu button is left as it is: %s is not an https address", url)
        return
    text = _("🃏 Play in the Mini App", "zh")
    try:
        await bot.set_chat_menu_button(menu_button=MenuButtonWebApp(text, WebAppInfo(url)))
    except BadRequest as refused:  # the page still opens from the hand messages' 🃏 button
        log.warning("Telegram refused the Mini App's menu button for %s: %s", url, refused)
