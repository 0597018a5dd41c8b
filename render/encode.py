"""Image bytes sized for mobile data, the same bytes for the same input.

Card images are flat colours and sharp text, so a 256-colour palette PNG keeps
text edges exact and is several times smaller than JPEG at equal legibility
(``python bench/pictures.py`` prints both). Hands and play strips are mapped onto one
fixed palette built from the theme colours: that skips per-image colour analysis,
which would otherwise cost more than drawing the picture. Boards, with their
free-form text and team colours, get a palette of their own.
"""

from __future__ import annotations

import io
from functools import cache
from typing import Final

from PIL import Image

from render import theme

_COMPRESS: Final = 3  # zlib level: 6+ costs twice the time for 10 % fewer bytes
_INKS: Final = (theme.BLACK, theme.INK, theme.RED, theme.GREEN, theme.BLUE)


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
    """The palette of every card picture: each theme colour exactly, plus the
    anti-aliasing steps between the colours that meet at a glyph or card edge."""
    colours = list(dict.fromkeys(_hex(c) for pair in _EDGES for c in pair))
    for ink, ground in _EDGES:
        a, b = _hex(ink), _hex(ground)
        colours += [_mix(a, b, step / (_STEPS + 1)) for step in range(1, _STEPS + 1)]
    palette = [v for colour in dict.fromkeys(colours) for v in colour]
    image = Image.new("P", (1, 1))
    image.putpalette(palette + palette[:3] * (256 - len(palette) // 3))
    return image


_STEPS: Final = 7
_EDGES: Final = tuple(
    [(ink, theme.PAPER) for ink in (*_INKS, theme.EDGE, theme.SELECT, theme.GOLD, theme.LABEL)]
    + [(ink, theme.PAPER_LEVEL) for ink in (*_INKS, theme.EDGE, theme.SELECT, theme.GOLD, theme.LABEL)]
    + [
        (ink, theme.FELT)
        for ink in (theme.PAPER, theme.EDGE, theme.SELECT, theme.GOLD, theme.MUTED_TEXT, theme.LIGHT_TEXT)
    ]
    + [
        (theme.LIGHT_TEXT, theme.FELT_DARK),
        (theme.GOLD, theme.FELT_DARK),
        (theme.INK, theme.GOLD),
        (theme.PAPER, theme.GOLD),
        (theme.PAPER, theme.LABEL),
        (theme.PAPER, theme.SELECT),
    ]
)
"""(ink, ground) pairs that meet in card pictures."""


def _hex(colour: str) -> tuple[int, int, int]:
    return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))
