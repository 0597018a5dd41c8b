"""The 战绩 card (/stats) and the 复盘 frame (a replay step), at phone width.

Both take small views worded by the caller, so nothing here knows about storage or
Telegram; a replay frame's cards are whatever the caller decided may be shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from PIL import Image, ImageDraw

from engine.actions import team_of
from engine.cards import Card, Rank
from render import theme
from render.board import MARGIN, TITLE, WIDTH, canvas, draw_title
from render.encode import board_png
from render.faces import card_sprite, mark_of
from render.text import fit, font

_PLACE_COLOURS: Final = ("#E0A100", "#8E989E", "#B0723A", "#5E676C")
SMALL_CARD: Final = theme.CardSize(64, 90)
_CARD_STEP: Final = 34  # 27 cards in one row: 26 steps + a card fit the board's width
_ROW_GAP: Final = 14
_PLAY_STEP: Final = 70  # a play's cards barely overlap: every face reads whole
_SPREAD_CARDS: Final = 12
_MARKED: Final = theme.LOSE  # a decision the coaching marks: outlined in the losing red
_MARK_WIDTH: Final = 5


@dataclass(frozen=True, slots=True)
class StatsCardView:
    """A player's record: a title, three big figures, place counts and labelled lines."""

    title: str
    subtitle: str
    figures: tuple[tuple[str, str], ...]  # (value, label), shown large: matches, win rate, deals
    places: tuple[int, int, int, int]  # 上游 … 下游 counts
    place_names: tuple[str, str, str, str]
    lines: tuple[tuple[str, str], ...]  # (label, value)


def render_stats_card(view: StatsCardView) -> bytes:
    """PNG of the 战绩 card (1080 px wide, read at 360 on a phone)."""
    height = TITLE + 220 + 120 + 58 * len(view.lines) + MARGIN
    image, draw = canvas(height)
    draw_title(draw, view.title, view.subtitle)
    _draw_figures(draw, view.figures, TITLE + 24)
    _draw_places(draw, view, TITLE + 220)
    y = TITLE + 220 + 120
    for i, (label, value) in enumerate(view.lines):
        if i % 2 == 0:
            draw.rectangle((MARGIN, y, WIDTH - MARGIN, y + 57), fill=theme.PAPER)
        face = font(30)
        draw.text((MARGIN + 16, y + 29), fit(label, face, 420), font=face, fill=theme.INK_SOFT, anchor="lm")
        bold = font(30, bold=True)
        room = WIDTH - 2 * MARGIN - 480
        draw.text(
            (WIDTH - MARGIN - 16, y + 29), fit(value, bold, room), font=bold, fill=theme.INK, anchor="rm"
        )
        y += 58
    return board_png(image)


def _draw_figures(draw: ImageDraw.ImageDraw, figures: Sequence[tuple[str, str]], top: int) -> None:
    if not figures:
        return
    cell = (WIDTH - 2 * MARGIN) // len(figures)
    for i, (value, label) in enumerate(figures):
        x = MARGIN + cell * i + cell / 2
        draw.text(
            (x, top + 70),
            fit(value, font(72, bold=True), cell - 16),
            font=font(72, bold=True),
            fill=theme.FELT_DARK,
            anchor="mm",
        )
        draw.text(
            (x, top + 150), fit(label, font(28), cell - 16), font=font(28), fill=theme.INK_SOFT, anchor="mm"
        )


def _draw_places(draw: ImageDraw.ImageDraw, view: StatsCardView, top: int) -> None:
    """One bar split by place counts, the names and counts under it."""
    total = sum(view.places)
    left, right = MARGIN, WIDTH - MARGIN
    draw.rectangle((left, top, right, top + 36), fill=theme.RULE)
    x = float(left)
    for count, colour in zip(view.places, _PLACE_COLOURS, strict=True):
        if total and count:
            width = (right - left) * count / total
            draw.rectangle((round(x), top, round(x + width), top + 36), fill=colour)
            x += width
    cell = (right - left) / 4
    for i, (name, count) in enumerate(zip(view.place_names, view.places, strict=True)):
        cx = left + cell * i + cell / 2
        draw.rectangle((cx - 70, top + 58, cx - 52, top + 76), fill=_PLACE_COLOURS[i])
        draw.text(
            (cx - 44, top + 67), f"{name} {count}", font=font(28, bold=True), fill=theme.INK, anchor="lm"
        )


@dataclass(frozen=True, slots=True)
class ReviewRow:
    """One line of a replay frame: who (and their team), a note, and the cards shown."""

    seat: int
    label: str  # "北 Alice"
    note: str  # "27 张", "顺子 3-7", "不出", "进贡 ♥A → 东 Bob"
    cards: tuple[Card, ...] = ()
    mark: str = ""  # 复盘点评: "①" on a decision the coaching marks, whose row is outlined
    suggested: bool = False  # 复盘点评: the master's play under a marked decision, on gold


@dataclass(frozen=True, slots=True)
class ReviewView:
    title: str
    subtitle: str
    level: Rank
    rows: tuple[ReviewRow, ...]
    footer: str = ""


def render_review(view: ReviewView, *, four_color: bool = False, english: bool = False) -> bytes:
    """PNG of one replay step: a row per seat or turn, cards drawn small."""
    heights = [_row_height(row) for row in view.rows]
    footer = 64 if view.footer else 0
    image, draw = canvas(TITLE + 16 + sum(heights) + footer + MARGIN)
    draw_title(draw, view.title, view.subtitle)
    y = TITLE + 16
    for row, height in zip(view.rows, heights, strict=True):
        _draw_review_row(image, draw, row, y, height, view.level, four_color, english)
        y += height
    if view.footer:
        face = font(28)
        draw.text(
            (MARGIN, y + 32),
            fit(view.footer, face, WIDTH - 2 * MARGIN),
            font=face,
            fill=theme.INK_SOFT,
            anchor="lm",
        )
    return board_png(image)


def _row_height(row: ReviewRow) -> int:
    return 56 + (SMALL_CARD.height + _ROW_GAP if row.cards else 0)


def _draw_review_row(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    row: ReviewRow,
    top: int,
    height: int,
    level: Rank,
    four_color: bool,
    english: bool,
) -> None:
    team = team_of(row.seat)
    tint, bar = (
        (theme.PAPER_LEVEL, theme.GOLD)
        if row.suggested
        else (theme.TEAM_TINTS[team], theme.TEAM_COLOURS[team])
    )
    box = (MARGIN, top + 4, WIDTH - MARGIN, top + height - 4)
    draw.rectangle(box, fill=tint, outline=_MARKED if row.mark else None, width=_MARK_WIDTH)
    draw.rectangle((MARGIN, top + 4, MARGIN + 8, top + height - 4), fill=_MARKED if row.mark else bar)
    bold = font(30, bold=True)
    label = f"{row.mark} {row.label}" if row.mark else row.label
    draw.text((MARGIN + 24, top + 30), fit(label, bold, 380), font=bold, fill=theme.INK, anchor="lm")
    face = font(28)
    room = WIDTH - 2 * MARGIN - 440
    draw.text(
        (WIDTH - MARGIN - 16, top + 30),
        fit(row.note, face, room),
        font=face,
        fill=theme.INK_SOFT,
        anchor="rm",
    )
    spread = len(row.cards) <= _SPREAD_CARDS  # a play: cards side by side, a hand: overlapping
    step = _PLAY_STEP if spread else min(_CARD_STEP, (WIDTH - 2 * MARGIN - 48 - SMALL_CARD.width) // 26)
    for i, card in enumerate(row.cards):
        sprite = card_sprite(
            card, SMALL_CARD, four_color=four_color, mark=mark_of(card, level), english=english
        )
        image.paste(sprite, (MARGIN + 24 + i * step, top + 52), sprite)
