"""The computer players of a table: who acts for a seat, and their moves thought off the event loop.

No Telegram here. AI seats, seats in 托管, forced tributes and /autopass passes act without a
person; :class:`ComputerSeats` finds the next such moves and thinks the policies' ones in a
worker thread (:class:`~app.table.thinking.Thinking`). The table service applies and stores
them under the table's lock.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from app.table.live import LiveTable, Moves, Policy
from app.table.seats import SeatState
from app.table.selection import can_beat
from app.table.thinking import Lane, Thinking
from engine.actions import Action, GiveTribute, Pass, Phase
from engine.errors import EngineError
from engine.match import Match, observe
from engine.observation import Observation
from engine.rules import Rules
from players.easy import timeout_action
from players.policies import DEFAULT, DIFFICULTIES, MASTER, seeded

log = logging.getLogger(__name__)

RUN_STEPS = 16  # computer players' moves thought in one trip to a worker thread (a trick or so)


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    """Who acts for a seat, as a run of computer moves sees it (taken under the table's lock)."""

    policy: Policy  # how the engine plays the seat when it plays it (see ComputerSeats.seat_policy)
    plays_itself: bool  # an AI seat or a seat in 托管: the engine plays every action
    auto_pass: bool  # /autopass: passed for when nothing beats the table
    searches: bool  # 大师: thinks in the searches' lane


class ComputerSeats:
    """The policies of a table service's computer players and the thread they think in."""

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy or seeded(DEFAULT)  # 托管 and 提示: 标准
        self.difficulties = {name: seeded(name) for name in DIFFICULTIES} if policy is None else {}
        self.thinking = Thinking()  # computer players' moves and 提示, off the event loop

    def seat_policy(self, state: SeatState, table: LiveTable | None = None) -> Policy:
        """An AI seat plays at its difficulty; 托管 (and a policy given to the service) as 标准,
        or as 大师 at a table that chose 大师 for one of its AI seats."""
        if state.record.is_ai:
            return self.difficulties.get(state.record.difficulty, self.policy)
        if table is not None and MASTER in self.difficulties and _chose_master(table):
            return self.difficulties[MASTER]
        return self.policy

    async def next_run(self, table: LiveTable) -> Moves:
        """The table's next actions until a person must choose: a forced one at once, or a run
        of the computer players' moves thought out in one go in a worker thread.

        One trip to the thread for the whole run, not one per move: between trips the press
        waited behind whatever else the event loop had queued, two or three times a press
        when the computer players answer a person's play (大师 searches for up to a second:
        other tables and buttons go on meanwhile; this table's lock is held throughout)."""
        match = table.match
        assert match is not None
        players = tuple(self._seat_player(table, seat) for seat in range(4))
        step = _next_step(match, players)
        if step is None:
            return []
        seat, action = step
        if action is not None:
            return [(seat, action)]
        lane = Lane.SEARCHES if players[seat].searches else Lane.MOVES
        return await self.thinking.run(lane, self._think_run, match.copy(), table.rules, players)

    def _think_run(self, match: Match, rules: Rules, players: tuple[SeatPlayer, ...]) -> Moves:
        """In a worker thread, on the table's copy: the moves :func:`_next_step` asks for, each
        applied to the copy so the next seat sees it, until a person must choose, the match
        ends, a move of the other lane's kind comes up, or :data:`RUN_STEPS`. A move the copy
        refuses ends the run with it (the table refuses it too and plays the default)."""
        run: Moves = []
        searches: bool | None = None
        while len(run) < RUN_STEPS and not match.is_over:
            step = _next_step(match, players)
            if step is None:
                break
            seat, action = step
            if action is None:
                if searches is not None and players[seat].searches is not searches:
                    break
                searches = players[seat].searches
                action = self._bot_action(observe(match, seat), rules, players[seat].policy)
            run.append((seat, action))
            try:
                match.apply(seat, action)
            except EngineError:
                break
        return run

    def _seat_player(self, table: LiveTable, seat: int) -> SeatPlayer:
        state = table.seats[seat]
        policy = self.seat_policy(state, table)
        searches = policy is self.difficulties.get(MASTER)
        return SeatPlayer(
            policy=policy, plays_itself=state.is_bot, auto_pass=state.auto_pass, searches=searches
        )

    def _bot_action(self, obs: Observation, rules: Rules, policy: Policy) -> Action:
        try:
            return policy(obs, rules)
        except EngineError:
            log.exception("AI policy failed; using the timeout default")
            return timeout_action(obs)


def _chose_master(table: LiveTable) -> bool:
    return any(state.record.is_ai and state.record.difficulty == MASTER for state in table.seats.values())


def _next_step(match: Match, players: tuple[SeatPlayer, ...]) -> tuple[int, Action | None] | None:
    """The seat the table acts for next, with its forced action, or None for an action its
    policy must think out; None when a person must choose."""
    for seat in match.to_act:
        obs = observe(match, seat)
        if players[seat].plays_itself or obs.phase is Phase.CHOICE:
            # A free choice after equal 双下 tributes (V12/V14) has no buttons yet: the 标准
            # player makes it for a human rather than the table waiting on a clock.
            return seat, None
        forced = _forced_tribute(obs) or _auto_pass(players[seat].auto_pass, obs)
        if forced is not None:
            return seat, forced
    return None


def _auto_pass(chosen: bool, obs: Observation) -> Action | None:
    """要不起: a player who chose /autopass passes at once when nothing beats the table."""
    if not chosen or obs.phase is not Phase.PLAY or obs.table_play is None:
        return None
    if obs.table_seat == obs.seat or can_beat(obs.hand, obs.level, obs.table_play):
        return None
    return Pass()


def _forced_tribute(obs: Observation) -> Action | None:
    """A tribute with only one possible card is paid at once (the player is shown it)."""
    if obs.phase is Phase.TRIBUTE and len(set(obs.must_tribute_from)) == 1:
        return GiveTribute(obs.must_tribute_from[0])
    return None
