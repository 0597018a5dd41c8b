"""Every card of the two packs renders as its own face, in both colour schemes."""

from __future__ import annotations

import pytest
from PIL import Image

from engine.cards import CARDS, Card, Rank, Suit, full_deck
from render import theme
from render.faces import Mark, card_sprite, mark_of


def colours(image: Image.Image) -> set[tuple[int, int, int]]:
    rgb = Image.new("RGB", image.size, "white")
    rgb.paste(image, (0, 0), image)
    return {(c[0], c[1], c[2]) for _, c in rgb.getcolors(1 << 20) or [] if isinstance(c, tuple)}


def hex_rgb(colour: str) -> tuple[int, int, int]:
    return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))


@pytest.mark.parametrize("four_color", [False, True])
def test_all_108_cards_render_and_the_54_faces_differ(four_color: bool) -> None:
    sprites = [card_sprite(card, theme.HAND_CARD, four_color=four_color) for card in full_deck()]
    assert all(s.size == (theme.HAND_CARD.width, theme.HAND_CARD.height) for s in sprites)
    assert len({s.tobytes() for s in sprites}) == 54


@pytest.mark.parametrize("card", CARDS[:52], ids=str)
def test_suit_ink_follows_the_scheme(card: Card) -> None:
    assert card.suit is not None
    for four in (False, True):
        ink = hex_rgb(theme.suit_colour(card.suit, four))
        assert ink in colours(card_sprite(card, theme.PLAY_CARD, four_color=four))


def test_four_colours_are_four_different_inks() -> None:
    assert len({theme.suit_colour(s, True) for s in Suit}) == 4
    assert len({theme.suit_colour(s, False) for s in Suit}) == 2


def test_jokers_differ_in_colour_and_shape() -> None:
    small, big = (card_sprite(c, theme.HAND_CARD, four_color=False) for c in CARDS[52:])
    assert hex_rgb(theme.JOKER_COLOURS[1]) in colours(big)
    assert hex_rgb(theme.JOKER_COLOURS[1]) not in colours(small)
    english = card_sprite(CARDS[53], theme.HAND_CARD, four_color=False, english=True)
    assert english.tobytes() != big.tobytes()


def test_wildcards_and_level_cards_are_marked() -> None:
    wild = Card(Rank.SEVEN, Suit.HEARTS)
    assert mark_of(wild, Rank.SEVEN) is Mark.WILDCARD
    assert mark_of(Card(Rank.SEVEN, Suit.SPADES), Rank.SEVEN) is Mark.LEVEL
    assert mark_of(wild, Rank.EIGHT) is Mark.PLAIN
    marked = card_sprite(wild, theme.HAND_CARD, four_color=False, mark=Mark.WILDCARD)
    assert hex_rgb(theme.GOLD) in colours(marked)
    assert hex_rgb(theme.GOLD) not in colours(card_sprite(wild, theme.HAND_CARD, four_color=False))


def test_selection_outlines_the_card() -> None:
    card = CARDS[0]
    selected = card_sprite(card, theme.HAND_CARD, four_color=False, selected=True)
    assert hex_rgb(theme.SELECT) in colours(selected)
