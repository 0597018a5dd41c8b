"""The private hand message of each human seat: one photo per deal, edited in place.

The image (``render_hand``) changes only when the hand does, so most refreshes
are ``editMessageCaption`` or ``editMessageReplyMarkup``; every refresh is a new
keyboard revision (nonce), which makes older buttons stale.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from functools import partial

from telegram import InlineKeyboardMarkup, InputMediaPhoto
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden
from telegram.ext import ExtBot

from engine.actions import Phase
from engine.cards import Card
from engine.observation import Observation
from handlers.context import Services
from handlers.i18n import normalize_locale
from handlers.keyboards import (
    HandScope,
    exchange_keyboard,
    hand_keyboard,
    readings_keyboard,
    waiting_keyboard,
)
from handlers.table_service import LiveTable, SeatState
from handlers.texts import hand_caption
from render.hand import render_hand
from storage import NotFound

log = logging.getLogger(__name__)


def names_of(table: LiveTable) -> dict[int, str]:
    return {seat: state.record.name for seat, state in table.seats.items()}


def selected_positions(hand: tuple[Card, ...], selection: Counter[Card]) -> list[int]:
    """Positions in the sorted hand of the selected copies (for the image)."""
    left = Counter(selection)
    positions = []
    for i, card in enumerate(hand):
        if left[card] > 0:
            positions.append(i)
            left[card] -= 1
    return positions


def keyboard_for(
    table: LiveTable, state: SeatState, obs: Observation, locale: str
) -> InlineKeyboardMarkup | None:
    """The buttons a seat needs now: cards and play controls, a tribute choice, or none."""
    seat = state.record.seat
    scope = HandScope(table.id, obs.version, state.nonce)
    if obs.phase is Phase.TRIBUTE and seat in obs.to_act and not state.is_bot:
        return exchange_keyboard(
            scope, choices=obs.must_tribute_from, level=obs.level, giving=True, locale=locale
        )
    if obs.phase is Phase.RETURN_TRIBUTE and seat in obs.to_act and not state.is_bot:
        return exchange_keyboard(scope, choices=obs.may_return, level=obs.level, giving=False, locale=locale)
    if obs.phase is Phase.MATCH_OVER:
        return None
    if obs.phase is not Phase.PLAY or not obs.hand:
        return waiting_keyboard(scope, autoplay=state.record.autoplay, locale=locale)
    if state.readings:
        return readings_keyboard(scope, options=state.readings, level=obs.level, locale=locale)
    previous = obs.table_play if obs.table_seat != seat else None
    return hand_keyboard(
        scope,
        hand=obs.hand,
        level=obs.level,
        selection=state.selection,
        previous=previous,
        autoplay=state.record.autoplay,
        locale=locale,
    )


async def refresh_hand(bot: ExtBot[None], services: Services, table: LiveTable, seat: int) -> None:
    """Bring one seat's hand message up to date (send it for a new deal)."""
    state = table.seats[seat]
    user_id = state.record.user_id
    if user_id is None or table.match is None:
        return
    obs = table.observe(seat)
    locale, four_color = await _preferences(services, state)
    meaning = (
        obs.deal_number,
        obs.phase,
        obs.hand,
        tuple(sorted(state.selection.elements())),
        state.readings,
        state.record.autoplay,
    )
    if meaning != state.meaning:
        state.meaning = meaning
        state.bump()
    caption = hand_caption(obs=obs, names=names_of(table), rules=table.rules, locale=locale, note=state.note)
    markup = keyboard_for(table, state, obs, locale)
    try:
        await _show(bot, services, table, state, obs, caption, markup, locale, four_color)
    except Forbidden:
        log.warning("user %s blocked the bot; the turn clock will play seat %s", user_id, seat)
        await services.db.users.set_reachable(user_id=user_id, reachable=False)
        return
    state.note = None


async def _show(
    bot: ExtBot[None],
    services: Services,
    table: LiveTable,
    state: SeatState,
    obs: Observation,
    caption: str,
    markup: InlineKeyboardMarkup | None,
    locale: str,
    four_color: bool,
) -> None:
    key = (obs.deal_number, obs.hand)
    message_id = state.record.dm_message_id
    chat_id = state.record.user_id
    assert chat_id is not None
    new_deal = state.shown_deal is not None and state.shown_deal != obs.deal_number
    if message_id is None or new_deal:
        if message_id is not None:
            await _drop_keyboard(bot, chat_id, message_id)
        await _send(bot, services, table, state, obs, caption, markup, locale, four_color)
    elif state.shown_hand != key:
        photo = await _picture(services, table, obs, locale, four_color)
        media = InputMediaPhoto(photo, caption=caption, parse_mode=ParseMode.HTML)
        try:
            await _edit(
                bot.edit_message_media(media, chat_id=chat_id, message_id=message_id, reply_markup=markup)
            )
        except BadRequest:
            log.info("hand message %s cannot be edited; sending a new one", message_id)
            await _send(bot, services, table, state, obs, caption, markup, locale, four_color)
    elif state.shown_caption != caption:
        await _edit(
            bot.edit_message_caption(
                chat_id=chat_id,
                message_id=message_id,
                caption=caption,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
            )
        )
    else:
        await _edit(
            bot.edit_message_reply_markup(chat_id=chat_id, message_id=message_id, reply_markup=markup)
        )
    state.shown_hand, state.shown_caption, state.shown_deal = key, caption, obs.deal_number


async def _send(
    bot: ExtBot[None],
    services: Services,
    table: LiveTable,
    state: SeatState,
    obs: Observation,
    caption: str,
    markup: InlineKeyboardMarkup | None,
    locale: str,
    four_color: bool,
) -> None:
    assert state.record.user_id is not None
    photo = await _picture(services, table, obs, locale, four_color)
    sent = await bot.send_photo(
        state.record.user_id, photo, caption=caption, parse_mode=ParseMode.HTML, reply_markup=markup
    )
    await services.tables.set_dm_message(table, state.record.seat, sent.message_id)


async def _edit(request: object) -> None:
    """Await an edit; an edit that changes nothing is not an error."""
    try:
        await request  # type: ignore[misc]
    except BadRequest as error:
        if "not modified" not in str(error).lower():
            raise


async def _drop_keyboard(bot: ExtBot[None], chat_id: int, message_id: int) -> None:
    try:
        await bot.edit_message_reply_markup(chat_id=chat_id, message_id=message_id, reply_markup=None)
    except BadRequest:
        log.debug("old hand message %s already without keyboard", message_id)


async def _picture(
    services: Services, table: LiveTable, obs: Observation, locale: str, four_color: bool
) -> bytes:
    """The hand picture, drawn in the render pool so other tables' presses are not held up."""
    draw = partial(render_hand, obs, locale=locale, four_color=four_color, names=_seat_names(table))
    return await asyncio.get_running_loop().run_in_executor(services.renderer, draw)


def _seat_names(table: LiveTable) -> list[str]:
    return [table.seats[seat].record.name if seat in table.seats else "" for seat in range(4)]


async def _preferences(services: Services, state: SeatState) -> tuple[str, bool]:
    """The player's language and four-colour choice, read once per seat (/lang resets it)."""
    assert state.record.user_id is not None
    if state.preferences is None:
        try:
            user = await services.db.users.get(user_id=state.record.user_id)
            state.preferences = (normalize_locale(user.locale or state.record.locale), user.four_color)
        except NotFound:
            state.preferences = (normalize_locale(state.record.locale), False)
    return state.preferences


async def refresh_hands(bot: ExtBot[None], services: Services, table: LiveTable) -> None:
    """Refresh every human seat (after an action changed the public state), concurrently."""
    seats = [seat for seat, state in sorted(table.seats.items()) if not state.record.is_ai]
    await asyncio.gather(*(refresh_hand(bot, services, table, seat) for seat in seats))
