"""The group board: one live message per trick, edited in place, plus deal and match results.

Groups accept about 20 messages a minute, so updates are coalesced: an outcome
only marks the table dirty, and one task per table redraws at most every
``interval`` seconds from the *public* observation (``observe(match, None)``).
A trick normally gets a new message; when the chat's send budget runs low the
live message is edited instead. Nothing here can see a hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from dataclasses import dataclass, field

from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import ExtBot

from engine.actions import DealEnded, Event, MatchEnded, TrickWon
from handlers.i18n import normalize_locale
from handlers.results import deal_events, deal_result_view, match_summary_view
from handlers.table_service import LiveTable, TableService
from handlers.texts import (
    board_text,
    closing_board_text,
    deal_result_text,
    finished_trick_text,
    match_result_text,
)
from render.results import render_deal_result, render_match_summary
from storage import Database, NotFound, TableStatus

log = logging.getLogger(__name__)

GROUP_LIMIT = 20  # messages per minute Telegram accepts in a group
WINDOW = 60.0


class ChatBudget:
    """Counts the messages sent to each group in the last minute (edits are not messages)."""

    def __init__(self, limit: int = GROUP_LIMIT - 2, window: float = WINDOW) -> None:
        self.limit = limit
        self.window = window
        self._sent: dict[int, deque[float]] = {}

    def used(self, chat_id: int) -> int:
        sent = self._sent.setdefault(chat_id, deque())
        while sent and time.monotonic() - sent[0] > self.window:
            sent.popleft()
        return len(sent)

    def has_room(self, chat_id: int, reserve: int = 0) -> bool:
        return self.used(chat_id) + reserve < self.limit

    async def acquire(self, chat_id: int) -> None:
        """Wait until one more message fits in the window, then count it."""
        while not self.has_room(chat_id):
            oldest = self._sent[chat_id][0]
            await asyncio.sleep(max(0.05, self.window - (time.monotonic() - oldest)))
        self._sent[chat_id].append(time.monotonic())


@dataclass
class _Board:
    shown_key: tuple[int, int] | None = None
    shown_text: str | None = None
    dirty: bool = False
    results: list[Event] = field(default_factory=list)
    task: asyncio.Task[None] | None = None


class BoardPublisher:
    """Keeps each table's group board in line with its match, within the group limits."""

    def __init__(
        self,
        bot: ExtBot[None],
        tables: TableService,
        db: Database,
        *,
        budget: ChatBudget | None = None,
        interval: float = 3.0,
        reserve: int = 6,
    ) -> None:
        self.bot = bot
        self.tables = tables
        self.db = db
        self.budget = budget or ChatBudget()
        self.interval = interval
        self.reserve = reserve  # sends kept free for results and the lobby
        self._boards: dict[int, _Board] = {}
        self._locales: dict[int, str] = {}

    def publish(self, table: LiveTable, events: tuple[Event, ...] | list[Event] = ()) -> None:
        """Schedule a redraw; deal and match results are queued to be sent in order."""
        board = self._boards.setdefault(table.id, _Board())
        board.results.extend(e for e in events if isinstance(e, DealEnded | MatchEnded))
        board.dirty = True
        if board.task is None or board.task.done():
            board.task = asyncio.create_task(self._run(table, board))

    async def drain(self, table_id: int) -> None:
        """Wait for the pending redraws of a table (tests, shutdown)."""
        board = self._boards.get(table_id)
        while board is not None and board.task is not None and not board.task.done():
            await asyncio.shield(board.task)

    async def close(self) -> None:
        for board in self._boards.values():
            if board.task is not None:
                board.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await board.task

    async def _run(self, table: LiveTable, board: _Board) -> None:
        """Redraw while there is something new; forget the board once its table is over."""
        while board.dirty:
            board.dirty = False
            try:
                await self._flush(table, board)
            except Exception:  # a failed redraw must not stop later ones; the next one redraws all
                log.exception("board of table %s could not be updated", table.id)
            await asyncio.sleep(self.interval)
        if not table.record.status.is_active and not board.dirty:
            self._boards.pop(table.id, None)

    async def _flush(self, table: LiveTable, board: _Board) -> None:
        locale = await self._locale(table.record.chat_id)
        results, board.results = board.results, []
        for result in results:
            await self._send_result(table, board, result, locale)
        if table.match is None or table.match.is_over or table.record.status is TableStatus.STOPPED:
            return
        await self._draw(table, board, locale)

    async def _draw(self, table: LiveTable, board: _Board, locale: str) -> None:
        obs = table.observe(None)
        names = {seat: state.record.name for seat, state in table.seats.items()}
        text = board_text(obs=obs, events=table.deal_events, names=names, rules=table.rules, locale=locale)
        autoplay = [
            seat for seat, state in table.seats.items() if state.record.autoplay and not state.record.is_ai
        ]
        del autoplay
        key = (obs.deal_number, sum(isinstance(e, TrickWon) for e in table.deal_events))
        chat_id, message_id = table.record.chat_id, table.record.board_message_id
        fresh = key != board.shown_key and self.budget.has_room(chat_id, self.reserve)
        if message_id is not None and fresh:
            await self._finish_trick(table, board, message_id, locale)
        if message_id is None or fresh:
            await self.budget.acquire(chat_id)
            sent = await self.bot.send_message(chat_id, text, parse_mode=ParseMode.HTML)
            await self.tables.set_board_message(table, sent.message_id)
        elif text != board.shown_text:
            await self._edit(chat_id, message_id, text)
        board.shown_key, board.shown_text = key, text

    async def _finish_trick(self, table: LiveTable, board: _Board, message_id: int, locale: str) -> None:
        """Before a trick gets a new message, its old one shows how it ended (no stale turn line)."""
        if board.shown_key is None or board.shown_key[0] != table.observe(None).deal_number:
            return
        names = {seat: state.record.name for seat, state in table.seats.items()}
        text = finished_trick_text(table.deal_events, board.shown_key[1], names, locale)
        if text is not None and text != board.shown_text:
            await self._edit(table.record.chat_id, message_id, text)

    async def _send_result(self, table: LiveTable, board: _Board, result: Event, locale: str) -> None:
        """Close the deal's board (its last trick and the places), then post the result picture."""
        assert table.match is not None
        chat_id = table.record.chat_id
        names = {seat: state.record.name for seat, state in table.seats.items()}
        ordered = [names.get(seat, "") for seat in range(4)]
        events = table.match.events
        if isinstance(result, DealEnded):
            await self._close_board(
                table,
                board,
                closing_board_text(deal_events(events, result.deal_number), result, names, locale),
            )
            photo = render_deal_result(
                deal_result_view(events, result, ordered, table.rules, locale), locale=locale
            )
            caption = deal_result_text(result, names, table.rules, locale)
        else:
            assert isinstance(result, MatchEnded)
            photo = render_match_summary(match_summary_view(events, ordered, table.rules), locale=locale)
            caption = match_result_text(result, locale)
        await self.budget.acquire(chat_id)
        await self.bot.send_photo(chat_id, photo, caption=caption, parse_mode=ParseMode.HTML)
        await self.tables.set_board_message(table, None)
        board.shown_key = board.shown_text = None

    async def _close_board(self, table: LiveTable, board: _Board, text: str) -> None:
        message_id = table.record.board_message_id
        if message_id is None or text == board.shown_text:
            return
        await self._edit(table.record.chat_id, message_id, text)

    async def _edit(self, chat_id: int, message_id: int, text: str) -> None:
        try:
            await self.bot.edit_message_text(
                text, chat_id=chat_id, message_id=message_id, parse_mode=ParseMode.HTML
            )
        except BadRequest as error:
            if "not modified" not in str(error).lower():
                raise

    async def _locale(self, chat_id: int) -> str:
        """The group's language, read once (``forget_locale`` after /lang)."""
        if chat_id not in self._locales:
            try:
                self._locales[chat_id] = normalize_locale((await self.db.chats.get(chat_id=chat_id)).locale)
            except NotFound:
                self._locales[chat_id] = normalize_locale(None)
        return self._locales[chat_id]

    def forget_locale(self, chat_id: int) -> None:
        self._locales.pop(chat_id, None)
