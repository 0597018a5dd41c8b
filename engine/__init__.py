"""The Guandan (掼蛋) rules engine: pure, typed and deterministic given a seed.

Nothing here does I/O or knows about Telegram. Start with :func:`parse_cards`,
:func:`classify`, :func:`beats` and :func:`legal_plays` for hands, and the match
state machine for whole games.
"""

from engine.cards import CARDS, Card, Rank, Suit, card_order, format_cards, full_deck, parse_cards, parse_rank
from engine.classify import classify
from engine.errors import (
    AmbiguousPlay,
    EngineError,
    IllegalAction,
    IllegalPlay,
    IllegalTribute,
    InvalidCards,
    NotYourTurn,
)
from engine.moves import is_legal, legal_plays, readings_for
from engine.plays import Play, PlayKind, beats

__all__ = [
    "CARDS",
    "AmbiguousPlay",
    "Card",
    "EngineError",
    "IllegalAction",
    "IllegalPlay",
    "IllegalTribute",
    "InvalidCards",
    "NotYourTurn",
    "Play",
    "PlayKind",
    "Rank",
    "Suit",
    "beats",
    "card_order",
    "classify",
    "format_cards",
    "full_deck",
    "is_legal",
    "legal_plays",
    "parse_cards",
    "parse_rank",
    "readings_for",
]
