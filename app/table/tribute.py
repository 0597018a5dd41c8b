"""进贡 / 还贡 in the private chat: the payer picks among tying largest cards (a single
forced card is paid at once by the table service and shown), the receiver picks
the card to give back within the preset's limit. The group sees the outcome on
the board (and 抗贡 when it happens).

A press is checked against the seat's own pending duty (its phase, its turn, the cards
it may give), not against the whole match's version: after a 双下 both losers pay and
both winners return at the same time, and one of them acting must not make the other's
buttons stale."""

from __future__ import annotations

from app.table.callback_data import Op, Press
from app.table.seats import SeatState
from app.table.tables import LiveTable
from engine.actions import Action, GiveTribute, Phase, ReturnTribute
from engine.cards import CARDS


def exchange_action(press: Press, table: LiveTable, state: SeatState) -> Action | None:
    """The tribute or return the press asks for, if the seat still owes it and may give the card."""
    if press.arg is None or not 0 <= press.arg < len(CARDS):
        return None
    card = CARDS[press.arg]
    obs = table.observe(state.record.seat)
    if obs.seat not in obs.to_act:
        return None
    if press.op is Op.TRIBUTE and obs.phase is Phase.TRIBUTE and card in obs.must_tribute_from:
        return GiveTribute(card)
    if press.op is Op.RETURN and obs.phase is Phase.RETURN_TRIBUTE and card in obs.may_return:
        return ReturnTribute(card)
    return None


EXCHANGE_OPS = (Op.TRIBUTE, Op.RETURN)
