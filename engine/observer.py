"""The observer: what one seat (or the public) may see of a match, and nothing more.

OpenSpiel's ``observe(state, seat)``: every image and message is built from an
:class:`Observation`, so no hand but the observer's own can leak; counts follow 报牌 (V20 / A29).
"""

from __future__ import annotations

from engine.actions import Choice, Phase
from engine.cards import sort_hand
from engine.match_state import MatchState
from engine.observation import Observation, SeatView, TributeView
from engine.rules import CountVisibility, Rules

__all__ = ["observe", "observe_deal_end", "shown_count"]


def observe(match: MatchState, seat: int | None) -> Observation:
    """What ``seat`` may see (``None``: the public view). Other hands never appear."""
    return Observation(
        seat=seat,
        hand=match.hand(seat) if seat is not None else (),
        level=match.level,
        team_levels=match.standing.levels,
        declarer_team=match.declarer_team,
        deal_number=match.deal_number,
        phase=match.phase,
        to_act=match.to_act,
        table_play=match.table_play,
        table_seat=match.table_seat,
        seats=(
            _seat_view(match, 0, seat),
            _seat_view(match, 1, seat),
            _seat_view(match, 2, seat),
            _seat_view(match, 3, seat),
        ),
        finish_order=tuple(match.finish_order),
        tributes=_tribute_views(match, seat),
        points=match.standing.points,
        a_failures=match.standing.a_failures,
        version=match.version,
        must_tribute_from=match.must_tribute_from(seat) if seat is not None else (),
        may_return=match.may_return(seat) if seat is not None else (),
        games_won=match.games_won,
        choice=match.pending_choice,
        history=match.turns,
    )


def observe_deal_end(match: MatchState, seat: int) -> Observation | None:
    """What ``seat`` saw as the latest finished deal ended: the cards it was left with (none once
    out), every seat's place, nobody to act; None before a deal has ended. The next deal is
    dealt by the same action, so :func:`observe` already shows it: this is the deal's last look
    (a hand message that closes the deal shows it)."""
    ended = match.last_deal
    if ended is None:
        return None
    deal, order = ended.deal, tuple(ended.deal.finish_order)
    counts = [shown_count(match.rules, len(deal.hands[s]), visible=s == seat) for s in range(4)]
    return Observation(
        seat=seat,
        hand=tuple(sort_hand(deal.hands[seat], ended.level)),
        level=ended.level,
        team_levels=ended.standing.levels,
        declarer_team=ended.declarer_team,
        deal_number=ended.number,
        phase=Phase.PLAY,
        to_act=(),
        table_play=None,
        table_seat=None,
        seats=(
            SeatView(0, counts[0], order.index(0) + 1, None, False),
            SeatView(1, counts[1], order.index(1) + 1, None, False),
            SeatView(2, counts[2], order.index(2) + 1, None, False),
            SeatView(3, counts[3], order.index(3) + 1, None, False),
        ),
        finish_order=order,
        tributes=(),
        points=ended.standing.points,
        a_failures=ended.standing.a_failures,
        version=ended.version,
        games_won=match.games_won,
        history=tuple(deal.turns),
    )


def _seat_view(match: MatchState, seat: int, observer: int | None) -> SeatView:
    play, passed = match.trick_mark(seat)
    place = match.finish_order.index(seat) + 1 if seat in match.finish_order else None
    return SeatView(seat, _visible_count(match, seat, observer), place, play, passed)


def _visible_count(match: MatchState, seat: int, observer: int | None) -> int | None:
    """Own count always; others per the 报牌 rule (V20 / A29)."""
    return shown_count(match.rules, match.cards_left(seat), visible=seat == observer)


def shown_count(rules: Rules, left: int, *, visible: bool) -> int | None:
    """A seat's count as an observer sees it: ``visible`` (its own) always, others per 报牌."""
    visibility = rules.count_visibility
    if visible or left == 0 or visibility is CountVisibility.ALWAYS:
        return left
    if visibility is CountVisibility.NEVER or left > rules.report_threshold:
        return None
    return left


def _tribute_views(match: MatchState, observer: int | None) -> tuple[TributeView, ...]:
    views = [
        TributeView(payer, receiver, match.paid[payer], False) for payer, receiver in match.receivers.items()
    ]
    hidden = match.rules.returns_face_down and match.phase is Phase.RETURN_TRIBUTE  # 暗扣 until all returned
    choice = match.pending_choice
    picking = choice is not None and choice[0] is Choice.RETURN and observer in match.receivers
    for payer, card in match.returned.items():
        giver = match.return_givers[payer]
        seen = picking or (observer in (giver, payer) and not (hidden and observer == payer))
        views.append(TributeView(giver, payer, card if seen else None, True))
    return tuple(views)
