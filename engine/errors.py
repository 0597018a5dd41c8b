"""Exceptions raised by the engine, split by cause like python-chess's.

All are ``ValueError`` subclasses so a caller that only wants "the action was
refused" can catch one type; the handler boundary maps each class to a
localized message.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class: an action or input the rules refuse. State is unchanged."""


class InvalidCards(EngineError):
    """Card notation that cannot be parsed, or cards the player does not hold."""


class IllegalPlay(EngineError):
    """Cards that form no play, or a play that does not beat the table."""


class AmbiguousPlay(EngineError):
    """A wildcard selection with several readings and no reading chosen."""


class NotYourTurn(EngineError):
    """The seat is not the one (or one of those) expected to act now."""


class IllegalAction(EngineError):
    """An action of the wrong kind for the current phase (e.g. pass when leading)."""


class IllegalTribute(EngineError):
    """A tribute or return-tribute card that the rules do not allow."""
