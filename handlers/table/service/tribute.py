"""进贡 / 还贡 in the private chat: the payer picks among tying largest cards (a single
forced card is paid at once by the table service and shown), the receiver picks
the card to give back within the preset's limit. The group sees the outcome on
the board (and 抗贡 when it happens)."""

from __future__ import annotations

from engine.actions import Action, GiveTribute, ReturnTribute
from engine.cards import CARDS
from handlers.table.service.callback_data import Op, Press
from handlers.table.service.tables import LiveTable, SeatState


def exchange_action(press: Press, table: LiveTable, state: SeatState) -> Action | None:
    """The tribute or return the press asks for, if the card is one the seat may give."""
    if press.arg is None or not 0 <= press.arg < len(CARDS):
        return None
    card = CARDS[press.arg]
    obs = table.observe(state.record.seat)
    if press.op is Op.TRIBUTE and card in obs.must_tribute_from:
        return GiveTribute(card)
    if press.op is Op.RETURN and card in obs.may_return:
        return ReturnTribute(card)
    return None


EXCHANGE_OPS = (Op.TRIBUTE, Op.RETURN)
