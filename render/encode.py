"""Image bytes sized for mobile data, the same bytes for the same input.

Card images are flat colours and sharp text, so a 256-colour palette PNG keeps
text edges exact and is several times smaller than JPEG at equal legibility
(``python -m render bench`` prints both). Hands and play strips are mapped onto one
fixed palette built from every card face: that skips per-image colour analysis,
which would otherwise cost more than drawing the picture. Boards, with their
free-form text and team colours, get a palette of their own.
"""

from __future__ import annotations

import io
from functools import cache
from typing import Final

from PIL import Image, ImageDraw

from engine.cards import CARDS
from render import theme
from render.faces import Mark, card_sprite, mark_of
from render.text import font

_COMPRESS: Final = 3  # zlib level: 6+ costs twice the time for 10 % fewer bytes


def table_png(image: Image.Image) -> bytes:
    """PNG of a card picture (hand, play strip) on the fixed card palette."""
    return _png(image.quantize(palette=card_palette(), dither=Image.Dither.NONE))


def board_png(image: Image.Image) -> bytes:
    """PNG of a board or table, with a palette fitted to the image."""
    return _png(image.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE))


def jpeg_bytes(image: Image.Image, quality: int = 85) -> bytes:
    """JPEG without chroma subsampling (red and blue text stays sharp); for comparison."""
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=quality, subsampling=0, optimize=True)
    return out.getvalue()


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=_COMPRESS)
    return out.getvalue()


@cache
def card_palette() -> Image.Image:
    """The palette of every card picture, fitted once to a sheet of all faces."""
    return _reference_sheet().quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


def _reference_sheet() -> Image.Image:
    """Every face in both colour schemes and all marks, plus the text colours used."""
    size = theme.HAND_CARD
    sheet = Image.new("RGB", (size.width * 27, size.height * 9), theme.FELT)
    for i, card in enumerate(CARDS):
        for row, (four, mark, selected) in enumerate(_VARIANTS):
            if mark is not Mark.PLAIN and mark_of(card, card.rank) is Mark.PLAIN:
                continue
            sprite = card_sprite(card, size, four_color=four, mark=mark, selected=selected)
            sheet.paste(sprite, ((i % 27) * size.width, (row * 2 + i // 27) * size.height // 2), sprite)
    _draw_text_samples(ImageDraw.Draw(sheet), sheet.height - 160)
    return sheet


_VARIANTS: Final = (
    (False, Mark.PLAIN, False),
    (True, Mark.PLAIN, False),
    (False, Mark.PLAIN, True),
    (False, Mark.WILDCARD, False),
)


def _draw_text_samples(draw: ImageDraw.ImageDraw, top: int) -> None:
    samples = (
        (theme.FELT_DARK, theme.LIGHT_TEXT),
        (theme.GOLD, theme.INK),
        (theme.LABEL, theme.PAPER),
        (theme.SELECT, theme.PAPER),
        (theme.FELT, theme.MUTED_TEXT),
        (theme.FELT, theme.GOLD),
    )
    for i, (ground, ink) in enumerate(samples):
        left = i * 660
        draw.rectangle((left, top, left + 660, top + 160), fill=ground)
        draw.text((left + 10, top + 10), "打7 南北 对家 10 JQKA 张", font=font(40, bold=True), fill=ink)
        draw.text((left + 10, top + 80), "Level 23456789 顺子炸弹", font=font(30), fill=ink)
