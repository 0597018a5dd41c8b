"""A contest as a value: its settings, pairs and rounds, the events its commands return, and the
guards every command checks first.

:mod:`engine.contest.contest` (sign-up, draw, rounds, closing) and :mod:`engine.contest.reporting`
(reports, confirmations, decisions) are the commands; both build their :class:`Step` from what is here,
and :mod:`engine.contest` re-exports all of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import NamedTuple

from engine.contest.codes import normalize_code
from engine.contest.deadlines import DEFAULT_ZONE, Deadline
from engine.contest.entrants import Entry, Pair
from engine.contest.errors import Refusal, ReportRefused, ResultRefused, WrongPhase
from engine.contest.formats import find_format
from engine.contest.lots import DrawSeed
from engine.contest.pairing import DEFAULT_POINTS, ContestFormat, MatchPoints, RankInput, ThirdPlace
from engine.contest.report import DEFAULT_EVENT
from engine.contest.results import ContestMatch, MatchFact
from engine.contest.rounds import Round, Stage, TableClock
from engine.rules import Rules


class ContestPhase(Enum):
    SIGN_UP = "sign_up"
    ROUND_IN_PLAY = "round_in_play"
    ROUND_COMPLETE = "round_complete"  # waiting for the organiser's next draw
    DECIDED = "decided"  # no more rounds; waiting for /contest close
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class PrizeTier:
    """奖项: ``pairs`` pairs, taken in order of place, get this prize (docs/rules.md §4.1)."""

    name: str
    pairs: int


DEFAULT_PRIZES = (PrizeTier("冠军", 1), PrizeTier("亚军", 1), PrizeTier("季军", 1))


@dataclass(frozen=True, slots=True)
class ContestSettings:
    format_name: str = "wechat-knockout"
    preset: str | None = None  # engine.rules preset; None: the format's match preset
    event_word: str = DEFAULT_EVENT  # 项目, the first word of a report line
    zone_name: str = DEFAULT_ZONE
    deadline: Deadline | None = None  # the first self-scheduled round's
    third_place: ThirdPlace = ThirdPlace.PLAYOFF
    prize_tiers: tuple[PrizeTier, ...] = DEFAULT_PRIZES  # the default: the format's own tiers
    rounds: int | None = None  # Swiss / movement: None → the format's fixed_rounds
    match_points: MatchPoints = DEFAULT_POINTS  # 积分 per win / loss / bye (Swiss)
    # docs/rules.md §4.7: lateness forfeits in a row that disqualify (001-B: 3, "連續遲到2次以上"; 002-E: 1).
    late_disqualify_after: int | None = None

    @property
    def match_preset(self) -> str:
        return self.preset or find_format(self.format_name).match_preset


class WithdrawReason(Enum):
    """Why a drawn pair left (docs/rules.md §4.7)."""

    WITHDREW = "withdrew"  # 弃权 by /withdraw
    LEAVE = "leave"  # 请假: asked for leave before the round (000-D "须在25号前请假")
    PARTNER_CHANGE = "partner_change"  # V32: a partner who cannot play is a forfeit of both
    LATE = "late"  # disqualified after repeated lateness forfeits (001-B, 002-E)


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """A drawn pair that withdrew (弃权) and is out of every later draw; ``reason`` says why."""

    number: int
    by: int
    at: datetime
    reason: WithdrawReason = WithdrawReason.WITHDREW


@dataclass(frozen=True, slots=True)
class Contest:
    name: str
    organiser_id: int
    seed: DrawSeed  # secret until the draw; see published_seed
    opened_at: datetime
    settings: ContestSettings = ContestSettings()
    entries: tuple[Entry, ...] = ()
    pairs: tuple[Pair, ...] = ()
    rounds: tuple[Round, ...] = ()
    withdrawals: tuple[Withdrawal, ...] = ()
    closed_at: datetime | None = None

    @property
    def format(self) -> ContestFormat:
        return find_format(self.settings.format_name)

    @property
    def phase(self) -> ContestPhase:
        if self.closed_at is not None:
            return ContestPhase.CLOSED
        if not self.rounds:
            return ContestPhase.SIGN_UP
        if not self.rounds[-1].is_complete:
            return ContestPhase.ROUND_IN_PLAY
        planned = self.planned_rounds
        if self.format.is_decided(self.alive, self.rounds) or (
            planned is not None and len(self.rounds) >= planned
        ):
            return ContestPhase.DECIDED
        return ContestPhase.ROUND_COMPLETE

    @property
    def planned_rounds(self) -> int | None:
        """Rounds of a fixed-length format (Swiss, movement); None for knockouts."""
        return self.settings.rounds or self.format.fixed_rounds

    @property
    def prizes(self) -> tuple[PrizeTier, ...]:
        """The organiser's prize tiers, or the format's seed tiers when none were set (docs/rules.md §4.1)."""
        if self.settings.prize_tiers != DEFAULT_PRIZES or not self.format.prizes:
            return self.settings.prize_tiers
        return tuple(PrizeTier(name, pairs) for name, pairs in self.format.prizes)

    @property
    def current_round(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def published_seed(self) -> str | None:
        """The seed in hex once the draw is done (before it, only the commitment)."""
        return self.seed.hex if self.pairs else None

    @property
    def alive(self) -> tuple[int, ...]:
        """Pairs still in: survivors of every complete round, less withdrawals."""
        alive = tuple(p.number for p in self.pairs)
        for played in self.rounds:
            if not played.is_complete:
                break
            alive = self.format.advance(alive, played)
        gone = {w.number for w in self.withdrawals}
        return tuple(n for n in alive if n not in gone)

    @property
    def still_in(self) -> tuple[int, ...]:
        """:attr:`alive`, less the pairs that a settled match of the round in play has already
        put out (a loser is out as soon as its result is in, not when the round completes)."""
        alive = self.alive
        current = next((r for r in self.rounds if not r.is_complete), None)
        if current is None:
            return alive
        through = set(self.format.advance(alive, current))

        def out_now(number: int) -> bool:
            match = current.match_of(number)
            return (match is not None and match.winner is not None) or _both_out_settled(match)

        return tuple(n for n in alive if n in through or not out_now(n))

    def pair(self, number: int) -> Pair:
        found = next((p for p in self.pairs if p.number == number), None)
        if found is None:
            raise ReportRefused(Refusal.UNKNOWN_GROUP, str(number))
        return found

    def pair_of_user(self, user_id: int) -> Pair | None:
        return next((p for p in self.pairs if user_id in p.user_ids), None)

    def match_by_code(self, code: str) -> ContestMatch:
        wanted = normalize_code(code)
        for played in self.rounds:
            if (found := played.by_code(wanted)) is not None:
                return found
        raise ResultRefused(Refusal.UNKNOWN_MATCH, code)

    def rules(self) -> Rules:
        return Rules.preset(self.settings.match_preset)

    def round_rules(self, number: int) -> Rules:
        """How round ``number``'s matches are played: the preset, changed by its stage (精方's
        best-of-three semi-final and final)."""
        stage = self.rounds[number - 1].stage if 0 < number <= len(self.rounds) else Stage.NONE
        return self.rules().replace(**self.format.stage_rules.get(stage, {}))

    def rank_input(self) -> RankInput:
        """The format's ranking input; pairs already out of the round in play rank as out."""
        return RankInput(
            tuple(p.number for p in self.pairs), self.rounds, self.still_in, self.settings.match_points
        )


def _both_out_settled(match: ContestMatch | None) -> bool:
    return match is not None and match.status.is_settled and match.result is not None and match.winner is None


# ---------------------------------------------------------------- events


class MatchNote(Enum):
    """What a new fact meant, for the announcement."""

    REPORTED = "reported"
    DUPLICATE = "duplicate"  # the same winner again: acknowledged, not re-posted
    CONTRADICTION = "contradiction"  # another winner: flag the organisers
    BOT_RESULT = "bot_result"
    CONFIRMED = "confirmed"
    DISPUTED = "disputed"
    DECIDED = "decided"
    WALKOVER = "walkover"
    BOTH_OUT = "both_out"


@dataclass(frozen=True, slots=True)
class SignedUp:
    entry: Entry


@dataclass(frozen=True, slots=True)
class PartnerConfirmed:
    entry: Entry


@dataclass(frozen=True, slots=True)
class PartnerDeclined:
    entry: Entry  # the inviter, now a single


@dataclass(frozen=True, slots=True)
class Withdrew:
    """A sign-up withdrawn before the draw; ``remaining`` is who stays, as a single."""

    user_id: int
    removed: Entry
    remaining: Entry | None


@dataclass(frozen=True, slots=True)
class PairWithdrew:
    withdrawal: Withdrawal


@dataclass(frozen=True, slots=True)
class PartnerChanged:
    pair: Pair


@dataclass(frozen=True, slots=True)
class Drawn:
    """Sign-up closed: the pairs with their numbers, and the seed to publish."""

    seed_hex: str
    pairs: tuple[Pair, ...]


@dataclass(frozen=True, slots=True)
class RoundDrawn:
    round: Round


@dataclass(frozen=True, slots=True)
class MatchUpdated:
    """A fact was appended to a match (storage appends ``fact``)."""

    match: ContestMatch  # after the fact
    fact: MatchFact
    note: MatchNote


@dataclass(frozen=True, slots=True)
class DeadlineMoved:
    round_number: int | None  # None: the settings' deadline, before the draw
    deadline: Deadline


@dataclass(frozen=True, slots=True)
class ClockStarted:
    """/round start: the clocks of these physical tables of the round started at ``at``."""

    round_number: int
    clocks: tuple[TableClock, ...]


@dataclass(frozen=True, slots=True)
class RoundCompleted:
    round_number: int
    alive: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ContestDecided:
    alive: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ContestClosed:
    at: datetime


Event = (
    SignedUp
    | PartnerConfirmed
    | PartnerDeclined
    | Withdrew
    | PairWithdrew
    | PartnerChanged
    | Drawn
    | RoundDrawn
    | MatchUpdated
    | DeadlineMoved
    | ClockStarted
    | RoundCompleted
    | ContestDecided
    | ContestClosed
)


class Step(NamedTuple):
    contest: Contest
    events: tuple[Event, ...]


# ---------------------------------------------------------------- guards


def round_of(contest: Contest, number: int) -> Round:
    return contest.rounds[number - 1]


def require_phase(contest: Contest, phase: ContestPhase, refusal: Refusal, *also: ContestPhase) -> None:
    if contest.phase is not phase and contest.phase not in also:
        raise WrongPhase(refusal, contest.phase.value)


def refuse_when_closed(contest: Contest) -> None:
    if contest.closed_at is not None:
        raise WrongPhase(Refusal.CLOSED)


_PHASE_REFUSALS = {
    ContestPhase.SIGN_UP: Refusal.NOT_DRAWN,
    ContestPhase.ROUND_IN_PLAY: Refusal.ROUND_IN_PLAY,
    ContestPhase.ROUND_COMPLETE: Refusal.ROUND_COMPLETE,
    ContestPhase.DECIDED: Refusal.CONTEST_DECIDED,
    ContestPhase.CLOSED: Refusal.CLOSED,
}


def phase_refusal(contest: Contest) -> Refusal:
    """Why a command that needs another phase is refused, named after the current one."""
    return _PHASE_REFUSALS[contest.phase]
