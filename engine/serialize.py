"""JSON forms of actions, plays and events, for storage and golden transcripts.

A play is written as its kind, rank and card notation (``{"kind": "pair", "rank": 5,
"cards": "S5 H5"}``) so a stored history replays to the same reading even when
wildcards make several readings possible.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from engine.actions import Action, ChooseSeat, Event, GiveTribute, Pass, PlayCards, ReturnTribute, TimeExpired
from engine.cards import Card, format_cards, parse_cards
from engine.errors import EngineError
from engine.plays import Play, PlayKind

_SIMPLE_ACTIONS: dict[str, type[Pass | TimeExpired]] = {"pass": Pass, "time_expired": TimeExpired}


def play_to_json(play: Play) -> dict[str, Any]:
    return {"kind": play.kind.value, "rank": play.rank, "cards": format_cards(play.cards)}


def play_from_json(data: dict[str, Any]) -> Play:
    cards = tuple(sorted(parse_cards(data["cards"]), key=lambda card: card.index))
    return Play(PlayKind(data["kind"]), int(data["rank"]), cards)


def action_to_json(action: Action) -> dict[str, Any]:
    """``{"type": "play", "play": {...}}``, ``{"type": "pass"}``, ``{"type": "tribute", "card": "SA"}``…"""
    if isinstance(action, PlayCards):
        return {"type": "play", "play": play_to_json(action.play)}
    if isinstance(action, GiveTribute):
        return {"type": "tribute", "card": str(action.card)}
    if isinstance(action, ReturnTribute):
        return {"type": "return", "card": str(action.card)}
    if isinstance(action, ChooseSeat):
        return {"type": "choose", "seat": action.seat}
    return {"type": "pass" if isinstance(action, Pass) else "time_expired"}


def action_from_json(data: dict[str, Any]) -> Action:
    """The inverse of :func:`action_to_json`; raises :class:`EngineError` on unknown types."""
    kind = data.get("type")
    if kind == "play":
        return PlayCards(play_from_json(data["play"]))
    if kind == "tribute":
        return GiveTribute(Card.parse(data["card"]))
    if kind == "return":
        return ReturnTribute(Card.parse(data["card"]))
    if kind == "choose":
        return ChooseSeat(int(data["seat"]))
    if kind in _SIMPLE_ACTIONS:
        return _SIMPLE_ACTIONS[kind]()
    raise EngineError(f"unknown action type: {kind!r}")


def event_to_json(event: Event) -> dict[str, Any]:
    """``{"event": "Played", "seat": 1, ...}`` with cards and plays in notation."""
    fields = {f.name: _value(getattr(event, f.name)) for f in dataclasses.fields(event)}
    return {"event": type(event).__name__, **fields}


def _value(value: object) -> object:
    if isinstance(value, Play):
        return play_to_json(value)
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_value(v) for v in value]
    return value
