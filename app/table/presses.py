"""What a hand button asks for: the engine action a press means, a refusal, or "pick a reading".

A phone shows the old keyboard until the bot's edit reaches it, so a press is judged by what it
means (``handlers/table/play.py`` says how); this is that judgement, Telegram-free (issue 41):
the chat's hand message and the Mini App read the same presses the same way. The handler applies
the action and answers the refusal.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.table.callback_data import Op, Press
from app.table.refusals import TableRefusal
from app.table.seats import SeatState
from app.table.selection import digest, select_play, selected_cards
from app.table.tables import LiveTable
from app.table.texts import cannot_beat
from app.table.tribute import EXCHANGE_OPS, exchange_action
from engine.actions import Action, Pass, Phase, PlayCards
from engine.classify import classify
from engine.errors import InvalidCards
from engine.rules import WildcardDeclaration


@dataclass(frozen=True, slots=True)
class Refusal:
    """A press that cannot be applied: a catalog code, or an already localized text;
    ``quiet`` ones (the selection changed under 出牌) are a toast, not an alert."""

    code: TableRefusal
    text: str | None = None
    quiet: bool = False


def press_action(table: LiveTable, state: SeatState, press: Press, locale: str) -> Action | Refusal | None:
    """The action a press asks for, a refusal, or None when the player must pick a reading."""
    seat = state.record.seat
    assert table.match is not None
    if seat not in table.match.to_act:
        return Refusal(TableRefusal.NOT_YOUR_TURN)
    if press.op in EXCHANGE_OPS:
        return exchange_action(press, table, state) or Refusal(TableRefusal.BAD_BUTTON)
    if table.match.phase is not Phase.PLAY:
        return Refusal(TableRefusal.BAD_BUTTON)
    if press.op is Op.PASS:
        previous = table.observe(seat).play_to_beat(seat)
        return Pass() if previous is not None else Refusal(TableRefusal.MUST_LEAD)
    if press.op is Op.READING:
        return _reading(state, press)
    if press.op is not Op.PLAY:
        return Refusal(TableRefusal.BAD_BUTTON)
    return _play(table, state, press, locale)


def _reading(state: SeatState, press: Press) -> Action | Refusal:
    """逢人配: the reading picked, if the selection is still the one its buttons were made for."""
    readings = state.selection.readings
    if press.check != digest(state.selection.cards) or press.arg is None or press.arg >= len(readings):
        return Refusal(TableRefusal.STALE)
    return PlayCards(readings[press.arg])


def _play(table: LiveTable, state: SeatState, press: Press, locale: str) -> Action | Refusal | None:
    """出牌: the hint's play, or the selection as the label named it."""
    selection = state.selection
    if named_by_hint(table, state, press):
        assert selection.hint_play is not None
        return PlayCards(selection.hint_play)
    if press.version != table.version or press.check != digest(selection.cards):
        return Refusal(TableRefusal.STALE, quiet=True)
    if not selection.cards:
        return Refusal(TableRefusal.EMPTY)
    if selection.hint_play is not None and select_play(selection.hint_play) == selection.cards:
        return PlayCards(selection.hint_play)
    return _read(table, state, locale)


def _read(table: LiveTable, state: SeatState, locale: str) -> Action | Refusal | None:
    """The selected cards as a play: the one reading, the lowest where the rules say so, or
    None with the readings kept for the player to pick (逢人配)."""
    seat = state.record.seat
    assert table.match is not None
    obs = table.observe(seat)
    previous = obs.play_to_beat(seat)
    cards = selected_cards(state.selection.cards)
    try:
        found = table.match.readings(seat, cards)
    except InvalidCards:
        return Refusal(TableRefusal.STALE)
    if not found:
        if previous is not None and classify(cards, obs.level):
            return Refusal(TableRefusal.NO_SUCH_PLAY, cannot_beat(previous, obs.level, locale))
        return Refusal(TableRefusal.NO_SUCH_PLAY)
    if len(found) == 1 or table.rules.wildcard_declaration is WildcardDeclaration.LOWEST:
        return PlayCards(found[0])
    state.selection.readings = tuple(found)  # 逢人配: the player picks the reading
    return None


def named_by_hint(table: LiveTable, state: SeatState, press: Press) -> bool:
    """A 出牌 pressed on the keyboard 提示 was pressed on, the hint's cards still selected
    and nothing played since: the hint's toast named the play, so it is what the press means.

    That keyboard may be older than the table: 提示 is taken on any keyboard of the hand the
    seat holds (a look after others' moves may still be on its way), so "nothing played since"
    is the hint's own version, not the keyboard's. A slow machine's player whose 出牌 was
    refused here pressed 提示 again and played the second suggestion (CI, the pinned 单下)."""
    hints = state.selection.hints
    return (
        state.selection.hint_play is not None
        and hints is not None
        and hints.version == table.version
        and (press.version, press.check) == state.selection.hint_keyboard
        and state.selection.cards == select_play(state.selection.hint_play)
    )
