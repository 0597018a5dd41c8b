"""The private hand message of each human seat: one photo per deal, edited in place, and a new
one after every start (the store may not know the chat's newest message: a restore).

The image (``render_hand``) changes only when the hand does, so most refreshes
are ``editMessageCaption`` or ``editMessageReplyMarkup``; every refresh is a new
keyboard carries the match version and a digest of the selection it shows (see
:mod:`handlers.table.play` for what an older keyboard's buttons may still do).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from dataclasses import dataclass, replace
from enum import Enum
from functools import partial
from typing import Any

from telegram import InputMediaPhoto
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import ExtBot

from app.table.lifecycle import stopped
from app.table.results import deal_ending
from app.table.seat_choices import seat_preferences
from app.table.seats import Closing, SeatState
from app.table.selection import can_beat, digest, readings, select_play, selected_cards
from app.table.tables import Away, LiveTable
from app.table.texts import (
    TurnClockView,
    _,
    deal_end_caption,
    hand_caption,
    header,
    played_header,
    restored_text,
    selection_line,
    stopped_caption,
)
from engine.actions import Phase
from engine.cards import Card
from engine.errors import EngineError
from engine.match import observe_deal_end
from engine.observation import Observation
from handlers.platform.context import Services
from handlers.platform.edits import edit_quietly, not_modified
from handlers.platform.scheduler import Priority, at_priority, priority_limiter
from handlers.platform.sender import sent
from handlers.table import timers
from handlers.table.keyboards import (
    HandScope,
    Keys,
    PassPlay,
    deal_replay_keys,
    exchange_keyboard,
    hand_keyboard,
    readings_keyboard,
    waiting_keyboard,
    with_web_app,
)

log = logging.getLogger(__name__)


def selected_positions(hand: tuple[Card, ...], selection: Counter[Card]) -> list[int]:
    """Positions in the sorted hand of the selected copies (for the image)."""
    left = Counter(selection)
    positions = []
    for i, card in enumerate(hand):
        if left[card] > 0:
            positions.append(i)
            left[card] -= 1
    return positions


def keyboard_for(table: LiveTable, state: SeatState, obs: Observation, locale: str) -> Keys | None:
    """The buttons a seat needs now: cards and play controls, a tribute choice, or none."""
    seat = state.record.seat
    state.selection.hand_since(obs.deal_number, obs.hand, obs.version)
    scope = HandScope(table.id, obs.version, digest(state.selection.cards))
    if obs.phase is Phase.TRIBUTE and seat in obs.to_act and not state.is_bot:
        return exchange_keyboard(
            scope, choices=obs.must_tribute_from, level=obs.level, giving=True, locale=locale
        )
    if obs.phase is Phase.RETURN_TRIBUTE and seat in obs.to_act and not state.is_bot:
        return exchange_keyboard(scope, choices=obs.may_return, level=obs.level, giving=False, locale=locale)
    if stopped(table):
        return None
    if obs.phase is Phase.MATCH_OVER:
        return _last_deal_keys(table, obs, locale)
    if obs.phase is not Phase.PLAY or not obs.hand:
        return waiting_keyboard(scope, autoplay=state.record.autoplay, locale=locale)
    if state.selection.readings:
        return readings_keyboard(scope, options=state.selection.readings, level=obs.level, locale=locale)
    previous = obs.play_to_beat(seat)
    return hand_keyboard(
        scope,
        hand=obs.hand,
        level=obs.level,
        selection=state.selection.cards,
        previous=previous,
        autoplay=state.record.autoplay,
        locale=locale,
        pass_play=pass_play(state, obs),
    )


def _last_deal_keys(table: LiveTable, obs: Observation, locale: str) -> Keys | None:
    """The match is over: the last deal's message keeps 🎓 复盘点评 (its replay, like every ended
    deal's), unless the match's clock cut that deal short."""
    assert table.match is not None
    if deal_ending(table.match.events, obs.deal_number)[0] is None:
        return None
    return deal_replay_keys(table.id, obs.deal_number, locale)


def pass_play(state: SeatState, obs: Observation) -> PassPlay | None:
    """Whether the seat's play button passes: it follows, nothing is selected, and nothing
    beats the table (要不起) or 提示 suggested 不出."""
    previous = obs.play_to_beat()
    if previous is None or state.selection.cards or obs.seat not in obs.to_act:
        return None
    if not can_beat(obs.hand, obs.level, previous):
        return PassPlay.NOTHING_BEATS
    return PassPlay.HINTED if state.selection.hint_pass else None


def _selected(state: SeatState, obs: Observation, locale: str) -> str | None:
    """The caption's line for the cards the seat has selected (none when none are)."""
    if not state.selection.cards or obs.phase is not Phase.PLAY or state.selection.readings:
        return None
    previous = obs.play_to_beat()
    try:
        found = readings(state.selection.cards, obs.hand, obs.level, previous)
    except EngineError:
        found = []
    hinted = (
        state.selection.hint_play is not None
        and select_play(state.selection.hint_play) == state.selection.cards
    )
    if hinted and state.selection.hint_play is not None:
        found = [state.selection.hint_play]
    return selection_line(selected_cards(state.selection.cards), found, obs.level, locale)


def clock_view(table: LiveTable, state: SeatState) -> TurnClockView | None:
    """The seat's turn clock as its caption shows it (none for a seat the bot plays)."""
    match = table.match
    if match is None or state.is_bot or state.record.seat not in match.to_act:
        return None
    seconds = timers.seconds_for(table)
    if seconds is None:
        return None
    warned = state.message.warned
    left = warned[1] if warned is not None and warned[0] == timers.turn_key(table) else None
    return TurnClockView(seconds, left, last_chance=state.record.timeouts >= 1)


async def refresh_hand(bot: ExtBot[None], services: Services, table: LiveTable, seat: int) -> None:
    """Bring one seat's hand message up to date and wait until the edit has been sent."""
    await (await post_hand(bot, services, table, seat))


async def post_hand(
    bot: ExtBot[None], services: Services, table: LiveTable, seat: int, *, glance: bool | None = None
) -> asyncio.Future[None]:
    """Compose one seat's hand message now (table lock held); the returned future is its delivery.

    Everything is sent through the seat's mailbox in the per-message sender (a new message at
    the first deal, at a new deal or when the old one is lost; otherwise the cheapest edit),
    so the caller releases the lock before any request waits for the rate limiter. A look
    that would change nothing is not sent.

    The look waits at the scheduler's HAND priority when the player is waiting for it (see
    :func:`_awaited`; ``glance=False``: the player's own selection press, which only the
    keyboard answers); otherwise, or with ``glance=True`` (the press's answer already said
    what changed, as 提示's toast does), at GLANCE: sent at once while the token has room,
    and under load replaced by the seat's next look before it leaves, one request saved.
    Its returned future is already done: under load a glance may wait many seconds, and a
    press's handler that awaited it held one of the bot's update slots all that time (at 200
    tables, updates queued 12 s for a slot).
    """
    state = table.seats[seat]
    if (
        state.record.user_id is None
        or table.match is None
        or services.tables.away.get((table.id, seat)) is Away.BLOCKED
    ):
        return sent()  # a player who blocked the bot gets the hand again after /start
    if await _waits_in_miniapp(services, table, state, glance):
        return sent()
    look, in_miniapp = await _compose(services, table, state)
    if not _goes_out(table, state, look, in_miniapp, glance):
        return sent()
    awaited = _awaited(state, look) if glance is None else not glance
    _remember(state, look)
    _prefetch(services, state, look)
    return _submit(bot, services, table, state, look, awaited)


async def _compose(services: Services, table: LiveTable, state: SeatState) -> tuple[_Look, bool]:
    """The look the seat's message should have now, and whether its player is in the Mini App."""
    seat = state.record.seat
    obs = table.observe(seat)
    locale, four_color, group_hand = await seat_preferences(services.languages, state)
    caption = _caption(table, state, obs, locale)
    in_miniapp = services.miniapp is not None and services.miniapp.playing(table.id, seat)
    if in_miniapp:
        caption = f"{miniapp_line(locale)}\n{caption}"
    state.message.note = None
    url = services.miniapp.table_url(table.id) if services.miniapp is not None else None
    keys = with_web_app(keyboard_for(table, state, obs, locale), url, locale)
    return _Look(obs, caption, keys, locale, four_color, table.names_by_seat(), group_hand), in_miniapp


async def _waits_in_miniapp(
    services: Services, table: LiveTable, state: SeatState, glance: bool | None
) -> bool:
    """The player is in the Mini App and their message already says so: :func:`_goes_out` would
    send nothing, so no look is composed. Composing the caption and the forty-button keyboard of
    four such seats was two fifths of the bot's time a move (bench/miniapp_load.py's profile)."""
    seat, message = state.record.seat, state.message
    if glance is not None or services.miniapp is None or not services.miniapp.playing(table.id, seat):
        return False
    if state.record.dm_message_id is None or message.lost_message or message.first_sent is None:
        return False  # a new message goes out (or a resumed one is replaced): composed as ever
    locale = (await seat_preferences(services.languages, state)).locale
    if not (message.shown_caption or "").startswith(miniapp_line(locale)):
        return False
    obs = table.observe(seat)
    state.selection.hand_since(obs.deal_number, obs.hand, obs.version)  # as making its keyboard does
    message.note = None  # as composing does: a note belongs to the look it came with
    return True


def _goes_out(table: LiveTable, state: SeatState, look: _Look, in_miniapp: bool, glance: bool | None) -> bool:
    """Whether the look is sent: as a new message (a first deal, a new deal, a lost or resumed
    message: noted on the seat, the old one closed) or as an edit that changes something. While
    the player is in the Mini App neither goes out unasked: the message catches up when they leave."""
    message = state.message
    new_deal = message.shown_deal is not None and message.shown_deal != look.obs.deal_number
    resumed = state.record.dm_message_id is not None and message.first_sent is None
    if new_deal and in_miniapp and glance is None and not resumed and not message.lost_message:
        return False  # the new deal's message waits too: a new message the player is not reading
    if state.record.dm_message_id is None or new_deal or message.lost_message or resumed:
        if resumed:  # after a restart: the stored message may not be the chat's newest (a restore)
            message.closing = _replaced(state, look.locale)
        elif new_deal and state.record.dm_message_id is not None and not message.lost_message:
            message.closing = _closing(table, state, look.obs, look.locale)
        message.needs_new_message = True
        return True
    if (look.hand_key, look.caption, look.markup) == (
        message.shown_hand,
        message.shown_caption,
        message.shown_markup,
    ):
        return False
    waiting_in_miniapp = (message.shown_caption or "").startswith(miniapp_line(look.locale))
    return not (in_miniapp and glance is None and waiting_in_miniapp)


def _submit(
    bot: ExtBot[None], services: Services, table: LiveTable, state: SeatState, look: _Look, awaited: bool
) -> asyncio.Future[None]:
    """Queue the look in the seat's mailbox at HAND or GLANCE priority; its delivery if awaited."""
    key = ("hand", table.id, state.record.seat)
    waiting = services.sender.waiting(key)  # an older look still queued: it gives way to this one
    with at_priority(Priority.HAND if awaited else Priority.GLANCE):
        delivery = services.sender.submit(key, partial(_deliver, bot, services, table, state, look))
    if not awaited:
        return sent()  # nobody waits for a glance: a handler that did held its update slot for it
    limiter = priority_limiter(bot.rate_limiter) if waiting else None
    if limiter is not None and state.record.user_id is not None:
        limiter.promote(state.record.user_id, Priority.HAND)  # the older look's turn, at this one's priority
    return delivery


def miniapp_line(locale: str) -> str:
    """The first caption line while the player has the Mini App open: the message waits."""
    return _("🃏 Playing in the Mini App: this message catches up when you close it.", locale)


def _caption(table: LiveTable, state: SeatState, obs: Observation, locale: str) -> str:
    """The caption for the seat now: its turn and the table while the match is played; how the
    deal and the match ended once it is over; that the table was stopped."""
    assert obs.seat is not None
    if stopped(table):
        return stopped_caption(obs=obs, names=table.names(), rules=table.rules, locale=locale)
    if obs.phase is Phase.MATCH_OVER:
        return _ending_caption(table, obs.deal_number, obs, locale)
    return hand_caption(
        obs=obs,
        names=table.names(),
        rules=table.rules,
        locale=locale,
        note=state.message.note,
        clock=clock_view(table, state),
        selected=_selected(state, obs, locale),
        autoplay=state.record.autoplay,
    )


def _ending_caption(table: LiveTable, deal: int, now: Observation, locale: str) -> str:
    """The caption of deal ``deal``'s last look: its result, the seat's place, the match's end.
    ``now`` is the seat's view at present: a deal the match's clock cut short keeps its header."""
    assert table.match is not None and now.seat is not None
    events = table.match.events
    result, match_end = deal_ending(events, deal)
    if result is not None:
        heading = played_header(events, result, table.rules, locale)
    else:
        heading = header(now, table.rules, locale)
    return deal_end_caption(
        seat=now.seat,
        heading=heading,
        names=table.names(),
        rules=table.rules,
        locale=locale,
        result=result,
        match_end=match_end,
    )


def _closing(table: LiveTable, state: SeatState, now: Observation, locale: str) -> Closing | None:
    """The last look of the seat's message for the deal it showed, which a new deal's message
    replaces: the hand as the deal ended (when that deal is the latest to end) and how it ended."""
    deal, message_id = state.message.shown_deal, state.record.dm_message_id
    assert table.match is not None and deal is not None and message_id is not None
    if deal_ending(table.match.events, deal)[0] is None:
        return None  # not ended (cannot happen while deals follow one another): buttons go, nothing else
    picture = observe_deal_end(table.match, state.record.seat)
    if picture is not None and picture.deal_number != deal:
        picture = None  # several deals ended since it was shown: the caption says how this one did
    return Closing(message_id, _ending_caption(table, deal, now, locale), picture, deal)


def _replaced(state: SeatState, locale: str) -> Closing:
    """The last look of the message a resumed seat's store names: it says a new one replaces it,
    without buttons. Cheap (one caption edit), not what makes old buttons safe: after a restore
    the chat may hold newer messages the store never knew, whose presses :func:`handlers.table.
    play.on_hand_press` refuses by their message id (:meth:`HandMessage.from_before`)."""
    assert state.record.dm_message_id is not None
    return Closing(state.record.dm_message_id, restored_text(locale), picture=None)


def _awaited(state: SeatState, look: _Look) -> bool:
    """Is the player waiting for this look? A new message, a changed hand (their own play, an
    exchange), their turn or their duty: yes. Others' moves on a waiting seat's caption, and
    the player's own 不出 (its answer says 已不出; a press on the keyboard it leaves behind is
    lag, answered with a toast): no — the seat's next look replaces it."""
    obs = look.obs
    return (
        state.message.needs_new_message
        or state.message.lost_message
        or look.hand_key != state.message.shown_hand
        or (obs.seat is not None and obs.seat in obs.to_act)
    )


async def _deliver(
    bot: ExtBot[None], services: Services, table: LiveTable, state: SeatState, look: _Look
) -> None:
    """Show the newest look (outside the table lock): in a new message if the seat needs one."""
    message_id = state.record.dm_message_id
    if state.message.needs_new_message or message_id is None:
        await _replace_message(bot, services, table, state, look)
    else:
        await _edit_message(bot, services, table, state, message_id, look)
    obs = look.obs
    state.message.turn_delivered = obs.seat is not None and obs.seat in obs.to_act
    if (
        state.message.shown_markup is look.markup and state.message.shown_caption == look.caption
    ):  # still the newest
        state.message.look_shown_at = time.monotonic()


async def _replace_message(
    bot: ExtBot[None], services: Services, table: LiveTable, state: SeatState, look: _Look
) -> None:
    """The old message (if any) loses its buttons, showing how its deal ended when a new deal
    replaces it; the hand comes in a new one."""
    user_id = state.record.user_id
    assert user_id is not None
    old = state.record.dm_message_id
    closing, state.message.closing = state.message.closing, None
    try:
        if closing is not None and closing.message_id == old:
            await _close(bot, services, state, closing, look)
        elif old is not None:
            await _drop_keyboard(bot, user_id, old)
        await _send(bot, services, table, state, look)
    except Forbidden:
        _unreachable(bot, services, state)
        state.message.shown_caption = None  # the next refresh tries again
        return
    state.message.needs_new_message = False


@dataclass(frozen=True)
class _Look:
    """Everything a hand message shows, taken under the table lock."""

    obs: Observation
    caption: str
    markup: Keys | None
    locale: str
    four_color: bool
    names: list[str]
    group_hand: bool = False  # 理牌

    @property
    def hand_key(self) -> tuple[int, tuple[Card, ...]]:
        return (self.obs.deal_number, self.obs.hand)


class _Kind(Enum):
    """The cheapest edit that shows a new look."""

    MEDIA = "media"  # the hand changed: new picture
    CAPTION = "caption"
    MARKUP = "markup"


def _kind(state: SeatState, message_id: int, look: _Look) -> _Kind:
    """Compared with what was delivered, not what was queued: a skipped newer-wins edit
    may have been the one that changed the picture."""
    if state.message.delivered is None or state.message.delivered[:2] != (message_id, look.hand_key):
        return _Kind.MEDIA
    return _Kind.CAPTION if state.message.delivered[2] != look.caption else _Kind.MARKUP


def _remember(state: SeatState, look: _Look) -> None:
    state.message.shown_hand, state.message.shown_caption, state.message.shown_deal = (
        look.hand_key,
        look.caption,
        look.obs.deal_number,
    )
    state.message.shown_markup = look.markup
    state.message.lost_message = False
    state.message.look_shown_at = (
        None  # on its way: a press on the keyboard it replaces is lag, not a mistake
    )


async def _edit_message(
    bot: ExtBot[None],
    services: Services,
    table: LiveTable,
    state: SeatState,
    message_id: int,
    look: _Look,
) -> None:
    """Send one edit (outside the table lock). A message that cannot be edited any more
    is replaced by a new one, under the lock, by a background refresh."""
    chat_id = state.record.user_id
    assert chat_id is not None
    try:
        await _edit(_request(bot, services, chat_id, message_id, look, _kind(state, message_id, look)))
        state.message.delivered = (message_id, look.hand_key, look.caption)
    except Forbidden:
        _unreachable(bot, services, state)
    except BadRequest:
        log.info("hand message %s cannot be edited; sending a new one", message_id)
        if state.record.dm_message_id == message_id:
            state.message.lost_message = True
            services.tasks.start(_resend(bot, services, table, state.record.seat))
    except TelegramError:
        state.message.delivered = state.message.shown_caption = state.message.shown_markup = (
            None  # the next refresh sends it all
        )
        raise


async def _request(
    bot: ExtBot[None], services: Services, chat_id: int, message_id: int, look: _Look, kind: _Kind
) -> None:
    params: dict[str, object]
    if kind is _Kind.MEDIA:
        photo = await _picture(services, look)
        media = InputMediaPhoto(photo, caption=look.caption, parse_mode=ParseMode.HTML)
        method, params = "editMessageMedia", {"media": media}
    elif kind is _Kind.CAPTION:
        method, params = "editMessageCaption", {"caption": look.caption, "parse_mode": ParseMode.HTML}
    else:
        method, params = "editMessageReplyMarkup", {}
    markup = look.markup.to_json() if look.markup is not None else None
    await edit_quietly(bot, method, chat_id=chat_id, message_id=message_id, reply_markup=markup, **params)


async def _resend(bot: ExtBot[None], services: Services, table: LiveTable, seat: int) -> None:
    async with table.lock:
        await refresh_hand(bot, services, table, seat)


def _unreachable(bot: ExtBot[None], services: Services, state: SeatState) -> None:
    """A 403: the player blocked the bot. Their seats go into 托管 at once and each group is
    told (:func:`handlers.table.members.unreachable`), in a task of its own: showing that
    delivers hand messages, and this delivery holds the seat's mailbox."""
    assert state.record.user_id is not None
    log.warning("user %s blocked the bot (seat %s)", state.record.user_id, state.record.seat)
    if services.unreachable is not None:  # bot.py wires members, which imports this module via flow
        services.tasks.start(services.unreachable(bot, services, state.record.user_id))


async def _send(
    bot: ExtBot[None], services: Services, table: LiveTable, state: SeatState, look: _Look
) -> None:
    assert state.record.user_id is not None
    photo = await _picture(services, look)
    markup = look.markup.to_markup() if look.markup is not None else None
    sent_message = await bot.send_photo(
        state.record.user_id, photo, caption=look.caption, parse_mode=ParseMode.HTML, reply_markup=markup
    )
    if state.message.first_sent is None:  # before the store is awaited: presses on it are this process's
        state.message.first_sent = sent_message.message_id
    await services.tables.set_dm_message(table, state.record.seat, sent_message.message_id)
    state.message.delivered = (sent_message.message_id, look.hand_key, look.caption)


async def _edit(request: object) -> None:
    """Await an edit; an edit that changes nothing is not an error."""
    try:
        await request  # type: ignore[misc]
    except BadRequest as error:
        if not not_modified(error):
            raise


async def _close(
    bot: ExtBot[None], services: Services, state: SeatState, closing: Closing, look: _Look
) -> None:
    """The deal's last look in its message, its one button 🎓 复盘点评 (the player's replay of
    the deal, at once, while the match goes on): a new picture only when the hand changed since
    the message showed it (the play that ended the deal)."""
    assert state.record.user_id is not None
    markup = (
        None if closing.ended is None else deal_replay_keys(state.record.table_id, closing.ended, look.locale)
    )
    ending = replace(look, caption=closing.caption, markup=markup)
    kind = _Kind.CAPTION
    if closing.picture is not None:
        ending = replace(ending, obs=closing.picture)
        kind = _kind(state, closing.message_id, ending)
    try:
        await _edit(_request(bot, services, state.record.user_id, closing.message_id, ending, kind))
    except BadRequest as error:
        log.info("old hand message %s not closed: %s", closing.message_id, error)


async def _drop_keyboard(bot: ExtBot[None], chat_id: int, message_id: int) -> None:
    try:
        await edit_quietly(bot, "editMessageReplyMarkup", chat_id=chat_id, message_id=message_id)
    except BadRequest:
        log.debug("old hand message %s already without keyboard", message_id)


async def _picture(services: Services, look: _Look) -> bytes:
    """The hand picture, drawn in the render pool so other tables' presses are not held up
    (often already drawn: see :func:`_prefetch`)."""
    return await services.pictures.draw(
        look.obs, locale=look.locale, four_color=look.four_color, names=look.names, group=look.group_hand
    )


def _prefetch(services: Services, state: SeatState, look: _Look) -> None:
    """A seat to play with a play selected will likely play it: draw the hand it leaves now."""
    obs = look.obs
    if (
        obs.phase is not Phase.PLAY
        or obs.seat not in obs.to_act
        or not state.selection.cards
        or state.selection.readings
    ):
        return
    hinted = (
        state.selection.hint_play is not None
        and select_play(state.selection.hint_play) == state.selection.cards
    )
    previous = obs.play_to_beat()
    if hinted or readings(state.selection.cards, obs.hand, obs.level, previous):
        services.pictures.prefetch(
            obs,
            state.selection.cards,
            locale=look.locale,
            four_color=look.four_color,
            names=look.names,
            group=look.group_hand,
        )


async def post_hands(bot: ExtBot[None], services: Services, table: LiveTable) -> asyncio.Future[Any]:
    """Compose every human seat's message (table lock held); the future is their delivery."""
    seats = [seat for seat, state in sorted(table.seats.items()) if not state.record.is_ai]
    deliveries = await asyncio.gather(*(post_hand(bot, services, table, seat) for seat in seats))
    return asyncio.gather(*deliveries)
