"""观战: group members who are not seated follow a running table in their private chat.

The board (the group's message of a running table) carries a 观战 button. A member who
presses it gets one private message, edited as the table plays: what the board shows (plays,
counts as the table's 报牌 rule shows them, who finished, the levels), and the hands of a deal
only once that deal is over (:mod:`app.table.watching`). Every look is built from the public
observation (``observe(match, None)``), never from a seat's: a spectator cannot see a hand in
play, and no button of theirs changes the game (a hand button refuses anyone not seated).

Spectators cost the token little. Each one has one message, and a table's spectators are
redrawn together at most every ``interval`` seconds from the latest public state, like the
board; each edit goes through the per-message sender (a queued look is replaced by a newer
one, never sent after it) at the scheduler's lowest priority (``Priority.WATCH``), so it
waits behind every player's hand, board and announcement. A table nobody watches costs a
dictionary look-up per change.

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
from dataclasses import dataclass, field
from functools import partial

from telegram import Chat, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import ExtBot

from app.table.callback_data import Area, BadCallback, Op, Press
from app.table.refusals import TableRefusal
from app.table.tables import LiveTable, TableError
from app.table.texts import _, error_text
from app.table.watching import (
    MAX_SPECTATORS,
    EndedHands,
    SpectatorView,
    hands_after_deal,
    spectator_text,
    watchers_line,
)
from engine.actions import Action, DealEnded, Event, Phase
from engine.review import review
from engine.rules import Rules
from handlers.platform.context import Board, Context
from handlers.platform.edits import edit_quietly, not_modified
from handlers.platform.locales import user_locale
from handlers.platform.replies import refuse
from handlers.platform.scheduler import Priority, at_priority
from handlers.platform.sender import LatestWins
from handlers.table.keyboards import Key, Keys
from handlers.table.lobby import display_name
from storage import Database, NotFound, StorageUnavailable, TableStatus

log = logging.getLogger(__name__)

WATCH_START = "watch_"
"""``/start watch_<table token>``: the deep link a member who never opened the private chat
is sent to by 观战; the private chat's Start button then begins watching."""


@dataclass
class _Watcher:
    user_id: int
    name: str
    message_id: int | None
    locale: str | None = None  # read once, at the first look
    shown: str | None = None  # the text last handed to the sender


@dataclass
class _Watch:
    """One table's spectators and the public state they are shown next."""

    watchers: dict[int, _Watcher] = field(default_factory=dict)
    loaded: bool = False  # the stored spectators were read (once a run)
    loading: asyncio.Lock = field(default_factory=asyncio.Lock)
    view: SpectatorView | None = None
    history: tuple[tuple[int | None, Action], ...] = ()  # to deal the hands of ``hands_of`` again
    seed: int = 0
    hands_of: int | None = None  # the finished deal whose hands may be shown
    ended: EndedHands | None = None
    dirty: bool = False
    task: asyncio.Task[None] | None = None


class SpectatorDesk:
    """Keeps every spectator's private message in line with the public table."""

    def __init__(
        self, bot: ExtBot[None], db: Database, sender: LatestWins, board: Board, *, interval: float = 3.0
    ) -> None:
        self.bot = bot
        self.db = db
        self.sender = sender
        self.board = board  # redrawn when the watchers change (its 👀 line)
        self.interval = interval
        self._watches: dict[int, _Watch] = {}

    # ------------------------------------------------------------ the board's part

    def names(self, table_id: int) -> list[str]:
        watch = self._watches.get(table_id)
        return [w.name for w in watch.watchers.values()] if watch is not None else []

    def board_extras(self, table: LiveTable, locale: str) -> tuple[str, Keys | None]:
        """The board's 👀 line and its 观战 button (none once the match is over, or when the
        table takes no spectators)."""
        running = (
            table.match is not None
            and not table.match.is_over
            and table.record.status is TableStatus.PLAYING
            and table.rules.spectators
        )
        if not running:
            return "", None
        line = watchers_line(self.names(table.id), locale)
        press = Press(Area.WATCH, table.id, 0, 0, Op.WATCH)
        return ("\n" + line if line else ""), Keys(((Key(_("👀 Watch", locale), press.encode()),),))

    # ------------------------------------------------------------ changes of the table

    def publish(self, table: LiveTable, events: Sequence[Event] = ()) -> None:
        """Schedule a redraw of every spectator of ``table`` (table lock held: what was stored)."""
        if not table.rules.spectators:
            return
        watch = self._watches.get(table.id)
        if watch is None:
            watch = self._watches[table.id] = _Watch()
        elif watch.loaded and not watch.watchers:
            return  # nobody watches
        self._snapshot(table, watch, events)
        watch.dirty = True
        if watch.task is None or watch.task.done():
            watch.task = asyncio.create_task(self._run(table, watch), context=contextvars.Context())

    def _snapshot(self, table: LiveTable, watch: _Watch, events: Sequence[Event]) -> None:
        match = table.match
        if match is None:
            return
        obs = table.observe(None)
        over = obs.phase is Phase.MATCH_OVER or not table.record.status.is_active
        for event in events:
            if isinstance(event, DealEnded) and hands_after_deal(table.rules):
                watch.hands_of = event.deal_number
        if over:
            watch.hands_of = obs.deal_number  # the last deal's, whatever the table deals
        if watch.hands_of is not None and (watch.ended is None or watch.ended.deal_number != watch.hands_of):
            watch.history, watch.seed = match.history, table.record.seed
        deal_events = tuple(table.deal_events)
        ended = any(isinstance(e, DealEnded) for e in deal_events)
        watch.view = SpectatorView(
            obs=obs,
            events=deal_events,
            match_events=match.events if ended else (),
            names=table.names(),
            rules=table.rules,
            ended=None,
            stopped=table.record.status is TableStatus.STOPPED,
        )

    async def _run(self, table: LiveTable, watch: _Watch) -> None:
        """Redraw while something changed, at most every ``interval`` seconds."""
        if await self._load(table.id, watch):  # a restart: the board names them again
            async with table.lock:
                if table.record.status.is_active:
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
                watch.watchers.setdefault(row.user_id, _Watcher(row.user_id, row.name, row.message_id))
            watch.loaded = True
            return bool(rows)

    async def _flush(self, table: LiveTable, watch: _Watch) -> bool:
        """Hand each spectator's newest look to the sender; True once watching has ended."""
        view = watch.view
        if view is None:
            return False
        if watch.hands_of is not None and (watch.ended is None or watch.ended.deal_number != watch.hands_of):
            watch.ended = await _hands(view.rules, watch.seed, watch.history, watch.hands_of)
        view = SpectatorView(
            view.obs, view.events, view.match_events, view.names, view.rules, watch.ended, view.stopped
        )
        over = view.obs.phase is Phase.MATCH_OVER or view.stopped
        for watcher in list(watch.watchers.values()):
            if watcher.locale is None:
                watcher.locale = await user_locale(self.db, watcher.user_id)
            self._show(table.id, watcher, spectator_text(view, watcher.locale), keep=not over)
        if over:
            await self.db.spectators.end(table_id=table.id)
        return over

    def _show(self, table_id: int, watcher: _Watcher, text: str, *, keep: bool) -> None:
        """Queue one look (``keep``: with its 停止观战 button); an unchanged one is not sent."""
        if text == watcher.shown:
            return
        watcher.shown = text
        locale = watcher.locale or "zh"
        markup = None
        if keep:
            press = Press(Area.WATCH, table_id, 0, 0, Op.UNWATCH)
            markup = Keys(((Key(_("Stop watching", locale), press.encode()),),))
        with at_priority(Priority.WATCH):
            self.sender.submit(
                ("watch", table_id, watcher.user_id), partial(self._deliver, table_id, watcher, text, markup)
            )

    async def _deliver(self, table_id: int, watcher: _Watcher, text: str, markup: Keys | None) -> None:
        """Edit the spectator's message; a new one when there is none (or it was deleted)."""
        chat_id = watcher.user_id
        try:
            if watcher.message_id is not None:
                try:
                    await edit_quietly(
                        self.bot,
                        "editMessageText",
                        chat_id=chat_id,
                        message_id=watcher.message_id,
                        text=text,
                        parse_mode=ParseMode.HTML,
                        reply_markup=markup.to_json() if markup is not None else None,
                    )
                    return
                except BadRequest as error:
                    if not_modified(error):
                        return
                    log.info("spectator message %s cannot be edited: %s", watcher.message_id, error)
            sent = await self.bot.send_message(
                chat_id,
                text,
                parse_mode=ParseMode.HTML,
                reply_markup=markup.to_markup() if markup is not None else None,
            )
        except Forbidden:  # blocked the bot: they watch no more
            await self._forget(table_id, watcher.user_id)
            return
        watcher.message_id = sent.message_id
        with contextlib.suppress(StorageUnavailable):
            await self.db.spectators.set_message(
                table_id=table_id, user_id=watcher.user_id, message_id=sent.message_id
            )

    async def _forget(self, table_id: int, user_id: int) -> None:
        watch = self._watches.get(table_id)
        if watch is not None:
            watch.watchers.pop(user_id, None)
        with contextlib.suppress(StorageUnavailable):
            await self.db.spectators.leave(table_id=table_id, user_id=user_id)

    # ------------------------------------------------------------ joining and leaving

    def watching(self, table_id: int, user_id: int) -> bool:
        watch = self._watches.get(table_id)
        return watch is not None and user_id in watch.watchers

    async def watch(self, table: LiveTable, user_id: int, name: str) -> TableRefusal | None:
        """``user_id`` starts watching (table lock held); a refusal when they may not."""
        if not table.rules.spectators:
            return TableRefusal.NO_SPECTATORS
        if table.match is None or table.match.is_over or table.record.status is not TableStatus.PLAYING:
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
            watch.watchers[user_id] = _Watcher(user_id, name, None)
        else:
            watcher.shown = None  # pressed again: show the look again (a deleted message comes back)
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
        self._show(table.id, watcher, _("👀 You stopped watching this table.", locale), keep=False)
        self.board.publish(table)
        return True

    async def close(self) -> None:
        for watch in self._watches.values():
            if watch.task is not None:
                watch.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watch.task


async def _hands(
    rules: Rules, seed: int, history: Sequence[tuple[int | None, Action]], deal: int
) -> EndedHands | None:
    """The hands of ``deal`` as dealt, from the match replayed in a worker thread (once a deal)."""
    deals = await asyncio.to_thread(review, rules, seed, history)
    found = next((d for d in deals if d.deal_number == deal), None)
    return EndedHands(deal, found.level, found.hands) if found is not None else None


# ---------------------------------------------------------------- the buttons


def desk_of(context: Context) -> SpectatorDesk:
    desk = context.services.spectators
    assert isinstance(desk, SpectatorDesk)
    return desk


async def on_watch_press(update: Update, context: Context) -> None:
    """观战 on the board, or 停止观战 on the spectator's message."""
    query = update.callback_query
    assert query is not None and query.data is not None
    locale = await user_locale(context.services.db, query.from_user.id)
    try:
        press = Press.decode(query.data)
        if press.area is not Area.WATCH or press.op not in (Op.WATCH, Op.UNWATCH):
            raise BadCallback(query.data)
        table = context.services.tables.get(press.table_id)
    except BadCallback:
        await refuse(query, TableRefusal.BAD_BUTTON, locale)
        return
    except TableError:
        await query.answer(_("This table has ended: its buttons no longer work.", locale))
        return
    chat = query.message.chat if query.message is not None else None
    if press.op is Op.UNWATCH:
        if chat is None or chat.id != query.from_user.id:  # a spectator's own message only
            await refuse(query, TableRefusal.BAD_BUTTON, locale)
            return
        async with table.lock:
            left = await desk_of(context).leave(table, query.from_user.id)
        if left:
            await query.answer(_("You stopped watching.", locale))
        else:
            await refuse(query, TableRefusal.NOT_WATCHING, locale)
        return
    if chat is None or chat.id != table.record.chat_id:  # the table's own board, in its group
        await refuse(query, TableRefusal.BAD_BUTTON, locale)
        return
    if not await _reachable(context.services.db, query.from_user.id):
        link = context.services.deep_link(WATCH_START + table.record.token)
        await query.answer(_("Open the private chat with the bot: you will watch there.", locale), url=link)
        return
    async with table.lock:
        refusal = await desk_of(context).watch(table, query.from_user.id, display_name(query.from_user))
    if refusal is not None:
        await refuse(query, refusal, locale)
        return
    await query.answer(_("Watching: follow the table in your private chat with the bot.", locale))


async def _reachable(db: Database, user_id: int) -> bool:
    try:
        return (await db.users.get(user_id=user_id)).reachable
    except NotFound:
        return False


async def on_start_watch(update: Update, context: Context) -> None:
    """``/start watch_<token>`` in the private chat: 观战 pressed before the chat was opened."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None and user is not None
    if chat.type != Chat.PRIVATE or not context.args:
        return
    services = context.services
    locale = await user_locale(services.db, user.id)
    try:
        await services.db.users.set_reachable(user_id=user.id, reachable=True)
        table = services.tables.by_token(context.args[0].removeprefix(WATCH_START))
        async with table.lock:
            refusal = await desk_of(context).watch(table, user.id, display_name(user))
    except TableError as error:
        refusal = error.code
    except StorageUnavailable:
        refusal = TableRefusal.NOT_SAVED
    if refusal is not None:
        with contextlib.suppress(TelegramError):
            await message.reply_text(error_text(refusal, locale))
