"""What the page shows one seat: its view of the table as JSON, built from the same
:class:`engine.observation.Observation` the chat's pictures and captions are drawn from, so
the page can show nothing a chat player could not see.

Cards travel in the engine's notation (``HT``, ``S3``, ``BJ``); the hand comes in the chat's
display order with its 理牌 groups (:func:`render.arrange.hand_groups`: bombs and straight
flushes set apart), so the page draws what the hand picture draws. Sentences (the header, the
trick, a deal's result, the match's end) are the chat's own texts in the seat's language, with
their HTML taken off: the page sets them as plain text, never as markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from app.table.counter import cards_out
from app.table.tables import LiveTable
from app.table.texts import deal_result_text, header, match_result_text, trick_summary
from engine.actions import DealEnded, Event, MatchEnded, Phase
from engine.cards import Card, Rank
from engine.observation import Observation
from render.arrange import hand_groups

Json = dict[str, Any]
_TAG = re.compile(r"<[^>]*>")


def plain(text: str) -> str:
    """A chat text (Telegram HTML) as plain text: tags dropped, entities decoded."""
    return html.unescape(_TAG.sub("", text))


def cards(found: Sequence[Card]) -> list[str]:
    return [str(card) for card in found]


def seat_state(
    table: LiveTable, seat: int | None, locale: str, *, clock: tuple[int, float] | None = None
) -> Json:
    """The ``state`` message for ``seat`` (None: a spectator, who sees no hand)."""
    match = table.match
    assert match is not None
    obs = table.observe(seat)
    return {
        "t": "state",
        "table": table.id,
        "seat": seat,
        "version": obs.version,
        "deal": obs.deal_number,
        "phase": obs.phase.value,
        "level": obs.level.char,
        "team_levels": [rank.char for rank in obs.team_levels],
        "declarer": obs.declarer_team,
        "points": list(obs.points),
        "games_won": list(obs.games_won),
        "header": plain(header(obs, table.rules, locale)),
        "hand": _hand(obs),
        "seats": [_seat(table, obs, s) for s in range(4)],
        "to_act": list(obs.to_act),
        "trick": _trick(obs),
        "trick_text": plain(trick_summary(obs, locale)) if seat is not None else "",
        "counter": _counter(table, obs),
        "tribute": cards(obs.must_tribute_from) if obs.phase is Phase.TRIBUTE else [],
        "return": cards(obs.may_return) if obs.phase is Phase.RETURN_TRIBUTE else [],
        "autoplay": seat is not None and seat in table.seats and table.seats[seat].record.autoplay,
        "result": _last_result(table, match.events, locale),
        "match_over": obs.phase is Phase.MATCH_OVER or match.is_over,
        "stopped": not table.record.status.is_active,
        "clock": None if clock is None else {"seconds": clock[0], "left": round(clock[1], 1)},
    }


def _counter(table: LiveTable, obs: Observation) -> Json | None:
    """记牌器 as the chat's hand caption shows it: where the table's rules turn it on, in a
    seat's own view (a spectator never gets one) while the deal is played. Per rank, strongest
    first in the level's order, the cards still out (``[["RJ", 2], ["BJ", 1], ["2", 6], …]``),
    and the wildcards (配) apart; the page draws and labels them (None: no counter)."""
    if not table.rules.card_counter or obs.seat is None or obs.phase is not Phase.PLAY:
        return None
    out = cards_out(obs)
    return {"ranks": [[_rank_code(rank), left] for rank, left in out.ranks], "wild": out.wildcards}


def _rank_code(rank: Rank) -> str:
    """A rank as the cards' notation writes it: ``2``..``A``, and a joker as its card (BJ, RJ)."""
    if rank.is_joker:
        return "BJ" if rank is Rank.SMALL_JOKER else "RJ"
    return rank.char


def _hand(obs: Observation) -> list[list[str]]:
    """The hand in display order, one list per 理牌 group (the rest first, then bombs, flushes)."""
    return [list(group) for group in _arranged(obs.hand, obs.level)]


@lru_cache(maxsize=4096)
def _arranged(hand: tuple[Card, ...], level: Rank) -> tuple[tuple[str, ...], ...]:
    """理牌 of one hand at one level, kept: a seat's hand is sent again at every move of the
    table's others, unchanged (finding its bombs and flushes was two thirds of building a view)."""
    return tuple(tuple(str(hand[i]) for i in group) for group in hand_groups(hand, level, group=True))


def _seat(table: LiveTable, obs: Observation, seat: int) -> Json:
    view = obs.seats[seat]
    state = table.seats.get(seat)
    return {
        "seat": seat,
        "name": state.record.name if state is not None else "",
        "ai": state is not None and state.record.is_ai,
        "autoplay": state is not None and state.record.autoplay,
        "count": view.cards_left,
        "place": view.place,
        "play": cards(view.last_action.cards) if view.last_action is not None else None,
        "passed": view.passed,
    }


def _trick(obs: Observation) -> Json | None:
    """The play to beat and who made it (None: the trick is open)."""
    if obs.table_play is None or obs.table_seat is None:
        return None
    return {"seat": obs.table_seat, "cards": cards(obs.table_play.cards)}


def _last_result(table: LiveTable, events: Sequence[Event], locale: str) -> str | None:
    """The latest deal's result and, once it came, the match's end: the deal's end screen."""
    result = next((e for e in reversed(events) if isinstance(e, DealEnded)), None)
    ended = next((e for e in reversed(events) if isinstance(e, MatchEnded)), None)
    lines = []
    if result is not None:
        lines.append(plain(deal_result_text(result, table.names(), table.rules, locale)))
    if ended is not None:
        lines.append(plain(match_result_text(ended, locale)))
    return "\n".join(lines) or None
