"""The words of a standings table: each family column's header and cells, stage names, signed 级差.

One place for the picture (:mod:`app.contest.views`) and the text
(:func:`app.contest.texts.standings_text`), so both show the same columns
(``Family.columns``, :mod:`engine.contest.families`) with the same figures. Telegram-free,
and it imports no other contest text module (``texts`` imports this one).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Final, assert_never

from app.table.texts import _
from engine.contest import Contest, Round, Stage
from engine.contest.families import Column, Family
from engine.contest.standings import (
    Mark,
    Reached,
    StandingRow,
    Standings,
    stage_of,
)

TEXT_MARKS: Final = {
    Mark.WON: "✓",
    Mark.LOST: "✗",
    Mark.BYE: "○",
    Mark.BOTH_OUT: "⊘",
    Mark.NO_WINNER: "=",
    Mark.PENDING: "…",
    Mark.ABSENT: "·",
}
PICTURE_MARKS: Final = TEXT_MARKS | {Mark.LOST: "×", Mark.BOTH_OUT: "Ø"}
"""The bundled font has no ✗ or ⊘ (render.text.has_glyph): × and Ø stand in for them."""
TEXT_MINUS: Final = "−"
PICTURE_MINUS: Final = "-"  # the font has no U+2212 either
_HALF: Final = "½"


def signed(value: int | Fraction, minus: str = TEXT_MINUS) -> str:
    """A level difference with its sign: ``+12``, ``−3``, ``+½``, ``−2½``, ``0``."""
    if value == 0:
        return "0"
    sign = "+" if value > 0 else minus
    size = abs(Fraction(value))
    whole, rest = divmod(size.numerator, size.denominator)
    if rest == 0:
        return f"{sign}{whole}"
    tail = _HALF if size.denominator == 2 else f"{rest}/{size.denominator}"
    return f"{sign}{whole or ''}{tail}"


def stage_word(stage: Stage, round_number: int, locale: str) -> str:
    """A stage's name (:func:`engine.contest.standings.stage_of`); ``第N轮`` for a round by number."""
    match stage:
        case Stage.PRELIM:
            return _("Preliminary", locale)
        case Stage.QUALIFYING:
            return _("Qualifying", locale)
        case Stage.REPECHAGE:
            return _("Repechage", locale)
        case Stage.QUARTER:
            return _("Second stage", locale)
        case Stage.LAST8:
            return _("Quarter-final", locale)
        case Stage.SEMI:
            return _("Semi-final", locale)
        case Stage.FINAL:
            return _("Final", locale)
        case Stage.A_V_B:
            return _("A v B", locale)
        case Stage.THIRD_PLACE:
            return _("3rd-place match", locale)
        case Stage.NONE | Stage.MOVEMENT:
            return _("Round {n}", locale, n=round_number)
        case _:
            assert_never(stage)


def round_name(contest: Contest, played: Round, locale: str) -> str:
    """A bracket column's name: the stage, with the round's number when the stage has several."""
    stage = stage_of(contest, played)
    word = stage_word(stage, played.number, locale)
    if stage and sum(stage_of(contest, r) == stage for r in contest.rounds) > 1:
        return _("{stage} (round {n})", locale, stage=word, n=played.number)
    return word


def headers(table: Standings, locale: str) -> tuple[str, ...]:
    """One header per shown column (``round_scores`` is one column per round)."""
    shown: list[str] = []
    for column in table.columns:
        if column is Column.ROUND_SCORES:
            shown.extend(_("R{n}", locale, n=n) for n in range(1, table.rounds + 1))
        else:
            shown.append(header(column, table.family, locale))
    return tuple(shown)


def header(column: Column, family: Family, locale: str) -> str:
    """A short header (a phone's table has room for a word or two per figure)."""
    if column is Column.MATCH_POINTS and family is Family.SCORE_KNOCKOUT:
        return _("Match pts", locale)  # 局分 (002-D)
    words = {
        Column.REACHED: _("Reached", locale),
        Column.MARKS: _("Rounds", locale),
        Column.POINTS_FOR: _("For", locale),
        Column.POINTS_AGAINST: _("Against", locale),
        Column.THREES: _("3s", locale),
        Column.MATCH_POINTS: _("Pts", locale),
        Column.LEVEL_DIFFERENCE: _("Diff", locale),
        Column.OPPONENTS_SCORE: _("Opp", locale),
        Column.TOTAL_SCORE: _("Total", locale),
        Column.ROUND_SCORES: _("Rounds", locale),
        Column.WON: _("W", locale),
        Column.LOST: _("L", locale),
    }
    return words[column]


def cells(table: Standings, row: StandingRow, locale: str, *, picture: bool = False) -> tuple[str, ...]:
    """The row's figures as shown, one per header of :func:`headers`."""
    shown: list[str] = []
    for column in table.columns:
        shown.extend(cell_texts(row, column, locale, picture=picture))
    return tuple(shown)


def cell_texts(row: StandingRow, column: Column, locale: str, *, picture: bool = False) -> tuple[str, ...]:
    """One column's text (``round_scores``: one per round, ``—`` for a round without a score)."""
    if column is Column.MARKS:
        marks = PICTURE_MARKS if picture else TEXT_MARKS
        return ("".join(marks[m] for m in row.marks),)
    if column is Column.ROUND_SCORES:
        return tuple("—" if s is None else str(s) for s in row.round_scores)
    if column is Column.REACHED:
        return (reached_word(row.reached, locale),)
    value = row.value(column)
    assert isinstance(value, int | Fraction)
    if column is Column.LEVEL_DIFFERENCE:
        return (signed(value, PICTURE_MINUS if picture else TEXT_MINUS),)
    return (str(value),)


def reached_word(reached: Reached, locale: str) -> str:
    return stage_word(reached.stage, reached.round, locale) if reached.round else "—"


def figures_text(table: Standings, row: StandingRow, locale: str) -> str:
    """The row's figures on one line: marks and stage bare, the others after their header
    (``积分 6 · 级差 +9 · 对手分 8``); round scores follow the total as ``108/108/5``."""
    parts: list[str] = []
    for column in table.columns:
        shown = cell_texts(row, column, locale)
        if column in (Column.MARKS, Column.REACHED):
            parts.append(shown[0])
        elif column is Column.ROUND_SCORES:
            parts.append("/".join(shown))
        else:
            parts.append(f"{header(column, table.family, locale)} {shown[0]}")
    return " · ".join(part for part in parts if part)


def standings_subtitle(table: Standings, locale: str) -> str:
    """Whether the order is final: provisional while the contest runs (the format's rank so far)."""
    if not table.rounds:
        return ""
    if table.provisional:  # after the rounds complete so far; none yet: the phase line says it
        if not table.complete:
            return ""
        return _("Provisional standings after round {n}", locale, n=table.complete)
    return _("Final standings after round {n}", locale, n=table.rounds)
