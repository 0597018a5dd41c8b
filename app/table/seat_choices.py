"""A seated player's display choices, read once per seat: a hand refresh does not read the store.

The seat caches its player's choices (``state.message.preferences``); ``/lang``, ``/fourcolor``
and ``/arrange`` clear the cache (:mod:`app.preferences` reads them).
"""

from __future__ import annotations

from app.preferences import Languages, Preferences
from app.table.seats import SeatState


async def seat_preferences(languages: Languages, state: SeatState) -> Preferences:
    """The seated player's choices, read once per seat (``state.message.preferences`` is the cache)."""
    if state.message.preferences is None:
        state.message.preferences = await languages.preferences(state.record.user_id)
    return Preferences(*state.message.preferences)


async def seat_locale(languages: Languages, state: SeatState) -> str:
    """The language of the seat's hand message, alerts and notes."""
    return (await seat_preferences(languages, state)).locale
