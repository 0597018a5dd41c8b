"""观战's state and decisions: who watches which table, what each is shown next, and when.

Telegram-free (the sending is ``handlers/table/spectators.py``, a :class:`Screen`). A table's
spectators are redrawn together at most every ``interval`` seconds from the latest public state
(:mod:`app.table.watching` builds the looks from the public observation only), each deal in a
message of its own: a :class:`Look` names the deal, its text and whether it keeps its buttons;
the screen turns it into a message, edited in place, and says back which message it sent
(:meth:`Spectators.delivered`) or that the spectator blocked the bot (:meth:`Spectators.forget`).

Who watches what, with the message to edit, is stored (``storage/spectators.py``): after a
restart the first change of a table loads its spectators and edits their messages again.
Watching ends with the match (or /stop): the last look says so and the rows are deleted.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from app.preferences import user_locale
from app.table.lifecycle import active, playing, stopped
from app.table.refusals import TableRefusal
from app.table.results import deal_events
from app.table.tables import LiveTable
from app.table.texts import _
from app.table.watching import (
    MAX_SPECTATORS,
    EndedHands,
    SpectatorView,
    hand_before_trick,
    hands_after_deal,
    spectator_text,
)
from app.tasks import Tasks
from common.faults import StorageUnavailable
from engine.actions import Action, DealEnded, Event, Phase
from engine.review import review
from engine.rules import Rules
from storage import Database

log = logging.getLogger(__name__)


@dataclass
class Watcher:
    user_id: int
    name: str
    messages: dict[int, int] = field(default_factory=dict)  # deal → its message (the latest two)
    locale: str | None = None  # read once, at the first look
    shown: dict[int, tuple[str, Buttons | None]] = field(default_factory=dict)  # deal → the look last shown
    seat: int | None = None  # the seat whose hand they follow a trick behind (watch_hand=on)


@dataclass(frozen=True, slots=True)
class Buttons:
    """The buttons of the deal in play's message: a seat's hand to follow (``seats``: the table
    allows it), ✓ on the one ``followed``; and 停止观战."""

    followed: int | None
    locale: str
    seats: bool


@dataclass(frozen=True)
class Look:
    """One look of a spectator's deal message, for the screen to send (or edit into place)."""

    table_id: int
    watcher: Watcher
    deal: int
    text: str
    buttons: Buttons | None  # the deal in play keeps 停止观战; a deal over has none
    first: bool  # the spectator's first look: it answers their 观战 press, so it goes ahead


class Screen(Protocol):
    """Where looks are shown (``handlers.table.spectators.SpectatorDesk``): queued, newest wins."""

    def show(self, look: Look) -> None: ...


class Board(Protocol):
    """The group board, redrawn when the watchers change (its 👀 line)."""

    def publish(self, table: LiveTable) -> None: ...


@dataclass
class _Watch:
    """One table's spectators and the public state they are shown next."""

    watchers: dict[int, Watcher] = field(default_factory=dict)
    loaded: bool = False  # the stored spectators were read (once a run)
    loading: asyncio.Lock = field(default_factory=asyncio.Lock)
    closing: list[SpectatorView] = field(default_factory=list)  # deals that ended, their last look owed
    view: SpectatorView | None = None  # the deal in play
    history: tuple[tuple[int | None, Action], ...] = ()  # to deal a finished deal's hands again
    seed: int = 0
    hands: dict[int, EndedHands] = field(default_factory=dict)  # finished deals' hands, dealt again
    dirty: bool = False
    task: asyncio.Task[None] | None = None


class Spectators:
    """Keeps every spectator's look in line with the public table; the screen sends them."""

    def __init__(
        self, db: Database, board: Board, *, interval: float = 3.0, screen: Screen | None = None
    ) -> None:
        self.db = db
        self.board = board
        self.interval = interval
        self.screen = screen  # set by the screen that sends the looks (None: nothing is shown)
        self._watches: dict[int, _Watch] = {}
        self._tasks = Tasks()  # the redraws, a finished table's forgotten one included

    # ------------------------------------------------------------ the board's part

    def names(self, table_id: int) -> list[str]:
        watch = self._watches.get(table_id)
        return [w.name for w in watch.watchers.values()] if watch is not None else []

    def followed(self, table_id: int) -> list[int]:
        """The seats whose hands some spectator of the table follows, in playing order."""
        watch = self._watches.get(table_id)
        seats = {w.seat for w in watch.watchers.values()} if watch is not None else set()
        return sorted(seat for seat in seats if seat is not None)

    @staticmethod
    def open_to_watch(table: LiveTable) -> bool:
        """Whether the board offers 观战: a match in play at a table that takes spectators."""
        return (
            table.match is not None and not table.match.is_over and playing(table) and table.rules.spectators
        )

    # ------------------------------------------------------------ changes of the table

    def publish(self, table: LiveTable, events: Sequence[Event] = ()) -> None:
        """Schedule a redraw of every spectator of ``table`` (table lock held: what was stored)."""
        if not table.rules.spectators:
            return
        watch = self._watches.get(table.id)
        if watch is None:
            watch = self._watches[table.id] = _Watch()
        elif watch.loaded and not watch.watchers:  # nobody watches
            if table.match is None or table.match.is_over or not active(table):
                del self._watches[table.id]
            return
        self._snapshot(table, watch, events)
        watch.dirty = True
        if watch.task is None or watch.task.done():
            watch.task = self._tasks.start(self._run(table, watch), context=contextvars.Context())

    def _snapshot(self, table: LiveTable, watch: _Watch, events: Sequence[Event]) -> None:
        """The deal in play as the board sees it, and the last look owed to each deal that ended
        in ``events`` (the next deal may have begun in the same change)."""
        match = table.match
        if match is None:
            return
        obs, names, is_stopped = table.observe(None), table.names(), stopped(table)
        live = tuple(table.deal_events)
        ended = [e for e in events if isinstance(e, DealEnded)]
        if ended or obs.phase is Phase.MATCH_OVER or is_stopped:
            watch.history, watch.seed = match.history, table.record.seed  # to deal their hands again
            every = match.events
        else:
            every = ()
        for result in ended:
            if not any(isinstance(e, DealEnded) and e.deal_number == result.deal_number for e in live):
                closed = tuple(deal_events(every, result.deal_number))
                watch.closing.append(SpectatorView(obs, closed, every, names, table.rules))
        followed = self.followed(table.id) if table.rules.spectators_follow_hands and not is_stopped else []
        hands = (hand_before_trick(table.observe(seat)) for seat in followed)
        watch.view = SpectatorView(
            obs, live, every, names, table.rules, stopped=is_stopped, followed=tuple(h for h in hands if h)
        )

    async def _run(self, table: LiveTable, watch: _Watch) -> None:
        """Redraw while something changed, at most every ``interval`` seconds."""
        try:
            found = await self._load(table.id, watch)
        except StorageUnavailable as error:  # the table's next change tries again
            log.warning("spectators of table %s not read: %s", table.id, error)
            return
        if found:  # a restart: the board names them again
            async with table.lock:
                if active(table):
                    self.board.publish(table)
        while watch.dirty:
            watch.dirty = False
            try:
                over = await self._flush(table, watch)
            except Exception:  # the next change redraws everything
                log.exception("spectators of table %s not updated", table.id)
                over = False
            if over:
                self._watches.pop(table.id, None)
                return
            await asyncio.sleep(self.interval)

    async def _load(self, table_id: int, watch: _Watch) -> bool:
        """Read the spectators stored by an earlier run, once; True if some were found."""
        async with watch.loading:
            if watch.loaded:
                return False
            rows = await self.db.spectators.of_table(table_id=table_id)
            for row in rows:
                messages = {row.deal: row.message_id} if row.deal is not None and row.message_id else {}
                watcher = Watcher(row.user_id, row.name, messages, seat=row.seat)
                watch.watchers.setdefault(row.user_id, watcher)
            watch.loaded = True
            return bool(rows)

    async def _flush(self, table: LiveTable, watch: _Watch) -> bool:
        """Hand each spectator the last look of every deal that ended, then the deal in play;
        True once watching has ended."""
        closing, watch.closing = watch.closing, []
        live = watch.view
        views = [*closing, *([live] if live is not None else [])]
        for view in views:
            keep = view is live and not view.final  # the deal in play keeps 停止观战
            shown = await self._with_hands(watch, view)
            for watcher in list(watch.watchers.values()):
                if watcher.locale is None:
                    watcher.locale = await user_locale(self.db, watcher.user_id)
                text = spectator_text(shown, watcher.locale, watcher.seat)
                seats = shown.rules.spectators_follow_hands
                buttons = Buttons(watcher.seat, watcher.locale, seats) if keep else None
                self._show(table.id, watcher, shown.deal_number, text, buttons)
        if live is not None and live.final:
            await self.db.spectators.end(table_id=table.id)
            return True
        return False

    async def _with_hands(self, watch: _Watch, view: SpectatorView) -> SpectatorView:
        """The view with its deal's hands when it is over and they may be shown (at a 不洗牌
        table, once the match is over)."""
        if not view.over or not (view.final or hands_after_deal(view.rules)):
            return view
        deal = view.deal_number
        if deal not in watch.hands:
            found = await _hands(view.rules, watch.seed, watch.history, deal)
            if found is None:
                return view
            watch.hands[deal] = found
        return replace(view, hands=watch.hands[deal])

    def _show(self, table_id: int, watcher: Watcher, deal: int, text: str, buttons: Buttons | None) -> None:
        """Hand the screen one look of a deal's message; an unchanged one is not shown again.
        Each deal's message is its own: a deal's last look is never replaced by the next deal's
        first."""
        look = (text, buttons)
        if watcher.shown.get(deal) == look:
            return
        watcher.shown = {d: t for d, t in watcher.shown.items() if d >= deal - 1} | {deal: look}
        if self.screen is not None:
            self.screen.show(Look(table_id, watcher, deal, text, buttons, first=not watcher.messages))

    async def delivered(self, look: Look, message_id: int) -> None:
        """The screen sent ``look`` as a new message: its deal's message from now on (the latest
        deal's is stored, so a restart edits it again)."""
        watcher, deal = look.watcher, look.deal
        watcher.messages = {d: m for d, m in watcher.messages.items() if d >= deal - 1} | {deal: message_id}
        if deal == max(watcher.messages):
            with contextlib.suppress(StorageUnavailable):
                await self.db.spectators.set_message(
                    table_id=look.table_id, user_id=watcher.user_id, message_id=message_id, deal=deal
                )

    async def forget(self, table_id: int, user_id: int) -> None:
        """The spectator blocked the bot: they watch no more."""
        watch = self._watches.get(table_id)
        if watch is not None:
            watch.watchers.pop(user_id, None)
        with contextlib.suppress(StorageUnavailable):
            await self.db.spectators.leave(table_id=table_id, user_id=user_id)

    # ------------------------------------------------------------ joining and leaving

    def watching(self, table_id: int, user_id: int) -> bool:
        watch = self._watches.get(table_id)
        return watch is not None and user_id in watch.watchers

    async def watches(self, table_id: int, user_id: int) -> bool:
        """``watching``, the spectators an earlier run stored included (a restarted bot)."""
        watch = self._watches.get(table_id)
        if watch is None:
            rows = await self.db.spectators.of_table(table_id=table_id)
            return any(row.user_id == user_id for row in rows)
        await self._load(table_id, watch)
        return user_id in watch.watchers

    async def watch(self, table: LiveTable, user_id: int, name: str) -> TableRefusal | None:
        """``user_id`` starts watching (table lock held); a refusal when they may not."""
        if not table.rules.spectators:
            return TableRefusal.NO_SPECTATORS
        if table.match is None or table.match.is_over or not playing(table):
            return TableRefusal.TABLE_NOT_PLAYING
        if table.seat_of(user_id) is not None:
            return TableRefusal.PLAYING_HERE
        watch = self._watches.setdefault(table.id, _Watch())
        await self._load(table.id, watch)
        watcher = watch.watchers.get(user_id)
        if watcher is None and len(watch.watchers) >= MAX_SPECTATORS:
            return TableRefusal.SPECTATORS_FULL
        await self.db.spectators.watch(table_id=table.id, user_id=user_id, name=name)
        if watcher is None:
            watch.watchers[user_id] = Watcher(user_id, name)
        else:
            watcher.shown = {}  # pressed again: show the look again (a deleted message comes back)
        self.publish(table)
        self.board.publish(table)
        return None

    async def leave(self, table: LiveTable, user_id: int) -> bool:
        """``user_id`` stops watching (table lock held): their message says so, without buttons."""
        watch = self._watches.get(table.id)
        watcher = watch.watchers.get(user_id) if watch is not None else None
        if watch is None or watcher is None:
            return False
        await self.db.spectators.leave(table_id=table.id, user_id=user_id)
        del watch.watchers[user_id]
        locale = watcher.locale or await user_locale(self.db, user_id)
        deal = max(watcher.messages, default=table.match.deal_number if table.match is not None else 0)
        self._show(table.id, watcher, deal, _("👀 You stopped watching this table.", locale), None)
        self.board.publish(table)
        return True

    async def follow(self, table: LiveTable, user_id: int, seat: int) -> TableRefusal | int | None:
        """``user_id`` follows ``seat``'s hand a trick behind, or stops when they followed it
        already (table lock held): the seat now followed (None), or a refusal."""
        watch = self._watches.get(table.id)
        watcher = watch.watchers.get(user_id) if watch is not None else None
        if watch is None or watcher is None:
            return TableRefusal.NOT_WATCHING
        if not table.rules.spectators_follow_hands:
            return TableRefusal.NO_WATCH_HAND
        chosen = None if watcher.seat == seat else seat
        await self.db.spectators.follow(table_id=table.id, user_id=user_id, seat=chosen)
        watcher.seat = chosen
        self.publish(table)
        self.board.publish(table)  # the players see which hands are followed
        return chosen

    async def close(self) -> None:
        """Every redraw is cancelled and awaited: ``publish`` forgets a finished table's watch
        while its redraw may still wait out the interval."""
        await self._tasks.close()


async def _hands(
    rules: Rules, seed: int, history: Sequence[tuple[int | None, Action]], deal: int
) -> EndedHands | None:
    """The hands of ``deal`` as dealt, from the match replayed in a worker thread (once a deal)."""
    deals = await asyncio.to_thread(review, rules, seed, history)
    found = next((d for d in deals if d.deal_number == deal), None)
    return EndedHands(deal, found.level, found.hands) if found is not None else None
