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
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from functools import partial

from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import ExtBot

from app.table.results import deal_events, deal_result_view, match_summary_view, public_tributes
from app.table.tables import LiveTable, TableService, decode_action
from app.table.texts import (
    board_text,
    closing_board_text,
    deal_result_text,
    finished_board_text,
    header,
    match_result_text,
    moved_board_text,
    played_header,
    stopped_board_text,
    trick_blocks,
)
from app.tasks import Tasks
from engine.actions import DealEnded, DealStarted, Event, MatchEnded, Phase
from engine.match import Match
from engine.observation import Observation
from engine.rules import Rules
from handlers.platform.chats import GROUP_LIMIT as GROUP_LIMIT  # re-exported for the board's tests
from handlers.platform.chats import ChatBudget
from handlers.platform.edits import edit_quietly, not_modified
from handlers.platform.locales import chat_locale
from handlers.platform.outbox import Outbox, Payload, Undeliverable
from handlers.platform.scheduler import Priority, PriorityLimiter, at_priority
from handlers.table.keyboards import Keys
from render.results import render_deal_result, render_match_summary
from storage import Database, NotFound, TableRecord, TableStatus

log = logging.getLogger(__name__)

TEXT_LIMIT = 4096  # characters in one message
TEXT_MARGIN = 1024  # of a message's text, kept for its header, the exchanges and whose turn it is


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
    closing: dict[int, asyncio.Event] = field(default_factory=dict)  # deals whose result waits for the close
    task: asyncio.Task[None] | None = None
    table: LiveTable | None = None  # results are rebuilt from it; None: left by the last run, not seen yet


BoardExtras = Callable[[LiveTable, str], tuple[str, Keys | None]]
"""What the live board message adds for 观战 in a locale: a line after its text, and a keyboard."""

DEAL_RESULT = "deal_result"  # outbox kinds: {"table_id", "deal"}
MATCH_END = "match_end"  # {"table_id"}
CLOSE_WAIT = 30.0
"""Seconds a result waits for its deal's board to be closed before it goes anyway."""


def result_key(table_id: int, result: Event) -> str:
    """The outbox key of a result: each is announced once, however often it is posted."""
    if isinstance(result, DealEnded):
        return f"table:{table_id}:deal:{result.deal_number}"
    return f"table:{table_id}:match_end"


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
        outbox: Outbox | None = None,
        renderer: Executor | None = None,
        per_trick: bool = False,
        limiter: PriorityLimiter | None = None,
    ) -> None:
        self.bot = bot
        self.limiter = limiter  # the token's scheduler, to hasten a board edit a result waits for
        self.per_trick = per_trick  # a new message per trick (when the budget allows)
        self.renderer = renderer  # result pictures are drawn here, never on the event loop
        self.tables = tables
        self.db = db
        self.budget = budget or ChatBudget()
        self.interval = interval
        self.reserve = reserve  # sends kept free for results and the lobby
        self.text_limit = text_limit
        self.extras: BoardExtras | None = None  # 观战's line and button (handlers/table/spectators.py)
        self._boards: dict[int, _Board] = {}
        self._tasks = Tasks()  # the redraws: a stop cancels each, forgotten board or not
        self._left: list[TableRecord] = []  # boards the last run left open (see :meth:`expect_left`)
        self._locales: dict[int, str] = {}
        self.outbox = outbox or Outbox(db.outbox)
        self.outbox.register(DEAL_RESULT, self._send_deal_result)
        self.outbox.register(MATCH_END, self._send_match_end)

    def publish(self, table: LiveTable, events: tuple[Event, ...] | list[Event] = ()) -> None:
        """Schedule a redraw of what was just stored; deal and match results are queued in order.

        Called with the table lock held after the actions were logged, so the snapshot taken
        here is exactly what may be shown (a later redraw never sees unsaved plays).
        """
        board = self._boards.get(table.id)
        if board is None or board.table is None:
            board = self._boards.setdefault(table.id, _Board())
            board.table = table
            self._recover(table, board, events)
        for result in events:
            if isinstance(result, DealEnded | MatchEnded):
                board.results.append(result)
                if isinstance(result, DealEnded):  # the result's sender may be waiting on it already
                    board.closing.setdefault(result.deal_number, asyncio.Event())
                self._announce(table, result)
                self._hasten(table.record.chat_id)
        if table.match is not None:
            board.snapshot = _Snapshot(table.observe(None), tuple(table.deal_events))
        board.dirty = True
        if board.task is None or board.task.done():
            # The redraw serves the table, not the press that woke it: no request context.
            board.task = self._tasks.start(self._run(table, board), context=contextvars.Context())

    def _announce(self, table: LiveTable, result: Event) -> None:
        """Store the result in the outbox now; it is sent once the board closed its deal."""
        if isinstance(result, DealEnded):
            kind, payload = DEAL_RESULT, {"table_id": table.id, "deal": result.deal_number}
        else:
            kind, payload = MATCH_END, {"table_id": table.id}
        self.outbox.post(table.record.chat_id, kind, payload, key=result_key(table.id, result))

    def _hasten(self, chat_id: int) -> None:
        """The board's waiting edit now goes at an announcement's priority: the result waits
        for the board to show the deal's last plays, so that edit is owed as much as the result."""
        if self.limiter is not None:
            self.limiter.promote(chat_id, Priority.OWED)

    def _recover(self, table: LiveTable, board: _Board, events: Sequence[Event]) -> None:
        """First sight of a table in this run (a restart): announce again its latest result from
        before ``events``, in case the previous run stopped between storing the deal's last action
        and storing the result. The key makes this a no-op when it was stored (or sent)."""
        if table.match is None:
            return
        new = {id(event) for event in events}
        self._resume_board(table, board, new)
        for kind in (DealEnded, MatchEnded):
            latest = next((e for e in reversed(table.match.events) if isinstance(e, kind)), None)
            if latest is not None and id(latest) not in new:
                self._announce(table, latest)

    def _resume_board(self, table: LiveTable, board: _Board, new: set[int]) -> None:
        """The live board message the previous run left goes on showing its deal from the trick
        it began with: edited in place, never left behind with a turn that no longer comes. If
        its deal ended before ``new`` events (the previous run stopped before closing it), it is
        closed first, before its result goes; so is each later deal that ended meanwhile (played
        out while the board waited), each in a message of its own as within a run."""
        record = table.record
        if record.board_message_id is None or record.board_deal is None or table.match is None:
            return  # none, or stored before its range was (see :meth:`_begin`)
        board.deal, board.first = record.board_deal, record.board_first
        for event in table.match.events:
            if isinstance(event, DealEnded) and event.deal_number >= board.deal and id(event) not in new:
                board.results.append(event)
                board.closing.setdefault(event.deal_number, asyncio.Event())

    async def expect_left(self) -> None:
        """Before the outbox resends what the last run left: each board message that run left
        open owes its deal's close before the deal's result goes, so the result waits for it
        (at most :data:`CLOSE_WAIT`) as within a run, until the table is seen again."""
        self._left = await self.db.tables.left_boards()
        for record in self._left:
            assert record.board_deal is not None
            board = self._boards.setdefault(record.id, _Board())
            board.closing.setdefault(record.board_deal, asyncio.Event())

    async def finish_left(self) -> None:
        """Once the tables in play were resumed (each one's board goes on with its redraws): the
        boards left open on tables no longer in play are closed now, as the last run's redraw
        would have, and whatever was left owes nothing more (a table that could not resume)."""
        left, self._left = self._left, []
        for record in left:
            if record.status in (TableStatus.FINISHED, TableStatus.STOPPED) and self._unseen(record.id):
                try:
                    self.publish(await self.tables.ended(record))
                except Exception:  # its results go all the same
                    log.exception("board of table %s left open: the table could not be replayed", record.id)
            if self._unseen(record.id):  # a result already waiting for it goes now
                for closing in self._boards.pop(record.id).closing.values():
                    closing.set()

    def _unseen(self, table_id: int) -> bool:
        board = self._boards.get(table_id)
        return board is not None and board.table is None

    async def drain(self, table_id: int) -> None:
        """Wait for the pending redraws of a table (tests, shutdown)."""
        board = self._boards.get(table_id)
        while board is not None and board.task is not None and not board.task.done():
            await asyncio.shield(board.task)

    async def close(self) -> None:
        await self._tasks.close()

    async def _run(self, table: LiveTable, board: _Board) -> None:
        """Redraw while there is something new; forget the board once its table is over."""
        while board.dirty:
            board.dirty = False
            try:
                with at_priority(Priority.REFRESH):  # results go through the outbox, before it
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
        if table.record.status is TableStatus.STOPPED:
            await self._stop(table, board, snapshot, locale)
            return
        await self._draw(table, board, snapshot, locale)

    async def _stop(self, table: LiveTable, board: _Board, snapshot: _Snapshot, locale: str) -> None:
        """A stopped table's live board keeps its plays, loses its turn line and says the table
        was stopped: one edit, and the group shows no turn that will never come."""
        message_id = table.record.board_message_id
        if message_id is None or board.deal != snapshot.obs.deal_number:
            return
        obs, events, names = snapshot.obs, snapshot.events, table.names()
        shown = finished_board_text(
            heading=header(obs, table.rules, locale),
            events=events,
            first=board.first,
            last=len(trick_blocks(events, obs.level, names, locale)) - 1,
            tributes=public_tributes(events),
            names=names,
            locale=locale,
        )
        await self._edit(table.record.chat_id, message_id, stopped_board_text(shown, locale))
        await self.tables.set_board_message(table, None)

    async def _draw(self, table: LiveTable, board: _Board, snapshot: _Snapshot, locale: str) -> None:
        """Show every play since the live message's first trick.

        When the chat's budget has room, a new trick gets a new message and the old one
        keeps exactly its tricks; otherwise the live message grows, and splits only when
        it would pass Telegram's length limit.
        """
        obs, events, names = snapshot.obs, snapshot.events, table.names()
        if obs.deal_number == board.closed:
            return
        if board.deal != obs.deal_number:  # a new deal, or a restart: begin at the deal's start
            await self._begin(table, board, obs.deal_number, locale)
        blocks = trick_blocks(events, obs.level, names, locale)
        current = len(blocks) - 1
        sizes = [len("\n".join(block)) + 1 for block in blocks]
        limit = self.text_limit - TEXT_MARGIN
        new_trick = self.per_trick and current > board.first and table.record.board_message_id is not None
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
        """The live message gets the first range; each further range is a new message. The
        last one, which stays live, carries the :attr:`extras`."""
        chat_id = table.record.chat_id
        line, keys = self.extras(table, await self._locale(chat_id)) if self.extras else ("", None)
        for first, last in ranges:
            live = (first, last) == ranges[-1]
            shown = text(first, last) + (line if live else "")
            markup = keys if live else None
            message_id = table.record.board_message_id if first == board.first else None
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
                await self.tables.set_board_message(table, sent.message_id, deal=board.deal, first=first)
            board.first, board.shown_text = first, shown

    async def _send_deal_result(self, chat_id: int, payload: Payload) -> None:
        """Outbox sender: the deal's result picture, once the board closed the deal's message."""
        table_id, deal = int(payload["table_id"]), int(payload["deal"])
        board = self._boards.get(table_id)
        closing = board.closing.get(deal) if board is not None else None
        if closing is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(closing.wait(), CLOSE_WAIT)
        events, names, rules = await self._match_of(table_id)
        result = next((e for e in events if isinstance(e, DealEnded) and e.deal_number == deal), None)
        if result is None:
            raise Undeliverable(f"table {table_id} has no deal {deal}")
        locale = await self._locale(chat_id)
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
        locale = await self._locale(chat_id)
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
        """The table's events, seat names and rules: live, or replayed from storage (after a restart)."""
        board = self._boards.get(table_id)
        table = board.table if board is not None else None
        if table is not None and table.match is not None:
            return table.match.events, table.names(), table.rules
        try:
            record = await self.db.tables.get(table_id=table_id)
        except NotFound as error:
            raise Undeliverable(f"table {table_id} is gone") from error
        rules = Rules.from_json(record.rules_json)
        seats = await self.db.seats.of_table(table_id=table_id)
        rows = await self.db.actions.of_table(table_id=table_id)
        match = Match.replay(rules, record.seed, [(row.seat, decode_action(row.action_json)) for row in rows])
        return match.events, {seat.seat: seat.name for seat in seats}, rules

    async def _close_deal(
        self, table: LiveTable, board: _Board, events: Sequence[Event], result: DealEnded, locale: str
    ) -> None:
        """The deal's last board text: every trick from the live message's first one on, and the places."""
        if board.deal != result.deal_number:  # never drawn (played out between two redraws), or a restart
            await self._begin(table, board, result.deal_number, locale)
        started = next(e for e in events if isinstance(e, DealStarted))
        names = table.names()
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

    async def _begin(self, table: LiveTable, board: _Board, deal: int, locale: str) -> None:
        """The deal's board starts over at its first trick in a new message. A live message whose
        range was never stored (left by a run before migration 0014) is told so in one edit:
        the group never shows two turns."""
        board.deal, board.first, board.shown_text = deal, 0, None
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

    async def _locale(self, chat_id: int) -> str:
        """The group's language, read once (``forget_locale`` after /lang)."""
        if chat_id not in self._locales:
            self._locales[chat_id] = await chat_locale(self.db, chat_id)
        return self._locales[chat_id]

    def forget_locale(self, chat_id: int) -> None:
        self._locales.pop(chat_id, None)
