"""Standings, final places with prize tiers, and the tables ``/contest export`` writes.

All derived from the contest's facts on demand (never stored), so a decision that
changes a result changes every table consistently. CSV tables are rows of plain
values (str, int, None) for ``csv.writer``: no Telegram, no files here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from engine.contest.contest import Contest, ContestPhase, PrizeTier
from engine.contest.entrants import Entry
from engine.contest.results import ContestMatch, MatchFact, MatchStatus, PlayMethod

Cell = str | int | None


class Mark(Enum):
    """A pair's standing in one round."""

    WON = "won"
    LOST = "lost"
    BYE = "bye"  # 轮空
    BOTH_OUT = "both_out"
    PENDING = "pending"  # playing, reported-but-disputed, or awaiting a report
    ABSENT = "-"  # not in this round (out earlier)


class PairStatus(Enum):
    ALIVE = "alive"
    OUT = "out"
    WITHDRAWN = "withdrawn"
    CHAMPION = "champion"


@dataclass(frozen=True, slots=True)
class StandingRow:
    number: int
    names: str
    by_lot: bool
    status: PairStatus
    marks: tuple[Mark, ...]  # one per round
    played: int
    won: int
    lost: int
    points_for: int
    points_against: int
    place: int | None  # once decided
    prize: str | None


@dataclass(frozen=True, slots=True)
class Placing:
    place: int
    number: int
    prize: str | None


@dataclass(frozen=True, slots=True)
class CsvTable:
    name: str  # file stem: entrants, matches, reports, standings
    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


def final_places(contest: Contest) -> tuple[Placing, ...]:
    """Places (ties share) and prizes, once the contest is decided; empty before."""
    if contest.phase not in (ContestPhase.DECIDED, ContestPhase.CLOSED):
        return ()
    numbers = [p.number for p in contest.pairs]
    places = contest.format.rank(contest.rank_input())
    ordered = sorted(numbers, key=lambda n: (places[n], n))
    prizes = _prizes(ordered, places, contest.prizes)
    return tuple(Placing(places[n], n, prizes.get(n)) for n in ordered)


def _prizes(ordered: list[int], places: Mapping[int, int], tiers: tuple[PrizeTier, ...]) -> dict[int, str]:
    """Tiers take pairs in place order; a tie that starts inside a tier gets it whole."""
    prizes: dict[int, str] = {}
    slots = [tier.name for tier in tiers for _ in range(tier.pairs)]
    for index, number in enumerate(ordered):
        first = next(i for i, n in enumerate(ordered) if places[n] == places[number])
        if first < len(slots):
            prizes[number] = slots[first] if index == first else prizes[ordered[first]]
    return prizes


def standings(contest: Contest) -> tuple[StandingRow, ...]:
    """One row per pair in group-number order."""
    placings = {p.number: p for p in final_places(contest)}
    return tuple(_row(contest, pair.number, placings.get(pair.number)) for pair in contest.pairs)


def _row(contest: Contest, number: int, placing: Placing | None) -> StandingRow:
    matches = [m for r in contest.rounds if (m := r.match_of(number)) is not None]
    played = [m for m in matches if _was_played(m)]
    totals = [_points(m, number) for m in played]
    pair = contest.pair(number)
    return StandingRow(
        number=number,
        names=pair.names,
        by_lot=pair.by_lot,
        status=_status(contest, number),
        marks=tuple(_mark(contest, r.number, number) for r in contest.rounds),
        played=len(played),
        won=sum(m.winner == number for m in played),
        lost=sum(m.winner not in (None, number) for m in played),
        points_for=sum(t[0] for t in totals),
        points_against=sum(t[1] for t in totals),
        place=placing.place if placing else None,
        prize=placing.prize if placing else None,
    )


def _was_played(match: ContestMatch) -> bool:
    result = match.result
    return (
        match.status.is_settled
        and result is not None
        and result.method not in (PlayMethod.BOTH_OUT, PlayMethod.WALKOVER)
    )


def _points(match: ContestMatch, number: int) -> tuple[int, int]:
    """(for, against) from the result's points, which follow ``match.pairs``."""
    result = match.result
    if result is None or result.points is None:
        return (0, 0)
    mine = match.pairs.index(number)
    return (result.points[mine], result.points[1 - mine])


def _mark(contest: Contest, round_number: int, number: int) -> Mark:
    played = contest.rounds[round_number - 1]
    if number in played.byes:
        return Mark.BYE
    match = played.match_of(number)
    if match is None:
        return Mark.ABSENT
    if not match.status.is_settled or match.status is MatchStatus.DISPUTED:
        return Mark.PENDING
    if match.winner is None:
        return Mark.BOTH_OUT
    return Mark.WON if match.winner == number else Mark.LOST


def _status(contest: Contest, number: int) -> PairStatus:
    if any(w.number == number for w in contest.withdrawals):
        return PairStatus.WITHDRAWN
    if number not in contest.alive:
        return PairStatus.OUT
    decided = contest.phase in (ContestPhase.DECIDED, ContestPhase.CLOSED)
    return PairStatus.CHAMPION if decided and contest.alive == (number,) else PairStatus.ALIVE


# ---------------------------------------------------------------- CSV export


def _when(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def entrants_table(contest: Contest) -> CsvTable:
    """Drawn pairs' players, or the sign-ups before the draw."""
    if not contest.pairs:
        header = ("group", "user_id", "name", "partner_id", "confirmed")
        return CsvTable("entrants", header, tuple(_entry_row(e) for e in contest.entries))
    rows = tuple(
        _player_row(p.number, pl.user_id, pl.name, p.by_lot) for p in contest.pairs for pl in p.players
    )
    return CsvTable("entrants", ("group", "user_id", "name", "by_lot"), rows)


def _entry_row(entry: Entry) -> tuple[Cell, ...]:
    partner = entry.partner.user_id if entry.partner else None
    return (None, entry.player.user_id, entry.player.name, partner, int(entry.confirmed))


def _player_row(number: int, user_id: int, name: str, by_lot: bool) -> tuple[Cell, ...]:
    return (number, user_id, name, int(by_lot))


_MATCH_HEADER = (
    "round", "table", "code", "kind", "pair_a", "pair_b", "status", "winner",
    "points_a", "points_b", "extra_deal", "method",
)  # fmt: skip


def matches_table(contest: Contest) -> CsvTable:
    """One row per match, and one per bye (kind ``bye``)."""
    rows: list[tuple[Cell, ...]] = []
    for played in contest.rounds:
        rows.extend(_match_row(m) for m in played.matches)
        rows.extend(_bye_row(played.number, n) for n in played.byes)
    return CsvTable("matches", _MATCH_HEADER, tuple(rows))


def _match_row(m: ContestMatch) -> tuple[Cell, ...]:
    r = m.result
    points: tuple[Cell, Cell] = r.points if r is not None and r.points is not None else (None, None)
    extra = int(r.extra_deal) if r else None
    method = r.method.value if r else None
    return (
        m.round,
        m.table,
        m.code,
        m.kind.value,
        *m.pairs,
        m.status.value,
        m.winner,
        *points,
        extra,
        method,
    )


def _bye_row(round_number: int, number: int) -> tuple[Cell, ...]:
    return (round_number, None, None, "bye", number, None, "bye", number, None, None, None, None)


def reports_table(contest: Contest) -> CsvTable:
    """Every fact of every match in order: reports, confirmations, disputes, decisions."""
    header = ("round", "code", "at", "kind", "by", "winner", "method", "reason", "text")
    rows = tuple(_fact_row(m, f) for r in contest.rounds for m in r.matches for f in m.facts)
    return CsvTable("reports", header, rows)


def _fact_row(m: ContestMatch, f: MatchFact) -> tuple[Cell, ...]:
    winner = f.result.winner if f.result else None
    method = f.result.method.value if f.result else None
    return (m.round, m.code, _when(f.at), f.kind.value, f.by, winner, method, f.reason, f.text)


def standings_table(contest: Contest) -> CsvTable:
    rounds = tuple(f"round_{r.number}" for r in contest.rounds)
    header = ("group", "names", "by_lot", "status", *rounds, "played", "won", "lost",
              "points_for", "points_against", "place", "prize")  # fmt: skip
    return CsvTable("standings", header, tuple(_standing_row(s) for s in standings(contest)))


def _standing_row(s: StandingRow) -> tuple[Cell, ...]:
    marks = tuple(m.value for m in s.marks)
    head: tuple[Cell, ...] = (s.number, s.names, int(s.by_lot), s.status.value)
    tail: tuple[Cell, ...] = (s.played, s.won, s.lost, s.points_for, s.points_against, s.place, s.prize)
    return (*head, *marks, *tail)


def export_tables(contest: Contest) -> tuple[CsvTable, ...]:
    """The four tables of ``/contest export``."""
    return (entrants_table(contest), matches_table(contest), reports_table(contest), standings_table(contest))
