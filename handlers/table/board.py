"""The group board: one live message per deal, edited in place, plus deal and match results.

Groups accept about 20 messages a minute, and a group that gets a new bot message every
trick mutes the bot, so updates are coalesced: an outcome only marks the table dirty, and
one task per table redraws at most every ``interval`` seconds from the *public* observation
(``observe(match, None)``) and the deal's public events. Every play and pass reaches the
group however fast play goes: a board message covers a contiguous range of the deal's
tricks and always shows all of their plays. By default the live message grows with the
deal and splits only when it would pass Telegram's length limit: a deal costs the group
its board message (rarely two) and its result. ``per_trick`` (``GUANDAN_BOARD=trick``)
keeps the older style, a new message for each trick while the chat's send budget allows.
Nothing here can see a hand.

Deal results (with the level change) and the match's end are owed to the group: they go
through the outbox (``handlers/platform/outbox.py``), stored as soon as the outcome is
published and deleted once Telegram accepted them, so a failed send or a restart never
loses one. A row names the table and the deal; its picture and caption are rebuilt from the
match (the live table, or the table replayed from storage after a restart). The board still
decides the order the group sees: it closes the deal's message, then lets the result go,
and draws the next deal only once the result was delivered.

A stop cancels the redraw a table waits for, so a restart goes on with every board message
the last run left open (``game_tables.board_message_id``), the tables that ended meanwhile
included: their match ended, or was stopped, while the board waited for its next redraw.

What a board shows, the results it owes and the boards left open are the application's
(:mod:`app.table.boards`, Telegram-free); here are the messages, the edits, the result
pictures, the group's budget and the pace of the redraws.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from functools import partial

from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import ExtBot

from app.table.boards import (
    CLOSE_WAIT,
    DEAL_RESULT,
    MATCH_END,
    Boards,
    BoardState,
    Range,
    Snapshot,
    owed,
    result_key,
    split_tricks,
)
from app.table.lifecycle import stopped
from app.table.results import deal_events, deal_result_view, match_summary_view
from app.table.tables import LiveTable
from app.table.texts import deal_result_text, match_result_text, moved_board_text
from app.tasks import Tasks
from engine.actions import DealEnded, Event, MatchEnded, Phase
from engine.rules import Rules
from handlers.platform.chats import GROUP_LIMIT as GROUP_LIMIT  # re-exported for the board's tests
from handlers.platform.chats import ChatBudget
from handlers.platform.edits import edit_quietly, not_modified
from handlers.platform.outbox import Outbox, Payload, Undeliverable
from handlers.platform.scheduler import Priority, PriorityLimiter, at_priority
from handlers.table.keyboards import Keys
from render.results import render_deal_result, render_match_summary

__all__ = ["CLOSE_WAIT", "GROUP_LIMIT", "BoardPublisher", "ChatBudget", "split_tricks"]

log = logging.getLogger(__name__)

UNWATCHED_INTERVAL = 30.0
"""Seconds between board redraws while every human seat plays in the Mini App."""
UNWATCHED_STEP = 0.5
"""How often such a longer wait looks again whether it should end."""


BoardExtras = Callable[[LiveTable, str], tuple[str, Keys | None]]
"""What the live board message adds for 观战 in a locale: a line after its text, and a keyboard."""


class BoardPublisher:
    """Keeps each table's group board in line with its match, within the group limits."""

    def __init__(
        self,
        bot: ExtBot[None],
        boards: Boards,
        *,
        outbox: Outbox,
        budget: ChatBudget | None = None,
        interval: float = 3.0,
        reserve: int = 6,
        renderer: Executor | None = None,
        limiter: PriorityLimiter | None = None,
    ) -> None:
        self.bot = bot
        self.boards = boards
        self.limiter = limiter  # the token's scheduler, to hasten a board edit a result waits for
        self.renderer = renderer  # result pictures are drawn here, never on the event loop
        self.tables = boards.tables
        self.budget = budget or ChatBudget()
        self.interval = interval
        self.reserve = reserve  # sends kept free for results and the lobby
        self.extras: BoardExtras | None = None  # 观战's line and button (handlers/table/spectators.py)
        self.unwatched: Callable[[LiveTable], bool] | None = None
        """True while no player needs the board to play: every human seat has the Mini App open
        (set by ``handlers/table/miniapp.py``, issue 42). The board then redraws only every
        :data:`UNWATCHED_INTERVAL` seconds; as each message shows every play of its tricks, the
        group still sees each trick and its end, later and in fewer edits."""
        self._tasks = Tasks()  # the redraws: a stop cancels each, forgotten board or not
        self.outbox = outbox
        self.outbox.register(DEAL_RESULT, self._send_deal_result)
        self.outbox.register(MATCH_END, self._send_match_end)

    def publish(self, table: LiveTable, events: tuple[Event, ...] | list[Event] = ()) -> None:
        """Schedule a redraw of what was just stored; deal and match results are queued in order.

        Called with the table lock held after the actions were logged, so the snapshot taken
        here is exactly what may be shown (a later redraw never sees unsaved plays).
        """
        for result, fresh in self.boards.publish(table, events):
            kind, payload = owed(table.id, result)  # stored now; sent once the board closed its deal
            self.outbox.post(table.record.chat_id, kind, payload, key=result_key(table.id, result))
            if fresh:
                self._hasten(table.record.chat_id)
        board = self.boards.get(table.id)
        assert board is not None
        if board.task is None or board.task.done():
            # The redraw serves the table, not the press that woke it: no request context.
            board.task = self._tasks.start(self._run(table, board), context=contextvars.Context())

    def _hasten(self, chat_id: int) -> None:
        """The board's waiting edit now goes at an announcement's priority: the result waits
        for the board to show the deal's last plays, so that edit is owed as much as the result."""
        if self.limiter is not None:
            self.limiter.promote(chat_id, Priority.OWED)

    async def expect_left(self) -> None:
        """Before the outbox resends what the last run left (:meth:`app.table.boards.Boards.expect_left`)."""
        await self.boards.expect_left()

    async def finish_left(self) -> None:
        """Once the tables in play were resumed: the boards left open on ended tables are closed."""
        await self.boards.finish_left(self.publish)

    async def drain(self, table_id: int) -> None:
        """Wait for the pending redraws of a table (tests, shutdown)."""
        board = self.boards.get(table_id)
        while board is not None and board.task is not None and not board.task.done():
            await asyncio.shield(board.task)

    async def close(self) -> None:
        await self._tasks.close()

    async def _run(self, table: LiveTable, board: BoardState) -> None:
        """Redraw while there is something new; forget the board once its table is over."""
        while board.dirty:
            board.dirty = False
            try:
                with at_priority(Priority.REFRESH):  # results go through the outbox, before it
                    await self._flush(table, board)
            except Exception:  # a failed redraw must not stop later ones; the next one redraws all
                log.exception("board of table %s could not be updated", table.id)
            await self._pause(table, board)
        self.boards.forget_if_over(table, board)

    async def _pause(self, table: LiveTable, board: BoardState) -> None:
        """``interval`` between redraws; up to :data:`UNWATCHED_INTERVAL` while no player needs
        the board, cut short by a deal's result (it waits for the board), a stop, or a player
        back in the chat."""
        await asyncio.sleep(self.interval)
        waited = self.interval
        while (
            waited < UNWATCHED_INTERVAL
            and self.unwatched is not None
            and not board.results
            and not stopped(table)
            and self.unwatched(table)
        ):
            await asyncio.sleep(UNWATCHED_STEP)
            waited += UNWATCHED_STEP

    async def _flush(self, table: LiveTable, board: BoardState) -> None:
        locale = await self.boards.locale(table.record.chat_id)
        for result in self.boards.take_results(board):
            if isinstance(result, DealEnded):
                try:
                    assert table.match is not None
                    events = deal_events(table.match.events, result.deal_number)
                    with at_priority(Priority.OWED):  # its result waits for it
                        await self._close_deal(table, board, events, result, locale)
                except Exception:  # the result goes out all the same
                    log.exception("board of table %s: deal %s not closed", table.id, result.deal_number)
                finally:
                    board.closing.pop(result.deal_number, asyncio.Event()).set()
            await self.outbox.delivered(result_key(table.id, result))
        snapshot = board.snapshot
        if snapshot is None or snapshot.obs.phase is Phase.MATCH_OVER:
            return
        if stopped(table):
            await self._stop(table, board, snapshot, locale)
            return
        await self._draw(table, board, snapshot, locale)

    async def _stop(self, table: LiveTable, board: BoardState, snapshot: Snapshot, locale: str) -> None:
        """A stopped table's live board keeps its plays, loses its turn line and says the table
        was stopped: one edit, and the group shows no turn that will never come."""
        text = self.boards.stopped_text(table, board, snapshot, locale)
        message_id = table.record.board_message_id
        if text is None or message_id is None:
            return
        await self._edit(table.record.chat_id, message_id, text)
        await self.tables.set_board_message(table, None)

    async def _draw(self, table: LiveTable, board: BoardState, snapshot: Snapshot, locale: str) -> None:
        """Show every play since the live message's first trick (:meth:`Boards.draw` says how)."""
        if snapshot.obs.deal_number == board.closed:
            return
        if board.deal != snapshot.obs.deal_number:  # a new deal, or a restart: begin at the deal's start
            await self._begin(table, board, snapshot.obs.deal_number, locale)
        room = self.budget.has_room(table.record.chat_id, self.reserve)
        await self._show(table, board, self.boards.draw(table, board, snapshot, locale, room=room))

    async def _show(self, table: LiveTable, board: BoardState, ranges: Sequence[Range]) -> None:
        """The live message gets the first range; each further range is a new message. The
        last one, which stays live, carries the :attr:`extras`."""
        chat_id = table.record.chat_id
        line, keys = self.extras(table, await self.boards.locale(chat_id)) if self.extras else ("", None)
        for part in ranges:
            live = part is ranges[-1]
            shown = part.text + (line if live else "")
            markup = keys if live else None
            message_id = table.record.board_message_id if part.first == board.first else None
            if message_id is not None and shown != board.shown_text:
                message_id = message_id if await self._edit(chat_id, message_id, shown, markup) else None
            if message_id is None:
                await self.budget.acquire(chat_id)
                sent = await self.bot.send_message(
                    chat_id,
                    shown,
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup.to_markup() if markup is not None else None,
                )
                await self.tables.set_board_message(table, sent.message_id, deal=board.deal, first=part.first)
            board.first, board.shown_text = part.first, shown

    async def _send_deal_result(self, chat_id: int, payload: Payload) -> None:
        """Outbox sender: the deal's result picture, once the board closed the deal's message."""
        table_id, deal = int(payload["table_id"]), int(payload["deal"])
        board = self.boards.get(table_id)
        closing = board.closing.get(deal) if board is not None else None
        if closing is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(closing.wait(), CLOSE_WAIT)
        events, names, rules = await self._match_of(table_id)
        result = next((e for e in events if isinstance(e, DealEnded) and e.deal_number == deal), None)
        if result is None:
            raise Undeliverable(f"table {table_id} has no deal {deal}")
        locale = await self.boards.locale(chat_id)
        ordered = [names.get(seat, "") for seat in range(4)]
        view = deal_result_view(events, result, ordered, rules, locale)
        photo = await self._picture(partial(render_deal_result, view, locale=locale))
        caption = deal_result_text(result, names, rules, locale)
        await self.budget.acquire(chat_id)
        await self.bot.send_photo(chat_id, photo, caption=caption, parse_mode=ParseMode.HTML)

    async def _send_match_end(self, chat_id: int, payload: Payload) -> None:
        """Outbox sender: the match summary picture and the winners."""
        events, names, rules = await self._match_of(int(payload["table_id"]))
        result = next((e for e in reversed(events) if isinstance(e, MatchEnded)), None)
        if result is None:
            raise Undeliverable(f"table {payload['table_id']} has not ended")
        locale = await self.boards.locale(chat_id)
        ordered = [names.get(seat, "") for seat in range(4)]
        view = match_summary_view(events, ordered, rules)
        photo = await self._picture(partial(render_match_summary, view, locale=locale))
        await self.budget.acquire(chat_id)
        await self.bot.send_photo(
            chat_id, photo, caption=match_result_text(result, locale), parse_mode=ParseMode.HTML
        )

    async def _picture(self, render: Callable[[], bytes]) -> bytes:
        """A result picture (18-25 ms of Pillow work) drawn in the render pool: a press waiting
        for the event loop meanwhile is not held up."""
        return await asyncio.get_running_loop().run_in_executor(self.renderer, render)

    async def _match_of(self, table_id: int) -> tuple[Sequence[Event], dict[int, str], Rules]:
        """The table's events, seat names and rules (:meth:`Boards.match_of`); a table that is
        gone can never be announced."""
        found = await self.boards.match_of(table_id)
        if found is None:
            raise Undeliverable(f"table {table_id} is gone")
        return found

    async def _close_deal(
        self, table: LiveTable, board: BoardState, events: Sequence[Event], result: DealEnded, locale: str
    ) -> None:
        """The deal's last board text: every trick from the live message's first one on, and the places."""
        if board.deal != result.deal_number:  # never drawn (played out between two redraws), or a restart
            await self._begin(table, board, result.deal_number, locale)
        await self._show(table, board, self.boards.close(table, board, events, result, locale))
        await self.tables.set_board_message(table, None)
        board.closed_deal(result.deal_number)

    async def _begin(self, table: LiveTable, board: BoardState, deal: int, locale: str) -> None:
        """The deal's board starts over at its first trick in a new message. A live message whose
        range was never stored (left by a run before migration 0014) is told so in one edit:
        the group never shows two turns."""
        board.begin(deal)
        left = table.record.board_message_id
        if left is not None:
            await self.tables.set_board_message(table, None)
            await self._edit(table.record.chat_id, left, moved_board_text(locale))

    async def _edit(self, chat_id: int, message_id: int, text: str, markup: Keys | None = None) -> bool:
        """False if the message can no longer be edited (deleted in the group): its plays go to a new one."""
        try:  # quietly: Telegram's answer repeats the board, every line's entities parsed for nothing
            await edit_quietly(
                self.bot,
                "editMessageText",
                chat_id=chat_id,
                message_id=message_id,
                text=text,
                parse_mode=ParseMode.HTML,
                reply_markup=markup.to_json() if markup is not None else None,
            )
        except BadRequest as error:
            if not not_modified(error):
                log.info("board message %s in chat %s not edited: %s", message_id, chat_id, error)
                return False
        return True

    def forget_locale(self, chat_id: int) -> None:
        self.boards.forget_locale(chat_id)
