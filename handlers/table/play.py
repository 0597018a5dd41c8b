"""Buttons of the private hand message: select cards, 提示, 出牌, 不出, 清空, 取消托管,
wildcard readings, and the tribute choices (delegated to :mod:`app.table.tribute`).

A phone shows the old keyboard until the bot's edit reaches it (hundreds of ms on real
Telegram), so presses are judged by what they mean, not by which revision they came from:

- every button must have been made for the hand the seat holds now (same deal, no card
  played or exchanged since: :meth:`Selection.hand_since`); others' moves do not matter;
- selection presses (a card, 清空, 提示) apply to the current selection; a card button
  names the count of copies it selects, so repeated taps of one button agree;
- 出牌 carries a digest of the selection its label named and plays only that: if the
  selection or the table changed since, a quiet toast gives the new label instead; but 提示
  names its suggestion in its answer, so 出牌 on the keyboard 提示 was pressed on plays what
  that toast named (under load the keyboard that shows it may come later, or not at all);
- 进贡 / 还贡 are checked against the seat's own pending duty (after a 双下 both winners
  return at once), 不出 and a reading choice need the current match version;
- engine refusals become localized alerts.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Coroutine
from typing import Any

from telegram import CallbackQuery, Update

from app.table.callback_data import Area, BadCallback, Op, Press
from app.table.hints import hints_for
from app.table.presses import Refusal, press_action
from app.table.refusals import TableRefusal
from app.table.seat_choices import seat_locale
from app.table.seats import SeatState
from app.table.selection import (
    can_beat,
    select_play,
    with_count,
)
from app.table.tables import LiveTable, TableError, TableService
from app.table.texts import _, error_text
from common.faults import StorageUnavailable
from engine.actions import Action, Pass, Phase
from engine.cards import CARDS
from engine.errors import EngineError, IllegalAction, NotYourTurn
from handlers.platform.chats import received_at
from handlers.platform.context import Context
from handlers.platform.replies import alert, answer
from handlers.table import flow
from handlers.table.answers import refuse
from handlers.table.hand_message import post_hand
from handlers.table.keyboards import play_label
from render.words import describe_play

log = logging.getLogger(__name__)

Delivery = asyncio.Future[Any]
"""Message edits composed under the table lock, sent after it (see :mod:`handlers.platform.sender`)."""
Reply = Coroutine[Any, Any, object]
"""What a press sends back, started after the table lock is released (even the alerts wait
in the rate limiter)."""

SELECTION_OPS = (Op.TOGGLE, Op.CLEAR, Op.HINT, Op.CANCEL_READING)
"""Presses that only change the selection: applied to the current selection from any
keyboard made for the seat's current hand."""


async def on_hand_press(update: Update, context: Context) -> None:
    """A button of a private hand message."""
    query = update.callback_query
    assert query is not None and query.data is not None
    try:
        press = Press.decode(query.data)
        table = context.services.tables.get(press.table_id)
    except BadCallback:
        await _refuse_presser(query, context, TableRefusal.BAD_BUTTON)
        return
    except TableError as error:
        if error.code == TableRefusal.NO_TABLE:  # its match ended (the last look may be on its way)
            locale = await context.services.languages.of_user(query.from_user.id)
            await answer(query, _("This table has ended: its buttons no longer work.", locale))
            return
        await _refuse_presser(query, context, error.code)
        return
    if not _own_chat(query):
        await _refuse_presser(query, context, TableRefusal.NOT_YOUR_HAND)
        return
    seat = table.seat_of(query.from_user.id)
    if press.area is not Area.HAND or seat is None:
        await _refuse_presser(query, context, TableRefusal.NOT_SEATED)
        return
    if _from_before_restart(query, table.seats[seat]):
        await _refuse_presser(query, context, TableRefusal.RESTORED)
        return
    async with table.lock:
        try:
            reply = await _handle(query, context, table, table.seats[seat], press)
        except StorageUnavailable as error:  # nothing changed, the selection included: press again
            log.warning("press at table %s not saved: %s", table.id, error)
            locale = await seat_locale(context.services.languages, table.seats[seat])
            reply = refuse(query, TableRefusal.NOT_SAVED, locale)
    await reply


def _own_chat(query: CallbackQuery) -> bool:
    """Was the button pressed in the presser's own private chat, where their hand message is?
    The press names a table, not a seat: the seat is the presser's, so a press on another seat's
    message (forged: nobody sees another's private chat) would act on the presser's hand."""
    return query.message is not None and query.message.chat.id == query.from_user.id


def _from_before_restart(query: CallbackQuery, state: SeatState) -> bool:
    """Was the pressed message sent before the bot (re)started? Its buttons name a match version
    the restored store may reach again with other cards, so they are refused whatever they say —
    before the table lock, so the answer is quick even while the table is busy."""
    assert query.message is not None
    return state.message.from_before(query.message.message_id)


async def _refuse_presser(query: CallbackQuery, context: Context, code: TableRefusal) -> None:
    """A refusal before the press is known to be a seat's: in the presser's own language."""
    await refuse(query, code, await context.services.languages.of_user(query.from_user.id))


async def _handle(
    query: CallbackQuery, context: Context, table: LiveTable, state: SeatState, press: Press
) -> Reply:
    """Apply a press under the table lock; the reply (a refusal's alert, or the answer and
    the edits of an accepted press) is returned to be sent after the lock is released."""
    locale = await seat_locale(context.services.languages, state)
    if table.match is None or press.version > table.version:
        return refuse(query, TableRefusal.STALE, locale)
    if press.op is Op.CANCEL_AUTOPLAY:  # "I am back", whatever the keyboard
        outcome = await context.services.tables.set_autoplay(table, seat=state.record.seat, on=False)
        return _accepted(query, await flow.post_in(context, table, outcome))
    if press.op is Op.AUTOPLAY:  # "I must step away": 托管 until 取消托管
        outcome = await context.services.tables.set_autoplay(table, seat=state.record.seat, on=True)
        state.selection.clear()
        state.message.note = _(
            "🤖 Auto-play on: the bot plays for you. Press Cancel auto-play to take the seat back.", locale
        )
        return _quietly(query, _("Auto-play on", locale), await flow.post_in(context, table, outcome))
    if not _for_current_hand(table, state, press):
        return _lag_or_refuse(query, state, TableRefusal.STALE, locale)
    if press.op in SELECTION_OPS:
        return await _select(query, context, table, state, press, locale)
    if press.op in (Op.PASS, Op.READING) and press.version != table.version:
        return _lag_or_refuse(query, state, TableRefusal.STALE, locale)
    action = press_action(table, state, press, locale)
    if isinstance(action, Refusal) and action.quiet:
        return _quietly(query, _changed_text(table, state, locale), await _refresh(context, table, state))
    if isinstance(action, Refusal) and action.code == TableRefusal.NOT_YOUR_TURN:
        return _lag_or_refuse(query, state, action.code, locale, turn=True)
    if isinstance(action, Refusal):
        return alert(query, action.text or error_text(action.code, locale))
    if action is None:
        return _accepted(
            query, await post_hand(context.bot, context.services, table, state.record.seat, glance=False)
        )
    return await _act(query, context, table, state, action, locale)


LAG_GRACE = 3.0
"""Seconds after the newest look reached Telegram during which a press on the keyboard it
replaced is taken for lag (phones show an edit hundreds of ms late, more under load): a
quiet toast, not an alert the player could not have avoided."""


def _lag_or_refuse(
    query: CallbackQuery, state: SeatState, code: TableRefusal, locale: str, *, turn: bool = False
) -> Reply:
    """A press that the seat's newest look, still on its way (or just arrived), would not have
    offered is lag the player could not avoid: a toast, not an alert. ``turn``: the press
    needs the turn, which the phone still shows (the look that ends it, after the player's own
    不出, is on its way); once that look is there, 还没轮到你 is an answer, not lag."""
    lag = state.message.look_shown_at is None and state.message.turn_delivered if turn else _lagging(state)
    if lag:
        return answer(query, _("Your hand is being updated: use the new buttons", locale))
    return refuse(query, code, locale)


def _lagging(state: SeatState) -> bool:
    """The newest look is on its way, or reached the phone less than :data:`LAG_GRACE` before
    the press reached the bot (a press that waited in the bot's own queue is not the player's
    mistake)."""
    shown_at = state.message.look_shown_at
    return shown_at is None or received_at() - shown_at < LAG_GRACE


def _for_current_hand(table: LiveTable, state: SeatState, press: Press) -> bool:
    """Was the button made for the hand the seat holds now (same deal, nothing played or
    exchanged by the seat since)?"""
    match = table.match
    assert match is not None
    seat = state.record.seat
    return state.selection.hand_since(match.deal_number, match.hand(seat), match.version) <= press.version


async def _accepted(query: CallbackQuery, delivery: Delivery) -> None:
    await asyncio.gather(answer(query), delivery)


async def _quietly(query: CallbackQuery, text: str, delivery: Delivery) -> None:
    await asyncio.gather(answer(query, text), delivery)


async def _refresh(context: Context, table: LiveTable, state: SeatState) -> Delivery:
    return await post_hand(context.bot, context.services, table, state.record.seat, glance=False)


def _changed_text(table: LiveTable, state: SeatState, locale: str) -> str:
    """The toast of a 出牌 whose label is out of date (the selection or the table changed
    since): what the button says now."""
    obs = table.observe(state.record.seat)
    previous = obs.play_to_beat()
    label = play_label(state.selection.cards, obs.hand, obs.level, previous, locale)
    return _("Not played: the button was out of date. It now reads “{label}”.", locale, label=label)


async def _act(
    query: CallbackQuery, context: Context, table: LiveTable, state: SeatState, action: Action, locale: str
) -> Reply:
    try:
        outcome = await context.services.tables.act(table, seat=state.record.seat, action=action)
    except NotYourTurn:
        return refuse(query, TableRefusal.NOT_YOUR_TURN, locale)
    except IllegalAction:
        return refuse(query, TableRefusal.MUST_LEAD, locale)
    except EngineError as error:
        log.info("refused %s at table %s: %s", action, table.id, error)
        return refuse(query, TableRefusal.NO_SUCH_PLAY, locale)
    delivery = await flow.post_in(context, table, outcome)
    if isinstance(action, Pass):  # its own look is a glance (hand_message._awaited): the toast says it
        return _quietly(query, _("Passed", locale), delivery)
    return _accepted(query, delivery)


async def _select(
    query: CallbackQuery, context: Context, table: LiveTable, state: SeatState, press: Press, locale: str
) -> Reply:
    """Selection changes touch only the keyboard (the image shows the hand)."""
    seat = state.record.seat
    obs = table.observe(seat)
    if press.op is Op.TOGGLE:
        if press.arg is None or not 0 <= press.arg < len(CARDS) or obs.phase is not Phase.PLAY:
            return refuse(query, TableRefusal.BAD_BUTTON, locale)
        card = CARDS[press.arg]
        held = Counter(obs.hand)[card]
        if held == 0 or press.count is None:
            return refuse(query, TableRefusal.STALE, locale)
        if press.count > held:
            return refuse(query, TableRefusal.BAD_BUTTON, locale)
        if state.selection.cards[card] != press.count:
            state.selection.cards = with_count(state.selection.cards, card, press.count, held)
            state.selection.hint_index = 0
            state.selection.hint_play = None
            state.selection.hint_pass = False
            state.selection.readings = ()
    elif press.op is Op.CLEAR:
        state.selection.clear()
    elif press.op is Op.CANCEL_READING:
        state.selection.readings = ()
    elif press.op is Op.HINT:
        refusal = await _hint(table, state, context.services.tables)
        if refusal is not None:
            return _lag_or_refuse(query, state, refusal, locale, turn=refusal == TableRefusal.NOT_YOUR_TURN)
        state.selection.hint_keyboard = (press.version, press.check)
        # The toast names the suggestion: the keyboard showing it is a glance (issue 23)
        toast = (
            _pass_hint_text(state, locale) if state.selection.hint_pass else _play_hint_text(state, locale)
        )
        return _quietly(
            query, toast, await post_hand(context.bot, context.services, table, seat, glance=True)
        )
    return _accepted(query, await post_hand(context.bot, context.services, table, seat, glance=False))


async def _hint(table: LiveTable, state: SeatState, tables: TableService) -> TableRefusal | None:
    """Select the next suggestion (the AI's choice first, 不出 included); a code if there is none."""
    seat = state.record.seat
    assert table.match is not None
    if table.match.phase is not Phase.PLAY or seat not in table.match.to_act:
        return TableRefusal.NOT_YOUR_TURN
    if state.selection.hints is None or state.selection.hints.version != table.version:
        # The first 提示 of a turn thinks as 标准 does, in a worker thread: usually done already,
        # since the turn began (app.table.hints)
        state.selection.hints = await hints_for(tables, table, state)
    hint = state.selection.hints.pick(state.selection.hint_index)
    if hint is None:
        return TableRefusal.NO_HINT
    index = state.selection.hint_index + 1
    state.selection.clear()
    state.selection.hint_index = index
    if isinstance(hint, Pass):
        state.selection.hint_pass = True
    else:
        state.selection.cards = select_play(hint)
        state.selection.hint_play = hint
    return None


def _play_hint_text(state: SeatState, locale: str) -> str:
    """The toast of a 提示 that suggests a play: the play, and that 出牌 plays it."""
    assert state.selection.hint_play is not None and state.selection.hints is not None
    play = describe_play(state.selection.hint_play, state.selection.hints.level, locale)
    return _("Hint: {play}. Tap Play to play it, or Hint again for another", locale, play=play)


def _pass_hint_text(state: SeatState, locale: str) -> str:
    """The toast of a 提示 that suggests 不出: nothing beats the table, or the AI would let it stand."""
    hints = state.selection.hints
    previous = hints.previous if hints is not None else None
    if hints is not None and previous is not None and not can_beat(hints.hand, hints.level, previous):
        return _("Nothing can beat it: tap Pass", locale)
    return _("Hint: pass (the AI would not beat this). Hint again for plays", locale)
