"""/stats, /top, /history, /forgetme and the records' buttons (复盘 ◀ ▶, 点评, 导出, older matches).

Thin: every figure comes from :class:`app.records.players.PlayerRecords` (one indexed query
each), every replay from :class:`app.records.replays.Replays`, every sentence
from :mod:`app.records.texts`, every picture from :mod:`render.records`
(drawn in the render pool). A refusal is a :class:`Refusal` answered in the reader's language.
"""

from __future__ import annotations

import contextlib
import io
import logging

from telegram import (
    CallbackQuery,
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    InputMediaPhoto,
    Message,
    MessageEntity,
    Update,
    User,
)
from telegram.constants import ParseMode
from telegram.error import Forbidden, TelegramError

from app.records import callback_data, texts, views
from app.records.callback_data import BadRecordButton, RecordOp, RecordPress
from app.records.desk import RecordDesk
from app.records.replays import MatchGone, NextDealDealtFromIt, NotEnded, NotSeated, StoredMatch
from app.records.texts import Refusal, refusal_text
from app.table.refusals import TableRefusal
from app.table.texts import error_text, escape
from handlers.platform.context import Context, Services
from handlers.platform.edits import already_shown_is_done, edit_later
from handlers.platform.locales import reply_locale
from handlers.platform.replies import answer
from handlers.platform.scheduler import Priority
from players.coach import Coaching
from render.records import render_review, render_stats_card
from render.words import is_english

HISTORY_SIZE = 5  # matches per /history page: five lines and ten buttons fit a phone screen
TOP_SIZE = 20

log = logging.getLogger(__name__)


def desk_of(services: Services) -> RecordDesk:
    if services.records is None:
        raise RuntimeError("the record desk is opened in post_init")
    return services.records


# ---------------------------------------------------------------- who is who


async def note_sender(update: Update, context: Context) -> None:
    """Every command: remember the sender's @username and name, so /stats @name finds them."""
    user = update.effective_user
    if user is None or user.is_bot:
        return
    await desk_of(context.services).players.note(user.id, user.username, user.full_name)


async def _target(message: Message, context: Context, chat: Chat) -> tuple[int, str] | str:
    """Whose record /stats shows: a reply's author, a mention, @username, a name, or the sender.
    Returns (user id, name), or what was asked for when nobody matches."""
    players = desk_of(context.services).players
    if message.reply_to_message is not None and message.reply_to_message.from_user is not None:
        author = message.reply_to_message.from_user
        return author.id, author.full_name
    for entity in message.entities:
        if entity.type == MessageEntity.TEXT_MENTION and entity.user is not None:
            return entity.user.id, entity.user.full_name
    asked = " ".join(context.args or []).strip()
    if not asked:
        user = message.from_user
        assert user is not None
        return user.id, user.full_name
    if asked.startswith("@"):
        known = await players.by_username(asked[1:])
        return known if known is not None else asked
    found = await players.named(chat.id, asked) if chat.type != Chat.PRIVATE else []
    return (found[0], asked) if found else asked


# ---------------------------------------------------------------- /stats


async def stats_command(update: Update, context: Context) -> None:
    """/stats [@user]: a player's record in this group and everywhere, with the 战绩 card."""
    message, chat = update.effective_message, update.effective_chat
    assert message is not None and chat is not None
    services = context.services
    locale = await reply_locale(services.languages, chat)
    target = await _target(message, context, chat)
    if isinstance(target, str):
        text = refusal_text(Refusal.NO_RECORD, locale, who=escape(target[:64]))
        services.replies.reply(message, text, locale, parse_mode=ParseMode.HTML)
        return
    user_id, asked_name = target
    group = chat.type != Chat.PRIVATE
    stats = await desk_of(services).players.stats(user_id, chat.id if group else None)
    if stats is None:
        text = refusal_text(Refusal.NO_RECORD, locale, who=escape(asked_name[:64]))
        services.replies.reply(message, text, locale, parse_mode=ParseMode.HTML)
        return
    name, everywhere, here = stats.name, stats.everywhere, stats.here
    lines = [texts.contest_record_line(c, r, locale) for c, r in stats.contests]
    caption = texts.stats_caption(name, here, everywhere, stats.place, lines, locale)
    shown = here if here is not None and here.matches else everywhere
    scope = texts.scope_text(group and shown is here, locale)
    png = await services.draw(render_stats_card, views.stats_card(name, shown, scope, locale))

    async def send() -> None:
        await message.reply_photo(png, caption=caption, parse_mode=ParseMode.HTML)

    services.replies.send(message, caption, send, locale)


# ---------------------------------------------------------------- /top


async def top_command(update: Update, context: Context) -> None:
    """/top: the group's ranking by skill rating (people only; computer players apart)."""
    message, chat = update.effective_message, update.effective_chat
    assert message is not None and chat is not None
    services = context.services
    locale = await reply_locale(services.languages, chat)
    if chat.type == Chat.PRIVATE:
        services.replies.reply(message, texts.group_only_text(locale), locale)
        return
    ranking = await desk_of(services).players.ranking(chat.id, TOP_SIZE)
    if ranking is None:
        services.replies.reply(message, refusal_text(Refusal.NO_MATCHES, locale), locale)
        return
    text = texts.top_text(list(ranking.people), list(ranking.computers), locale)
    services.replies.reply(message, text, locale, parse_mode=ParseMode.HTML)


# ---------------------------------------------------------------- /history


async def history_command(update: Update, context: Context) -> None:
    """/history: the group's last matches (in private: your own), each with 复盘 and 导出."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None and user is not None
    services = context.services
    locale = await reply_locale(services.languages, chat)
    text, markup = await _history_page(services, chat, user.id, None, locale)
    services.replies.reply(message, text, locale, parse_mode=ParseMode.HTML, reply_markup=markup)


async def _history_page(
    services: Services, chat: Chat, user_id: int, before: int | None, locale: str
) -> tuple[str, InlineKeyboardMarkup | None]:
    group = chat.id if chat.type != Chat.PRIVATE else None
    matches = await desk_of(services).players.history(
        chat_id=group, user_id=user_id, size=HISTORY_SIZE, before=before
    )
    if not matches:
        return refusal_text(Refusal.NO_MATCHES, locale), None
    rows = [
        [
            InlineKeyboardButton(
                texts.replay_button(m.table_id, locale), callback_data=callback_data.replay(m.table_id)
            ),
            InlineKeyboardButton(
                texts.export_button(m.table_id, locale), callback_data=callback_data.export(m.table_id)
            ),
        ]
        for m in matches
    ]
    if len(matches) == HISTORY_SIZE:
        last = matches[-1].table_id
        rows.append(
            [InlineKeyboardButton(texts.older_button(locale), callback_data=callback_data.older(last))]
        )
    return texts.history_text(matches, locale), InlineKeyboardMarkup(rows)


# ---------------------------------------------------------------- buttons


async def on_record_press(update: Update, context: Context) -> None:
    """A records button: 复盘, ◀ ▶, 导出, older matches, /forgetme's answer."""
    query = update.callback_query
    assert query is not None
    locale = await context.services.languages.of_user(query.from_user.id)
    try:
        press = RecordPress.decode(query.data or "")
    except BadRecordButton:
        await answer(query, error_text(TableRefusal.BAD_BUTTON, locale), show_alert=True)
        return
    refusal = await _press(query, press, context, locale)
    if refusal is not None:
        await answer(query, refusal_text(refusal, locale), show_alert=True)


async def _press(query: CallbackQuery, press: RecordPress, context: Context, locale: str) -> Refusal | None:
    message = query.message
    if not isinstance(message, Message):
        return Refusal.STALE
    if press.op is RecordOp.FORGET:
        return await _forget_answer(query, message, bool(press.args[0]), context, locale)
    if press.op is RecordOp.OLDER:
        return await _older(query, message, press.args[0], context)
    if press.op in _DEAL_OPS:
        return await _deal_press(query, message, press, context, locale)
    try:
        match = await desk_of(context.services).replays.load(press.args[0])
    except MatchGone:
        return Refusal.GONE
    in_group = message.chat.type != Chat.PRIVATE
    if in_group and match.chat_id != message.chat.id:
        return Refusal.OTHER_GROUP
    if press.op is RecordOp.STEP:
        return await _step(query, message, match, press.args[1], press.args[2], context)
    if press.op is RecordOp.COACH:
        return await _coach(query, message, match, press.args[1], context, locale)
    return await _open(query, message, match, press.op, context)


_DEAL_OPS = (RecordOp.DEAL, RecordOp.DEAL_STEP, RecordOp.DEAL_COACH)


async def _deal_press(
    query: CallbackQuery, message: Message, press: RecordPress, context: Context, locale: str
) -> Refusal | None:
    """A deal's replay opened from its hand message while the match may go on, or one of that
    replay's buttons: the presser's own, in their private chat, of deals that have ended only
    (the data names the last of them; it is checked against the stored log, never trusted)."""
    user = query.from_user
    if message.chat.id != user.id:
        return Refusal.DEAL_NOT_SEATED
    table_id, through = press.args[0], press.args[1]
    try:
        match = await desk_of(context.services).replays.load_through(table_id, through, user.id)
    except MatchGone:
        return Refusal.GONE
    except NotSeated:
        return Refusal.DEAL_NOT_SEATED
    except NotEnded:
        return Refusal.DEAL_NOT_ENDED
    except NextDealDealtFromIt:
        return Refusal.DEAL_UNSHUFFLED
    if press.op is RecordOp.DEAL_STEP:
        return await _step(query, message, match, press.args[2], press.args[3], context)
    if press.op is RecordOp.DEAL_COACH:
        return await _coach(query, message, match, press.args[2], context, locale)
    await answer(query)  # before the picture is drawn and sent
    start = next(i for i, frame in enumerate(match.steps) if frame.deal == len(match.deals) - 1)
    try:
        await _send_step(context, user.id, match, start, locale, _coached_seat(match, user.id, user.id))
    except Forbidden:
        log.info("user %s blocked the bot before their deal's replay was sent", user.id)
    return None


async def _older(query: CallbackQuery, message: Message, before: int, context: Context) -> Refusal | None:
    locale = await reply_locale(context.services.languages, message.chat)
    text, markup = await _history_page(context.services, message.chat, query.from_user.id, before, locale)
    await answer(query)  # the page goes by the chat's reply queue: no press waits for a group's quota
    context.services.replies.reply(message, text, locale, parse_mode=ParseMode.HTML, reply_markup=markup)
    return None


def _may_see(match: StoredMatch, user: User, in_group: bool) -> bool:
    return user.id in match.user_ids or (in_group and match.rules.replay_in_group)


def _coached_seat(match: StoredMatch, user_id: int, chat_id: int) -> int | None:
    """Whose 点评 a replay may show: the viewer's own seat, in the viewer's private chat only;
    nobody's in a group (a player's mistakes are theirs to see)."""
    if chat_id != user_id or user_id not in match.user_ids:
        return None
    return match.user_ids.index(user_id)


async def _open(
    query: CallbackQuery, message: Message, match: StoredMatch, op: RecordOp, context: Context
) -> Refusal | None:
    """复盘 or 导出: in the group if the table allows it, else to a player in private."""
    user = query.from_user
    in_group = message.chat.type != Chat.PRIVATE
    if not _may_see(match, user, in_group):
        return Refusal.NOT_A_PLAYER
    here = (in_group and match.rules.replay_in_group) or not in_group
    chat_id = message.chat.id if here else user.id
    languages = context.services.languages
    locale = await (reply_locale(languages, message.chat) if here else languages.of_user(user.id))

    async def send() -> None:
        if op is RecordOp.EXPORT:
            await _send_transcript(context, chat_id, match, locale)
        else:
            await _send_step(context, chat_id, match, 0, locale, _coached_seat(match, user.id, chat_id))

    if in_group and here:  # answered first; the group's copy waits for its quota in the reply queue
        await answer(query)
        context.services.replies.send(message, f"{op.value}:{match.table_id}", send, locale)
        return None
    try:
        await send()
    except Forbidden:
        return Refusal.UNREACHABLE
    await answer(query, None if here else texts.replay_sent_text(locale))
    return None


async def _send_transcript(context: Context, chat_id: int, match: StoredMatch, locale: str) -> None:
    data = match.transcript().encode()
    document = InputFile(io.BytesIO(data), filename=f"guandan-{match.table_id}.txt")
    await context.bot.send_document(
        chat_id, document, caption=texts.transcript_caption(match.table_id, locale)
    )


async def _look(
    context: Context, match: StoredMatch, index: int, locale: str, seat: int | None
) -> tuple[bytes, str | None, InlineKeyboardMarkup]:
    """Step ``index`` as sent: its picture, the caption (the viewer's 点评 of the deal, if
    computed) and the keyboard. ``seat``: the viewer's own seat in their private chat."""
    coaching = None
    if seat is not None:
        coaching = await desk_of(context.services).coach.stored(match.table_id, match.steps[index].deal, seat)
    view = views.review_view(match.table_id, match.deals, match.steps, index, match.names, locale, coaching)
    png = await context.services.draw(render_review, view, english=is_english(locale))
    caption = None
    if coaching is not None:
        caption = views.coaching_caption(match.deals[coaching.deal], coaching, match.names, locale)
    return png, caption, _step_keyboard(match, index, locale, seat, coaching)


def _step_keyboard(
    match: StoredMatch, index: int, locale: str, seat: int | None = None, coaching: Coaching | None = None
) -> InlineKeyboardMarkup:
    last = len(match.steps) - 1
    moves = [("◀", max(0, index - 1)), ("▶", min(last, index + 1))]
    deal = match.steps[index].deal
    starts = [i for i, frame in enumerate(match.steps) if frame.kind == "hands"]
    earlier = [i for i in starts if match.steps[i].deal < deal]
    later = [i for i in starts if match.steps[i].deal > deal]
    jumps = [(texts.deal_button(-1, locale), earlier[-1] if earlier else None)]
    jumps.append((texts.deal_button(1, locale), later[0] if later else None))
    rows = [
        [
            InlineKeyboardButton(
                label, callback_data=callback_data.step(match.table_id, index, to, match.through)
            )
            for label, to in moves
        ]
    ]
    rows.append(
        [
            InlineKeyboardButton(
                label, callback_data=callback_data.step(match.table_id, index, to, match.through)
            )
            for label, to in jumps
            if to is not None
        ]
    )
    if seat is not None:
        rows.append(_coaching_row(match, index, locale, coaching))
    return InlineKeyboardMarkup([row for row in rows if row])


def _coaching_row(
    match: StoredMatch, index: int, locale: str, coaching: Coaching | None
) -> list[InlineKeyboardButton]:
    """🎓 点评本副 until the deal's 点评 is computed; then ◀ 点评 ▶, to the marked moments."""
    if coaching is None:
        return [
            InlineKeyboardButton(
                texts.coach_button(locale),
                callback_data=callback_data.coach(match.table_id, index, match.through),
            )
        ]
    marks = views.marked_steps(match.steps, coaching)
    before = [i for i in marks if i < index]
    after = [i for i in marks if i > index]
    jumps = [(texts.coach_jump_button(-1, locale), before[-1] if before else None)]
    jumps.append((texts.coach_jump_button(1, locale), after[0] if after else None))
    return [
        InlineKeyboardButton(
            label, callback_data=callback_data.step(match.table_id, index, to, match.through)
        )
        for label, to in jumps
        if to is not None
    ]


async def _send_step(
    context: Context, chat_id: int, match: StoredMatch, index: int, locale: str, seat: int | None
) -> None:
    png, caption, keyboard = await _look(context, match, index, locale, seat)
    sent = await context.bot.send_photo(
        chat_id, png, caption=caption, parse_mode=ParseMode.HTML, reply_markup=keyboard
    )
    desk_of(context.services).replays.show(chat_id, sent.message_id, index)


async def _step(
    query: CallbackQuery, message: Message, match: StoredMatch, shown: int, target: int, context: Context
) -> Refusal | None:
    """◀ ▶: edit the replay message in place; a press from a step it no longer shows is stale."""
    in_group = message.chat.type != Chat.PRIVATE
    if not _may_see(match, query.from_user, in_group):
        return Refusal.NOT_A_PLAYER
    replays = desk_of(context.services).replays
    known = replays.shown(message.chat.id, message.message_id)
    if target >= len(match.steps) or (known is not None and known != shown):
        return Refusal.STALE
    if target == shown:
        await answer(query)
        return None
    locale = await reply_locale(context.services.languages, message.chat)
    replays.show(message.chat.id, message.message_id, target)  # a second fast press is stale now
    seat = _coached_seat(match, query.from_user.id, message.chat.id)
    png, caption, keyboard = await _look(context, match, target, locale, seat)
    await answer(query)

    async def edit() -> None:
        await _edit_step(message, png, caption, keyboard)

    # queued, not awaited: in a busy group the edit waits for the budget, and the press held one
    # of the group's update slots that long (the presser waits for it: a reply's priority)
    edit_later(context.services.sender, message, edit, Priority.REPLY)
    return None


async def _edit_step(
    message: Message, png: bytes, caption: str | None, keyboard: InlineKeyboardMarkup
) -> None:
    media = InputMediaPhoto(png, caption=caption, parse_mode=ParseMode.HTML)
    await already_shown_is_done(message.edit_media(media, reply_markup=keyboard))


# ---------------------------------------------------------------- 复盘点评


async def _coach(
    query: CallbackQuery, message: Message, match: StoredMatch, shown: int, context: Context, locale: str
) -> Refusal | None:
    """🎓 点评本副: the viewer's own three costliest decisions of the deal shown, judged once (in
    the judge's process) and kept; the replay then moves to the first of them."""
    seat = _coached_seat(match, query.from_user.id, message.chat.id)
    if seat is None:
        return Refusal.COACH_PRIVATE
    replays, coach = desk_of(context.services).replays, desk_of(context.services).coach
    known = replays.shown(message.chat.id, message.message_id)
    if shown >= len(match.steps) or (known is not None and known != shown):
        return Refusal.STALE
    deal = match.steps[shown].deal
    if coach.kept(match.table_id, deal, seat) is not None:
        await answer(query)
        await _show_coaching(context, message, match, deal, seat, locale)
        return None
    await answer(query, texts.coaching_wait_text(locale))
    if not coach.running(match.table_id, deal, seat):
        # judging takes seconds: it goes on after the press is answered, a task of the desk's
        desk_of(context.services).tasks.start(_coach_then_show(context, message, match, deal, seat, locale))
    return None


async def _coach_then_show(
    context: Context, message: Message, match: StoredMatch, deal: int, seat: int, locale: str
) -> None:
    try:
        await desk_of(context.services).coach.of(match, deal, seat)
    except Exception:
        log.exception("coaching table %s deal %s seat %s failed", match.table_id, deal, seat)
        with contextlib.suppress(TelegramError):  # the player blocked the bot meanwhile
            await context.bot.send_message(message.chat.id, texts.coaching_failed_text(locale))
        return
    await _show_coaching(context, message, match, deal, seat, locale)


async def _show_coaching(
    context: Context, message: Message, match: StoredMatch, deal: int, seat: int, locale: str
) -> None:
    """The replay message at the 点评's first marked moment (where it is, if none), captioned."""
    coaching = await desk_of(context.services).coach.stored(match.table_id, deal, seat)
    assert coaching is not None
    replays = desk_of(context.services).replays
    marks = views.marked_steps(match.steps, coaching)
    shown = replays.shown(message.chat.id, message.message_id)
    target = marks[0] if marks else (shown if shown is not None else 0)
    replays.show(message.chat.id, message.message_id, target)
    png, caption, keyboard = await _look(context, match, target, locale, seat)

    async def edit() -> None:
        await _edit_step(message, png, caption, keyboard)

    # queued behind the message's ◀ ▶ edits, never beside them: a ▶ pressed while judging and
    # sent after this would leave the picture at a step the replay no longer thinks it shows,
    # and every press on it would be refused as stale. A deleted message is logged there.
    edit_later(context.services.sender, message, edit, Priority.REPLY)


# ---------------------------------------------------------------- /forgetme


async def forgetme_command(update: Update, context: Context) -> None:
    """/forgetme in the private chat: what is stored about you, and a button to remove it."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None and user is not None
    services = context.services
    locale = await reply_locale(services.languages, chat)
    if chat.type != Chat.PRIVATE:
        services.replies.reply(message, refusal_text(Refusal.PRIVATE_ONLY, locale), locale)
        return
    if services.tables.tables_of_user(user.id):
        await message.reply_text(refusal_text(Refusal.SEATED, locale))
        return
    seats, groups = await desk_of(services).players.stored_about(user.id)
    yes, no = texts.forget_buttons(locale)
    markup = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(yes, callback_data=callback_data.forget(True)),
                InlineKeyboardButton(no, callback_data=callback_data.forget(False)),
            ]
        ]
    )
    await message.reply_text(texts.forget_prompt(seats, groups, locale), reply_markup=markup)


async def _forget_answer(
    query: CallbackQuery, message: Message, confirm: bool, context: Context, locale: str
) -> Refusal | None:
    services = context.services
    if message.chat.type != Chat.PRIVATE:
        return Refusal.PRIVATE_ONLY
    if not confirm:
        await answer(query)
        await already_shown_is_done(message.edit_text(texts.kept_text(locale)))
        return None
    if services.tables.tables_of_user(query.from_user.id):
        return Refusal.SEATED
    seats = await desk_of(services).forget(query.from_user.id)
    await answer(query)
    await already_shown_is_done(message.edit_text(texts.forgotten_text(seats, locale)))
    return None
