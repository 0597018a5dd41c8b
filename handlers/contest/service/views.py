"""Contest pictures' views, the CSV export and plain text for the WeChat mirror.

The standings and the bracket are drawn by :mod:`render.contest` from the views built
here (in the render pool, never on the event loop); the CSV holds the four tables of
:func:`engine.contest.export_tables`, one after another, in UTF-8 with a BOM so that
Excel and WPS open the Chinese names correctly.
"""

from __future__ import annotations

import csv
import html
import io
import re

from engine.contest import Contest, ContestMatch, MatchKind, export_tables, standings
from handlers.contest.service.texts import pair_label
from handlers.table.service.texts import _
from render.contest import BracketMatch, BracketRound, BracketView, StandingRow, StandingsView

_TAG = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    """An HTML message as plain text (the mirror's format): tags dropped, entities decoded.

    Safe because every person's text inside was escaped, so no tag here came from a person.
    """
    return html.unescape(_TAG.sub("", text))


def standings_view(contest: Contest, locale: str) -> StandingsView:
    rows = sorted(standings(contest), key=lambda r: (r.place or 999, -r.won, r.number))
    place_of = {}
    for index, row in enumerate(rows, start=1):
        place_of[row.number] = row.place if row.place is not None else index
    return StandingsView(
        title=contest.name,
        subtitle=_("Standings after round {n}", locale, n=len(contest.rounds)) if contest.rounds else "",
        rows=tuple(
            StandingRow(
                place=place_of[row.number],
                team=pair_label(row.number, locale),
                players=tuple(p.name for p in contest.pair(row.number).players),
                played=row.played,
                won=row.won,
                points=row.points_for,
                detail=row.prize or "",
            )
            for row in rows
        ),
        detail_header=_("Prize", locale) if any(row.prize for row in rows) else "",
    )


def bracket_view(contest: Contest, locale: str) -> BracketView:
    rounds = tuple(
        BracketRound(
            name=_("Round {n}", locale, n=played.number),
            matches=tuple(_bracket_match(contest, m, locale) for m in played.matches)
            + tuple(BracketMatch((pair_label(n, locale), None), winner=0) for n in played.byes),
        )
        for played in contest.rounds
    )
    return BracketView(title=contest.name, rounds=rounds)


def _bracket_match(contest: Contest, match: ContestMatch, locale: str) -> BracketMatch:
    names = tuple(pair_label(n, locale) for n in match.pairs)
    result = match.result
    scores: tuple[str, str] = ("", "")
    if result is not None and result.points is not None:
        scores = (str(result.points[0]), str(result.points[1]))
    winner = match.pairs.index(match.winner) if match.winner is not None else None
    if match.kind is MatchKind.THIRD_PLACE:
        names = (names[0] + " (3)", names[1] + " (3)")
    return BracketMatch((names[0], names[1]), scores, winner)


def export_csv(contest: Contest) -> bytes:
    """The four tables (entrants, matches, reports, standings) in one CSV file."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for index, table in enumerate(export_tables(contest)):
        if index:
            writer.writerow([])
        writer.writerow([f"# {table.name}"])
        writer.writerow(table.header)
        writer.writerows(["" if cell is None else cell for cell in row] for row in table.rows)
    return "\ufeff".encode() + buffer.getvalue().encode("utf-8")


def export_name(contest: Contest) -> str:
    safe = re.sub(r"[^\w\-]+", "_", contest.name).strip("_")[:40] or "contest"
    return f"{safe}.csv"
