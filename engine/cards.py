"""Cards, ranks, suits and the two-character notation (``HT``, ``S3``, ``BJ``, ``RJ``).

A :class:`Card` is interned: there are exactly 54 distinct card faces, and
``Card(Rank.TEN, Suit.HEARTS) is Card(Rank.TEN, Suit.HEARTS)``. The two decks make
two physical copies of each face; a hand is therefore a *multiset* of cards, kept as
a list or a ``collections.Counter``.

Each card has a small integer ``index`` (0..53) so hot loops can count cards in a
flat list instead of hashing objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import Enum, IntEnum
from typing import Final

from engine.errors import InvalidCards


class Suit(Enum):
    """The four suits. Suits never rank in Guandan (花色无大小)."""

    SPADES = "S"
    HEARTS = "H"
    CLUBS = "C"
    DIAMONDS = "D"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]


_SUIT_SYMBOLS: Final = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.CLUBS: "♣", Suit.DIAMONDS: "♦"}
SUITS: Final = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)
_SUIT_INDEX: Final = {suit: i for i, suit in enumerate(SUITS)}


class Rank(IntEnum):
    """Face ranks with their natural value; jokers above A.

    The value is the natural (A-high) order; the order *at a level* (where the
    level rank jumps above A) is :func:`level_order`.
    """

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14
    SMALL_JOKER = 15  # 小王 (black joker, BJ)
    BIG_JOKER = 16  # 大王 (red joker, RJ)

    @property
    def char(self) -> str:
        """One-character notation: ``2``..``9``, ``T``, ``J``, ``Q``, ``K``, ``A``."""
        return _RANK_CHARS[self]

    @property
    def is_joker(self) -> bool:
        return self >= Rank.SMALL_JOKER


_RANK_CHARS: Final = {r: c for r, c in zip(tuple(Rank)[:13], "23456789TJQKA", strict=True)}
_CHAR_RANKS: Final = {c: r for r, c in _RANK_CHARS.items()}
_CHAR_RANKS["10"] = Rank.TEN
PLAIN_RANKS: Final = tuple(r for r in Rank if not r.is_joker)
"""The thirteen ranks that can be a level: 2..A."""


class Card:
    """One card face. Immutable and interned; compare with ``==`` or ``is``.

    >>> Card(Rank.TEN, Suit.HEARTS)
    Card.parse('HT')
    >>> str(Card.parse("10h"))
    'HT'
    """

    __slots__ = ("index", "rank", "suit")
    rank: Rank
    suit: Suit | None
    index: int

    def __new__(cls, rank: Rank, suit: Suit | None = None) -> Card:
        return CARDS[_card_index(rank, suit)]

    @classmethod
    def _make(cls, rank: Rank, suit: Suit | None, index: int) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "index", index)
        return card

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``HT``, ``S3``, ``H10``, ``BJ``, ``RJ`` (case-insensitive, suit first
        or last, ``♥``-style symbols accepted)."""
        card = _NOTATION.get(text.strip().upper())
        if card is None:
            raise InvalidCards(f"not a card: {text!r}")
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Suit | None]]:
        return (Card, (self.rank, self.suit))

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __str__(self) -> str:
        if self.rank is Rank.SMALL_JOKER:
            return "BJ"
        if self.rank is Rank.BIG_JOKER:
            return "RJ"
        assert self.suit is not None
        return self.suit.value + self.rank.char

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @property
    def is_joker(self) -> bool:
        return self.rank.is_joker

    def is_wildcard(self, level: Rank) -> bool:
        """逢人配: the two hearts of the level rank stand for any non-joker card."""
        return self.rank == level and self.suit is Suit.HEARTS


def _card_index(rank: Rank, suit: Suit | None) -> int:
    if rank is Rank.SMALL_JOKER or rank is Rank.BIG_JOKER:
        if suit is not None:
            raise InvalidCards("jokers have no suit")
        return 52 if rank is Rank.SMALL_JOKER else 53
    if suit is None:
        raise InvalidCards(f"rank {rank.name} needs a suit")
    return (int(rank) - 2) * 4 + _SUIT_INDEX[suit]


def _build_cards() -> tuple[Card, ...]:
    cards = [Card._make(r, s, (int(r) - 2) * 4 + i) for r in PLAIN_RANKS for i, s in enumerate(SUITS)]
    cards.append(Card._make(Rank.SMALL_JOKER, None, 52))
    cards.append(Card._make(Rank.BIG_JOKER, None, 53))
    return tuple(cards)


CARDS: Final[tuple[Card, ...]] = _build_cards()
"""All 54 faces, indexed by ``Card.index``."""

SMALL_JOKER: Final = CARDS[52]
BIG_JOKER: Final = CARDS[53]


def _build_notation() -> dict[str, Card]:
    table: dict[str, Card] = {"BJ": SMALL_JOKER, "RJ": BIG_JOKER, "SB": SMALL_JOKER, "HR": BIG_JOKER}
    for card in CARDS[:52]:
        assert card.suit is not None
        rank_texts = [card.rank.char] + (["10"] if card.rank is Rank.TEN else [])
        for suit_text in (card.suit.value, card.suit.symbol):
            for rank_text in rank_texts:
                table[suit_text + rank_text] = card
                table[rank_text + suit_text] = card
    return table


_NOTATION: Final = _build_notation()


def parse_rank(text: str | Rank) -> Rank:
    """A level or rank given as ``"2"``..``"A"``, ``"T"``/``"10"`` or a :class:`Rank`."""
    if isinstance(text, Rank):
        return text
    rank = _CHAR_RANKS.get(str(text).strip().upper())
    if rank is None:
        raise InvalidCards(f"not a rank: {text!r}")
    return rank


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """``parse_cards("HT S3 S4")`` → three cards; commas and extra spaces are fine."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [Card.parse(token) for token in tokens]


def format_cards(cards: Iterable[Card]) -> str:
    """The inverse of :func:`parse_cards`."""
    return " ".join(str(card) for card in cards)


def full_deck() -> list[Card]:
    """The 108 cards of two packs, in index order (shuffle with a seeded RNG)."""
    return [card for card in CARDS for _ in range(2)]


def level_order(rank: Rank, level: Rank) -> int:
    """Singles order at a level: 2 < … < A < level rank (15) < 小王 (16) < 大王 (17)."""
    if rank.is_joker:
        return int(rank) + 1
    if rank == level:
        return 15
    return int(rank)


def card_order(card: Card, level: Rank) -> int:
    """The order of one card at a level (suits never matter)."""
    return level_order(card.rank, level)


def sort_hand(cards: Iterable[Card], level: Rank) -> list[Card]:
    """理牌: low to high by the level's singles order, suits grouped inside a rank."""
    return sorted(cards, key=lambda c: (card_order(c, level), c.index))


def iter_ranks_high_to_low(level: Rank) -> Iterator[Rank]:
    """All ranks from 大王 down to 2 in the level's order."""
    return iter(sorted(Rank, key=lambda r: level_order(r, level), reverse=True))
