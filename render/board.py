"""Shared drawing for boards and tables: a title band and striped rows of cells."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from PIL import Image, ImageDraw

from render import theme
from render.text import fit, font

WIDTH: Final = 1080
MARGIN: Final = 32
TITLE: Final = 96
ROW: Final = 58
TEXT: Final = 30

Align = Literal["left", "center", "right"]


@dataclass(frozen=True, slots=True)
class Column:
    """A table column: header text, pixel width, alignment."""

    header: str
    width: int
    align: Align = "center"


@dataclass(frozen=True, slots=True)
class Cell:
    """One table cell's text and how it stands out."""

    text: str
    colour: str = theme.INK
    bold: bool = False
    ground: str | None = None  # a background fill, e.g. the team tint


def canvas(height: int, width: int = WIDTH) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A blank board and its drawing handle."""
    image = Image.new("RGB", (width, height), theme.BOARD)
    return image, ImageDraw.Draw(image)


def draw_title(draw: ImageDraw.ImageDraw, title: str, subtitle: str = "", width: int = WIDTH) -> None:
    """A felt-green band with the title, and a smaller line under it when given."""
    draw.rectangle((0, 0, width, TITLE), fill=theme.FELT_DARK)
    face = font(44, bold=True)
    if subtitle:
        draw.text(
            (MARGIN, 38), fit(title, face, width - 2 * MARGIN), font=face, fill=theme.PAPER, anchor="lm"
        )
        small = font(24)
        draw.text(
            (MARGIN, 78),
            fit(subtitle, small, width - 2 * MARGIN),
            font=small,
            fill=theme.MUTED_TEXT,
            anchor="lm",
        )
    else:
        draw.text(
            (MARGIN, TITLE / 2),
            fit(title, face, width - 2 * MARGIN),
            font=face,
            fill=theme.PAPER,
            anchor="lm",
        )


def draw_table(
    draw: ImageDraw.ImageDraw,
    top: int,
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell]],
    left: int = MARGIN,
    text: int = TEXT,
) -> int:
    """Header plus striped rows from ``top``; returns the y below the table. ``text``: the
    cells' font size (rows grow with it)."""
    row_height = ROW + 2 * (text - TEXT)
    header = [Cell(c.header, theme.INK_SOFT, True) for c in columns]
    _draw_row(draw, top, left, columns, header, theme.RULE, text, row_height)
    y = top + row_height
    for i, row in enumerate(rows):
        _draw_row(draw, y, left, columns, row, theme.PAPER if i % 2 == 0 else theme.BOARD, text, row_height)
        y += row_height
    return y


def _draw_row(
    draw: ImageDraw.ImageDraw,
    top: int,
    left: int,
    columns: Sequence[Column],
    cells: Sequence[Cell],
    ground: str,
    text: int = TEXT,
    row: int = ROW,
) -> None:
    width = sum(c.width for c in columns)
    draw.rectangle((left, top, left + width, top + row - 1), fill=ground)
    x = left
    for column, cell in zip(columns, cells, strict=True):
        if cell.ground:
            draw.rectangle((x + 3, top + 6, x + column.width - 3, top + row - 7), fill=cell.ground)
        draw_cell(draw, cell, x, top, column, text, row)
        x += column.width


def draw_cell(
    draw: ImageDraw.ImageDraw, cell: Cell, x: int, top: int, column: Column, text: int = TEXT, row: int = ROW
) -> None:
    """One cell's text, shortened to fit and aligned as its column says."""
    face = font(text, bold=cell.bold)
    shown = fit(cell.text, face, column.width - 20) if cell.text else ""  # empty: nothing, not "?"
    anchor, tx = {
        "left": ("lm", x + 12),
        "center": ("mm", x + column.width / 2),
        "right": ("rm", x + column.width - 12),
    }[column.align]
    draw.text((tx, top + row / 2), shown, font=face, fill=cell.colour, anchor=anchor)
