"""The group board's state and decisions, Telegram-free: what each table's board shows next,
which results it owes and in what order, and which boards the last run left open.

``handlers/table/board.py`` sends what is decided here (its messages, edits and result
pictures) and paces the redraws. A table's board is a :class:`BoardState`: the public state as
last published (a :class:`Snapshot`, taken under the table lock right after the actions were
stored), the deal and first trick of its live message, the results it still has to close, and
for each deal whose result waits, the event its close sets. The texts of a redraw are planned
here as :class:`Range`\\ s: consecutive tricks of one message each, the last one live.

After a restart the board goes on with every live message the last run left open
(``game_tables.board_message_id``): :meth:`Boards.expect_left` makes each one's deal owe its
close before its result goes, and :meth:`Boards.finish_left` closes those of tables that ended
meanwhile. A result is rebuilt from the match, live or replayed from the store
(:meth:`Boards.match_of`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from app.preferences import chat_locale
from app.table.lifecycle import active
from app.table.results import public_tributes
from app.table.tables import LiveTable, TableService, decode_action
from app.table.texts import (
    board_text,
    closing_board_text,
    finished_board_text,
    header,
    played_header,
    stopped_board_text,
    trick_blocks,
)
from engine.actions import DealEnded, DealStarted, Event, MatchEnded
from engine.match import Match
from engine.observation import Observation
from engine.rules import Rules
from storage import Database, NotFound, TableRecord, TableStatus

log = logging.getLogger(__name__)

TEXT_LIMIT = 4096  # characters in one message
TEXT_MARGIN = 1024  # of a message's text, kept for its header, the exchanges and whose turn it is
DEAL_RESULT = "deal_result"  # outbox kinds: {"table_id", "deal"}
MATCH_END = "match_end"  # {"table_id"}
CLOSE_WAIT = 30.0
"""Seconds a result waits for its deal's board to be closed before it goes anyway."""


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


def result_key(table_id: int, result: Event) -> str:
    """The outbox key of a result: each is announced once, however often it is posted."""
    if isinstance(result, DealEnded):
        return f"table:{table_id}:deal:{result.deal_number}"
    return f"table:{table_id}:match_end"


def owed(table_id: int, result: DealEnded | MatchEnded) -> tuple[str, dict[str, int]]:
    """The outbox row a result is owed as: its kind and the payload it is rebuilt from."""
    if isinstance(result, DealEnded):
        return DEAL_RESULT, {"table_id": table_id, "deal": result.deal_number}
    return MATCH_END, {"table_id": table_id}


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The public state as last published: taken right after the table's actions were stored."""

    obs: Observation
    events: tuple[Event, ...]  # the deal's public events


@dataclass(frozen=True, slots=True)
class Range:
    """One board message's part of a redraw: tricks ``first``..``last`` and their text."""

    first: int
    last: int
    text: str


@dataclass
class BoardState:
    snapshot: Snapshot | None = None
    deal: int | None = None  # the deal of the live message
    first: int = 0  # the live message shows the plays of tricks ``first`` through the current one
    shown_text: str | None = None
    closed: int | None = None  # the last deal whose board was closed
    dirty: bool = False
    results: list[Event] = field(default_factory=list)
    closing: dict[int, asyncio.Event] = field(default_factory=dict)  # deals whose result waits for the close
    task: asyncio.Task[None] | None = None
    table: LiveTable | None = None  # results are rebuilt from it; None: left by the last run, not seen yet

    def begin(self, deal: int) -> None:
        """The deal's board starts over at its first trick, in a new message."""
        self.deal, self.first, self.shown_text = deal, 0, None

    def closed_deal(self, deal: int) -> None:
        """The deal's last text was shown: no live message until the next deal's."""
        self.deal, self.first, self.shown_text, self.closed = None, 0, None, deal


class Boards:
    """Every table's board state, and what each redraw shows."""

    def __init__(
        self, tables: TableService, db: Database, *, text_limit: int = TEXT_LIMIT, per_trick: bool = False
    ) -> None:
        self.tables = tables
        self.db = db
        self.text_limit = text_limit
        self.per_trick = per_trick  # a new message per trick (when the budget allows)
        self._boards: dict[int, BoardState] = {}
        self._left: list[TableRecord] = []  # boards the last run left open (see :meth:`expect_left`)
        self._locales: dict[int, str] = {}

    def get(self, table_id: int) -> BoardState | None:
        return self._boards.get(table_id)

    def publish(
        self, table: LiveTable, events: Sequence[Event] = ()
    ) -> list[tuple[DealEnded | MatchEnded, bool]]:
        """Take what was just stored (table lock held): the snapshot a redraw shows, the results it
        closes. Returns the results owed in order, each with whether it is new in ``events`` (a
        table first seen in this run owes its latest results again, in case the last run stopped
        before storing them: the outbox's key makes that a no-op when they were)."""
        board = self._boards.get(table.id)
        owed_now: list[tuple[DealEnded | MatchEnded, bool]] = []
        if board is None or board.table is None:
            board = self._boards.setdefault(table.id, BoardState())
            board.table = table
            owed_now += [(result, False) for result in self._recover(table, board, events)]
        for result in events:
            if isinstance(result, DealEnded | MatchEnded):
                board.results.append(result)
                if isinstance(result, DealEnded):  # the result's sender may be waiting on it already
                    board.closing.setdefault(result.deal_number, asyncio.Event())
                owed_now.append((result, True))
        if table.match is not None:
            board.snapshot = Snapshot(table.observe(None), tuple(table.deal_events))
        board.dirty = True
        return owed_now

    def _recover(
        self, table: LiveTable, board: BoardState, events: Sequence[Event]
    ) -> list[DealEnded | MatchEnded]:
        """First sight of a table in this run (a restart): its latest results from before ``events``."""
        if table.match is None:
            return []
        new = {id(event) for event in events}
        self._resume_board(table, board, new)
        found: list[DealEnded | MatchEnded] = []
        for kind in (DealEnded, MatchEnded):
            latest = next((e for e in reversed(table.match.events) if isinstance(e, kind)), None)
            if latest is not None and id(latest) not in new:
                found.append(latest)
        return found

    def _resume_board(self, table: LiveTable, board: BoardState, new: set[int]) -> None:
        """The live board message the previous run left goes on showing its deal from the trick
        it began with: edited in place, never left behind with a turn that no longer comes. If
        its deal ended before ``new`` events (the previous run stopped before closing it), it is
        closed first, before its result goes; so is each later deal that ended meanwhile (played
        out while the board waited), each in a message of its own as within a run."""
        record = table.record
        if record.board_message_id is None or record.board_deal is None or table.match is None:
            return  # none, or stored before its range was (a run before migration 0014)
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
            board = self._boards.setdefault(record.id, BoardState())
            board.closing.setdefault(record.board_deal, asyncio.Event())

    async def finish_left(self, publish: Callable[[LiveTable], None]) -> None:
        """Once the tables in play were resumed (each one's board goes on with its redraws): the
        boards left open on tables no longer in play are ``publish``\\ ed now, replayed, as the last
        run's redraw would have, and whatever was left owes nothing more (a table that could not
        resume)."""
        left, self._left = self._left, []
        for record in left:
            if record.status in (TableStatus.FINISHED, TableStatus.STOPPED) and self._unseen(record.id):
                try:
                    publish(await self.tables.ended(record))
                except Exception:  # its results go all the same
                    log.exception("board of table %s left open: the table could not be replayed", record.id)
            if self._unseen(record.id):  # a result already waiting for it goes now
                for closing in self._boards.pop(record.id).closing.values():
                    closing.set()

    def _unseen(self, table_id: int) -> bool:
        board = self._boards.get(table_id)
        return board is not None and board.table is None

    def forget_if_over(self, table: LiveTable, board: BoardState) -> None:
        """A board whose table is over and has nothing more to show is forgotten."""
        if not active(table) and not board.dirty:
            self._boards.pop(table.id, None)

    def take_results(self, board: BoardState) -> list[Event]:
        results, board.results = board.results, []
        return results

    async def match_of(self, table_id: int) -> tuple[Sequence[Event], dict[int, str], Rules] | None:
        """The table's events, seat names and rules: live, or replayed from the store (after a
        restart); None if the table is gone."""
        board = self._boards.get(table_id)
        table = board.table if board is not None else None
        if table is not None and table.match is not None:
            return table.match.events, table.names(), table.rules
        try:
            record = await self.db.tables.get(table_id=table_id)
        except NotFound:
            return None
        rules = Rules.from_json(record.rules_json)
        seats = await self.db.seats.of_table(table_id=table_id)
        rows = await self.db.actions.of_table(table_id=table_id)
        match = Match.replay(rules, record.seed, [(row.seat, decode_action(row.action_json)) for row in rows])
        return match.events, {seat.seat: seat.name for seat in seats}, rules

    async def locale(self, chat_id: int) -> str:
        """The group's language, read once (``forget_locale`` after /lang)."""
        if chat_id not in self._locales:
            self._locales[chat_id] = await chat_locale(self.db, chat_id)
        return self._locales[chat_id]

    def forget_locale(self, chat_id: int) -> None:
        self._locales.pop(chat_id, None)

    # ------------------------------------------------------------ what a redraw shows

    def stopped_text(
        self, table: LiveTable, board: BoardState, snapshot: Snapshot, locale: str
    ) -> str | None:
        """A stopped table's live board: its plays, no turn line, and that the table was stopped
        (None when it has no live message of this deal)."""
        if table.record.board_message_id is None or board.deal != snapshot.obs.deal_number:
            return None
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
        return stopped_board_text(shown, locale)

    def draw(
        self, table: LiveTable, board: BoardState, snapshot: Snapshot, locale: str, *, room: bool
    ) -> list[Range]:
        """Every play since the live message's first trick. With ``per_trick`` and ``room`` in
        the chat's budget, a new trick gets a new message and the old one keeps exactly its
        tricks; otherwise the live message grows, and splits only when it would pass Telegram's
        length limit."""
        obs, events, names = snapshot.obs, snapshot.events, table.names()
        blocks = trick_blocks(events, obs.level, names, locale)
        current = len(blocks) - 1
        sizes = [len("\n".join(block)) + 1 for block in blocks]
        limit = self.text_limit - TEXT_MARGIN
        new_trick = self.per_trick and current > board.first and table.record.board_message_id is not None
        if new_trick and room:
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

        return [Range(first, last, text(first, last)) for first, last in ranges]

    def close(
        self, table: LiveTable, board: BoardState, events: Sequence[Event], result: DealEnded, locale: str
    ) -> list[Range]:
        """The deal's last board text: every trick from the live message's first one on, and the places."""
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

        return [Range(first, end, text(first, end)) for first, end in ranges]
