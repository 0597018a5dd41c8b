"""A seated player's display choices, read once per seat: a hand refresh does not read the store.

The seat caches its player's choices (``state.message.preferences``); ``/lang``, ``/fourcolor``
and ``/arrange`` clear the cache (:mod:`app.preferences` reads them).
"""

from __future__ import annotations

from app.preferences import Directory, Preferences, user_preferences
from app.table.seats import SeatState


async def seat_preferences(db: Directory, state: SeatState) -> Preferences:
    """The seated player's choices, read once per seat (``state.message.preferences`` is the cache)."""
    if state.message.preferences is None:
        state.message.preferences = await user_preferences(db, state.record.user_id)
    return Preferences(*state.message.preferences)


async def seat_locale(db: Directory, state: SeatState) -> str:
    """The language of the seat's hand message, alerts and notes."""
    return (await seat_preferences(db, state)).locale
