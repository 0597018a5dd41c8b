"""Hand-message presses at the handler boundary: every refusal is an alert and changes nothing.

A fake query records the answer; a refused press must return before any Telegram
call, so the context needs no bot.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest

from app.preferences import Languages
from app.table.callback_data import Area, Op, Press
from app.table.presses import Refusal, press_action
from app.table.selection import digest
from app.table.settings import rules_from_args
from app.table.tables import LiveTable, TableService
from engine.actions import PlayCards
from engine.cards import Card, Rank
from engine.match import observe
from handlers.table.play import _handle, _hint, _play_hint_text, on_hand_press
from players.planner import choose_action
from render.words import card_text
from storage import Database


@dataclass
class FakeQuery:
    answers: list[tuple[str | None, bool]] = field(default_factory=list)

    async def answer(self, text: str | None = None, show_alert: bool = False, **_: object) -> bool:
        self.answers.append((text, show_alert))
        return True


@dataclass
class FakeServices:
    tables: TableService

    @property
    def db(self) -> Database:
        return self.tables.db

    @property
    def languages(self) -> Languages:
        return Languages(self.tables.db)


@dataclass
class FakeContext:
    services: FakeServices
    bot: object = None
    job_queue: object = None


@pytest.fixture
async def table(tmp_path: Path, request: pytest.FixtureRequest):
    db = await Database.open(tmp_path / "p.db")
    seed = getattr(request, "param", 9)
    service = TableService(db, new_seed=lambda: seed)
    preset, rules = rules_from_args(["wechat-6-deals", "points_deals=2"])
    live = await service.create(chat_id=-1, creator_id=1, preset=preset, rules=rules)
    for seat in range(4):
        await service.take_seat(live, seat=seat, user_id=100 + seat, name=f"H{seat}", locale=None)
    await service.start(live)
    yield live, service
    await db.close()


def _press(
    table: LiveTable, seat: int, op: Op, arg: int | None = None, *, version: int | None = None
) -> Press:
    check = digest(table.seats[seat].selection.cards)
    return Press(Area.HAND, table.id, table.version if version is None else version, check, op, arg)


async def _refusal(
    table: LiveTable, service: TableService, seat: int, press: Press
) -> tuple[str | None, bool]:
    query = FakeQuery()
    before = table.version
    await (await _handle(query, FakeContext(FakeServices(service)), table, table.seats[seat], press))  # type: ignore[arg-type]
    assert table.version == before
    [answer] = query.answers
    return answer


async def test_stale_and_forged_versions_are_refused(table) -> None:
    live, service = table
    seat = live.match.to_act[0]
    forged = _press(live, seat, Op.TOGGLE, live.match.hand(seat)[0].index, version=live.version + 1)
    assert await _refusal(live, service, seat, forged) == ("按钮已过期，请使用最新的消息。", True)
    old_version = _press(live, seat, Op.PASS, version=live.version - 1)
    assert await _refusal(live, service, seat, old_version) == ("按钮已过期，请使用最新的消息。", True)


async def test_out_of_turn_and_leading_pass_are_refused(table) -> None:
    live, service = table
    seat = live.match.to_act[0]
    other = (seat + 1) % 4
    assert await _refusal(live, service, other, _press(live, other, Op.PLAY)) == ("还没轮到你", True)
    assert observe(live.match, seat).table_play is None
    assert await _refusal(live, service, seat, _press(live, seat, Op.PASS)) == (
        "这一轮由你先出，不能不出",
        True,
    )
    assert await _refusal(live, service, seat, _press(live, seat, Op.PLAY)) == (
        "请先选牌，或按「提示」。",
        True,
    )


async def test_forged_card_and_reading_arguments_are_refused(table) -> None:
    live, service = table
    seat = live.match.to_act[0]
    missing = next(
        card for card in (Card(Rank.BIG_JOKER), Card(Rank.SMALL_JOKER)) if card not in live.match.hand(seat)
    )
    assert (await _refusal(live, service, seat, _press(live, seat, Op.TOGGLE, missing.index)))[1]
    assert (await _refusal(live, service, seat, _press(live, seat, Op.TOGGLE, 999)))[1]
    assert (await _refusal(live, service, seat, _press(live, seat, Op.READING, 3)))[1]
    assert (await _refusal(live, service, seat, _press(live, seat, Op.TRIBUTE, 0)))[1]


async def test_a_play_that_does_not_beat_names_the_table_play(table) -> None:
    live, service = table
    leader = live.match.to_act[0]
    highest = live.match.hand(leader)[-1]
    single = next(p for p in live.match.legal_plays(leader) if p.cards == (highest,))
    await service.act(live, seat=leader, action=PlayCards(single))
    follower = live.match.to_act[0]
    state = live.seats[follower]
    state.selection.cards = Counter({live.match.hand(follower)[0]: 1})
    refusal = press_action(live, state, _press(live, follower, Op.PLAY), "zh")
    assert isinstance(refusal, Refusal) and refusal.text is not None
    assert refusal.text == f"打不过上家的 {card_text(highest)}"


@pytest.mark.parametrize("table", [1], indirect=True)  # seed 1: the leader holds ♥2 and two pairs
async def test_wildcard_selection_asks_for_a_reading(table) -> None:
    live, _service = table
    seat = live.match.to_act[0]
    state = live.seats[seat]
    wildcard = Card.parse("H2")
    hand = live.match.hand(seat)
    pairs = [c for c, n in Counter(hand).items() if n >= 2 and not c.is_wildcard(Rank.TWO) and not c.is_joker]
    assert wildcard in hand and len(pairs) >= 2
    state.selection.cards = Counter({wildcard: 1, pairs[0]: 2, pairs[1]: 2})
    assert press_action(live, state, _press(live, seat, Op.PLAY), "zh") is None
    assert len(state.selection.readings) >= 2
    assert {p.kind.value for p in state.selection.readings} == {"full_house"}


async def test_play_on_the_keyboard_hint_was_pressed_on_plays_what_its_toast_named(table) -> None:
    """Issue 23: 提示 names its suggestion in its answer and its keyboard may come later (a
    glance): 出牌 on the keyboard the player pressed 提示 on plays that suggestion, and only
    while the hint's cards are still the selection."""
    live, service = table
    seat = live.match.to_act[0]
    state = live.seats[seat]
    before_hint = _press(live, seat, Op.PLAY)  # the keyboard the player sees: nothing selected
    assert await _hint(live, state, service) is None
    state.selection.hint_keyboard = (before_hint.version, before_hint.check)  # as _select notes it
    assert state.selection.hint_play is not None
    toast = _play_hint_text(state, "zh")
    assert toast.startswith("提示：") and "点「出牌」打出" in toast and "不出" not in toast
    assert press_action(live, state, before_hint, "zh") == PlayCards(state.selection.hint_play)
    other = next(card for card in live.match.hand(seat) if state.selection.cards[card] == 0)
    state.selection.cards = state.selection.cards + Counter({other: 1})  # a card picked since: not the hint
    refusal = press_action(live, state, before_hint, "zh")
    assert isinstance(refusal, Refusal) and refusal.quiet


async def test_play_on_an_older_keyboard_hint_was_pressed_on_plays_the_hint(table) -> None:
    """提示 is taken on any keyboard of the hand the seat holds, and the one the player sees may
    predate the others' latest moves (their look still on its way): 出牌 on that same keyboard
    still plays what the toast named. A refusal here made a slow machine's player press 提示
    again and play the second suggestion (CI: 双下 where the pinned seed gives 单下)."""
    live, service = table
    leader = live.match.to_act[0]
    seat = (leader + 1) % 4
    state = live.seats[seat]
    seen = _press(live, seat, Op.PLAY)  # the keyboard on the phone, made before the lead
    await service.act(live, seat=leader, action=choose_action(observe(live.match, leader), live.rules))
    assert live.match.to_act == (seat,) and seen.version < live.version
    assert await _hint(live, state, service) is None
    state.selection.hint_keyboard = (seen.version, seen.check)  # as _select notes the pressed keyboard
    assert state.selection.hint_play is not None
    assert press_action(live, state, seen, "zh") == PlayCards(state.selection.hint_play)


async def test_a_turn_the_newest_look_takes_away_is_lag_not_a_mistake(table) -> None:
    """Issue 23: after 不出 the phone still shows 轮到你了 until the next look arrives (under load,
    seconds); 提示 or 出牌 pressed on it meanwhile gets the update toast, not the 还没轮到你 alert."""
    live, service = table
    waiting = (live.match.to_act[0] + 1) % 4
    state = live.seats[waiting]
    state.message.look_shown_at, state.message.turn_delivered = (
        None,
        True,
    )  # the phone says 轮到你了; the next look is on its way
    for op in (Op.HINT, Op.PLAY):
        text, shown_as_alert = await _refusal(live, service, waiting, _press(live, waiting, op))
        assert text is not None and "手牌正在更新" in text and not shown_as_alert
    state.message.turn_delivered = False  # the phone never said it was their turn: no lag to forgive
    assert await _refusal(live, service, waiting, _press(live, waiting, Op.HINT)) == ("还没轮到你", True)
    state.message.look_shown_at, state.message.turn_delivered = (
        0.0,
        True,
    )  # the look that ended the turn is there
    assert await _refusal(live, service, waiting, _press(live, waiting, Op.PLAY)) == ("还没轮到你", True)


@dataclass
class PressedQuery(FakeQuery):
    data: str = ""
    from_user: object = None


async def test_a_press_on_a_finished_tables_hand_is_a_toast_not_an_alert(table) -> None:
    """Under load a phone may still show 轮到你 when its table's match has ended (the last look
    queued): 提示 there is no mistake of the player's, and no newer message exists to use, so
    按钮已过期，请使用最新的消息 was wrong (issue 23: all 16–22 alerts at 150 busy tables)."""
    live, service = table
    seat = live.match.to_act[0]
    hint = _press(live, seat, Op.HINT)
    await service.stop(live)
    query = PressedQuery(data=hint.encode(), from_user=SimpleNamespace(id=100 + seat))
    update = SimpleNamespace(callback_query=query)
    await on_hand_press(update, FakeContext(FakeServices(service)))  # type: ignore[arg-type]
    assert query.answers == [("这桌牌局已结束，按钮已失效。", False)]


@dataclass
class ChatQuery(PressedQuery):
    """A press on message ``message_id`` of the presser's own private chat."""

    message_id: int = 0

    @property
    def message(self) -> SimpleNamespace:
        assert isinstance(self.from_user, SimpleNamespace)
        return SimpleNamespace(message_id=self.message_id, chat=SimpleNamespace(id=self.from_user.id))


async def test_a_press_on_a_message_from_before_the_restart_is_refused_and_changes_nothing(table) -> None:
    """Issue 40.3: after a restart (or a restore, when the chat holds messages the store never
    knew) a press on any message older than the seat's first fresh one is refused by its id,
    whatever its buttons say: the version they name may come round again with other cards."""
    live, service = table
    seat = live.match.to_act[0]
    state = live.seats[seat]
    toggle = _press(live, seat, Op.TOGGLE, live.match.hand(seat)[0].index)
    toggle = Press(toggle.area, toggle.table_id, toggle.version, toggle.check, toggle.op, toggle.arg, 1)
    context = FakeContext(FakeServices(service))

    async def press(data: Press, message_id: int) -> tuple[str | None, bool]:
        query = ChatQuery(data=data.encode(), from_user=SimpleNamespace(id=100 + seat), message_id=message_id)
        await on_hand_press(SimpleNamespace(callback_query=query), context)  # type: ignore[arg-type]
        [answer] = query.answers
        return answer

    restored = ("♻️ 这桌已恢复，请用下面的新消息。", True)
    assert await press(toggle, 40) == restored  # nothing sent since the start: every message is older
    state.message.first_sent = 50
    assert await press(toggle, 49) == restored  # sent before the restart, known to the store or not
    assert not state.selection.cards and live.version == toggle.version
    lead_pass = _press(live, seat, Op.PASS)  # on the fresh message it is judged as ever
    assert await press(lead_pass, 50) == ("这一轮由你先出，不能不出", True)
