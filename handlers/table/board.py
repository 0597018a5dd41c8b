"""The group board: one live message per trick, edited in place, plus deal and match results.

Groups accept about 20 messages a minute, so updates are coalesced: an outcome
only marks the table dirty, and one task per table redraws at most every
``interval`` seconds from the *public* observation (``observe(match, None)``) and
the deal's public events. Every play and pass reaches the group however fast play
goes: a board message covers a contiguous range of the deal's tricks and always
shows all of their plays. A new trick gets a new message when the chat's send
budget allows; otherwise the live message grows until it would pass Telegram's
length limit. Nothing here can see a hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import ExtBot

from engine.actions import DealEnded, DealStarted, Event, MatchEnded, Phase
from engine.observation import Observation
from handlers.platform.i18n import normalize_locale
from handlers.table.service.results import deal_events, deal_result_view, match_summary_view, public_tributes
from handlers.table.service.tables import LiveTable, TableService
from handlers.table.service.texts import (
    board_text,
    closing_board_text,
    deal_result_text,
    finished_board_text,
    header,
    match_result_text,
    played_header,
    trick_blocks,
)
from render.results import render_deal_result, render_match_summary
from storage import Database, NotFound, TableStatus

log = logging.getLogger(__name__)

GROUP_LIMIT = 20  # messages per minute Telegram accepts in a group
WINDOW = 60.0
TEXT_LIMIT = 4096  # characters in one message
TEXT_MARGIN = 1024  # of a message's text, kept for its header, the exchanges and whose turn it is


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


def split_tricks(sizes: Sequence[int], first: int, last: int, limit: int) -> list[tuple[int, int]]:
    """Consecutive ranges of tricks ``first``..``last`` whose texts (``sizes``) fit in ``limit``
    characters together; a trick longer than that gets a range of its own."""
    ranges: list[tuple[int, int]] = []
    start, used = first, 0
    for trick in range(first, last + 1):
        if trick > start and used + sizes[trick] > limit:
            ranges.append((start, trick - 1))
            start, used = trick, 0
        used += sizes[trick]
    ranges.append((start, last))
    return ranges


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """The public state as last published: taken right after the table's actions were stored."""

    obs: Observation
    events: tuple[Event, ...]  # the deal's public events


@dataclass
class _Board:
    snapshot: _Snapshot | None = None
    deal: int | None = None  # the deal of the live message
    first: int = 0  # the live message shows the plays of tricks ``first`` through the current one
    shown_text: str | None = None
    closed: int | None = None  # the last deal whose board was closed
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
        text_limit: int = TEXT_LIMIT,
    ) -> None:
        self.bot = bot
        self.tables = tables
        self.db = db
        self.budget = budget or ChatBudget()
        self.interval = interval
        self.reserve = reserve  # sends kept free for results and the lobby
        self.text_limit = text_limit
        self._boards: dict[int, _Board] = {}
        self._locales: dict[int, str] = {}

    def publish(self, table: LiveTable, events: tuple[Event, ...] | list[Event] = ()) -> None:
        """Schedule a redraw of what was just stored; deal and match results are queued in order.

        Called with the table lock held after the actions were logged, so the snapshot taken
        here is exactly what may be shown (a later redraw never sees unsaved plays).
        """
        board = self._boards.setdefault(table.id, _Board())
        board.results.extend(e for e in events if isinstance(e, DealEnded | MatchEnded))
        if table.match is not None:
            board.snapshot = _Snapshot(table.observe(None), tuple(table.deal_events))
        board.dirty = True
        if board.task is None or board.task.done():
            # The redraw serves the table, not the press that woke it: no request context.
            board.task = asyncio.create_task(self._run(table, board), context=contextvars.Context())

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
        snapshot = board.snapshot
        if (
            snapshot is None
            or snapshot.obs.phase is Phase.MATCH_OVER
            or table.record.status is TableStatus.STOPPED
        ):
            return
        await self._draw(table, board, snapshot, locale)

    async def _draw(self, table: LiveTable, board: _Board, snapshot: _Snapshot, locale: str) -> None:
        """Show every play since the live message's first trick.

        When the chat's budget has room, a new trick gets a new message and the old one
        keeps exactly its tricks; otherwise the live message grows, and splits only when
        it would pass Telegram's length limit.
        """
        obs, events, names = snapshot.obs, snapshot.events, self._names(table)
        if obs.deal_number == board.closed:
            return
        if board.deal != obs.deal_number:  # a new deal, or a restart: begin at the deal's start
            await self._begin(table, board, obs.deal_number)
        blocks = trick_blocks(events, obs.level, names, locale)
        current = len(blocks) - 1
        sizes = [len("\n".join(block)) + 1 for block in blocks]
        limit = self.text_limit - TEXT_MARGIN
        new_trick = current > board.first and table.record.board_message_id is not None
        if new_trick and self.budget.has_room(table.record.chat_id, self.reserve):
            ranges = [*split_tricks(sizes, board.first, current - 1, limit), (current, current)]
        else:
            ranges = split_tricks(sizes, board.first, current, limit)
        tributes = public_tributes(events)
        heading = header(obs, table.rules, locale)

        def text(first: int, last: int) -> str:
            if last == current:
                return board_text(
                    obs=obs, events=events, names=names, rules=table.rules, locale=locale, first=first
                )
            return finished_board_text(
                heading=heading,
                events=events,
                first=first,
                last=last,
                tributes=tributes,
                names=names,
                locale=locale,
            )

        await self._show(table, board, ranges, text)

    async def _show(
        self,
        table: LiveTable,
        board: _Board,
        ranges: Sequence[tuple[int, int]],
        text: Callable[[int, int], str],
    ) -> None:
        """The live message gets the first range; each further range is a new message."""
        chat_id = table.record.chat_id
        for first, last in ranges:
            shown = text(first, last)
            message_id = table.record.board_message_id if first == board.first else None
            if message_id is not None and shown != board.shown_text:
                message_id = message_id if await self._edit(chat_id, message_id, shown) else None
            if message_id is None:
                await self.budget.acquire(chat_id)
                sent = await self.bot.send_message(chat_id, shown, parse_mode=ParseMode.HTML)
                await self.tables.set_board_message(table, sent.message_id)
            board.first, board.shown_text = first, shown

    async def _send_result(self, table: LiveTable, board: _Board, result: Event, locale: str) -> None:
        """Close the deal's board (every play not yet final, and the places), then post the result picture."""
        assert table.match is not None
        chat_id = table.record.chat_id
        names = self._names(table)
        ordered = [names.get(seat, "") for seat in range(4)]
        events = table.match.events
        if isinstance(result, DealEnded):
            await self._close_deal(table, board, deal_events(events, result.deal_number), result, locale)
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

    async def _close_deal(
        self, table: LiveTable, board: _Board, events: Sequence[Event], result: DealEnded, locale: str
    ) -> None:
        """The deal's last board text: every trick from the live message's first one on, and the places."""
        if board.deal != result.deal_number:  # never drawn (played out between two redraws), or a restart
            await self._begin(table, board, result.deal_number)
        started = next(e for e in events if isinstance(e, DealStarted))
        names = self._names(table)
        blocks = trick_blocks(events, started.level, names, locale)
        sizes = [len("\n".join(block)) + 1 for block in blocks]
        last = len(blocks) - 1
        ranges = split_tricks(sizes, board.first, last, self.text_limit - TEXT_MARGIN)
        tributes = public_tributes(events)
        assert table.match is not None
        heading = played_header(table.match.events, result, table.rules, locale)

        def text(first: int, end: int) -> str:
            if end == last:
                return closing_board_text(
                    heading=heading,
                    events=events,
                    result=result,
                    first=first,
                    tributes=tributes,
                    names=names,
                    locale=locale,
                )
            return finished_board_text(
                heading=heading,
                events=events,
                first=first,
                last=end,
                tributes=tributes,
                names=names,
                locale=locale,
            )

        await self._show(table, board, ranges, text)
        await self.tables.set_board_message(table, None)
        board.deal, board.first, board.shown_text, board.closed = None, 0, None, result.deal_number

    async def _begin(self, table: LiveTable, board: _Board, deal: int) -> None:
        """The deal's board starts over at its first trick in a new message (after a restart the
        old message's range is unknown: it is left as it is)."""
        board.deal, board.first, board.shown_text = deal, 0, None
        if table.record.board_message_id is not None:
            await self.tables.set_board_message(table, None)

    @staticmethod
    def _names(table: LiveTable) -> dict[int, str]:
        return {seat: state.record.name for seat, state in table.seats.items()}

    async def _edit(self, chat_id: int, message_id: int, text: str) -> bool:
        """False if the message can no longer be edited (deleted in the group): its plays go to a new one."""
        try:
            await self.bot.edit_message_text(
                text, chat_id=chat_id, message_id=message_id, parse_mode=ParseMode.HTML
            )
        except BadRequest as error:
            if "not modified" not in str(error).lower():
                log.info("board message %s in chat %s not edited: %s", message_id, chat_id, error)
                return False
        return True

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
