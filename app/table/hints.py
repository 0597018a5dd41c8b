"""提示's suggestions for a turn: thought out in a worker thread, ahead of the press when it can be.

The first 提示 of a turn runs 标准 on the seat's hand (a few milliseconds, tens on a full hand
with wildcards), in a lane of its own (:mod:`app.table.thinking`). At 150 busy tables the press
waited for that lane and for the GIL, and 提示 had the longest tail of any button (p99 104 ms of
the bot's time against 96 for 不出). A player looks at their hand for seconds before pressing,
so the suggestions are thought out when the turn begins (:func:`think_ahead`, a moment later so
that the turn's own edits go first) and the press finds them ready. A press at a version the
thought did not see (someone played meanwhile), or before it was started, thinks then.

A press whose thought is still queued (under load, or on a machine busy with other work, the
lane runs behind other tables' turns) takes it off the queue and thinks in 提示's own lane at
once, rather than waiting behind them; a thought already begun is awaited, never thought twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from functools import partial

from app.table.seats import Ahead, SeatState
from app.table.selection import Hints
from app.table.tables import LiveTable, Policy, TableService
from app.table.thinking import Lane
from engine.actions import Pass, Phase, PlayCards
from engine.errors import EngineError
from engine.observation import Observation
from engine.plays import Play
from engine.rules import Rules
from players.planner import ranked_plays

AHEAD_DELAY = 0.3
"""Seconds after a turn begins before its suggestions are thought out: the turn's own edits (the
presser's hand, the next player's turn) are composed and sent first, without a worker thread
taking the GIL from them; a player needs longer than this to see the turn and press 提示."""


def suggestions(version: int, obs: Observation, rules: Rules, policy: Policy) -> Hints:
    """The turn's suggestions: 标准's choice, then its other sensible plays, then the rest."""
    previous = obs.play_to_beat(obs.seat)
    choice = _preferred(obs, rules, policy)
    return Hints(
        version,
        obs.hand,
        obs.level,
        previous,
        choice if isinstance(choice, Play) else None,
        tuple(ranked_plays(obs, rules)),
        pass_first=isinstance(choice, Pass) and previous is not None,
    )


def _preferred(obs: Observation, rules: Rules, policy: Policy) -> Play | Pass | None:
    """The AI's choice for this seat (a play or 不出), offered as the first hint."""
    try:
        action = policy(obs, rules)
    except EngineError:
        return None
    if isinstance(action, PlayCards):
        return action.play
    return action if isinstance(action, Pass) else None


async def hints_for(tables: TableService, table: LiveTable, state: SeatState) -> Hints:
    """The suggestions of the seat's turn at the table's version: thought ahead, or now."""
    version = table.version
    ahead, state.selection.ahead = state.selection.ahead, None
    if ahead is not None and ahead.version == version:
        if ahead.started.is_set() or ahead.thought.done():
            return await ahead.thought
        ahead.thought.cancel()  # still queued behind other tables' turns: thought now, in 提示's lane
    obs = table.observe(state.record.seat)
    return await tables.thinking.run(Lane.HINTS, suggestions, version, obs, table.rules, tables.policy)


def think_ahead(tables: TableService, table: LiveTable) -> None:
    """Start thinking out the suggestions of every human seat whose turn it now is."""
    match = table.match
    if match is None or match.is_over or match.phase is not Phase.PLAY:
        return
    for seat in match.to_act:
        state = table.seats.get(seat)
        if state is None or state.is_bot:
            continue
        ahead = state.selection.ahead
        if ahead is not None and ahead[0] == table.version:
            continue
        state.selection.ahead = None
        asyncio.get_running_loop().call_later(AHEAD_DELAY, _think, tables, table, state, table.version)


def _think(tables: TableService, table: LiveTable, state: SeatState, version: int) -> None:
    """The turn is still the one :func:`think_ahead` saw, and 提示 has not thought it out yet."""
    match = table.match
    hints = state.selection.hints
    if match is None or table.version != version or state.record.seat not in match.to_act or state.is_bot:
        return
    if state.selection.ahead is not None or (hints is not None and hints.version == version):
        return
    obs = table.observe(state.record.seat)
    started = threading.Event()
    work = partial(_begun, started, suggestions)
    future = tables.thinking.ahead(Lane.AHEAD, work, version, obs, table.rules, tables.policy)
    future.add_done_callback(_retrieved)
    state.selection.ahead = Ahead(version, future, started)


def _begun(started: threading.Event, work: Callable[..., Hints], *args: object) -> Hints:
    """``work(*args)``, noting first that the lane's thread took it up (see :func:`hints_for`)."""
    started.set()
    return work(*args)


def _retrieved(future: asyncio.Future[Hints]) -> None:
    """A thought nobody took (the player played without 提示) ends quietly, failed or not."""
    with contextlib.suppress(asyncio.CancelledError, Exception):
        future.result()
