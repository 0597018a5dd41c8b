"""复盘: a finished match retold deal by deal — the hands dealt, the tribute, then each trick.

:func:`review` replays the log once and keeps, per deal, what a replay picture shows:
the four hands as dealt (the match is over, so the caller decides who may see them), the
tribute and return, every trick's plays and passes with each seat's cards left after it,
and the deal's result. :func:`frames` flattens that into the steps ◀ ▶ move through.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.actions import (
    Action,
    AntiTribute,
    DealEnded,
    DealStarted,
    Event,
    Passed,
    Played,
    TributeGiven,
    TributeReturned,
    TrickWon,
)
from engine.cards import Card, Rank, sort_hand
from engine.match import CARDS_PER_SEAT, Match
from engine.plays import Play
from engine.rules import Rules


@dataclass(frozen=True, slots=True)
class TrickRecord:
    """One trick: who played what (``None``: passed), in order, and the counts after it."""

    number: int  # 1, 2, 3… within the deal
    turns: tuple[tuple[int, Play | None], ...]
    winner: int | None  # whose play stood (None: the deal ended inside the trick)
    cards_left: tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class DealReview:
    deal_number: int
    level: Rank
    declarer_team: int
    hands: tuple[tuple[Card, ...], ...]  # as dealt, before tribute, sorted at the level
    tributes: tuple[tuple[int, int, Card], ...]  # (payer, receiver, card)
    returns: tuple[tuple[int, int, Card], ...]  # (giver, receiver, card)
    anti_tribute: tuple[int, ...]  # 抗贡: the seats whose 大王 counted
    tricks: tuple[TrickRecord, ...]
    result: DealEnded | None  # None: the match ended inside this deal (the clock)


@dataclass(frozen=True, slots=True)
class Frame:
    """One step of a replay: ``deal`` (0-based index into the reviews) and what it shows."""

    deal: int
    kind: str  # "hands" | "tribute" | "trick"
    trick: int = 0  # for "trick": 0-based index into the deal's tricks


@dataclass
class _Deal:
    started: DealStarted
    hands: tuple[tuple[Card, ...], ...]
    tributes: list[tuple[int, int, Card]] = field(default_factory=list)
    returns: list[tuple[int, int, Card]] = field(default_factory=list)
    anti: tuple[int, ...] = ()
    tricks: list[TrickRecord] = field(default_factory=list)
    turns: list[tuple[int, Play | None]] = field(default_factory=list)
    counts: list[int] = field(default_factory=lambda: [CARDS_PER_SEAT] * 4)
    result: DealEnded | None = None

    def close_trick(self, winner: int | None) -> None:
        if self.turns:
            counts = (self.counts[0], self.counts[1], self.counts[2], self.counts[3])
            self.tricks.append(TrickRecord(len(self.tricks) + 1, tuple(self.turns), winner, counts))
        self.turns = []

    def frozen(self) -> DealReview:
        return DealReview(
            self.started.deal_number,
            self.started.level,
            self.started.declarer_team,
            self.hands,
            tuple(self.tributes),
            tuple(self.returns),
            self.anti,
            tuple(self.tricks),
            self.result,
        )


def review(rules: Rules, seed: int, history: Sequence[tuple[int | None, Action]]) -> tuple[DealReview, ...]:
    """Every deal of the match that ``history`` plays, in order."""
    match = Match.new(rules, seed)
    deals: list[_Deal] = []
    _note(match, match.events, deals)
    for seat, action in history:
        _note(match, match.apply(seat, action), deals)
    if deals and deals[-1].turns:
        deals[-1].close_trick(None)
    return tuple(deal.frozen() for deal in deals)


def review_through(
    rules: Rules, seed: int, history: Sequence[tuple[int | None, Action]], deal_number: int
) -> tuple[tuple[DealReview, ...], int] | None:
    """Deals 1 to ``deal_number`` of a match still being played, once that deal has ended, and
    how many of ``history``'s actions played them; None while it is played (or never ended).

    A 复盘 opened mid-match is built from this alone: the actions after that deal's end — the
    deal in play, which the same last action dealt — are never replayed, so nothing of it (its
    hands, its plays) can reach the replay, its 点评 or anything made from them."""
    match = Match.new(rules, seed)
    deals: list[_Deal] = []
    _note(match, match.events, deals)
    for used, (seat, action) in enumerate(history, start=1):
        events = match.apply(seat, action)
        _note(match, events, deals)
        if any(isinstance(event, DealEnded) and event.deal_number == deal_number for event in events):
            return tuple(d.frozen() for d in deals if d.started.deal_number <= deal_number), used
    return None


def _note(match: Match, events: Sequence[Event], deals: list[_Deal]) -> None:
    for event in events:
        if isinstance(event, DealStarted):
            if deals and deals[-1].turns:
                deals[-1].close_trick(None)
            hands = tuple(tuple(sort_hand(hand, event.level)) for hand in match.hands)
            deals.append(_Deal(event, hands))
            continue
        deal = deals[-1]
        if isinstance(event, TributeGiven):
            deal.tributes.append((event.giver, event.receiver, event.card))
        elif isinstance(event, TributeReturned):
            deal.returns.append((event.giver, event.receiver, event.card))
        elif isinstance(event, AntiTribute):
            deal.anti = event.seats
        elif isinstance(event, Played):
            deal.turns.append((event.seat, event.play))
            deal.counts[event.seat] = event.cards_left
        elif isinstance(event, Passed):
            deal.turns.append((event.seat, None))
        elif isinstance(event, TrickWon):
            deal.close_trick(event.seat)
        elif isinstance(event, DealEnded):
            deal.close_trick(None)
            deal.result = event


def frames(deals: Sequence[DealReview]) -> tuple[Frame, ...]:
    """The steps of a replay: per deal its hands, its tribute (if any), then each trick."""
    steps: list[Frame] = []
    for index, deal in enumerate(deals):
        steps.append(Frame(index, "hands"))
        if deal.tributes or deal.anti_tribute:
            steps.append(Frame(index, "tribute"))
        steps.extend(Frame(index, "trick", trick) for trick in range(len(deal.tricks)))
    return tuple(steps)
