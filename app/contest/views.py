"""Contest pictures' views, the CSV export and plain text for the WeChat mirror.

The standings and the bracket are drawn by :mod:`render.contest` from the views built
here (in the render pool, never on the event loop); the CSV holds the four tables of
:func:`engine.contest.export_tables`, one after another, in UTF-8 with a BOM so that
Excel and WPS open the Chinese names correctly. Every text cell that a spreadsheet would read
as a formula (it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return: a name such
as ``=HYPERLINK(…)``) gets a leading ``'`` (:func:`csv_cell`); numbers, and text that is only a
number (the bot's ``-0.5`` 级差), are written as they are.
"""

from __future__ import annotations

import csv
import html
import io
import re

from app.contest.columns import cells, headers, round_name, stage_word, standings_subtitle
from app.contest.texts import pair_label
from app.table.texts import _
from engine.contest import Contest, ContestMatch, ContestPhase, MatchKind, Round, Stage, export_tables
from engine.contest.standings import (
    OWN_STAGES,
    THIRD_PLACE_STAGE,
    PairStatus,
    contest_standings,
)
from render.contest import BracketMatch, BracketRound, BracketView, StandingLine, StandingsView, TableColumn

_TAG = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    """An HTML message as plain text (the mirror's format): tags dropped, entities decoded.

    Safe because every person's text inside was escaped, so no tag here came from a person.
    """
    return html.unescape(_TAG.sub("", text))


def standings_view(contest: Contest, locale: str) -> StandingsView:
    """The family's columns (:mod:`app.contest.columns`) after the pair and its
    players, in the format's order; a prize column once there are prizes."""
    table = contest_standings(contest)
    prizes = any(row.prize for row in table.rows)
    columns = (
        TableColumn(_("Pair", locale), bold=True),
        TableColumn(_("Players", locale), "left", flex=True),
        *(TableColumn(h, bold=i == 0) for i, h in enumerate(headers(table, locale))),
        *((TableColumn(_("Prize", locale)),) if prizes else ()),
    )
    rows = tuple(
        StandingLine(
            row.rank if table.ranked else None,
            (
                pair_label(row.number, locale),
                " · ".join(p.name for p in contest.pair(row.number).players),
                *cells(table, row, locale, picture=True),
                *((row.prize or "",) if prizes else ()),
            ),
            out=row.status in (PairStatus.OUT, PairStatus.WITHDRAWN),
        )
        for row in table.rows
    )
    return StandingsView(
        title=contest.name,
        columns=columns,
        rows=rows,
        subtitle=standings_subtitle(table, locale),
        place_header=_("Place", locale),
        medals=not table.provisional,
    )


def bracket_view(contest: Contest, locale: str) -> BracketView:
    """One column per round, named by its stage (精方: 初赛, 附加赛, 复赛, 半决赛, 决赛), each pair
    by number and names; in a knockout still running, the rounds to come too (待定). In 精方's
    repechage the qualifying round's winners sit it out already through (已晋级), unlike a bye."""
    through = {
        m.winner for r in contest.rounds if r.stage == "qualifying" for m in r.matches if m.winner is not None
    }

    def bye(played: Round, number: int) -> BracketMatch:
        waiting = played.stage == "repechage" and number in through
        return BracketMatch((_named(contest, number, locale), None), winner=0, bye=True, waiting=waiting)

    rounds = tuple(
        BracketRound(
            name=round_name(contest, played, locale),
            matches=tuple(_bracket_match(contest, m, locale) for m in played.matches)
            + tuple(bye(played, n) for n in played.byes),
        )
        for played in contest.rounds
    )
    return BracketView(title=contest.name, rounds=rounds + _rounds_to_come(contest, locale))


def _named(contest: Contest, number: int, locale: str) -> str:
    """``3组 张三/李四``: the number first, so that a shortened name still says which pair."""
    names = "/".join(p.name for p in contest.pair(number).players)
    return f"{pair_label(number, locale)} {names}"


def _rounds_to_come(contest: Contest, locale: str) -> tuple[BracketRound, ...]:
    """A knockout's later rounds, open (待定): half the pairs go on each round, an odd one out
    with a bye, until the final. Only for knockouts redrawn or bracketed by round (精方's named
    stages and the other families draw what comes next from results)."""
    last = contest.rounds[-1] if contest.rounds else None
    if last is None or not contest.format.family.is_knockout or last.stage in OWN_STAGES:
        return ()
    if contest.phase in (ContestPhase.DECIDED, ContestPhase.CLOSED):
        return ()
    field = len(last.main_matches) + len(last.byes)
    rounds: list[BracketRound] = []
    number = last.number
    while field > 1:
        number += 1
        stage = Stage.of_field(field) if contest.format.named_rounds else Stage.NONE
        matches = tuple(BracketMatch((None, None)) for _ in range(field // 2))
        byes = tuple(BracketMatch((None, None), bye=True) for _ in range(field % 2))
        rounds.append(BracketRound(stage_word(stage, number, locale), matches + byes, to_come=True))
        field = field // 2 + field % 2
    return tuple(rounds)


def _bracket_match(contest: Contest, match: ContestMatch, locale: str) -> BracketMatch:
    names = tuple(_named(contest, n, locale) for n in match.pairs)
    result = match.result
    scores: tuple[str, str] = ("", "")
    figures = result.figures if result is not None else None
    if result is not None and result.points is not None:
        scores = (str(result.points[0]), str(result.points[1]))
    elif figures is not None and any(figures.games_won):  # best of three (000-S, 精方's last rounds)
        scores = (str(figures.games_won[0]), str(figures.games_won[1]))
    winner = match.pairs.index(match.winner) if match.winner is not None else None
    label = stage_word(THIRD_PLACE_STAGE, match.round, locale) if match.kind is MatchKind.THIRD_PLACE else ""
    return BracketMatch((names[0], names[1]), scores, winner, label)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def csv_cell(cell: object) -> object:
    """A cell as written: None empty, numbers as they are, text that a spreadsheet would run as a
    formula neutralised with a leading ``'`` (OWASP's CSV injection advice)."""
    if cell is None:
        return ""
    if isinstance(cell, str) and cell.startswith(_FORMULA_START) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def export_csv(contest: Contest) -> bytes:
    """The four tables (entrants, matches, reports, standings) in one CSV file."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for index, table in enumerate(export_tables(contest)):
        if index:
            writer.writerow([])
        writer.writerow([f"# {table.name}"])
        writer.writerow(table.header)
        writer.writerows([csv_cell(cell) for cell in row] for row in table.rows)
    return "\ufeff".encode() + buffer.getvalue().encode("utf-8")


def export_name(contest: Contest) -> str:
    safe = re.sub(r"[^\w\-]+", "_", contest.name).strip("_")[:40] or "contest"
    return f"{safe}.csv"
