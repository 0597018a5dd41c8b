"""What one seat may see of a match: its own hand and the public table.

Everything downstream (images, messages, AI players) works from an
:class:`Observation`, never from the match state itself, so no other seat's
hidden cards can leak. ``observe(match, seat)`` in :mod:`engine.match` builds it;
``seat=None`` gives the spectator's (group's) view with no hand at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Choice, Phase
from engine.cards import Card, Rank
from engine.plays import Play


@dataclass(frozen=True, slots=True)
class SeatView:
    """The public facts about one seat."""

    seat: int
    cards_left: int | None  # None when the preset's 报牌 rule hides the count
    place: int | None  # 1..4 once finished, else None
    last_action: Play | None  # this trick: the seat's play, or None
    passed: bool  # passed in the current trick


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of this deal's play as everyone at the table saw it (the public record).

    The same values go to every observer: a play or a pass is public, and a count is
    shown only as the preset's 报牌 rule shows it to the others (the own count is in
    the seat's hand anyway).
    """

    seat: int
    play: Play | None  # None: passed (不出)
    cards_left: int | None  # the seat's count after this turn as 报牌 shows it; None when hidden
    trick: int  # this deal's trick number, from 0; a trick's first turn is its lead


@dataclass(frozen=True, slots=True)
class TributeView:
    """A tribute or return visible to this observer (the group sees per preset)."""

    giver: int
    receiver: int
    card: Card | None  # None when the observer may not see which card
    is_return: bool


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view of the match at one moment.

    ``version`` increases with every accepted action, so a button carrying it can
    be refused once the state has moved on. ``history`` and ``tributes`` are what a
    human at the table could remember of the deal: every play and pass with its seat,
    the exchange as far as this seat saw it, counts as 报牌 showed them; nothing more.
    """

    seat: int | None  # None: the public (group) view
    hand: tuple[Card, ...]  # own cards, sorted low→high in the level's order; () for the public
    level: Rank  # the level being played this deal (its two ♥ cards are wildcards)
    team_levels: tuple[Rank, Rank]  # team 0 = seats 0 & 2, team 1 = seats 1 & 3
    declarer_team: int  # whose level is played (台上)
    deal_number: int
    phase: Phase
    to_act: tuple[int, ...]  # seats expected to act now
    table_play: Play | None  # the play to beat; None when the seat to act leads
    table_seat: int | None  # who made table_play
    seats: tuple[SeatView, SeatView, SeatView, SeatView]
    finish_order: tuple[int, ...]  # seats already out, 上游 first
    tributes: tuple[TributeView, ...]  # this deal's exchange as far as visible
    points: tuple[int, int]  # points formats: the running totals, else (0, 0)
    a_failures: tuple[int, int]  # failed attempts at A per team
    version: int
    must_tribute_from: tuple[Card, ...] = ()  # TRIBUTE phase: the cards this seat may pay
    may_return: tuple[Card, ...] = ()  # RETURN_TRIBUTE phase: the cards this seat may give back
    games_won: tuple[int, int] = (0, 0)  # best-of formats: games won per team
    choice: tuple[Choice, tuple[int, ...]] | None = None  # CHOICE phase: the question and its seats
    history: tuple[Turn, ...] = ()  # this deal's plays and passes so far, oldest first (shared, public)

    def play_to_beat(self, seat: int | None = None) -> Play | None:
        """What ``seat`` (the observer by default) must beat: the table's play, unless it is that
        seat's own, which everyone passed (then it leads, and there is nothing to beat)."""
        if self.table_seat == (self.seat if seat is None else seat):
            return None
        return self.table_play
