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

Who watches what, what each is shown next and when is the application's
(:mod:`app.table.spectators`, which stores the spectators and their messages for a restart);
here are the buttons and the sending.

Where the table allows it (``watch_hand=on``, ``Rules.spectators_follow_hands``), the
spectator's message carries a button per seat: a spectator may follow one seat's hand a trick
behind. Each change takes, under the table lock, the followed seats' hands as they were when
the trick in play began (:func:`app.table.watching.hand_before_trick`), never as they are; the
board names the seats followed, so the players know.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from functools import partial

from telegram import CallbackQuery, Chat, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import ExtBot

from app.table.callback_data import Area, BadCallback, Op, Press
from app.table.refusals import TableRefusal
from app.table.spectators import Look, Spectators
from app.table.tables import LiveTable, TableError
from app.table.texts import _, error_text, who
from app.table.watching import watchers_line
from common.faults import StorageUnavailable
from handlers.platform.context import Context
from handlers.platform.edits import edit_quietly, not_modified
from handlers.platform.replies import answer
from handlers.platform.scheduler import Priority, at_priority
from handlers.platform.sender import LatestWins
from handlers.table.answers import refuse
from handlers.table.keyboards import Key, Keys
from handlers.table.lobby import display_name
from render.words import seat_name

log = logging.getLogger(__name__)

WATCH_START = "watch_"
"""``/start watch_<table token>``: the deep link a member who never opened the private chat
is sent to by 观战; the private chat's Start button then begins watching."""


class SpectatorDesk:
    """Sends the looks 观战 hands it (:class:`app.table.spectators.Spectators`) to spectators'
    private chats: one message a deal, edited in place."""

    def __init__(self, bot: ExtBot[None], sender: LatestWins, spectators: Spectators) -> None:
        self.bot = bot
        self.sender = sender
        self.spectators = spectators
        self.web_app: Callable[[int], str] | None = None
        """A table's Mini App address (set by ``handlers/table/miniapp.py``): 观战 there too."""
        spectators.screen = self

    def board_extras(self, table: LiveTable, locale: str) -> tuple[str, Keys | None]:
        """The board's 👀 line and its 观战 button (none once the match is over, or when the
        table takes no spectators)."""
        if not self.spectators.open_to_watch(table):
            return "", None
        seats = self.spectators.followed(table.id) if table.rules.spectators_follow_hands else []
        names = table.names()
        line = watchers_line(
            self.spectators.names(table.id),
            locale,
            [who(seat, names.get(seat, ""), locale) for seat in seats],
        )
        press = Press(Area.WATCH, table.id, 0, 0, Op.WATCH)
        return ("\n" + line if line else ""), Keys(((Key(_("👀 Watch", locale), press.encode()),),))

    def show(self, look: Look) -> None:
        """Queue one look of a deal's message (the deal in play keeps its buttons). Each deal's
        message has its own mailbox: a deal's last look is never replaced by the next deal's first."""
        buttons = look.buttons
        markup = (
            spectator_keyboard(
                look.table_id,
                buttons.followed,
                buttons.locale,
                seats=buttons.seats,
                web_app=self.web_app(look.table_id) if self.web_app is not None else None,
            )
            if buttons is not None
            else None
        )
        # The first look answers the 观战 press, which the spectator waits for; later ones yield
        with at_priority(Priority.REPLY if look.first else Priority.WATCH):
            key = ("watch", look.table_id, look.watcher.user_id, look.deal)
            self.sender.submit(key, partial(self._deliver, look, markup))

    async def _deliver(self, look: Look, markup: Keys | None) -> None:
        """Edit the deal's message; a new one when it has none yet (or it was deleted)."""
        chat_id = look.watcher.user_id
        message_id = look.watcher.messages.get(look.deal)
        try:
            if message_id is not None:
                try:
                    await edit_quietly(
                        self.bot,
                        "editMessageText",
                        chat_id=chat_id,
                        message_id=message_id,
                        text=look.text,
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
                look.text,
                parse_mode=ParseMode.HTML,
                reply_markup=markup.to_markup() if markup is not None else None,
            )
        except Forbidden:  # blocked the bot: they watch no more
            await self.spectators.forget(look.table_id, chat_id)
            return
        await self.spectators.delivered(look, sent.message_id)


def spectator_keyboard(
    table_id: int, followed: int | None, locale: str, *, seats: bool, web_app: str | None = None
) -> Keys:
    """The buttons of the deal in play's message: with ``seats`` (the table allows it) a seat's
    hand to follow, ✓ on the one ``followed``; with ``web_app`` the table's 观战 in the Mini App
    (a web_app button: private chats only, as this message is); and 停止观战."""
    rows: list[tuple[Key, ...]] = []
    if seats:
        keys = []
        for seat in range(4):
            label = ("✓" if followed == seat else "👁") + seat_name(seat, locale)
            keys.append(Key(label, Press(Area.WATCH, table_id, 0, 0, Op.FOLLOW, seat).encode()))
        rows.append(tuple(keys))
    if web_app is not None:
        rows.append((Key(_("🃏 Watch in the Mini App", locale), "", web_app=web_app),))
    stop = Press(Area.WATCH, table_id, 0, 0, Op.UNWATCH)
    rows.append((Key(_("Stop watching", locale), stop.encode()),))
    return Keys(tuple(rows))


# ---------------------------------------------------------------- the buttons


def desk_of(context: Context) -> Spectators:
    desk = context.services.spectators
    assert isinstance(desk, Spectators)
    return desk


async def on_watch_press(update: Update, context: Context) -> None:
    """观战 on the board, or 停止观战 or a seat's hand on the spectator's message."""
    query = update.callback_query
    assert query is not None and query.data is not None
    locale = await context.services.languages.of_user(query.from_user.id)
    try:
        press = _watch_press(query.data)
        table = context.services.tables.get(press.table_id)
    except BadCallback:
        await refuse(query, TableRefusal.BAD_BUTTON, locale)
        return
    except TableError:
        await answer(query, _("This table has ended: its buttons no longer work.", locale))
        return
    if press.op is Op.FOLLOW:
        await _follow(query, context, table, press.arg, locale)
    elif press.op is Op.UNWATCH:
        await _unwatch(query, context, table, locale)
    else:
        await _watch(query, context, table, locale)


def _watch_press(data: str) -> Press:
    """A 观战 button's press: 观战, 停止观战, or a seat (0–3) to follow; :class:`BadCallback` else."""
    press = Press.decode(data)
    if press.area is not Area.WATCH or press.op not in (Op.WATCH, Op.UNWATCH, Op.FOLLOW):
        raise BadCallback(data)
    if (press.op is Op.FOLLOW) != (press.arg is not None) or press.count is not None:
        raise BadCallback(data)
    if press.arg is not None and press.arg > 3:
        raise BadCallback(data)
    return press


async def _unwatch(query: CallbackQuery, context: Context, table: LiveTable, locale: str) -> None:
    """停止观战 on the spectator's own message."""
    chat = query.message.chat if query.message is not None else None
    if chat is None or chat.id != query.from_user.id:  # a spectator's own message only
        await refuse(query, TableRefusal.BAD_BUTTON, locale)
        return
    async with table.lock:
        left = await desk_of(context).leave(table, query.from_user.id)
    if left:
        await answer(query, _("You stopped watching.", locale))
    else:
        await refuse(query, TableRefusal.NOT_WATCHING, locale)


async def _watch(query: CallbackQuery, context: Context, table: LiveTable, locale: str) -> None:
    """观战 on the table's board: the presser watches in their private chat, once they opened it."""
    chat = query.message.chat if query.message is not None else None
    if chat is None or chat.id != table.record.chat_id:  # the table's own board, in its group
        await refuse(query, TableRefusal.BAD_BUTTON, locale)
        return
    if not await context.services.reach.reachable(query.from_user.id):
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


async def on_start_watch(update: Update, context: Context) -> None:
    """``/start watch_<token>`` in the private chat: 观战 pressed before the chat was opened."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None and user is not None
    if chat.type != Chat.PRIVATE or not context.args:
        return
    services = context.services
    locale = await services.languages.of_user(user.id)
    try:
        await services.reach.mark(user.id, reachable=True)
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
