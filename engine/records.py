"""What a finished match leaves for the records (战绩): per deal facts and per seat tallies.

A :class:`MatchSummary` is derived from a match's events alone, so the bot writes one when a
match ends and the back-fill writes the same one for an older match by replaying its log
(``summarize(Match.replay(...))``). Commands then read summaries, never action logs.

Places follow :class:`~engine.actions.DealEnded`'s ``finish_order``: after a 双下 the two
losers did not finish, and the engine lists U's 下家 last (下游), as the tribute rules do.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.actions import (
    AntiTribute,
    DealEnded,
    DealStarted,
    EndReason,
    Event,
    MatchEnded,
    Outcome,
    TributeGiven,
    team_of,
)
from engine.cards import Rank
from engine.match import Match

SUMMARY_VERSION = 1
"""Bumped when the JSON form changes; stored summaries of an older version are rebuilt."""


@dataclass(frozen=True, slots=True)
class DealRecord:
    """One finished deal as the records need it."""

    deal_number: int
    level: Rank  # the level the deal was played at
    finish_order: tuple[int, ...]  # all four seats, 上游 first
    winner_team: int
    outcome: Outcome
    levels_gained: int  # by the winners (0 in points formats)
    tributes: tuple[tuple[int, int], ...] = ()  # (payer, receiver): 进贡
    anti_tribute: tuple[int, ...] = ()  # the seats whose 大王 refused the tribute (抗贡)

    def place_of(self, seat: int) -> int:
        """1 上游 … 4 下游."""
        return self.finish_order.index(seat) + 1


@dataclass(frozen=True, slots=True)
class SeatTally:
    """One seat's figures over a whole match."""

    deals: int = 0
    places: tuple[int, int, int, int] = (0, 0, 0, 0)  # 上游, 二游, 三游, 下游 counts
    double_down_won: int = 0  # 双下 deals the seat's team won
    double_down_suffered: int = 0  # 双下 deals the seat's team lost
    levels_gained: int = 0  # levels its team climbed in the deals it won
    tributes_paid: int = 0
    tributes_received: int = 0
    anti_tributes: int = 0  # deals where this seat's 大王 made 抗贡


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """A finished match: its result and its deals, in order."""

    winner_team: int | None  # None: the match ended without a winner
    reason: EndReason  # MatchEnded.reason
    deals: tuple[DealRecord, ...]
    final_levels: tuple[Rank, Rank]
    points: tuple[int, int]  # points formats: totals; else (0, 0)
    games_won: tuple[int, int] = (0, 0)

    def tally(self, seat: int) -> SeatTally:
        """The figures of ``seat`` over every deal of the match."""
        places = [0, 0, 0, 0]
        won = suffered = gained = paid = received = anti = 0
        team = team_of(seat)
        for deal in self.deals:
            places[deal.place_of(seat) - 1] += 1
            double = deal.outcome is Outcome.DOUBLE_DOWN
            won += double and deal.winner_team == team
            suffered += double and deal.winner_team != team
            gained += deal.levels_gained if deal.winner_team == team else 0
            paid += sum(payer == seat for payer, _ in deal.tributes)
            received += sum(receiver == seat for _, receiver in deal.tributes)
            anti += seat in deal.anti_tribute
        counts = (places[0], places[1], places[2], places[3])
        return SeatTally(len(self.deals), counts, won, suffered, gained, paid, received, anti)

    def to_json(self) -> str:
        return json.dumps(_summary_data(self), sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> MatchSummary:
        data = json.loads(text)
        if data.get("version") != SUMMARY_VERSION:
            raise ValueError(f"summary version {data.get('version')!r} is not {SUMMARY_VERSION}")
        return cls(
            winner_team=data["winner_team"],
            reason=EndReason(data["reason"]),
            deals=tuple(_deal_from(item) for item in data["deals"]),
            final_levels=(Rank(data["final_levels"][0]), Rank(data["final_levels"][1])),
            points=(int(data["points"][0]), int(data["points"][1])),
            games_won=(int(data["games_won"][0]), int(data["games_won"][1])),
        )


def summarize(match: Match) -> MatchSummary:
    """The summary of a finished match; raises ``ValueError`` for one still being played."""
    if not match.is_over:
        raise ValueError("the match is not over")
    deals = tuple(_deals(match.events))
    ended = next(event for event in reversed(match.events) if isinstance(event, MatchEnded))
    return MatchSummary(
        winner_team=ended.winner_team,
        reason=ended.reason,
        deals=deals,
        final_levels=match.standing.levels,
        points=match.standing.points,
        games_won=match.games_won,
    )


def _deals(events: Iterable[Event]) -> Iterable[DealRecord]:
    level = Rank.TWO
    tributes_: list[tuple[int, int]] = []
    anti_: tuple[int, ...] = ()
    for event in events:
        if isinstance(event, DealStarted):
            level, tributes_, anti_ = event.level, [], ()
        elif isinstance(event, TributeGiven):
            tributes_.append((event.giver, event.receiver))
        elif isinstance(event, AntiTribute):
            anti_ = event.seats
        elif isinstance(event, DealEnded):
            yield DealRecord(
                event.deal_number,
                level,
                event.finish_order,
                event.winner_team,
                event.outcome,
                event.levels_gained,
                tuple(tributes_),
                anti_,
            )


def _summary_data(summary: MatchSummary) -> dict[str, Any]:
    return {
        "version": SUMMARY_VERSION,
        "winner_team": summary.winner_team,
        "reason": summary.reason,
        "final_levels": [int(level) for level in summary.final_levels],
        "points": list(summary.points),
        "games_won": list(summary.games_won),
        "deals": [
            {
                "n": deal.deal_number,
                "level": int(deal.level),
                "order": list(deal.finish_order),
                "winner": deal.winner_team,
                "outcome": deal.outcome,
                "gained": deal.levels_gained,
                "tributes": [list(pair) for pair in deal.tributes],
                "anti": list(deal.anti_tribute),
            }
            for deal in summary.deals
        ],
    }


def _deal_from(item: dict[str, Any]) -> DealRecord:
    return DealRecord(
        deal_number=int(item["n"]),
        level=Rank(item["level"]),
        finish_order=tuple(int(seat) for seat in item["order"]),
        winner_team=int(item["winner"]),
        outcome=Outcome(item["outcome"]),
        levels_gained=int(item["gained"]),
        tributes=tuple((int(a), int(b)) for a, b in item["tributes"]),
        anti_tribute=tuple(int(seat) for seat in item["anti"]),
    )
