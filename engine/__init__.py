"""The Guandan (掼蛋) rules engine: pure, typed and deterministic given a seed.

Nothing here does I/O or knows about Telegram. Start with :func:`parse_cards`,
:func:`classify`, :func:`beats` and :func:`legal_plays` for hands, and the match
state machine for whole games.
"""

from engine.actions import Phase
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
from engine.match import Match, action_from_json, action_to_json, observe
from engine.moves import is_legal, legal_plays, readings_for
from engine.observation import Observation
from engine.plays import Play, PlayKind, beats
from engine.rules import PRESETS, Preset, Rules

__all__ = [
    "CARDS",
    "PRESETS",
    "AmbiguousPlay",
    "Card",
    "EngineError",
    "IllegalAction",
    "IllegalPlay",
    "IllegalTribute",
    "InvalidCards",
    "Match",
    "NotYourTurn",
    "Observation",
    "Phase",
    "Play",
    "PlayKind",
    "Preset",
    "Rank",
    "Rules",
    "Suit",
    "action_from_json",
    "action_to_json",
    "beats",
    "card_order",
    "classify",
    "format_cards",
    "full_deck",
    "is_legal",
    "legal_plays",
    "observe",
    "parse_cards",
    "parse_rank",
    "readings_for",
]
