"""Contest matches and their results as an append-only history of facts.

Why facts and not a result field: a report counts at once (000-E), the opponents may
confirm or dispute it, the organiser may decide over both, and all of that must stay
visible afterwards. So a match keeps every :class:`MatchFact` in order and its
result and status are derived, like the engine's action log and replay:

* the last **decision** (organiser, walkover, both out at the deadline) wins;
* else the first **report** stands, **confirmed** or **disputed** by the opponents;
  a later report naming another winner is a contradiction and counts as a dispute;
  a later one naming the same winner is a duplicate, acknowledged and kept.
* a report from a bot table is authoritative (the engine scored it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum

from engine.contest.errors import Refusal, ResultRefused
from engine.figures import MatchFigures, match_figures
from engine.match import Match
from engine.rules import MatchFormat


class PlayMethod(Enum):
    """How a result came about."""

    BOT_TABLE = "bot_table"  # played through the bot; scored by the engine
    PHYSICAL = "physical"  # at a real table, reported by a player
    ORGANISER = "organiser"  # the organiser's decision (/result)
    WALKOVER = "walkover"  # 弃权: the opponents withdrew or did not come
    BOTH_OUT = "both_out"  # 000-E: not played or not reported by the deadline


class MatchKind(Enum):
    MAIN = "main"  # decides who goes on
    THIRD_PLACE = "third_place"  # the semi-final losers' match for 3rd


class FactKind(Enum):
    REPORT = "report"
    CONFIRM = "confirm"  # 确认
    DISPUTE = "dispute"  # 有异议
    DECISION = "decision"


class MatchStatus(Enum):
    PENDING = "pending"  # nothing reported yet
    REPORTED = "reported"  # counts at once; the opponents may still dispute
    CONFIRMED = "confirmed"
    DISPUTED = "disputed"  # waits for the organiser
    DECIDED = "decided"

    @property
    def is_settled(self) -> bool:
        """Whether the round can go on without this match changing."""
        return self in (MatchStatus.REPORTED, MatchStatus.CONFIRMED, MatchStatus.DECIDED)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A match's outcome; ``points`` follow the order of the match's ``pairs``."""

    winner: int | None  # group number; None: both pairs out, or a scored match nobody won
    method: PlayMethod
    points: tuple[int, int] | None = None  # e.g. (9, 5) in the 6-deal 3/2/1 match
    extra_deal: bool = False  # 加赛一局 after a tie
    # The engine's figures (级差, round score, 3-point deals…), indexed like ``pairs``
    # (index 0: the match's first pair), for scored formats; None: only the winner is known.
    figures: MatchFigures | None = None

    def __post_init__(self) -> None:
        if self.method is PlayMethod.BOTH_OUT and self.winner is not None:
            raise ResultRefused(Refusal.BAD_RESULT, "a both-out result has no winner")
        if self.winner is None and self.method is not PlayMethod.BOTH_OUT and not self.no_winner:
            raise ResultRefused(Refusal.BAD_RESULT, "no winner: both out, or figures naming nobody")
        if self.points is not None and min(self.points) < 0:
            raise ResultRefused(Refusal.BAD_RESULT, "negative points")

    @property
    def no_winner(self) -> bool:
        """A match played to its end that nobody won: 001-B's time-out with nobody past A
        (A17, ``time_winner=none``), where each pair still scores the levels it climbed.
        Known only from figures that name no winner; only formats that eliminate nobody
        accept it (:func:`engine.contest.contest.check_figures`)."""
        return (
            self.winner is None
            and self.method is not PlayMethod.BOTH_OUT
            and self.figures is not None
            and self.figures.winner is None
        )


@dataclass(frozen=True, slots=True)
class MatchFact:
    """One entry of a match's history; ``by`` is a user id (None: the bot itself)."""

    kind: FactKind
    at: datetime
    by: int | None
    result: MatchResult | None = None  # reports and decisions
    reason: str = ""  # decisions and disputes
    text: str = ""  # the report line as typed


@dataclass(frozen=True, slots=True)
class ContestMatch:
    """One pairing of a round: two group numbers at one table, with its history."""

    round: int
    table: int  # 1-based within the round ("抽相同号码的两对选手在同桌比赛")
    code: str  # for /newgame match=CODE
    pairs: tuple[int, int]
    kind: MatchKind = MatchKind.MAIN
    facts: tuple[MatchFact, ...] = ()

    def has(self, number: int) -> bool:
        return number in self.pairs

    def opponent(self, number: int) -> int:
        return self.pairs[1] if self.pairs[0] == number else self.pairs[0]

    @property
    def first_report(self) -> MatchFact | None:
        return next((f for f in self.facts if f.kind is FactKind.REPORT), None)

    @property
    def decision(self) -> MatchFact | None:
        return next((f for f in reversed(self.facts) if f.kind is FactKind.DECISION), None)

    @property
    def result(self) -> MatchResult | None:
        fact = self.decision or self.first_report
        return fact.result if fact is not None else None

    @property
    def status(self) -> MatchStatus:
        if self.decision is not None:
            return MatchStatus.DECIDED
        first = self.first_report
        if first is None:
            return MatchStatus.PENDING
        assert first.result is not None
        if first.result.method is PlayMethod.BOT_TABLE:
            return MatchStatus.CONFIRMED
        return _answered(self, first.result.winner)

    @property
    def winner(self) -> int | None:
        result = self.result
        return result.winner if result is not None and self.status.is_settled else None

    def with_fact(self, fact: MatchFact) -> ContestMatch:
        return ContestMatch(self.round, self.table, self.code, self.pairs, self.kind, (*self.facts, fact))


def _answered(match: ContestMatch, winner: int | None) -> MatchStatus:
    """A physical report's status after the opponents' answers and any later reports."""
    status = MatchStatus.REPORTED
    for fact in match.facts:
        if fact.kind is FactKind.DISPUTE:
            return MatchStatus.DISPUTED
        if fact.kind is FactKind.REPORT and fact.result is not None and fact.result.winner != winner:
            return MatchStatus.DISPUTED
        if fact.kind is FactKind.CONFIRM:
            status = MatchStatus.CONFIRMED
    return status


def result_from_match(match: Match, *, pairs: tuple[int, int], team0_pair: int) -> MatchResult:
    """The contest result of a finished bot table, read from the engine's own values.

    ``team0_pair`` is the group number seated as engine team 0 (seats 0 and 2).
    Points are the engine's points per team (points formats; None otherwise), and an
    extra deal means more deals than the preset's ``points_deals`` were played.
    """
    if not match.is_over:
        raise ResultRefused(Refusal.MATCH_NOT_OVER)
    if team0_pair not in pairs:
        raise ResultRefused(Refusal.BAD_RESULT, f"pair {team0_pair} is not in {pairs}")
    team_of_pair = {team0_pair: 0, (pairs[1] if pairs[0] == team0_pair else pairs[0]): 1}
    # None: the clock ended a 001-B match with nobody past A (a no-winner result, A17)
    winner = next((number for number, team in team_of_pair.items() if team == match.winner_team), None)
    is_points = match.rules.match_format is MatchFormat.POINTS
    points = tuple(match.standing.points[team_of_pair[number]] for number in pairs) if is_points else None
    extra = is_points and len(match.deal_results) > match.rules.points_deals
    return MatchResult(
        winner=winner,
        method=PlayMethod.BOT_TABLE,
        points=(points[0], points[1]) if points is not None else None,
        extra_deal=extra,
        figures=oriented(match_figures(match), swap=team_of_pair[pairs[0]] == 1),
    )


def oriented(figures: MatchFigures, *, swap: bool) -> MatchFigures:
    """``figures`` per engine team re-indexed per the match's pairs (``swap``: pairs[0] sat as team 1)."""
    if not swap:
        return figures

    def flip(values: tuple[int, int]) -> tuple[int, int]:
        return (values[1], values[0])

    return replace(
        figures,
        winner=None if figures.winner is None else 1 - figures.winner,
        points=flip(figures.points),
        three_point_deals=flip(figures.three_point_deals),
        levels=(figures.levels[1], figures.levels[0]),
        steps=flip(figures.steps),
        round_score=flip(figures.round_score),
        games_won=flip(figures.games_won),
    )
