"""Presses at phone speed: the phone still shows an older keyboard when the next tap lands.

Every press goes through the real handler (:func:`handlers.table.play._handle`) with the
real services; the bot records its calls instead of reaching Telegram. A keyboard is
taken as the sender was handed it (``HandMessage.shown_markup``) and its buttons are pressed
after newer keyboards were made, as a phone does while the bot's edits are on their way.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from app.table.callback_data import Op, Press
from app.table.tables import LiveTable, TableService
from app.table.texts import too_many_text
from engine.actions import Phase, PlayCards, ReturnTribute
from engine.cards import CARDS, Card
from engine.plays import PlayKind
from engine.rules import Rules
from handlers.platform.chats import ChatBudget, ChatReplies, mark_received
from handlers.platform.context import Services
from handlers.table.hand_message import post_hand
from handlers.table.keyboards import Keys
from handlers.table.play import LAG_GRACE, _handle
from players.easy import choose_action
from storage import Database
from tests.raw_edits import RawEdits

STALE = ("按钮已过期，请使用最新的消息。", True)
ACCEPTED = (None, False)
LAGGING = ("手牌正在更新，请用新的按钮", False)


def _replies() -> ChatReplies:
    return ChatReplies(ChatBudget(), notice=too_many_text)


@dataclass
class Sent:
    message_id: int


@dataclass
class RecordingBot(RawEdits):
    """The Bot API calls a press makes (new hand photos and their edits)."""

    calls: list[str] = field(default_factory=list)

    async def send_photo(self, chat_id: int, photo: bytes, **_: Any) -> Sent:
        self.calls.append("sendPhoto")
        return Sent(1000 + len(self.calls))

    async def edit_message_reply_markup(self, **_: Any) -> bool:
        self.calls.append("editMessageReplyMarkup")
        return True

    async def edit_message_caption(self, **_: Any) -> bool:
        self.calls.append("editMessageCaption")
        return True

    async def edit_message_media(self, media: Any, **_: Any) -> bool:
        self.calls.append("editMessageMedia")
        return True


@dataclass
class Board:
    """The group board: a press that changes the match publishes its events here."""

    published: list[object] = field(default_factory=list)

    def publish(self, table: LiveTable, events: object = ()) -> None:
        self.published.append(events)


@dataclass
class Query:
    answers: list[tuple[str | None, bool]] = field(default_factory=list)

    async def answer(self, text: str | None = None, show_alert: bool = False, **_: object) -> bool:
        self.answers.append((text, show_alert))
        return True


@dataclass
class Context:
    services: Services
    bot: RecordingBot = field(default_factory=RecordingBot)
    job_queue: object = None


async def _open(tmp_path: Path, seed: int) -> tuple[LiveTable, Context]:
    db = await Database.open(tmp_path / "s.db")
    tables = TableService(db, new_seed=lambda: seed)
    rules = replace(Rules.preset("wechat-6-deals"), points_deals=2)
    table = await tables.create(chat_id=-1, creator_id=1, preset="wechat-6-deals", rules=rules)
    for seat in range(4):
        await tables.take_seat(table, seat=seat, user_id=100 + seat, name=f"P{seat}", locale=None)
    await tables.start(table)
    renderer = ThreadPoolExecutor(max_workers=1)
    services = Services(
        db=db,
        tables=tables,
        board=Board(),  # type: ignore[arg-type]
        bot_username="bot",
        renderer=renderer,
        replies=_replies(),
    )
    return table, Context(services)


@pytest.fixture
async def opened(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[tuple[LiveTable, Context]]:
    table, context = await _open(tmp_path, getattr(request, "param", 2))
    yield table, context
    context.services.renderer.shutdown()  # type: ignore[attr-defined]
    await context.services.close_store()


async def keyboard(context: Context, table: LiveTable, seat: int) -> Keys:
    """The keyboard the seat's hand message gets now (composed and delivered)."""
    async with table.lock:
        delivery = await post_hand(context.bot, context.services, table, seat)  # type: ignore[arg-type]
    await delivery
    markup = table.seats[seat].message.shown_markup
    assert isinstance(markup, Keys)
    return markup


def presses(markup: Keys) -> list[Press]:
    return [Press.decode(str(b.callback_data)) for row in markup.inline_keyboard for b in row]


def card_press(markup: Keys, card: Card) -> Press:
    return next(p for p in presses(markup) if p.op is Op.TOGGLE and p.arg == card.index)


def op_press(markup: Keys, op: Op) -> Press:
    return next(p for p in presses(markup) if p.op is op)


async def press(context: Context, table: LiveTable, seat: int, pressed: Press) -> tuple[str | None, bool]:
    query = Query()
    async with table.lock:
        reply = await _handle(query, context, table, table.seats[seat], pressed)  # type: ignore[arg-type]
    await reply
    [answer] = query.answers
    return answer


def five_card_lead(table: LiveTable, seat: int) -> tuple[Card, ...]:
    plays = [p for p in table.match.legal_plays(seat) if len(set(p.cards)) == 5 and not p.is_bomb]
    plays.sort(key=lambda p: p.kind is not PlayKind.STRAIGHT)
    return plays[0].cards


async def test_five_cards_tapped_on_one_old_keyboard_are_all_selected_then_played(opened) -> None:
    table, context = opened
    seat = table.match.to_act[0]
    old = await keyboard(context, table, seat)  # the phone shows this one throughout
    cards = five_card_lead(table, seat)
    for card in cards:
        assert await press(context, table, seat, card_press(old, card)) == ACCEPTED
    assert table.seats[seat].selection.cards == Counter(cards)
    assert await press(context, table, seat, card_press(old, cards[0])) == ACCEPTED  # a double tap
    assert table.seats[seat].selection.cards == Counter(cards)

    text, alert = await press(context, table, seat, op_press(old, Op.PLAY))  # its label said "出牌"
    assert not alert and text is not None and text.startswith("没有出牌：按钮已更新"), text
    assert "出牌：" in text and table.match.history == ()  # the toast names the new label

    current = await keyboard(context, table, seat)
    assert await press(context, table, seat, op_press(current, Op.PLAY)) == ACCEPTED
    assert table.match.history[-1][0] == seat
    played = table.match.history[-1][1]
    assert isinstance(played, PlayCards) and Counter(played.play.cards) == Counter(cards)


async def test_a_card_button_selects_what_its_label_promised(opened) -> None:
    """♠9×2: two taps of the same (stale) button select one copy, not one and then none."""
    table, context = opened
    seat = table.match.to_act[0]
    pair = next(card for card, n in Counter(table.match.hand(seat)).items() if n == 2)
    old = await keyboard(context, table, seat)
    for _tap in range(2):
        assert await press(context, table, seat, card_press(old, pair)) == ACCEPTED
        assert table.seats[seat].selection.cards == Counter({pair: 1})
    newer = await keyboard(context, table, seat)
    assert await press(context, table, seat, card_press(newer, pair)) == ACCEPTED
    assert table.seats[seat].selection.cards == Counter({pair: 2})
    assert await press(context, table, seat, op_press(old, Op.CLEAR)) == ACCEPTED
    assert table.seats[seat].selection.cards == Counter()


async def test_selection_survives_others_moves_but_not_the_seats_own(opened) -> None:
    table, context = opened
    leader = table.match.to_act[0]
    waiting = (leader + 1) % 4
    early = await keyboard(context, table, waiting)  # made before the leader moved
    lowest = min((p for p in table.match.legal_plays(leader) if len(p.cards) == 1), key=lambda p: p.rank)
    await context.services.tables.act(table, seat=leader, action=PlayCards(lowest))
    card = table.match.hand(waiting)[0]
    assert await press(context, table, waiting, card_press(early, card)) == ACCEPTED
    assert table.seats[waiting].selection.cards[card] == 1

    old = await keyboard(context, table, waiting)
    [play, *_others] = table.match.legal_plays(waiting)  # the seat plays: its hand is another one
    await context.services.tables.act(table, seat=waiting, action=PlayCards(play))
    still_held = next(c for c in table.match.hand(waiting) if c not in play.cards)
    table.seats[waiting].message.look_shown_at = (
        time.monotonic() - LAG_GRACE - 1
    )  # the phone has the new look
    assert await press(context, table, waiting, card_press(old, still_held)) == STALE
    assert table.seats[waiting].selection.cards == Counter()


async def test_a_press_on_the_keyboard_an_edit_on_its_way_replaces_is_a_toast(opened) -> None:
    """Phones show an edit late: a tap on the keyboard the seat's own play replaced, while the
    new look is on its way or just arrived, gets a quiet toast, not an alert (issue 23)."""
    table, context = opened
    seat = table.match.to_act[0]
    old = await keyboard(context, table, seat)
    [play, *_others] = table.match.legal_plays(seat)
    await context.services.tables.act(table, seat=seat, action=PlayCards(play))
    async with table.lock:
        delivery = await post_hand(context.bot, context.services, table, seat)  # type: ignore[arg-type]
    assert table.seats[seat].message.look_shown_at is None  # composed, not yet sent
    still_held = next(c for c in table.match.hand(seat) if c not in play.cards)
    assert await press(context, table, seat, card_press(old, still_held)) == LAGGING
    await delivery
    assert table.seats[seat].message.look_shown_at is not None
    assert await press(context, table, seat, card_press(old, still_held)) == LAGGING  # just arrived
    assert table.seats[seat].selection.cards == Counter()


async def test_a_press_is_judged_by_when_it_reached_the_bot_not_when_it_was_handled(opened) -> None:
    """A tap that reached the bot just after the new look reached the phone, but waited in the
    bot's own queue (a busy bot: 200 tables), is lag — a toast; the same tap arriving late is
    按钮已过期 (issue 23)."""
    table, context = opened
    seat = table.match.to_act[0]
    old = await keyboard(context, table, seat)
    [play, *_others] = table.match.legal_plays(seat)
    await context.services.tables.act(table, seat=seat, action=PlayCards(play))
    still_held = next(c for c in table.match.hand(seat) if c not in play.cards)
    shown = time.monotonic() - LAG_GRACE - 1
    table.seats[seat].message.look_shown_at = shown
    mark_received(shown + 1)  # it arrived a second after the look, and waited since
    assert await press(context, table, seat, card_press(old, still_held)) == LAGGING
    mark_received()  # the same tap arriving now
    assert await press(context, table, seat, card_press(old, still_held)) == STALE


def forged(pressed: Press, **changes: int | None) -> Press:
    values = {
        "area": pressed.area,
        "table_id": pressed.table_id,
        "version": pressed.version,
        "check": pressed.check,
        "op": pressed.op,
        "arg": pressed.arg,
        "count": pressed.count,
    }
    return Press(**(values | changes))  # type: ignore[arg-type]


async def test_forged_and_foreign_card_presses_are_refused(opened) -> None:
    table, context = opened
    seat = table.match.to_act[0]
    current = await keyboard(context, table, seat)
    held = Counter(table.match.hand(seat))
    card, copies = next(iter(held.items()))
    pressed = card_press(current, card)
    assert (await press(context, table, seat, forged(pressed, count=copies + 1)))[1]
    assert (await press(context, table, seat, forged(pressed, count=None)))[1]
    assert (await press(context, table, seat, forged(pressed, version=table.version + 1)))[1]
    missing = next(c for c in CARDS if c not in held)
    assert (await press(context, table, seat, forged(pressed, arg=missing.index, count=1)))[1]
    assert table.seats[seat].selection.cards == Counter()


@pytest.mark.parametrize("opened", [24], indirect=True)  # seed 24: north and south finish 1-2
async def test_both_winners_return_at_once_after_a_double_down(opened) -> None:
    table, context = opened
    service = context.services.tables
    while not (table.match.phase is Phase.RETURN_TRIBUTE and len(table.match.to_act) == 2):
        assert table.match.deal_number == 1 or table.match.phase is Phase.TRIBUTE
        seat = table.match.to_act[0]
        await service.act(table, seat=seat, action=choose_action(table.observe(seat), table.rules))
    first, second = table.match.to_act
    keyboards = {seat: await keyboard(context, table, seat) for seat in (first, second)}
    chosen = {seat: op_press(keyboards[seat], Op.RETURN) for seat in (first, second)}
    for seat in (first, second):  # the second winner's keyboard predates the first return
        assert await press(context, table, seat, chosen[seat]) == ACCEPTED
    returns = {seat: action for seat, action in table.match.history[-2:]}
    assert returns == {seat: ReturnTribute(CARDS[chosen[seat].arg]) for seat in (first, second)}
