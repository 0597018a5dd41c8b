"""The lobby: /newgame, seat buttons, AI players, presets, start, /start <token>, /stop.

A bot may only message users who opened its private chat, so taking a seat first
checks that; if not, the press answers with the deep link ``t.me/<bot>?start=<token>``
and ``/start <token>`` in the private chat completes the join.
"""

from __future__ import annotations

import logging
from functools import partial

from telegram import (
    CallbackQuery,
    Chat,
    InlineKeyboardMarkup,
    MaybeInaccessibleMessage,
    Message,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ParseMode
from telegram.error import BadRequest, TelegramError

from app.table.callback_data import Area, BadCallback, Op, Press
from app.table.lifecycle import in_lobby, playing
from app.table.refusals import TableRefusal
from app.table.settings import SettingProblem, rules_from_args
from app.table.tables import Away, LiveTable, TableError, TablesFull
from app.table.texts import (
    _,
    back_note,
    busy_text,
    error_text,
    lobby_text,
    setting_problem_text,
    welcome_back_text,
)
from common.faults import StorageUnavailable
from engine.names import clean_name
from engine.rules import PRESETS
from handlers.platform.context import Context
from handlers.platform.edits import edit_later, not_modified
from handlers.platform.replies import answer
from handlers.platform.scheduler import Priority, at_priority
from handlers.table import flow, timers
from handlers.table.answers import refuse
from handlers.table.keyboards import lobby_keyboard, stop_keyboard
from players.policies import next_difficulty
from render.words import seat_name

log = logging.getLogger(__name__)

AI_NAMES = ("AI 甲", "AI 乙", "AI 丙", "AI 丁")


def display_name(user: User) -> str:
    """The name the bot stores and shows: bidi controls and zero-width characters removed."""
    return (clean_name(user.full_name or "").strip() or user.username or str(user.id))[:32]


async def is_manager(context: Context, table: LiveTable, user_id: int) -> bool:
    """The table's creator or an administrator of the group may start and stop it."""
    return user_id == table.record.creator_id or await is_group_admin(context, table.record.chat_id, user_id)


async def is_group_admin(context: Context, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


def lobby_view(context: Context, table: LiveTable, locale: str) -> tuple[str, InlineKeyboardMarkup]:
    names = table.names()
    text = lobby_text(names=names, preset=table.record.preset, rules=table.rules, locale=locale)
    headings = (heading(table, locale) for heading in context.services.tables.lobby_headings)
    text = "\n".join([*(line for line in headings if line), text])
    link = context.services.deep_link(table.record.token)
    levels = {seat: state.record.difficulty for seat, state in table.seats.items() if state.record.is_ai}
    keyboard = lobby_keyboard(
        table_id=table.id, names=names, deep_link=link, locale=locale, difficulties=levels
    )
    return text, keyboard


async def redraw_lobby(context: Context, table: LiveTable) -> None:
    """Queue an edit of the lobby message to the current seats (or to 'started' once playing).

    A refresh (scheduler priority): four quick taps on seats while the group's budget is short
    send the newest lobby once, not four edits in a row, and a look the message already shows
    is not sent again. Its delivery is not awaited: it waits for the group's budget, which a
    burst of commands can spend for a minute, and the caller holds the table lock, so every
    other press on the lobby (and the reply to ``/start``) would wait that long unanswered."""
    message_id = table.record.lobby_message_id
    if message_id is None:
        return
    chat_id = table.record.chat_id
    locale = await context.services.languages.of_chat(chat_id)

    async def edit() -> None:
        text, shown = _lobby_look(context, table, locale)  # the table as it is when the turn comes
        await _edit_lobby(context, table.id, (chat_id, message_id), text, shown)

    context.services.sender.submit(("lobby", table.id), edit)  # the mailbox logs a failure


def _lobby_look(context: Context, table: LiveTable, locale: str) -> tuple[str, InlineKeyboardMarkup | None]:
    """The lobby message as the table is now: its buttons while in the lobby; once it left the
    lobby, none, and a line saying the match started or the table closed."""
    text, markup = lobby_view(context, table, locale)
    if playing(table):
        text += "\n" + _("The match has started. Good luck!", locale)
    elif not in_lobby(table):
        text += "\n" + _("This table is closed.", locale)
    return text, markup if in_lobby(table) else None


async def _edit_lobby(
    context: Context, table_id: int, message: tuple[int, int], text: str, shown: InlineKeyboardMarkup | None
) -> None:
    """Edit the lobby ``message`` (chat, message id) to this look, unless it shows it already."""
    chat_id, message_id = message
    look = hash((text, shown.to_json() if shown is not None else ""))
    looks = context.services.shown_looks
    if looks.get(message) == look:
        return
    with at_priority(Priority.REFRESH):
        try:
            await context.bot.edit_message_text(
                text,
                chat_id=chat_id,
                message_id=message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=shown,
            )
        except BadRequest as error:
            if not not_modified(error):
                log.warning("lobby of table %s not updated: %s", table_id, error)
                return
    if len(looks) > 10_000:
        looks.clear()  # a cache: an unchanged edit after this is answered "not modified"
    looks[message] = look


# ---------------------------------------------------------------- commands


async def new_game(update: Update, context: Context) -> None:
    """/newgame [preset] [setting=value …]: open a table in this group."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None and user is not None
    locale = await context.services.languages.of_chat(chat.id)
    if chat.type == Chat.PRIVATE:
        context.services.replies.reply(message, error_text(TableRefusal.GROUP_ONLY, locale), locale)
        return
    try:
        preset, rules = rules_from_args(context.args or [])
        table = await context.services.tables.create(
            chat_id=chat.id, creator_id=user.id, preset=preset, rules=rules
        )
    except SettingProblem as problem:
        context.services.replies.reply(message, setting_problem_text(problem, locale), locale)
        return
    except TablesFull as full:
        context.services.replies.reply(message, busy_text(full.open_tables, locale), locale)
        return
    except TableError as error:
        context.services.replies.reply(message, error_text(error.code, locale), locale)
        return
    except StorageUnavailable:
        context.services.replies.reply(message, error_text(TableRefusal.NOT_SAVED, locale), locale)
        return
    queue_lobby(context, table, message, locale)


def queue_lobby(
    context: Context, table: LiveTable, message: MaybeInaccessibleMessage, locale: str, *, quote: bool = True
) -> None:
    """Post a new table's lobby in ``message``'s chat (as a reply to it if ``quote``) by the
    chat's reply queue, when the group's quota allows: owed, never coalesced. A lobby Telegram
    refuses closes its table: nobody could see or stop it."""
    text, markup = lobby_view(context, table, locale)

    async def send_lobby() -> None:
        try:
            sent = await context.bot.send_message(
                message.chat.id,
                text,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                reply_to_message_id=message.message_id if quote else None,
            )
        except BaseException:
            async with table.lock:
                await context.services.tables.stop(table)
            raise
        await context.services.tables.set_lobby_message(table, sent.message_id)

    context.services.replies.send(message, text, send_lobby, locale, owed=True)


async def start(update: Update, context: Context) -> None:
    """/start [token] in the private chat: the bot may now message you; join a table."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None and user is not None
    if chat.type != Chat.PRIVATE:
        return
    services = context.services
    locale = await context.services.languages.of_user(user.id)
    try:
        await services.reach.mark(user.id, reachable=True)
    except StorageUnavailable:
        await message.reply_text(error_text(TableRefusal.NOT_SAVED, locale))
        return
    if not context.args:
        playing = any(table.match is not None for table, _seat in services.tables.tables_of_user(user.id))
        hello = _("Hello! Add me to a group and send /newgame there. /help explains more.", locale)
        await message.reply_text(welcome_back_text(locale) if playing else hello)
        await welcome_back(context, user.id)
        return
    seat = await _join(context, message, user, context.args[0], locale)
    if seat is not None:
        await message.reply_text(
            _(
                "You are seated: {seat}. The match starts when the table is full.",
                locale,
                seat=seat_name(seat, locale),
            )
        )


async def _join(context: Context, message: Message, user: User, token: str, locale: str) -> int | None:
    """/start <token>: take the seat pressed in the group (or another free one) at the token's
    table; the seat taken, or None once a refusal is answered (a seat that could not be stored
    is asked for again by the next /start)."""
    tables = context.services.tables
    try:
        table = tables.by_token(token)
    except TableError as error:
        await message.reply_text(error_text(error.code, locale))
        return None
    async with table.lock:
        wanted = tables.pending_seats.pop((table.id, user.id), None)
        try:
            seat = await tables.take_seat(
                table,
                seat=wanted if wanted not in table.seats else None,
                user_id=user.id,
                name=display_name(user),
                locale=locale,
            )
        except TableError as error:
            await message.reply_text(error_text(error.code, locale))
            return None
        except StorageUnavailable:
            tables.pending_seats[(table.id, user.id)] = wanted
            await message.reply_text(error_text(TableRefusal.NOT_SAVED, locale))
            return None
        await redraw_lobby(context, table)
    return seat


async def welcome_back(context: Context, user_id: int, *, rejoined: int | None = None) -> int:
    """``/start`` again: each of the user's matches sends the hand again, in a new message (the
    old one may be far up the chat, or gone with a block); ``rejoined`` (a group id): only that
    group's match, and only if the player was away for having left it (both the service message
    and the ``chat_member`` update say so: the hand comes once). 托管 stays on; the caption says
    how to end it. Returns how many hands were sent."""
    services = context.services
    count = 0
    for table, seat in services.tables.tables_of_user(user_id):
        if table.match is None or table.match.is_over:
            continue
        if rejoined is not None and table.record.chat_id != rejoined:
            continue
        async with table.lock:
            state = table.seats[seat]
            if rejoined is not None and services.tables.away.get((table.id, seat)) is not Away.LEFT:
                continue
            state.message.lost_message = True
            if services.tables.come_back(table, seat):
                state.message.note = back_note(await services.languages.of_user(user_id))
            await flow.refresh_hand_of(context, table, seat)
        count += 1
    return count


async def stop(update: Update, context: Context) -> None:
    """/stop: ask for confirmation before ending the group's table."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None and user is not None
    locale = await context.services.languages.of_chat(chat.id)
    try:
        table = context.services.tables.in_chat(chat.id)
    except TableError as error:
        context.services.replies.reply(message, error_text(error.code, locale), locale)
        return
    if not await is_manager(context, table, user.id):
        context.services.replies.reply(message, error_text(TableRefusal.NOT_ALLOWED, locale), locale)
        return
    context.services.replies.reply(
        message,
        _("Stop this table for everyone?", locale),
        locale,
        reply_markup=stop_keyboard(table_id=table.id, version=table.version, locale=locale),
    )


# ---------------------------------------------------------------- buttons


async def on_lobby_press(update: Update, context: Context) -> None:
    """A button of the lobby message or of the /stop confirmation."""
    query = update.callback_query
    assert query is not None and query.data is not None and query.message is not None
    locale = await context.services.languages.of_chat(query.message.chat.id)
    try:
        press = Press.decode(query.data)
        table = context.services.tables.get(press.table_id)
    except BadCallback:
        await refuse(query, TableRefusal.BAD_BUTTON, locale)
        return
    except TableError as error:
        await refuse(query, error.code, locale)
        return
    if table.record.chat_id != query.message.chat.id:
        await refuse(query, TableRefusal.BAD_BUTTON, locale)
        return
    async with table.lock:
        try:
            if press.area is Area.STOP:
                await _stop_press(query, context, table, press, locale)
            else:
                await _lobby_press(query, context, table, press, locale)
        except TableError as error:
            await refuse(query, error.code, locale)
        except StorageUnavailable as error:  # nothing of this press was stored: press again
            log.warning("lobby press at table %s not saved: %s", table.id, error)
            await refuse(query, TableRefusal.NOT_SAVED, locale)


async def _lobby_press(
    query: CallbackQuery, context: Context, table: LiveTable, press: Press, locale: str
) -> None:
    services, user = context.services, query.from_user
    if press.op is Op.SIT and press.arg is not None and 0 <= press.arg < 4:
        if not await _take(query, context, table, press.arg, locale):
            return
    elif press.op is Op.ADD_AI:
        free = table.free_seats()
        if not free:
            raise TableError(TableRefusal.TABLE_FULL)
        await services.tables.add_ai(table, seat=free[0], name=AI_NAMES[free[0]])
    elif press.op is Op.DIFFICULTY and press.arg in table.seats:
        following = next_difficulty(table.seats[press.arg].record.difficulty)
        await services.tables.set_difficulty(table, seat=press.arg, difficulty=following)
    elif press.op is Op.LEAVE:
        seat = table.seat_of(user.id)
        if seat is None:
            raise TableError(TableRefusal.NOT_SEATED)
        await services.tables.leave(table, seat=seat)
    elif press.op is Op.PRESET:
        if not await is_manager(context, table, user.id):
            raise TableError(TableRefusal.NOT_ALLOWED)
        name = _next_preset(table.record.preset)
        await services.tables.set_rules(table, preset=name, rules=PRESETS[name].rules)
    elif press.op is Op.START:
        await _start(query, context, table, locale)
        return
    else:
        raise TableError(TableRefusal.BAD_BUTTON)
    await answer(query)
    await redraw_lobby(context, table)


async def _take(query: CallbackQuery, context: Context, table: LiveTable, seat: int, locale: str) -> bool:
    """Sit (or leave one's own seat, or replace an AI); needs the private chat opened."""
    services, user = context.services, query.from_user
    occupant = table.seats.get(seat)
    if occupant is not None and occupant.record.user_id == user.id:
        await services.tables.leave(table, seat=seat)
        return True
    if occupant is not None and not occupant.record.is_ai:
        raise TableError(TableRefusal.SEAT_TAKEN)
    services.tables.check_reserved(table, user.id)
    if not await services.reach.reachable(
        user.id
    ):  # the app opens the private chat at once; its Start button seats the player
        services.tables.pending_seats[(table.id, user.id)] = seat
        await answer(
            query, error_text(TableRefusal.OPEN_PRIVATE, locale), url=services.deep_link(table.record.token)
        )
        return False
    if occupant is not None:
        await services.tables.leave(table, seat=seat)
    await services.tables.take_seat(
        table,
        seat=seat,
        user_id=user.id,
        name=display_name(user),
        locale=await services.languages.of_user(user.id),
    )
    return True


async def _start(query: CallbackQuery, context: Context, table: LiveTable, locale: str) -> None:
    if not await is_manager(context, table, query.from_user.id):
        raise TableError(TableRefusal.NOT_ALLOWED)
    outcome = await context.services.tables.start(table)
    await answer(query)
    await redraw_lobby(context, table)
    await flow.show_in(context, table, outcome)


def _next_preset(current: str) -> str:
    names = list(PRESETS)
    return names[(names.index(current) + 1) % len(names)] if current in names else names[0]


async def _stop_press(
    query: CallbackQuery, context: Context, table: LiveTable, press: Press, locale: str
) -> None:
    if not await _may_answer_stop(query, context, table):
        raise TableError(TableRefusal.NOT_ALLOWED)
    if press.op is Op.CANCEL:
        await answer(query)
        _queue_stop_message(context, query, _("The match goes on.", locale))
        return
    await context.services.tables.stop(table)
    if context.job_queue is not None:
        timers.cancel(context.job_queue, table.id)
    stopped = _("The table was stopped.", locale)
    await answer(query, stopped)
    await flow.close_table(context, table)
    _queue_stop_message(context, query, stopped)
    await redraw_lobby(context, table)


async def _may_answer_stop(query: CallbackQuery, context: Context, table: LiveTable) -> bool:
    """Either button of a /stop confirmation: whoever asked, the creator or a group admin."""
    asked = query.message.reply_to_message if isinstance(query.message, Message) else None
    if asked is not None and asked.from_user is not None and asked.from_user.id == query.from_user.id:
        return True
    return await is_manager(context, table, query.from_user.id)


async def _edit_stop_message(query: CallbackQuery, text: str) -> None:
    try:
        await query.edit_message_text(text)
    except BadRequest as error:
        log.info("stop confirmation not edited: %s", error)


def _queue_stop_message(context: Context, query: CallbackQuery, text: str) -> None:
    """The confirmation's answer (本桌已结束, or the match goes on), at a reply's priority: the
    handler holds the table lock, and the hand messages go first (:func:`flow.close_table`)."""
    edit_later(
        context.services.sender, query.message, partial(_edit_stop_message, query, text), Priority.REPLY
    )
