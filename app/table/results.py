"""Deal-result and match-summary views for the group, built from the match's public events.

Only public facts go in: finishing order, levels, points, and the tributes as the
group may see them (the tribute card is public, the returned card is not).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.table.texts import a_attempt_text
from engine.actions import DealEnded, DealStarted, Event, MatchEnded, TributeGiven, TributeReturned
from engine.observation import TributeView
from engine.rules import MatchFormat, Rules
from render.results import DealLine, DealResultView, MatchSummaryView, tribute_line


def deal_events(events: Sequence[Event], deal_number: int) -> list[Event]:
    """The events of one deal, from its DealStarted to its DealEnded."""
    found: list[Event] = []
    inside = False
    for event in events:
        if isinstance(event, DealStarted):
            inside = event.deal_number == deal_number
        if inside:
            found.append(event)
            if isinstance(event, DealEnded):
                break
    return found


def deal_ending(events: Sequence[Event], deal_number: int) -> tuple[DealEnded | None, MatchEnded | None]:
    """How deal ``deal_number`` ended (``events``: the whole match so far): its result (None while
    it is played, or when the match's clock cut it short) and the match's end if it came with it."""
    result: DealEnded | None = None
    match_end: MatchEnded | None = None
    inside = False
    for event in events:
        if isinstance(event, DealStarted):
            inside = event.deal_number == deal_number
        elif inside and isinstance(event, DealEnded):
            result = event
        elif inside and isinstance(event, MatchEnded):
            match_end = event
    return result, match_end


def public_tributes(events: Sequence[Event]) -> list[TributeView]:
    views = []
    for event in events:
        if isinstance(event, TributeGiven):
            views.append(TributeView(event.giver, event.receiver, event.card, False))
        elif isinstance(event, TributeReturned):
            views.append(TributeView(event.giver, event.receiver, None, True))
    return views


def deal_result_view(
    events: Sequence[Event], result: DealEnded, names: Sequence[str], rules: Rules, locale: str
) -> DealResultView:
    """The picture's content for one finished deal (``events``: the whole match so far)."""
    own = deal_events(events, result.deal_number)
    started = next(e for e in own if isinstance(e, DealStarted))
    ended = [e for e in events if isinstance(e, DealEnded) and e.deal_number <= result.deal_number]
    points = None
    if rules.match_format is MatchFormat.POINTS:
        points = (sum(e.points[0] for e in ended), sum(e.points[1] for e in ended))
    after = events[events.index(result) + 1 :] if result in events else []
    winner = next((e.winner_team for e in after[:3] if isinstance(e, MatchEnded)), None)
    notes = (a_attempt_text(result.a_attempt, locale),) if result.a_attempt else ()
    return DealResultView(
        deal_number=result.deal_number,
        level=started.level,
        declarer_team=started.declarer_team,
        finish_order=result.finish_order,
        levels_before=result.levels_before,
        levels_after=result.levels_after,
        names=tuple(names),
        tribute_lines=tuple(tribute_line(v, names, locale) for v in public_tributes(own)),
        points=points,
        winner_team=winner,
        notes=notes,
    )


def match_summary_view(events: Sequence[Event], names: Sequence[str], rules: Rules) -> MatchSummaryView:
    lines = []
    started: DealStarted | None = None
    running = (0, 0)
    for event in events:
        if isinstance(event, DealStarted):
            started = event
        elif isinstance(event, DealEnded) and started is not None:
            running = (running[0] + event.points[0], running[1] + event.points[1])
            lines.append(
                DealLine(
                    event.deal_number,
                    started.level,
                    started.declarer_team,
                    event.finish_order,
                    event.levels_after,
                    running if rules.match_format is MatchFormat.POINTS else None,
                )
            )
    ended = [e for e in events if isinstance(e, DealEnded)]
    final = next((e for e in reversed(events) if isinstance(e, MatchEnded)), None)
    points = None
    if rules.match_format is MatchFormat.POINTS:
        points = (sum(e.points[0] for e in ended), sum(e.points[1] for e in ended))
    return MatchSummaryView(
        deals=tuple(lines[-24:]),
        final_levels=ended[-1].levels_after if ended else (lines[0].level, lines[0].level),
        winner_team=final.winner_team if final else None,
        names=tuple(names),
        points=points,
    )
