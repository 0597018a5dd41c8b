"""Colours and sizes shared by every image.

Suit colours come in two schemes: the classic red/black, and the four-colour deck
(♠ black, ♥ red, ♣ green, ♦ blue) for colour-blind players, a user setting. Team
colours are blue and orange, a pair that stays apart under every common colour
blindness.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from engine.cards import Suit

FELT: Final = "#1F5E43"  # table background behind the cards
FELT_DARK: Final = "#163F2E"  # header band
PAPER: Final = "#FFFFFF"
PAPER_LEVEL: Final = "#FFF4CC"  # level cards (级牌) stand out from the rest
EDGE: Final = "#8A8F94"
INK: Final = "#1A1A1A"
INK_SOFT: Final = "#5F6B73"
LIGHT_TEXT: Final = "#F4F7F5"
MUTED_TEXT: Final = "#B9D3C6"
GOLD: Final = "#E8A317"  # wildcards (逢人配)
SELECT: Final = "#0A84FF"  # selected cards
LABEL: Final = "#37474F"
BOARD: Final = "#F5F3EE"  # result boards and tables
RULE: Final = "#D9D4C7"
TEAM_COLOURS: Final = ("#1F6FB2", "#D9731A")
TEAM_TINTS: Final = ("#DCEBF7", "#FBE6D3")
WIN: Final = "#2E7D32"
LOSE: Final = "#B23A3A"

RED: Final = "#D0202E"
BLACK: Final = "#151515"
GREEN: Final = "#138A36"
BLUE: Final = "#1E5BC6"
_TWO_COLOUR: Final = {Suit.SPADES: BLACK, Suit.HEARTS: RED, Suit.CLUBS: BLACK, Suit.DIAMONDS: RED}
_FOUR_COLOUR: Final = {Suit.SPADES: BLACK, Suit.HEARTS: RED, Suit.CLUBS: GREEN, Suit.DIAMONDS: BLUE}
JOKER_COLOURS: Final = (BLACK, RED)  # 小王, 大王


def suit_colour(suit: Suit, four_color: bool) -> str:
    """The ink of a suit in the chosen scheme."""
    return (_FOUR_COLOUR if four_color else _TWO_COLOUR)[suit]


@dataclass(frozen=True, slots=True)
class CardSize:
    """A card's pixel size; every other measure on the face scales with ``width``."""

    width: int
    height: int

    def px(self, at_150: float) -> int:
        """A length given for a 150 px wide card, scaled to this card."""
        return round(at_150 * self.width / 150)


HAND_CARD: Final = CardSize(150, 212)
PLAY_CARD: Final = CardSize(118, 167)
