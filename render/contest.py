"""Contest standings and knockout brackets for the group chat.

The contest module words the scores (levels, points, wins) as it likes; this one
only lays them out, so any format of RULES.md §3 fits the same two pictures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from PIL import Image, ImageDraw

from render import theme
from render.board import MARGIN, ROW, TITLE, WIDTH, Cell, Column, canvas, draw_table, draw_title
from render.encode import board_png
from render.text import fit, font, printable
from render.words import is_english

_MEDALS: Final = {1: "#E0A100", 2: "#8E989E", 3: "#B0723A"}
_BOX_WIDTH: Final = 300
_BOX_HEIGHT: Final = 96
_ROUND_GAP: Final = 64
_MATCH_GAP: Final = 28


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One pair in a standings table."""

    place: int
    team: str  # the pair's name
    players: tuple[str, ...]
    played: int
    won: int
    points: int
    detail: str = ""  # a tie-break figure or note, shown in the last column


@dataclass(frozen=True, slots=True)
class StandingsView:
    """A standings table, rows already in place order."""

    title: str
    rows: tuple[StandingRow, ...]
    subtitle: str = ""
    detail_header: str = ""  # header of the detail column; no column when empty


@dataclass(frozen=True, slots=True)
class BracketMatch:
    """One knockout match: two pairs (``None`` while undecided or a bye) and scores."""

    pairs: tuple[str | None, str | None]
    scores: tuple[str, str] = ("", "")
    winner: int | None = None  # 0 or 1 once decided


@dataclass(frozen=True, slots=True)
class BracketRound:
    """One knockout round, its matches top to bottom."""

    name: str  # 八强, 半决赛, 决赛 …
    matches: tuple[BracketMatch, ...]


@dataclass(frozen=True, slots=True)
class BracketView:
    """A knockout bracket, first round first."""

    title: str
    rounds: tuple[BracketRound, ...]
    subtitle: str = ""


def render_standings(view: StandingsView, *, locale: str = "zh") -> bytes:
    """PNG table: place, pair, players, played, won, points (and a detail column)."""
    return board_png(standings_image(view, locale=locale))


def render_bracket(view: BracketView, *, locale: str = "zh") -> bytes:
    """PNG knockout bracket: one column per round, winners in bold, lines to the next round."""
    return board_png(bracket_image(view, locale=locale))


def standings_image(view: StandingsView, *, locale: str = "zh") -> Image.Image:
    """The standings as an RGB image (see :func:`render_standings`)."""
    columns = _standing_columns(view, locale)
    image, draw = canvas(TITLE + 24 + ROW * (len(view.rows) + 1) + MARGIN)
    draw_title(draw, view.title, view.subtitle)
    draw_table(draw, TITLE + 24, columns, [_standing_cells(row, view) for row in view.rows])
    return image


def _standing_columns(view: StandingsView, locale: str) -> list[Column]:
    english = is_english(locale)
    detail = 120 if view.detail_header else 0
    players = WIDTH - 2 * MARGIN - 80 - 230 - 3 * 90 - detail
    columns = [
        Column("#" if english else "名次", 80),
        Column("Pair" if english else "队伍", 230, "left"),
        Column("Players" if english else "队员", players, "left"),
        Column("Played" if english else "场次", 90),
        Column("Won" if english else "胜", 90),
        Column("Points" if english else "积分", 90),
    ]
    if view.detail_header:
        columns.append(Column(view.detail_header, detail))
    return columns


def _standing_cells(row: StandingRow, view: StandingsView) -> list[Cell]:
    medal = _MEDALS.get(row.place)
    cells = [
        Cell(str(row.place), theme.PAPER if medal else theme.INK, True, medal),
        Cell(row.team, theme.INK, True),
        Cell(" · ".join(printable(p) for p in row.players), theme.INK_SOFT),
        Cell(str(row.played)),
        Cell(str(row.won)),
        Cell(str(row.points), theme.INK, True),
    ]
    if view.detail_header:
        cells.append(Cell(row.detail, theme.INK_SOFT))
    return cells


def bracket_image(view: BracketView, *, locale: str = "zh") -> Image.Image:
    """Rounds left to right; each match sits midway between the two it follows on from."""
    centres = _match_centres(view)
    first = max((len(r.matches) for r in view.rounds), default=0)
    height = TITLE + 70 + first * (_BOX_HEIGHT + _MATCH_GAP) + MARGIN
    width = max(WIDTH, 2 * MARGIN + len(view.rounds) * (_BOX_WIDTH + _ROUND_GAP) - _ROUND_GAP)
    image, draw = canvas(height, width)
    draw_title(draw, view.title, view.subtitle, width)
    for r, bracket_round in enumerate(view.rounds):
        left = MARGIN + r * (_BOX_WIDTH + _ROUND_GAP)
        draw.text(
            (left + _BOX_WIDTH / 2, TITLE + 34),
            fit(bracket_round.name, font(28, bold=True), _BOX_WIDTH),
            font=font(28, bold=True),
            fill=theme.INK_SOFT,
            anchor="mm",
        )
        for m, match in enumerate(bracket_round.matches):
            _draw_match(draw, left, round(centres[r][m]), match, locale)
            if r + 1 < len(view.rounds) and m // 2 < len(view.rounds[r + 1].matches):
                _draw_link(draw, left + _BOX_WIDTH, centres[r][m], centres[r + 1][m // 2])
    return image


def _match_centres(view: BracketView) -> list[list[float]]:
    """Vertical centre of every match box, round by round."""
    top = TITLE + 70 + _BOX_HEIGHT / 2
    centres: list[list[float]] = []
    for r, bracket_round in enumerate(view.rounds):
        row: list[float] = []
        for m in range(len(bracket_round.matches)):
            feeders = centres[r - 1][2 * m : 2 * m + 2] if r else []
            row.append(sum(feeders) / len(feeders) if feeders else top + m * (_BOX_HEIGHT + _MATCH_GAP))
        centres.append(row)
    return centres


def _draw_match(draw: ImageDraw.ImageDraw, left: int, centre: int, match: BracketMatch, locale: str) -> None:
    top = centre - _BOX_HEIGHT // 2
    draw.rounded_rectangle(
        (left, top, left + _BOX_WIDTH, top + _BOX_HEIGHT), 12, fill=theme.PAPER, outline=theme.RULE, width=2
    )
    draw.line((left + 8, centre, left + _BOX_WIDTH - 8, centre), fill=theme.RULE, width=2)
    undecided = "TBD" if is_english(locale) else "待定"
    for side in (0, 1):
        won = match.winner == side
        y = top + _BOX_HEIGHT // 4 + side * _BOX_HEIGHT // 2
        if won:
            draw.rectangle((left + 3, y - 20, left + 9, y + 20), fill=theme.WIN)
        name = match.pairs[side]
        colour = theme.INK if name is not None and match.winner in (None, side) else theme.INK_SOFT
        face = font(26, bold=won)
        score_face = font(26, bold=True)
        score = match.scores[side]
        room = _BOX_WIDTH - 32 - int(score_face.getlength(score)) - 12
        draw.text(
            (left + 18, y),
            fit(name if name is not None else undecided, face, room),
            font=face,
            fill=colour,
            anchor="lm",
        )
        draw.text(
            (left + _BOX_WIDTH - 14, y),
            score,
            font=score_face,
            fill=theme.WIN if won else colour,
            anchor="rm",
        )


def _draw_link(draw: ImageDraw.ImageDraw, x: int, y: float, target: float) -> None:
    """An elbow line from a match to the match its winner plays next."""
    middle = x + _ROUND_GAP / 2
    draw.line([(x, y), (middle, y), (middle, target), (x + _ROUND_GAP, target)], fill=theme.EDGE, width=3)
