"""观战: group members who are not seated follow a running table in their private chat.

The board (the group's message of a running table) carries a 观战 button. A member who
presses it gets one private message, edited as the table plays: what the board shows (plays,
counts as the table's 报牌 rule shows them, who finished, the levels), and the hands of a deal
only once that deal is over (:mod:`app.table.watching`). Every look is built from the public
observation (``observe(match, None)``), never from a seat's: a spectator cannot see a hand in
play, and no button of theirs changes the game (a hand button refuses anyone not seated).

Spectators cost the token little. Each one has one message a deal (its last look adds the
deal's places and hands; the next deal's plays go to a new one), and a table's spectators are
redrawn together at most every ``interval`` seconds from the latest public state, like the
board; each edit goes through the per-message sender (a queued look is replaced by a newer
one, never sent after it) at the scheduler's lowest priority (``Priority.WATCH``), so it
waits behind every player's hand, board and announcement. A table nobody watches costs a
dictionary look-up per change.

Who watches what, with the message to edit, is stored (``storage/spectators.py``): after a
restart the first change of a table loads its spectators and edits their messages again.
Watching ends with the match (or /stop): the last look says so and the rows are deleted.

Where the table allows it (``watch_hand=on``, ``Rules.spectators_follow_hands``), the
spectator's message carries a button per seat: a spectator may follow one seat's hand a trick
behind. Each change takes, under the table lock, the followed seats' hands as they were when
the trick in play began (:func:`app.table.watching.hand_before_trick`), never as they are; the
board names the seats followed, so the players know.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from telegram import CallbackQuery, Chat, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import ExtBot

from app.table.callback_data import Area, BadCallback, Op, Press
from app.table.refusals import TableRefusal
from app.table.results import deal_events
from app.table.tables import LiveTable, TableError
from app.table.texts import _, error_text, who
from app.table.watching import (
    MAX_SPECTATORS,
    EndedHands,
    SpectatorView,
    hand_before_trick,
    hands_after_deal,
    spectator_text,
    watchers_line,
)
from app.tasks import Tasks
from engine.actions import Action, DealEnded, Event, Phase
from engine.review import review
from engine.rules import Rules
from handlers.platform.context import Board, Context
from handlers.platform.edits import edit_quietly, not_modified
from handlers.platform.locales import user_locale
from handlers.platform.replies import answer, refuse
from handlers.platform.scheduler import Priority, at_priority
from handlers.platform.sender import LatestWins
from handlers.table.keyboards import Key, Keys
from handlers.table.lobby import display_name
from render.words import seat_name
from storage import Database, NotFound, StorageUnavailable, TableStatus

log = logging.getLogger(__name__)

WATCH_START = "watch_"
"""``/start watch_<table token>``: the deep link a member who never opened the private chat
is sent to by 观战; the private chat's Start button then begins watching."""


@dataclass
class _Watcher:
    user_id: int
    name: str
    messages: dict[int, int] = field(default_factory=dict)  # deal → its message (the latest two)
    locale: str | None = None  # read once, at the first look
    shown: dict[int, str] = field(default_factory=dict)  # deal → the look last handed to the sender
    seat: int | None = None  # the seat whose hand they follow a trick behind (watch_hand=on)


@dataclass
class _Watch:
    """One table's spectators and the public state they are shown next."""

    watchers: dict[int, _Watcher] = field(default_factory=dict)
    loaded: bool = False  # the stored spectators were read (once a run)
    loading: asyncio.Lock = field(default_factory=asyncio.Lock)
    closing: list[SpectatorView] = field(default_factory=list)  # deals that ended, their last look owed
    view: SpectatorView | None = None  # the deal in play
    history: tuple[tuple[int | None, Action], ...] = ()  # to deal a finished deal's hands again
    seed: int = 0
    hands: dict[int, EndedHands] = field(default_factory=dict)  # finished deals' hands, dealt again
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
        seats = self.followed(table.id) if table.rules.spectators_follow_hands else []
        names = table.names()
        line = watchers_line(
            self.names(table.id), locale, [who(seat, names.get(seat, ""), locale) for seat in seats]
        )
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
        elif watch.loaded and not watch.watchers:  # nobody watches
            if table.match is None or table.match.is_over or not table.record.status.is_active:
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
        obs, names, stopped = table.observe(None), table.names(), table.record.status is TableStatus.STOPPED
        live = tuple(table.deal_events)
        ended = [e for e in events if isinstance(e, DealEnded)]
        if ended or obs.phase is Phase.MATCH_OVER or stopped:
            watch.history, watch.seed = match.history, table.record.seed  # to deal their hands again
            every = match.events
        else:
            every = ()
        for result in ended:
            if not any(isinstance(e, DealEnded) and e.deal_number == result.deal_number for e in live):
                closed = tuple(deal_events(every, result.deal_number))
                watch.closing.append(SpectatorView(obs, closed, every, names, table.rules))
        followed = self.followed(table.id) if table.rules.spectators_follow_hands and not stopped else []
        hands = (hand_before_trick(table.observe(seat)) for seat in followed)
        watch.view = SpectatorView(
            obs, live, every, names, table.rules, stopped=stopped, followed=tuple(h for h in hands if h)
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
                messages = {row.deal: row.message_id} if row.deal is not None and row.message_id else {}
                watcher = _Watcher(row.user_id, row.name, messages, seat=row.seat)
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
                markup = (
                    spectator_keyboard(table.id, watcher.seat, watcher.locale, seats=seats) if keep else None
                )
                self._show(table.id, watcher, shown.deal_number, text, markup)
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

    def _show(self, table_id: int, watcher: _Watcher, deal: int, text: str, markup: Keys | None) -> None:
        """Queue one look of a deal's message (the deal in play keeps its buttons); an unchanged
        one is not sent. Each deal's message has its own mailbox: a deal's last look is never
        replaced by the next deal's first."""
        look = text + (markup.to_json() if markup is not None else "")
        if watcher.shown.get(deal) == look:
            return
        watcher.shown = {d: t for d, t in watcher.shown.items() if d >= deal - 1} | {deal: look}
        # The first look answers the 观战 press, which the spectator waits for; later ones yield
        first = not watcher.messages
        with at_priority(Priority.REPLY if first else Priority.WATCH):
            deliver = partial(self._deliver, table_id, watcher, deal, text, markup)
            self.sender.submit(("watch", table_id, watcher.user_id, deal), deliver)

    async def _deliver(
        self, table_id: int, watcher: _Watcher, deal: int, text: str, markup: Keys | None
    ) -> None:
        """Edit the deal's message; a new one when it has none yet (or it was deleted)."""
        chat_id = watcher.user_id
        message_id = watcher.messages.get(deal)
        try:
            if message_id is not None:
                try:
                    await edit_quietly(
                        self.bot,
                        "editMessageText",
                        chat_id=chat_id,
                        message_id=message_id,
                        text=text,
                        parse_mode=ParseMode.HTML,
                        reply_markup=markup.to_json() if markup is not None else None,
                    )
                    return
                except BadRequest as error:
                    if not_modified(error):
                        return
                    log.info("spectator message %s cannot be edited: %s", message_id, error)
            sent = await self.bot.send_message(
                chat_id,
                text,
                parse_mode=ParseMode.HTML,
                reply_markup=markup.to_markup() if markup is not None else None,
            )
        except Forbidden:  # blocked the bot: they watch no more
            await self._forget(table_id, watcher.user_id)
            return
        watcher.messages = {d: m for d, m in watcher.messages.items() if d >= deal - 1} | {
            deal: sent.message_id
        }
        if deal == max(watcher.messages):
            with contextlib.suppress(StorageUnavailable):
                await self.db.spectators.set_message(
                    table_id=table_id, user_id=watcher.user_id, message_id=sent.message_id, deal=deal
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
            watch.watchers[user_id] = _Watcher(user_id, name)
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


def spectator_keyboard(table_id: int, followed: int | None, locale: str, *, seats: bool) -> Keys:
    """The buttons of the deal in play's message: with ``seats`` (the table allows it) a seat's
    hand to follow, ✓ on the one ``followed``; and 停止观战."""
    rows: list[tuple[Key, ...]] = []
    if seats:
        keys = []
        for seat in range(4):
            label = ("✓" if followed == seat else "👁") + seat_name(seat, locale)
            keys.append(Key(label, Press(Area.WATCH, table_id, 0, 0, Op.FOLLOW, seat).encode()))
        rows.append(tuple(keys))
    stop = Press(Area.WATCH, table_id, 0, 0, Op.UNWATCH)
    rows.append((Key(_("Stop watching", locale), stop.encode()),))
    return Keys(tuple(rows))


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
    """观战 on the board, or 停止观战 or a seat's hand on the spectator's message."""
    query = update.callback_query
    assert query is not None and query.data is not None
    locale = await user_locale(context.services.db, query.from_user.id)
    try:
        press = Press.decode(query.data)
        if press.area is not Area.WATCH or press.op not in (Op.WATCH, Op.UNWATCH, Op.FOLLOW):
            raise BadCallback(query.data)
        if (press.op is Op.FOLLOW) != (press.arg is not None) or press.count is not None:
            raise BadCallback(query.data)
        if press.arg is not None and press.arg > 3:
            raise BadCallback(query.data)
        table = context.services.tables.get(press.table_id)
    except BadCallback:
        await refuse(query, TableRefusal.BAD_BUTTON, locale)
        return
    except TableError:
        await answer(query, _("This table has ended: its buttons no longer work.", locale))
        return
    chat = query.message.chat if query.message is not None else None
    if press.op is Op.FOLLOW:
        await _follow(query, context, table, press.arg, locale)
        return
    if press.op is Op.UNWATCH:
        if chat is None or chat.id != query.from_user.id:  # a spectator's own message only
            await refuse(query, TableRefusal.BAD_BUTTON, locale)
            return
        async with table.lock:
            left = await desk_of(context).leave(table, query.from_user.id)
        if left:
            await answer(query, _("You stopped watching.", locale))
        else:
            await refuse(query, TableRefusal.NOT_WATCHING, locale)
        return
    if chat is None or chat.id != table.record.chat_id:  # the table's own board, in its group
        await refuse(query, TableRefusal.BAD_BUTTON, locale)
        return
    if not await _reachable(context.services.db, query.from_user.id):
        link = context.services.deep_link(WATCH_START + table.record.token)
        await answer(query, _("Open the private chat with the bot: you will watch there.", locale), url=link)
        return
    async with table.lock:
        refusal = await desk_of(context).watch(table, query.from_user.id, display_name(query.from_user))
    if refusal is not None:
        await refuse(query, refusal, locale)
        return
    await answer(query, _("Watching: follow the table in your private chat with the bot.", locale))


async def _follow(
    query: CallbackQuery, context: Context, table: LiveTable, seat: int | None, locale: str
) -> None:
    """A seat's button on the spectator's own message: follow that seat's hand a trick behind."""
    assert seat is not None
    chat = query.message.chat if query.message is not None else None
    if chat is None or chat.id != query.from_user.id:  # a spectator's own message only
        await refuse(query, TableRefusal.BAD_BUTTON, locale)
        return
    async with table.lock:
        outcome = await desk_of(context).follow(table, query.from_user.id, seat)
        name = table.names().get(seat, "")
    if isinstance(outcome, TableRefusal):
        await refuse(query, outcome, locale)
    elif outcome is None:
        await answer(query, _("You no longer follow a hand.", locale))
    else:
        await answer(
            query, _("Following {seat}'s hand a trick behind.", locale, seat=who(seat, name, locale))
        )


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
