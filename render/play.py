"""The play strip: the cards of one play with its kind written beside them."""

from __future__ import annotations

from typing import Final

from PIL import Image, ImageDraw

from engine.cards import Rank
from engine.plays import Play
from render import theme
from render.arrange import arrange_play
from render.encode import table_png
from render.faces import STRIP, card_sprite, mark_of
from render.text import fit, font, printable, text_width
from render.words import describe_play, is_english, play_kind_name

PAD: Final = 16
PANEL_MIN: Final = 200
PANEL_MAX: Final = 420
KIND_SIZE: Final = 44
DETAIL_SIZE: Final = 30
CAPTION_SIZE: Final = 26


def render_play(
    play: Play, level: Rank, *, locale: str = "zh", four_color: bool = False, caption: str | None = None
) -> bytes:
    """PNG strip of ``play`` at ``level``: kind and words on the left, cards on the right.

    ``caption`` is a free line under the words (typically who played it).
    """
    return table_png(play_image(play, level, locale=locale, four_color=four_color, caption=caption))


def play_image(
    play: Play, level: Rank, *, locale: str = "zh", four_color: bool = False, caption: str | None = None
) -> Image.Image:
    """The play strip as an RGB image (see :func:`render_play`)."""
    size = theme.PLAY_CARD
    kind = play_kind_name(play.kind, locale)
    detail = describe_play(play, level, locale).removeprefix(kind).strip()
    panel = _panel_width(kind, detail, caption)
    step = size.px(STRIP) + 6
    cards = arrange_play(play, level)
    width = panel + PAD + step * (len(cards) - 1) + size.width + PAD
    image = Image.new("RGB", (width, size.height + 2 * PAD), theme.FELT)
    _draw_words(ImageDraw.Draw(image), kind, detail, caption, panel)
    for i, card in enumerate(cards):
        sprite = card_sprite(
            card, size, four_color=four_color, mark=mark_of(card, level), english=is_english(locale)
        )
        image.paste(sprite, (panel + PAD + i * step, PAD), sprite)
    return image


def _panel_width(kind: str, detail: str, caption: str | None) -> int:
    widths = [text_width(kind, font(KIND_SIZE, bold=True)), text_width(detail, font(DETAIL_SIZE, bold=True))]
    if caption:
        widths.append(text_width(printable(caption), font(CAPTION_SIZE)))
    return max(PANEL_MIN, min(PANEL_MAX, max(widths) + 2 * PAD + 8))


def _draw_words(draw: ImageDraw.ImageDraw, kind: str, detail: str, caption: str | None, panel: int) -> None:
    """Kind in gold (the word players scan for), detail and caption below it."""
    room = panel - 2 * PAD
    height = theme.PLAY_CARD.height + 2 * PAD
    lines = [(kind, font(KIND_SIZE, bold=True), theme.GOLD)]
    if detail:
        lines.append((detail, font(DETAIL_SIZE, bold=True), theme.LIGHT_TEXT))
    if caption:
        lines.append((caption, font(CAPTION_SIZE), theme.MUTED_TEXT))
    total = sum(face.size + 12 for _, face, _ in lines) - 12
    y = (height - total) / 2
    for text, face, colour in lines:
        draw.text((PAD + 4, y + face.size / 2), fit(text, face, room), font=face, fill=colour, anchor="lm")
        y += face.size + 12
