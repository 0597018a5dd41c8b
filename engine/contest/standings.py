"""Standings per format family, final places with prize tiers, and the tables ``/contest export`` writes.

All derived from the contest's facts on demand (never stored), so a decision that
changes a result changes every table consistently. The figures are
:func:`engine.contest.scores.pair_scores` (the engine's own numbers, added up; no deal
is scored here), and the order is the format's own ``rank`` on the rounds so far —
while the contest runs too, marked provisional until it is decided.

Each :class:`~engine.contest.families.Family` has its columns (``Family.columns``):
plain knockouts the round reached and W/L per round (points where the matches have
them, 000-E), 001-A points and 3-point deals, 002-D 局分 and 级差, Swiss 积分 / 级差 /
对手分, movement the total and per-round scores. A column's value is its stable CSV
name. CSV tables are rows of plain values (str, int, None) for ``csv.writer``: no
Telegram, no files here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from fractions import Fraction

from engine.contest.entrants import Entry
from engine.contest.families import Column, Family
from engine.contest.results import ContestMatch, MatchFact, MatchKind, MatchStatus
from engine.contest.rounds import Round, Stage
from engine.contest.scores import PairScore, opponents_score, pair_scores, settled
from engine.contest.state import Contest, ContestPhase, PrizeTier
from engine.rules import MatchFormat

Cell = str | int | None


class Mark(Enum):
    """A pair's standing in one round."""

    WON = "won"
    LOST = "lost"
    BYE = "bye"  # 轮空
    BOTH_OUT = "both_out"
    NO_WINNER = "no_winner"  # played, nobody won (001-B's time-out with nobody past A)
    PENDING = "pending"  # playing, reported-but-disputed, or awaiting a report
    ABSENT = "-"  # not in this round (out earlier)


class PairStatus(Enum):
    ALIVE = "alive"
    OUT = "out"
    WITHDRAWN = "withdrawn"
    CHAMPION = "champion"


THIRD_PLACE_STAGE = Stage.THIRD_PLACE  # a pair whose last match was the match for 3rd
OWN_STAGES = frozenset(
    {Stage.PRELIM, Stage.QUALIFYING, Stage.REPECHAGE, Stage.QUARTER, Stage.SEMI, Stage.FINAL, Stage.A_V_B}
)


@dataclass(frozen=True, slots=True)
class Reached:
    """How far a pair got: its last round (0: none yet) and that round's stage (``stage_of``)."""

    round: int
    stage: Stage


Value = int | Fraction | Reached | tuple[Mark, ...] | tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class StandingRow:
    number: int
    names: str
    by_lot: bool
    status: PairStatus
    marks: tuple[Mark, ...]  # one per round
    score: PairScore  # pair_scores' totals (walkovers count as won or lost)
    opponents_score: int  # 对手分
    round_scores: tuple[int | None, ...]  # one per round; None: no settled match in it
    reached: Reached
    rank: int  # the format's rank on the rounds so far (provisional until decided)
    place: int | None  # once decided
    prize: str | None

    @property
    def played(self) -> int:
        return self.score.played

    @property
    def won(self) -> int:
        return self.score.won

    @property
    def lost(self) -> int:
        return self.score.lost

    @property
    def points_for(self) -> int:
        return self.score.points_for

    @property
    def points_against(self) -> int:
        return self.score.points_against

    def value(self, column: Column) -> Value:
        """This row's figure under ``column``."""
        values: dict[Column, Value] = {
            Column.REACHED: self.reached,
            Column.MARKS: self.marks,
            Column.POINTS_FOR: self.score.points_for,
            Column.POINTS_AGAINST: self.score.points_against,
            Column.THREES: self.score.threes,
            Column.MATCH_POINTS: self.score.match_points,
            Column.LEVEL_DIFFERENCE: self.score.level_difference,
            Column.OPPONENTS_SCORE: self.opponents_score,
            Column.TOTAL_SCORE: self.score.round_score,
            Column.ROUND_SCORES: self.round_scores,
            Column.WON: self.score.won,
            Column.LOST: self.score.lost,
        }
        return values[column]


@dataclass(frozen=True, slots=True)
class Standings:
    """A contest's standings: its family's columns, the rows in the format's order."""

    family: Family
    columns: tuple[Column, ...]
    rows: tuple[StandingRow, ...]
    rounds: int  # rounds drawn so far
    provisional: bool  # not decided yet: the order may still change
    complete: int = 0  # rounds with every match settled (the provisional order is "after" them)
    ranked: bool = True  # some result is in: before one, nobody has a rank (shown as none)


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


def is_decided(contest: Contest) -> bool:
    return contest.phase in (ContestPhase.DECIDED, ContestPhase.CLOSED)


def final_places(contest: Contest) -> tuple[Placing, ...]:
    """Places (ties share) and prizes, once the contest is decided; empty before."""
    if not is_decided(contest):
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


@dataclass(frozen=True, slots=True)
class PairRecord:
    """What one person took from a closed contest (战绩): the pair, its place, prize and matches."""

    number: int
    partner: str  # the other player's name as drawn
    place: int | None  # None: the contest closed before it was decided
    prize: str | None
    played: int  # settled matches the pair was in (byes and walkovers given included)
    won: int
    pairs: int  # the size of the field


def pair_record(contest: Contest, user_id: int) -> PairRecord | None:
    """The record of ``user_id``'s pair in ``contest``; None when they were in no drawn pair."""
    pair = next((p for p in contest.pairs if user_id in p.user_ids), None)
    if pair is None:
        return None
    partner = pair.players[1] if pair.players[0].user_id == user_id else pair.players[0]
    placing = next((p for p in final_places(contest) if p.number == pair.number), None)
    matches = (m for played in contest.rounds for m in played.matches)
    mine = [m for m in matches if pair.number in m.pairs and m.status.is_settled]
    return PairRecord(
        number=pair.number,
        partner=partner.name,
        place=placing.place if placing is not None else None,
        prize=placing.prize if placing is not None else None,
        played=len(mine),
        won=sum(1 for m in mine if m.winner == pair.number),
        pairs=len(contest.pairs),
    )


def standings(contest: Contest) -> tuple[StandingRow, ...]:
    """One row per pair in the format's order (live rank, then group number)."""
    return contest_standings(contest).rows


def contest_standings(contest: Contest) -> Standings:
    """The family's columns and every pair's row, ranked by the format on the rounds so far."""
    numbers = [p.number for p in contest.pairs]
    scores = pair_scores(numbers, contest.rounds, contest.settings.match_points)
    ranks = contest.format.rank(contest.rank_input()) if numbers else {}
    placings = {p.number: p for p in final_places(contest)}
    rows = [_row(contest, n, scores, ranks[n], placings.get(n)) for n in numbers]
    rows.sort(key=lambda r: (r.rank, r.number))
    family = contest.format.family
    complete = sum(1 for played in contest.rounds if played.is_complete)
    ranked = any(m.status.is_settled for r in contest.rounds for m in r.matches) or bool(contest.withdrawals)
    return Standings(
        family,
        family_columns(contest),
        tuple(rows),
        len(contest.rounds),
        not is_decided(contest),
        complete,
        ranked,
    )


def family_columns(contest: Contest) -> tuple[Column, ...]:
    """The format family's columns; a plain knockout shows points only where matches have them (000-E)."""
    columns = contest.format.family.columns
    if contest.format.family is Family.KNOCKOUT and not _has_points(contest):
        return tuple(c for c in columns if c not in (Column.POINTS_FOR, Column.POINTS_AGAINST))
    return columns


def _has_points(contest: Contest) -> bool:
    if contest.rules().match_format is MatchFormat.POINTS:
        return True
    return any(
        m.result is not None and m.result.points is not None for r in contest.rounds for m in r.matches
    )


def _row(
    contest: Contest, number: int, scores: Mapping[int, PairScore], rank: int, placing: Placing | None
) -> StandingRow:
    pair = contest.pair(number)
    return StandingRow(
        number=number,
        names=pair.names,
        by_lot=pair.by_lot,
        status=_status(contest, number),
        marks=tuple(_mark(contest, r.number, number) for r in contest.rounds),
        score=scores[number],
        opponents_score=opponents_score(scores, number),
        round_scores=tuple(_round_score(r, number) for r in contest.rounds),
        reached=_reached(contest, number),
        rank=rank,
        place=placing.place if placing else None,
        prize=placing.prize if placing else None,
    )


def _round_score(played: Round, number: int) -> int | None:
    """The pair's engine round score in ``played`` (001-B: 100 + 级差 …); None without a settled
    match (a bye, a pending or both-out match) or when only the winner is known."""
    match = played.match_of(number)
    if match is None or not settled(match) or match.result is None or match.result.figures is None:
        return None
    return match.result.figures.round_score[match.pairs.index(number)]


def _reached(contest: Contest, number: int) -> Reached:
    rounds = [r for r in contest.rounds if number in r.byes or r.match_of(number) is not None]
    if not rounds:
        return Reached(0, Stage.NONE)
    last = rounds[-1]
    match = last.match_of(number)
    if match is not None and match.kind is MatchKind.THIRD_PLACE:
        return Reached(last.number, THIRD_PLACE_STAGE)
    return Reached(last.number, stage_of(contest, last))


def stage_of(contest: Contest, played: Round) -> Stage:
    """A round's stage: its own (精方 ``prelim``, ``qualifying``, ``repechage``, ``quarter``,
    ``semi``, ``final``; 002-E ``a_v_b``), else for a knockout whose rounds are named by the
    field left: ``final`` (two pairs), ``semi`` (3–4), ``last8`` (5–8); else ``""`` (by number)."""
    if played.stage in OWN_STAGES:
        return played.stage
    fmt = contest.format
    if not fmt.family.is_knockout or not fmt.named_rounds:
        return Stage.NONE
    return Stage.of_field(len(played.contenders))


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
        return Mark.NO_WINNER if match.result is not None and match.result.no_winner else Mark.BOTH_OUT
    return Mark.WON if match.winner == number else Mark.LOST


def _status(contest: Contest, number: int) -> PairStatus:
    if any(w.number == number for w in contest.withdrawals):
        return PairStatus.WITHDRAWN
    if number not in contest.still_in:  # out as soon as its loss is in, not at the round's end
        return PairStatus.OUT
    decided = is_decided(contest)
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
    """The standings with the family's columns (``round_N`` marks, ``round_N_score``…), in rank order."""
    table = contest_standings(contest)
    header: list[str] = ["group", "names", "by_lot", "status", "rank"]
    for column in table.columns:
        header.extend(_csv_names(column, table.rounds))
    header.extend(("provisional", "place", "prize"))
    rows = tuple(_standing_row(table, row) for row in table.rows)
    return CsvTable("standings", tuple(header), rows)


def _csv_names(column: Column, rounds: int) -> tuple[str, ...]:
    if column is Column.MARKS:
        return tuple(f"round_{n}" for n in range(1, rounds + 1))
    if column is Column.ROUND_SCORES:
        return tuple(f"round_{n}_score" for n in range(1, rounds + 1))
    if column is Column.REACHED:
        return ("reached_round", "reached")
    return (column.value,)


def _standing_row(table: Standings, s: StandingRow) -> tuple[Cell, ...]:
    cells: list[Cell] = [s.number, s.names, int(s.by_lot), s.status.value, s.rank if table.ranked else None]
    for column in table.columns:
        cells.extend(_csv_cells(s, column))
    cells.extend((int(table.provisional), s.place, s.prize))
    return tuple(cells)


def _csv_cells(s: StandingRow, column: Column) -> tuple[Cell, ...]:
    if column is Column.MARKS:
        return tuple(m.value for m in s.marks)
    if column is Column.ROUND_SCORES:
        return s.round_scores
    if column is Column.REACHED:
        return (s.reached.round or None, s.reached.stage or None)
    value = s.value(column)
    assert isinstance(value, int | Fraction)
    return (csv_number(value),)


def csv_number(value: int | Fraction) -> Cell:
    """An integer as is; a ½ 级差 (forfeit_difference=half) as ``0.5``, which spreadsheets read."""
    if isinstance(value, Fraction) and value.denominator != 1:
        return str(float(value))
    return int(value)


def export_tables(contest: Contest) -> tuple[CsvTable, ...]:
    """The four tables of ``/contest export``."""
    return (entrants_table(contest), matches_table(contest), reports_table(contest), standings_table(contest))
