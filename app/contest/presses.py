"""What a contest button asks of the contest: the command a press runs (sign up, withdraw, a
partner's answer, confirm or dispute a report, close the round, draw) and which presses are the
organiser's. Telegram-free (issue 41): the chat buttons decode a press, run its command through
the contest service and answer; another front end would ask the same."""

from __future__ import annotations

from app.contest.callback_data import ContestOp, ContestPress
from app.contest.service import Clock, Command
from engine.contest import (
    Player,
    close_round,
    confirm,
    confirm_partner,
    decline_partner,
    dispute,
    draw,
    sign_up,
    withdraw,
)

ORGANISER_OPS = frozenset({ContestOp.CLOSE_YES, ContestOp.CLOSE_NO, ContestOp.DRAW})
"""Presses only an organiser may make: closing the round (either answer) and the draw."""


def press_command(press: ContestPress, me: Player, username: str | None, now: Clock) -> Command | None:
    """The contest command ``me`` (``@username``) runs by this press, reading ``now`` when it runs;
    None for a press that runs none (play, standings, a mirror's choice, "the round goes on",
    the score sheets')."""
    user_id, code = me.user_id, press.arg
    match press.op:
        case ContestOp.SIGN_UP:
            return lambda c: sign_up(c, me)
        case ContestOp.WITHDRAW:
            return lambda c: withdraw(c, user_id, now=now())
        case ContestOp.PARTNER_YES:
            return lambda c: confirm_partner(c, user_id, player=me, username=username)
        case ContestOp.PARTNER_NO:
            return lambda c: decline_partner(c, user_id, username=username)
        case ContestOp.CONFIRM:
            return lambda c: confirm(c, code=code, by=user_id, now=now())
        case ContestOp.DISPUTE:
            return lambda c: dispute(c, code=code, by=user_id, now=now())
        case ContestOp.CLOSE_YES:
            return lambda c: close_round(c, now=now())
        case ContestOp.DRAW:
            return lambda c: draw(c, now=now())
        case _:
            return None
