"""The page's moves, turned into the calls the chat's buttons make (``handlers/table/play.py``):
the same checks in the same order, the same :class:`TableService` methods, the same refusals.

The page sends what it means (these cards, 不出, this tribute card), not a button made for one
version of the table, so there is no stale keyboard to forgive: a move is judged against the
table as it is when it arrives, under the table's lock. The seat is the connection's, fixed
when its ``initData`` was validated; nothing in a move names a seat or a table.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from app.table.hints import hints_for
from app.table.refusals import TableRefusal
from app.table.tables import LiveTable, Outcome, TableService
from app.table.texts import cannot_beat, error_text
from engine.actions import Action, GiveTribute, Pass, Phase, PlayCards, ReturnTribute
from engine.cards import Card
from engine.classify import classify
from engine.errors import EngineError, IllegalAction, InvalidCards, NotYourTurn
from engine.plays import Play
from engine.rules import WildcardDeclaration
from webapp.protocol import Autoplay, Exchange, Hint, Move, PassMove, PlayMove

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Refusal:
    """A move not made, with the chat's text for it."""

    code: TableRefusal
    text: str


@dataclass(frozen=True, slots=True)
class Readings:
    """逢人配: the cards can be read several ways; the page asks which (``reading`` in a play)."""

    options: tuple[Play, ...]


@dataclass(frozen=True, slots=True)
class Suggestion:
    """提示's answer: cards to select (empty: 不出)."""

    cards: tuple[Card, ...]


@dataclass
class HintCursor:
    """Which of the turn's suggestions the seat's next 提示 gives (the chat's ``hint_index``)."""

    version: int = -1
    index: int = 0
    play: Play | None = None  # the reading the last suggestion chose: played as is if sent back

    def hinted(self, version: int, cards: tuple[Card, ...]) -> Play | None:
        """The suggested play, if these are its cards and nothing was played since."""
        if self.play is None or version != self.version:
            return None
        return self.play if sorted(self.play.cards) == sorted(cards) else None


Result = Outcome | Refusal | Readings | Suggestion


def refusal(code: TableRefusal, locale: str, text: str | None = None) -> Refusal:
    return Refusal(code, text or error_text(code, locale))


async def make(
    tables: TableService, table: LiveTable, seat: int, move: Move, cursor: HintCursor, locale: str
) -> Result:
    """Apply ``move`` for ``seat`` (table lock held): what changed, or why nothing did."""
    match = table.match
    if match is None or not table.record.status.is_active:
        return refusal(TableRefusal.TABLE_NOT_PLAYING, locale)
    if isinstance(move, Autoplay):
        return await tables.set_autoplay(table, seat=seat, on=move.on)
    if seat not in match.to_act:
        return refusal(TableRefusal.NOT_YOUR_TURN, locale)
    if isinstance(move, Hint):
        return await _hint(tables, table, seat, cursor, locale)
    action = _action(table, seat, move, cursor, locale)
    if not isinstance(action, Action):
        return action
    return await _act(tables, table, seat, action, locale)


def _action(
    table: LiveTable, seat: int, move: Move, cursor: HintCursor, locale: str
) -> Action | Refusal | Readings:
    """The action a move asks for (the chat's ``play._action`` and ``tribute.exchange_action``)."""
    obs = table.observe(seat)
    if isinstance(move, Exchange):
        if move.giving and obs.phase is Phase.TRIBUTE and move.card in obs.must_tribute_from:
            return GiveTribute(move.card)
        if not move.giving and obs.phase is Phase.RETURN_TRIBUTE and move.card in obs.may_return:
            return ReturnTribute(move.card)
        return refusal(TableRefusal.BAD_BUTTON, locale)
    if obs.phase is not Phase.PLAY:
        return refusal(TableRefusal.BAD_BUTTON, locale)
    previous = obs.play_to_beat(seat)
    if isinstance(move, PassMove):
        return Pass() if previous is not None else refusal(TableRefusal.MUST_LEAD, locale)
    assert isinstance(move, PlayMove)
    if not move.cards:
        return refusal(TableRefusal.EMPTY, locale)
    hinted = cursor.hinted(table.version, move.cards)
    if hinted is not None and move.reading is None:
        return PlayCards(hinted)
    assert table.match is not None
    try:
        found = table.match.readings(seat, move.cards)
    except InvalidCards:
        return refusal(TableRefusal.STALE, locale)
    if not found:
        if previous is not None and classify(list(move.cards), obs.level):
            return refusal(TableRefusal.NO_SUCH_PLAY, locale, cannot_beat(previous, obs.level, locale))
        return refusal(TableRefusal.NO_SUCH_PLAY, locale)
    if move.reading is not None:
        if not 0 <= move.reading < len(found):
            return refusal(TableRefusal.STALE, locale)
        return PlayCards(found[move.reading])
    if len(found) == 1 or table.rules.wildcard_declaration is WildcardDeclaration.LOWEST:
        return PlayCards(found[0])
    return Readings(tuple(found))


async def _act(tables: TableService, table: LiveTable, seat: int, action: Action, locale: str) -> Result:
    try:
        return await tables.act(table, seat=seat, action=action)
    except NotYourTurn:
        return refusal(TableRefusal.NOT_YOUR_TURN, locale)
    except IllegalAction:
        return refusal(TableRefusal.MUST_LEAD, locale)
    except EngineError as error:
        log.info("Mini App move %s refused at table %s: %s", action, table.id, error)
        return refusal(TableRefusal.NO_SUCH_PLAY, locale)


async def _hint(
    tables: TableService, table: LiveTable, seat: int, cursor: HintCursor, locale: str
) -> Suggestion | Refusal:
    """The next suggestion of the turn, 标准's choice first (the chat's 提示, the same thought)."""
    if table.match is None or table.match.phase is not Phase.PLAY:
        return refusal(TableRefusal.NOT_YOUR_TURN, locale)
    state = table.seats[seat]
    if state.selection.hints is None or state.selection.hints.version != table.version:
        state.selection.hints = await hints_for(tables, table, state)
    if cursor.version != table.version:
        cursor.version, cursor.index = table.version, 0
    hint = state.selection.hints.pick(cursor.index)
    if hint is None:
        return refusal(TableRefusal.NO_HINT, locale)
    cursor.index += 1
    cursor.play = hint if isinstance(hint, Play) else None
    return Suggestion(() if isinstance(hint, Pass) else hint.cards)
