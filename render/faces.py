"""Card faces drawn by code, cached as sprites per size, colour scheme and mark.

Only the left strip of a card shows in an overlapped fan, so everything a player
needs is in it: rank and suit in the corner, the 配 badge of a wildcard, and room
at the bottom for the button label. Sprites are drawn at three times their size
and scaled down, which gives smooth edges; the cache makes that a one-time cost.
"""

from __future__ import annotations

from enum import Enum
from functools import lru_cache
from typing import Final

from PIL import Image, ImageDraw

from engine.cards import CARDS, Card, Rank
from render import theme
from render.text import fitting_font, font
from render.words import rank_text

_SCALE: Final = 3
STRIP: Final = 76
"""Width (at 150 px) of the corner strip that stays visible in a fan."""


class Mark(Enum):
    """How a card stands out in a hand: plain, a level card (级牌), or a wildcard."""

    PLAIN = "plain"
    LEVEL = "level"
    WILDCARD = "wildcard"


def mark_of(card: Card, level: Rank) -> Mark:
    """A card's mark at a level: wildcard (♥ of the level), other level card, or plain."""
    if card.is_wildcard(level):
        return Mark.WILDCARD
    return Mark.LEVEL if card.rank == level else Mark.PLAIN


def card_sprite(
    card: Card,
    size: theme.CardSize,
    *,
    four_color: bool,
    mark: Mark = Mark.PLAIN,
    selected: bool = False,
    english: bool = False,
) -> Image.Image:
    """The RGBA face of ``card`` (transparent outside its rounded corners)."""
    return _sprite(card.index, size, four_color, mark, selected, english and card.is_joker)


@lru_cache(maxsize=512)  # about 64 MB at most: both sizes, both schemes, all marks
def _sprite(
    index: int, size: theme.CardSize, four_color: bool, mark: Mark, selected: bool, english: bool
) -> Image.Image:
    card = CARDS[index]
    big = theme.CardSize(size.width * _SCALE, size.height * _SCALE)
    image = Image.new("RGB", (big.width, big.height), theme.PAPER)
    draw = ImageDraw.Draw(image)
    _draw_blank(draw, big, mark, selected)
    colour = _ink(card, four_color)
    if card.is_joker:
        _draw_joker(draw, big, card, colour, english)
    else:
        _draw_plain(draw, big, card, colour)
    if mark is Mark.WILDCARD:
        _draw_wild_badge(draw, big)
    sprite = image.reduce(_SCALE)
    sprite.putalpha(_outline_mask(size))
    return sprite


@lru_cache(maxsize=8)
def _outline_mask(size: theme.CardSize) -> Image.Image:
    """The card's rounded shape as an alpha mask, smoothed the same way as the face."""
    big = theme.CardSize(size.width * _SCALE, size.height * _SCALE)
    mask = Image.new("L", (big.width, big.height), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, big.width - 1, big.height - 1), big.px(13), fill=255)
    return mask.reduce(_SCALE)


def _ink(card: Card, four_color: bool) -> str:
    if card.suit is None:
        return theme.JOKER_COLOURS[card.rank is Rank.BIG_JOKER]
    return theme.suit_colour(card.suit, four_color)


def _draw_blank(draw: ImageDraw.ImageDraw, size: theme.CardSize, mark: Mark, selected: bool) -> None:
    paper = theme.PAPER if mark is Mark.PLAIN else theme.PAPER_LEVEL
    box = (0, 0, size.width - 1, size.height - 1)
    radius = size.px(13)
    draw.rounded_rectangle(box, radius, fill=paper, outline=theme.EDGE, width=size.px(1.5))
    if mark is Mark.WILDCARD:
        inset = size.px(2)
        inner = (inset, inset, size.width - 1 - inset, size.height - 1 - inset)
        draw.rounded_rectangle(inner, radius - inset, outline=theme.GOLD, width=size.px(4))
    if selected:
        draw.rounded_rectangle(box, radius, outline=theme.SELECT, width=size.px(7))


def _corner(size: theme.CardSize) -> float:
    """Horizontal centre of the corner index."""
    return size.px(STRIP / 2 + 1)


def _draw_plain(draw: ImageDraw.ImageDraw, size: theme.CardSize, card: Card, colour: str) -> None:
    assert card.suit is not None
    text = rank_text(card.rank)
    face = fitting_font(text, size.px(STRIP - 14), size.px(62), bold=True)
    x = _corner(size)
    draw.text((x, size.px(40)), text, font=face, fill=colour, anchor="mm")
    draw.text((x, size.px(100)), card.suit.symbol, font=font(size.px(50)), fill=colour, anchor="mm")
    pip = font(size.px(66))
    draw.text((size.px(120), size.height * 0.5), card.suit.symbol, font=pip, fill=colour, anchor="mm")
    tail = font(size.px(30), bold=True)
    draw.text(
        (size.width - size.px(20), size.height - size.px(22)), text, font=tail, fill=colour, anchor="mm"
    )


def _draw_joker(
    draw: ImageDraw.ImageDraw, size: theme.CardSize, card: Card, colour: str, english: bool
) -> None:
    """小王/大王 stacked in the corner; the star is filled for 大王, hollow for 小王,
    so the two differ in shape as well as colour."""
    big = card.rank is Rank.BIG_JOKER
    x = _corner(size)
    if english:
        face = font(size.px(27), bold=True)
        for i, letter in enumerate("JOKER"):
            draw.text((x, size.px(22 + 25 * i)), letter, font=face, fill=colour, anchor="mm")
    else:
        face = font(size.px(50), bold=True)
        draw.text((x, size.px(36)), "大" if big else "小", font=face, fill=colour, anchor="mm")
        draw.text((x, size.px(92)), "王", font=face, fill=colour, anchor="mm")
    star = "★" if big else "☆"
    draw.text((x, size.px(145)), star, font=font(size.px(40)), fill=colour, anchor="mm")
    draw.text((size.px(120), size.height * 0.5), star, font=font(size.px(58)), fill=colour, anchor="mm")


def _draw_wild_badge(draw: ImageDraw.ImageDraw, size: theme.CardSize) -> None:
    """逢人配: a gold disc with 配 under the suit, inside the visible strip."""
    x, y, r = _corner(size), size.px(142), size.px(19)
    draw.ellipse((x - r, y - r, x + r, y + r), fill=theme.GOLD)
    draw.text((x, y), "配", font=font(size.px(26), bold=True), fill=theme.PAPER, anchor="mm")
