"""A round: its pairings, byes (轮空) and how it is scheduled.

000-E plays round 1 at times the pairs choose before a deadline ("自由选择时间"),
and the later rounds at a fixed time and place ("集中在6楼会议室于26号进行") or
through the bot; the schedule says which, so the deadline's both-out rule applies
only where the seed puts it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import Enum, StrEnum

from engine.contest.deadlines import Deadline
from engine.contest.results import ContestMatch, MatchKind


class Stage(StrEnum):
    """A round's part of a multi-stage format, or the name a knockout gives it by the field
    left (:func:`engine.contest.standings.stage_of`); the values are the strings stored in
    ``contest_rounds.stage``."""

    NONE = ""  # a round known by its number
    PRELIM = "prelim"  # 精方 初赛 in table order
    QUALIFYING = "qualifying"  # 精方: the winners go through, the losers to the repechage
    REPECHAGE = "repechage"  # 精方 附加赛
    QUARTER = "quarter"  # 精方 复赛 (down to four)
    LAST8 = "last8"  # a knockout's quarter-final (5–8 pairs left)
    SEMI = "semi"
    FINAL = "final"
    A_V_B = "a_v_b"  # 002-E: time slot A against B
    MOVEMENT = "movement"  # 004-A's movement rounds
    THIRD_PLACE = "third_place"  # how far a pair got whose last match was the one for 3rd

    @classmethod
    def of_field(cls, field: int) -> Stage:
        """A knockout round named by the pairs left in it: the final (two), semi (3–4), last 8."""
        if field == 2:
            return cls.FINAL
        return cls.SEMI if field in (3, 4) else cls.LAST8 if 5 <= field <= 8 else cls.NONE


class ScheduleKind(Enum):
    SELF_SCHEDULED = "self_scheduled"  # pairs choose the time; a deadline; both out if missed
    FIXED = "fixed"  # one time and place for everyone
    BOT = "bot"  # played through the bot whenever the four are ready


@dataclass(frozen=True, slots=True)
class Schedule:
    kind: ScheduleKind
    deadline: Deadline | None = None  # SELF_SCHEDULED only
    starts_at: datetime | None = None  # FIXED
    venue: str = ""  # FIXED, e.g. "6楼会议室"

    def __post_init__(self) -> None:
        if (self.kind is ScheduleKind.SELF_SCHEDULED) != (self.deadline is not None):
            raise ValueError("a self-scheduled round needs a deadline, and only it has one")


@dataclass(frozen=True, slots=True)
class TableClock:
    """A physical table's clock in a timed format (docs/rules.md §4.9: 001-B 60 min, 004-A 40 min…), started
    by the organiser (/round start); ``minutes`` is the rules' ``time_limit_minutes`` then."""

    table: int
    started_at: datetime
    minutes: int

    @property
    def ends_at(self) -> datetime:
        return self.started_at + timedelta(minutes=self.minutes)


@dataclass(frozen=True, slots=True)
class Round:
    number: int
    schedule: Schedule
    matches: tuple[ContestMatch, ...]
    byes: tuple[int, ...] = ()  # group numbers carried into the next draw (or waiting, 精方)
    stage: Stage = Stage.NONE  # a multi-stage format's part (精方 repechage, semi…)
    clocks: tuple[TableClock, ...] = ()  # physical tables whose clock was started

    @property
    def is_complete(self) -> bool:
        """Every match has a result that stands (reported, confirmed or decided)."""
        return all(match.status.is_settled for match in self.matches)

    @property
    def main_matches(self) -> tuple[ContestMatch, ...]:
        return tuple(m for m in self.matches if m.kind is MatchKind.MAIN)

    @property
    def contenders(self) -> tuple[int, ...]:
        """The pairs drawn into this round's main matches or given a bye."""
        return tuple(sorted({n for m in self.main_matches for n in m.pairs} | set(self.byes)))

    def match_of(self, number: int) -> ContestMatch | None:
        return next((m for m in self.matches if m.has(number)), None)

    def by_code(self, code: str) -> ContestMatch | None:
        return next((m for m in self.matches if m.code == code), None)

    def clock_of(self, table: int) -> TableClock | None:
        return next((c for c in self.clocks if c.table == table), None)

    def with_match(self, match: ContestMatch) -> Round:
        matches = tuple(match if m.code == match.code else m for m in self.matches)
        return replace(self, matches=matches)
