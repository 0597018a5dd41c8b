"""The draw and the rounds: pairings, byes, tables and seats, the schedule, a contest table's
heading; and the table clocks of a timed round.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import assert_never

from app.contest.texts.words import TEXT_LIMIT, _fitted, pair_label, pair_line, report_example
from app.table.texts import _, escape
from engine.contest import (
    Contest,
    ContestMatch,
    MatchKind,
    MatchStatus,
    Round,
    ScheduleKind,
    TableClock,
)
from engine.contest.deadlines import zone
from engine.contest.families import Bye
from engine.contest.movement import drawn_groups
from engine.contest.seating import RANKS, seating
from engine.rules import Rules, SeatAssignment, TimeUp
from render.words import is_english


def draw_text(contest: Contest, locale: str, budget: int = TEXT_LIMIT) -> str:
    """The draw's announcement: every pair with its group number (the first ones, when they
    would not fit ``budget`` characters), the seed."""
    head = [_("🎲 <b>{name}</b>: the draw is made. Group numbers:", locale, name=escape(contest.name))]
    seed = _(
        "Seed: <code>{seed}</code> (its SHA-256 was published at sign-up: "
        "<code>{commitment}</code>). Anyone can recompute the draw from it.",
        locale,
        seed=contest.seed.hex,
        commitment=contest.seed.commitment,
    )
    more = _("… and {n} more pairs: /standings and /contest export list them all.", locale, n="{n}")
    return _fitted(head, [pair_line(p, locale) for p in contest.pairs], [seed], more, budget)


def draw_message(contest: Contest, locale: str) -> str:
    """The draw and round 1's pairings in one message, within :data:`TEXT_LIMIT`: the pairings
    first in size, the list of pairs shortened to what is left."""
    pairings = round_text(contest, 1, locale)
    return draw_text(contest, locale, TEXT_LIMIT - len(pairings) - 2) + "\n\n" + pairings


def round_text(contest: Contest, number: int, locale: str) -> str:
    """One round's pairings with their match codes, byes and schedule (one message); a large
    field's pairings name the pairs by group number only, to fit :data:`TEXT_LIMIT`."""
    text = _round_text(contest, number, locale, names=True)
    if len(text) <= TEXT_LIMIT:
        return text
    text = _round_text(contest, number, locale, names=False)
    note = _("(Names: /standings.)", locale)
    return text + "\n" + note


def _round_text(contest: Contest, number: int, locale: str, *, names: bool) -> str:
    played = contest.rounds[number - 1]
    lines = [_("📋 <b>{name}</b> — round {n} pairings:", locale, name=escape(contest.name), n=number)]
    physical = played.schedule.kind is not ScheduleKind.BOT
    method = contest.round_rules(number).seat_assignment
    for group, numbers in _groups(contest, played):
        if group:
            pairs = (", " if is_english(locale) else "、").join(pair_label(n, locale) for n in numbers)
            lines.append(_("<b>Group {g}</b>: {pairs}", locale, g=group, pairs=pairs))
        for match in (m for m in played.matches if m.pairs[0] in numbers):
            if physical:
                lines.extend(_table_lines(contest, match, method, locale, names))
            else:
                lines.append(_match_line(contest, match, locale, names))
        for bye in (n for n in played.byes if n in numbers):
            lines.append(_bye_line(contest, bye, locale, names))
    if physical and played.matches:
        lines.append(seats_legend(method, locale))
    lines.append(_schedule_line(contest, played, locale))
    lines.append(
        _(
            "Report: {example} (the winner's group number) in this group, /report "
            "{example}, or reply to this message. To play through the bot in any "
            "group: /newgame match=CODE.",
            locale,
            example=report_example(contest.settings.event_word),
        )
    )
    return "\n".join(lines)


def _groups(contest: Contest, played: Round) -> list[tuple[int, tuple[int, ...]]]:
    """The movement's groups (001-B), numbered from 1, each with its pairs in movement-table
    position order; one unnamed group of every pair in other formats."""
    if not contest.format.family.traits.groups:
        return [(0, tuple(p.number for p in contest.pairs))]
    drawn = drawn_groups(contest.seed, [p.number for p in contest.pairs])
    return list(enumerate(drawn, start=1))


def _bye_line(contest: Contest, number: int, locale: str, names: bool = True) -> str:
    """A bye (轮空): into the next draw in a knockout, a win's 积分 in Swiss, no match in the
    movement (a group of three)."""
    pair = pair_line(contest.pair(number), locale, names)
    match contest.format.family.traits.bye:
        case Bye.SCORES_A_WIN:
            return _("{pair}: bye (scores a win)", locale, pair=pair)
        case Bye.NO_MATCH:
            return _("{pair}: no match this round (bye)", locale, pair=pair)
        case Bye.NEXT_DRAW:
            return _("{pair}: bye into the next draw", locale, pair=pair)
        case _:
            assert_never(contest.format.family.traits.bye)


def _match_line(contest: Contest, match: ContestMatch, locale: str, names: bool = True) -> str:
    a, b = (contest.pair(n) for n in match.pairs)
    third = _(" (3rd place)", locale) if match.kind is MatchKind.THIRD_PLACE else ""
    return (
        f"{match.table}. {pair_line(a, locale, names)}  vs  {pair_line(b, locale, names)}{third}"
        f" · <code>{match.code}</code>{_outcome(match, locale)}"
    )


def _outcome(match: ContestMatch, locale: str) -> str:
    if match.status is MatchStatus.PENDING:
        return ""
    if match.winner is not None:
        return f" → {pair_label(match.winner, locale)}"
    return " → =" if match.result is not None and match.result.no_winner else " → ⊘"


def table_label(table: int, locale: str) -> str:
    return f"Table {table}" if is_english(locale) else f"{table}号桌"


def _table_lines(
    contest: Contest, match: ContestMatch, method: SeatAssignment, locale: str, names: bool = True
) -> list[str]:
    """A physical table: its number and code, then who sits North–South and East–West (V17), each
    pair on its own line so that a phone never wraps them; a card draw shows the cards drawn."""
    seats = seating(contest.seed, match, method)
    third = _(" (3rd place)", locale) if match.kind is MatchKind.THIRD_PLACE else ""
    cards = {n: "" for n in match.pairs}
    if seats.cards:
        for index, number in enumerate(match.pairs):
            cards[number] = " 🃏" + "→".join(RANKS[v - 1] for v in seats.cards[index::2])
    ns, ew = (contest.pair(n) for n in (seats.ns, seats.ew))
    heading = f"<b>{table_label(match.table, locale)}</b> <code>{match.code}</code>"
    return [
        heading + _outcome(match, locale) + third,
        _("NS {pair}", locale, pair=pair_line(ns, locale, names)) + cards[seats.ns],
        _("EW {pair}", locale, pair=pair_line(ew, locale, names)) + cards[seats.ew],
    ]


def seats_legend(method: SeatAssignment, locale: str) -> str:
    """How the seats above were given (one line under the tables)."""
    texts = {
        SeatAssignment.CARD_DRAW: _(
            "Seats: each pair drew a card 🃏, the smaller card sits North–South (小牌坐南北); "
            "equal cards drew again.",
            locale,
        ),
        SeatAssignment.MOVEMENT_TABLE: _(
            "Seats by the movement table: the pair listed first sits North–South (排前坐南北).", locale
        ),
        SeatAssignment.TABLE_NUMBER: _("Seats: the pair listed first sits North–South.", locale),
        SeatAssignment.LOT: _("Seats drawn by lot (抓阄) from the published seed.", locale),
    }
    return texts[method]


def _schedule_line(contest: Contest, played: Round, locale: str) -> str:
    schedule = played.schedule
    if schedule.kind is ScheduleKind.SELF_SCHEDULED and schedule.deadline is not None:
        return _(
            "Play at a time you choose; results by {when}. Not played or not "
            "reported by then: both pairs are out.",
            locale,
            when=str(schedule.deadline),
        )
    if schedule.kind is ScheduleKind.FIXED:
        starts = schedule.starts_at
        when = f"{starts.astimezone(zone(contest.settings.zone_name)):%Y-%m-%d %H:%M}" if starts else ""
        return _("Played together: {when} {venue}", locale, when=when, venue=escape(schedule.venue))
    return _(
        "Played through the bot: press a match's button below, or /newgame match=CODE in any group.", locale
    )


def table_heading(contest: Contest, match: ContestMatch, locale: str) -> str:
    """Above a contest table's lobby: the contest, the round, both pairs and the match code."""
    a, b = (contest.pair(n) for n in match.pairs)
    third = _(" (3rd place)", locale) if match.kind is MatchKind.THIRD_PLACE else ""
    return _(
        "🎯 {name}, round {n}{third}: {a}  vs  {b} · match <code>{code}</code>",
        locale,
        name=escape(contest.name),
        n=match.round,
        third=third,
        a=pair_line(a, locale),
        b=pair_line(b, locale),
        code=match.code,
    )


def play_button_label(contest: Contest, match: ContestMatch, locale: str) -> str:
    a, b = match.pairs
    return _("▶ Play {a} v {b} here", locale, a=pair_label(a, locale), b=pair_label(b, locale))


# ---------------------------------------------------------------- table clocks


def _tables(clocks: Sequence[TableClock], locale: str) -> str:
    numbers = (", " if is_english(locale) else "、").join(str(c.table) for c in clocks)
    if len(clocks) == 1:
        return _("table {tables}", locale, tables=numbers)
    return _("tables {tables}", locale, tables=numbers)


def _clock_time(contest: Contest, moment: datetime) -> str:
    return f"{moment.astimezone(zone(contest.settings.zone_name)):%H:%M}"


def time_up_rule(rules: Rules, locale: str) -> str:
    """What happens to the deal in hand when a timed game runs out (V34)."""
    if rules.time_up is TimeUp.STOP_AT_ONCE:
        return _("Stop at once: the deal in hand does not count.", locale)
    return _("Finish the deal in hand, then stop: the side ahead wins.", locale)


def clock_started_text(contest: Contest, number: int, clocks: Sequence[TableClock], locale: str) -> str:
    first = clocks[0]
    return _(
        "⏱ <b>{name}</b>, round {n}: the clock runs at {tables}: {minutes} minutes, until {end}. "
        "At the end: {rule}",
        locale,
        name=escape(contest.name),
        n=number,
        tables=_tables(clocks, locale),
        minutes=first.minutes,
        end=_clock_time(contest, first.ends_at),
        rule=time_up_rule(contest.round_rules(number), locale),
    )


def clock_warning_text(contest: Contest, number: int, clocks: Sequence[TableClock], locale: str) -> str:
    return _(
        "⏳ Round {n}, {tables}: 10 minutes left (until {end}).",
        locale,
        n=number,
        tables=_tables(clocks, locale),
        end=_clock_time(contest, clocks[0].ends_at),
    )


def time_up_text(contest: Contest, number: int, clocks: Sequence[TableClock], locale: str) -> str:
    return _(
        "⏱ Time is up: round {n}, {tables}. {rule}",
        locale,
        n=number,
        tables=_tables(clocks, locale),
        rule=time_up_rule(contest.round_rules(number), locale),
    )
