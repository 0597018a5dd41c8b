"""Contest standings and knockout brackets for the group chat.

The contest module words the scores (levels, points, wins) as it likes; this one
only lays them out, so any format of docs/rules.md §4 fits the same two pictures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from PIL import Image, ImageDraw

from render import theme
from render.board import (
    MARGIN,
    ROW,
    TEXT,
    TITLE,
    WIDTH,
    Align,
    Cell,
    Column,
    canvas,
    draw_table,
    draw_title,
)
from render.encode import board_png
from render.text import fit, font, printable, text_width
from render.words import is_english

_MEDALS: Final = {1: "#E0A100", 2: "#8E989E", 3: "#B0723A"}
_BOX_WIDTH: Final = 280  # the narrowest box; fewer rounds share the picture's width
_BOX_WIDEST: Final = 560
_BOX_HEIGHT: Final = 96
_ROUND_GAP: Final = 64
_MATCH_GAP: Final = 28
_LABEL: Final = 24  # room above a labelled match (三四名决赛)


@dataclass(frozen=True, slots=True)
class TableColumn:
    """A standings column: its header, alignment, and whether it takes the room left (names)."""

    header: str
    align: Align = "center"
    flex: bool = False
    bold: bool = False


@dataclass(frozen=True, slots=True)
class StandingLine:
    """One pair: its place (or live rank) and one text per column; ``out`` pairs are drawn softer."""

    place: int | None  # None: no rank yet (drawn as a dash)
    cells: tuple[str, ...]
    out: bool = False


def _place(line: StandingLine) -> str:
    return "–" if line.place is None else str(line.place)


@dataclass(frozen=True, slots=True)
class StandingsView:
    """A standings table, rows already in place order; the place column comes first by itself.

    The columns are the format family's (``app/contest/views.py`` words them);
    ``medals`` colours places 1–3 once the places are final.
    """

    title: str
    columns: tuple[TableColumn, ...]
    rows: tuple[StandingLine, ...]
    subtitle: str = ""
    place_header: str = "名次"
    medals: bool = True


@dataclass(frozen=True, slots=True)
class BracketMatch:
    """One knockout match: two pairs (``None`` while undecided or a bye) and scores."""

    pairs: tuple[str | None, str | None]
    scores: tuple[str, str] = ("", "")
    winner: int | None = None  # 0 or 1 once decided
    label: str = ""  # above the box, e.g. 三四名决赛 for the match for 3rd
    bye: bool = False  # one pair only: 轮空, not 待定
    waiting: bool = False  # with ``bye``: already through, waiting for a later stage (已晋级)


@dataclass(frozen=True, slots=True)
class BracketRound:
    """One knockout round, its matches top to bottom."""

    name: str  # 初赛, 附加赛, 复赛, 半决赛, 决赛 … (精方: Round.stage)
    matches: tuple[BracketMatch, ...]
    to_come: bool = False  # not drawn yet: open boxes, no lines into them (a redraw decides)


@dataclass(frozen=True, slots=True)
class BracketView:
    """A knockout bracket, first round first."""

    title: str
    rounds: tuple[BracketRound, ...]
    subtitle: str = ""


def render_standings(view: StandingsView, *, locale: str = "zh") -> bytes:
    """PNG table: the place, then the view's columns, fitted to the phone width."""
    return board_png(standings_image(view, locale=locale))


def render_bracket(view: BracketView, *, locale: str = "zh") -> bytes:
    """PNG knockout bracket: one column per round, winners in bold, lines to the next round."""
    return board_png(bracket_image(view, locale=locale))


def standings_image(view: StandingsView, *, locale: str = "zh") -> Image.Image:
    """The standings as an RGB image (see :func:`render_standings`)."""
    columns = standings_layout(view)
    image, draw = canvas(TITLE + 24 + ROW * (len(view.rows) + 1) + MARGIN)
    draw_title(draw, view.title, view.subtitle)
    draw_table(draw, TITLE + 24, columns, [_line_cells(line, view) for line in view.rows])
    return image


def standings_layout(view: StandingsView) -> list[Column]:
    """Pixel widths: each fixed column as wide as its widest text (capped), the flexible ones
    (names) sharing what is left; when that is too little, the fixed ones give way in
    proportion. Every column fits ``WIDTH``; a text wider than its column is shortened by
    :func:`~render.board.draw_cell` with an ellipsis."""
    place = TableColumn(view.place_header)
    columns = (place, *view.columns)
    texts = [[_place(line), *line.cells] for line in view.rows]
    room = WIDTH - 2 * MARGIN
    wanted = [_wanted(column, [row[i] for row in texts]) for i, column in enumerate(columns)]
    flexible = [i for i, column in enumerate(columns) if column.flex]
    fixed = sum(w for i, w in enumerate(wanted) if i not in flexible)
    spare = room - fixed
    needed = _FLEX_MIN * len(flexible)
    if spare < needed:
        scale = (room - needed) / fixed
        wanted = [w if i in flexible else int(w * scale) for i, w in enumerate(wanted)]
        spare = room - sum(w for i, w in enumerate(wanted) if i not in flexible)
    widths = [spare // len(flexible) if i in flexible else w for i, w in enumerate(wanted)]
    if flexible:
        widths[flexible[-1]] += spare - sum(widths[i] for i in flexible)
    return [Column(c.header, w, c.align) for c, w in zip(columns, widths, strict=True)]


_FLEX_MIN: Final = 180  # px a names column keeps before the figures give way
_CELL_MIN: Final = 64
_CELL_MAX: Final = 240
_PADDING: Final = 24  # draw_cell fits the text in the width less 20 px


def _wanted(column: TableColumn, cells: list[str]) -> int:
    """A fixed column's width: its widest text in the table font, within [_CELL_MIN, _CELL_MAX]."""
    if column.flex:
        return 0
    widest = max([text_width(printable(column.header), font(TEXT, bold=True))]
                 + [text_width(printable(c), font(TEXT, bold=True)) for c in cells])  # fmt: skip
    return max(_CELL_MIN, min(_CELL_MAX, widest + _PADDING))


def _line_cells(line: StandingLine, view: StandingsView) -> list[Cell]:
    medal = _MEDALS.get(line.place) if view.medals and line.place is not None else None
    ink = theme.INK_SOFT if line.out else theme.INK
    place = Cell(_place(line), theme.PAPER if medal else ink, True, medal)
    cells = [Cell(text, ink, column.bold) for column, text in zip(view.columns, line.cells, strict=True)]
    return [place, *cells]


def bracket_image(view: BracketView, *, locale: str = "zh") -> Image.Image:
    """Rounds left to right, as wide as the picture allows (a name and number per pair);
    each match sits midway between the two it follows on from."""
    box = _box_width(len(view.rounds))
    centres = _match_centres(view)
    lowest = max((c for row in centres for c in row), default=TITLE + 70 - _BOX_HEIGHT / 2)
    height = int(lowest + _BOX_HEIGHT / 2 + _MATCH_GAP + MARGIN)
    width = max(WIDTH, 2 * MARGIN + len(view.rounds) * (box + _ROUND_GAP) - _ROUND_GAP)
    image, draw = canvas(height, width)
    draw_title(draw, view.title, view.subtitle, width)
    for r, bracket_round in enumerate(view.rounds):
        left = MARGIN + r * (box + _ROUND_GAP)
        draw.text(
            (left + box / 2, TITLE + 34),
            fit(bracket_round.name, font(28, bold=True), box),
            font=font(28, bold=True),
            fill=theme.INK_SOFT,
            anchor="mm",
        )
        for m, match in enumerate(bracket_round.matches):
            _draw_match(draw, left, round(centres[r][m]), match, locale, box)
            ahead = view.rounds[r + 1] if r + 1 < len(view.rounds) else None
            following = ahead.matches if ahead is not None and not ahead.to_come else ()
            if m // 2 < len(following) and _feeds(match, following[m // 2]):
                _draw_link(draw, left + box, centres[r][m], centres[r + 1][m // 2])
    return image


def _box_width(rounds: int) -> int:
    """A match box's width: the rounds share the picture's width, between the narrowest box
    (many rounds: the picture grows wider) and the widest (one or two rounds)."""
    share = (WIDTH - 2 * MARGIN - max(rounds - 1, 0) * _ROUND_GAP) // max(rounds, 1)
    return max(_BOX_WIDTH, min(_BOX_WIDEST, share))


def _match_centres(view: BracketView) -> list[list[float]]:
    """Vertical centre of every match box, round by round: midway between its two feeders,
    and never over the match above it (a match for 3rd has no feeders and goes below)."""
    top = TITLE + 70 + _BOX_HEIGHT / 2
    centres: list[list[float]] = []
    for r, bracket_round in enumerate(view.rounds):
        row: list[float] = []
        for m, match in enumerate(bracket_round.matches):
            feeders = centres[r - 1][2 * m : 2 * m + 2] if r else []
            centre = sum(feeders) / len(feeders) if feeders else top + m * (_BOX_HEIGHT + _MATCH_GAP)
            if row:
                centre = max(centre, row[-1] + _BOX_HEIGHT + _MATCH_GAP + (_LABEL if match.label else 0))
            row.append(centre)
        centres.append(row)
    return centres


def _draw_match(
    draw: ImageDraw.ImageDraw, left: int, centre: int, match: BracketMatch, locale: str, box: int = _BOX_WIDTH
) -> None:
    top = centre - _BOX_HEIGHT // 2
    if match.label:
        face = font(20, bold=True)
        draw.text((left + 6, top - 4), fit(match.label, face, box - 12), font=face,
                  fill=theme.INK_SOFT, anchor="ld")  # fmt: skip
    draw.rounded_rectangle(
        (left, top, left + box, top + _BOX_HEIGHT), 12, fill=theme.PAPER, outline=theme.RULE, width=2
    )
    draw.line((left + 8, centre, left + box - 8, centre), fill=theme.RULE, width=2)
    english = is_english(locale)
    if match.bye and match.waiting:
        undecided = "through" if english else "已晋级"
    else:
        undecided = ("bye" if english else "轮空") if match.bye else ("TBD" if english else "待定")
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
        room = box - 32 - int(score_face.getlength(score)) - 12
        draw.text(
            (left + 18, y),
            fit(name if name is not None else undecided, face, room),
            font=face,
            fill=colour,
            anchor="lm",
        )
        draw.text(
            (left + box - 14, y),
            score,
            font=score_face,
            fill=theme.WIN if won else colour,
            anchor="rm",
        )


def _feeds(match: BracketMatch, target: BracketMatch) -> bool:
    """Whether ``match``'s winner plays ``target`` (a fixed bracket), so a line joins them; a
    redrawn round's matches are not linked. An open match feeds an open slot."""
    if match.winner is None:
        return None in target.pairs and not target.bye
    return match.pairs[match.winner] in target.pairs


def _draw_link(draw: ImageDraw.ImageDraw, x: int, y: float, target: float) -> None:
    """An elbow line from a match to the match its winner plays next."""
    middle = x + _ROUND_GAP / 2
    draw.line([(x, y), (middle, y), (middle, target), (x + _ROUND_GAP, target)], fill=theme.EDGE, width=3)
