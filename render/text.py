"""The bundled CJK font, and text that always renders (no tofu, no crash).

Fonts are loaded from ``render/fonts`` only, never from the system, so two machines
produce the same pixels. Characters the subset lacks (emoji in a player's name, a
rare hanzi) are replaced by a visible placeholder instead of a .notdef box.
"""

from __future__ import annotations

import bisect
import unicodedata
from functools import cache
from pathlib import Path
from typing import Final

from PIL import ImageDraw, ImageFont

FONT_DIR: Final = Path(__file__).with_name("fonts")
_FILES: Final = {False: "NotoSansSC-Regular-subset.otf", True: "NotoSansSC-Bold-subset.otf"}
PLACEHOLDER: Final = "?"
ELLIPSIS: Final = "…"
_INVISIBLE: Final = frozenset({"Cc", "Cf", "Mn", "Me", "Zl", "Zp"})

Font = ImageFont.FreeTypeFont


@cache
def font(size: int, bold: bool = False) -> Font:
    """The bundled font at ``size`` px; basic layout keeps output independent of libraqm."""
    return ImageFont.truetype(str(FONT_DIR / _FILES[bold]), size, layout_engine=ImageFont.Layout.BASIC)


@cache
def _coverage() -> tuple[tuple[int, ...], tuple[int, ...]]:
    starts: list[int] = []
    ends: list[int] = []
    for line in (FONT_DIR / "coverage.txt").read_text(encoding="ascii").split():
        start, end = line.split("-")
        starts.append(int(start, 16))
        ends.append(int(end, 16))
    return tuple(starts), tuple(ends)


def has_glyph(char: str) -> bool:
    """Whether the bundled font draws ``char`` (one code point)."""
    starts, ends = _coverage()
    code = ord(char)
    i = bisect.bisect_right(starts, code) - 1
    return i >= 0 and code <= ends[i]


def printable(text: str) -> str:
    """``text`` without control characters or glyphs the font lacks, spaces collapsed.

    Unknown characters (mostly emoji in names) are left out: "小明🀄️" shows as
    小明; a name made only of them shows as the placeholder.
    """
    kept = (
        char
        for char in unicodedata.normalize("NFC", text)
        if unicodedata.category(char) not in _INVISIBLE and has_glyph(char)
    )
    return " ".join("".join(kept).split()) or PLACEHOLDER


def text_width(text: str, face: Font) -> int:
    """Advance width of ``text`` in whole pixels."""
    return int(face.getlength(text) + 0.5)


def fit(text: str, face: Font, width: int) -> str:
    """``text`` made printable and shortened with an ellipsis to at most ``width`` px."""
    text = printable(text)
    if text_width(text, face) <= width:
        return text
    while len(text) > 1 and text_width(text + ELLIPSIS, face) > width:
        text = text[:-1]
    return text + ELLIPSIS


def fitting_font(text: str, width: int, size: int, *, bold: bool = True, smallest: int = 12) -> Font:
    """The largest font not above ``size`` in which ``text`` fits ``width`` px."""
    while size > smallest and text_width(text, font(size, bold)) > width:
        size -= 1
    return font(size, bold)


def draw_centered(
    draw: ImageDraw.ImageDraw, center: tuple[float, float], text: str, face: Font, fill: str
) -> None:
    """Draw ``text`` centred on ``center`` (middle of the ink box, not the baseline)."""
    draw.text(center, text, font=face, fill=fill, anchor="mm")
