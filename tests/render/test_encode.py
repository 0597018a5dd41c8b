"""Encoding: a fixed card palette holding every theme colour exactly, small deterministic PNGs."""

from __future__ import annotations

from PIL import Image

from render import samples, theme
from render.encode import board_png, card_palette, jpeg_bytes, table_png
from render.hand import hand_image


def test_card_palette_holds_each_card_colour_exactly() -> None:
    entries = card_palette().getpalette() or []
    colours = {tuple(entries[i : i + 3]) for i in range(0, len(entries), 3)}
    assert len(colours) <= 256
    for colour in (
        theme.FELT,
        theme.PAPER,
        theme.PAPER_LEVEL,
        theme.RED,
        theme.BLACK,
        theme.GREEN,
        theme.BLUE,
        theme.GOLD,
        theme.SELECT,
        theme.LABEL,
        theme.FELT_DARK,
        theme.LIGHT_TEXT,
    ):
        assert (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)) in colours, colour


def test_palette_png_is_smaller_than_jpeg_for_a_hand() -> None:
    image = hand_image(samples.hand_observation(seed=1))
    assert len(table_png(image)) < len(jpeg_bytes(image))


def test_board_png_is_deterministic() -> None:
    image = Image.new("RGB", (64, 32), theme.BOARD)
    assert board_png(image) == board_png(image.copy())
