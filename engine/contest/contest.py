"""The contest state machine: sign-up → draw → rounds in play → decided → closed.

A :class:`Contest` is an immutable value. Every command is a function that takes
the contest, the actor and ``now`` (an aware datetime: time is passed in, never
read) and returns a :class:`Step` — the new contest and the events that say what
happened — or raises a :class:`~engine.contest.errors.ContestError` whose ``code``
the handler turns into a localized message. Storage persists the events
(:mod:`storage.contests`), so a handler's shape is: load, call, record, announce.

The phase is derived from the data rather than stored, so it can never disagree
with the rounds: no pairs yet → sign-up; an unsettled match in the last round →
round in play; the format says no more rounds → decided; ``closed_at`` → closed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum
from typing import NamedTuple

from engine.actions import EndReason
from engine.contest.codes import match_code, normalize_code
from engine.contest.deadlines import DEFAULT_ZONE, Deadline, aware
from engine.contest.entrants import (
    Entry,
    Pair,
    Player,
    add_entry,
    as_single,
    confirmed,
    draw_pairs,
    entry_of,
    find_invitation,
    is_placeholder,
    remaining_after_withdrawal,
    taking_place,
)
from engine.contest.errors import (
    Refusal,
    ReportRefused,
    ResultRefused,
    ScheduleRefused,
    SignupRefused,
    WrongPhase,
)
from engine.contest.formats import find_format
from engine.contest.lots import DrawSeed
from engine.contest.pairing import (
    DEFAULT_POINTS,
    ContestFormat,
    MatchPoints,
    RankInput,
    RoundDraw,
    RoundInput,
    ThirdPlace,
)
from engine.contest.report import DEFAULT_EVENT, parse_report
from engine.contest.results import (
    ContestMatch,
    FactKind,
    MatchFact,
    MatchResult,
    MatchStatus,
    PlayMethod,
)
from engine.contest.rounds import Round, Schedule, ScheduleKind, Stage, TableClock
from engine.figures import ContestEnd, FiguresReason, MatchFigures, forfeit_figures
from engine.rules import MatchFormat, Rules, TimeWinner
from engine.scoring import Standing, points_verdict


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


# ---------------------------------------------------------------- opening and sign-up


def open_contest(
    *, name: str, organiser_id: int, seed: DrawSeed, now: datetime, settings: ContestSettings | None = None
) -> Contest:
    """A new contest in sign-up; publish ``seed.commitment`` with its card."""
    settings = settings or ContestSettings()
    find_format(settings.format_name)
    Rules.preset(settings.match_preset)
    return Contest(name, organiser_id, seed, aware(now), settings)


def sign_up(contest: Contest, player: Player, partner: Player | None = None, *, tag: str = "") -> Step:
    """/signup alone (a single, paired by lot) or with a partner to confirm; ``tag`` is the
    unit (000-S) or time slot (002-E) where the format uses one."""
    _require(contest, ContestPhase.SIGN_UP, Refusal.SIGNUP_CLOSED)
    entry = add_entry(contest.entries, player, partner, tag)
    return Step(replace(contest, entries=(*contest.entries, entry)), (SignedUp(entry),))


def confirm_partner(
    contest: Contest, user_id: int, *, player: Player | None = None, username: str | None = None
) -> Step:
    """The invited partner accepts. An invitation by ``@username`` to someone the bot had not
    seen names a stand-in (:func:`~engine.contest.entrants.username_placeholder`): the
    ``player`` pressing 接受 with that ``username`` takes its place."""
    _require(contest, ContestPhase.SIGN_UP, Refusal.SIGNUP_CLOSED)
    invitation = find_invitation(contest.entries, user_id, username)
    entry = confirmed(invitation)
    if player is not None:
        entry = confirmed(taking_place(contest.entries, invitation, player))
    elif invitation.partner is not None and is_placeholder(invitation.partner):
        raise SignupRefused(Refusal.NO_INVITATION, str(user_id))
    return Step(_swap_entry(contest, invitation, entry), (PartnerConfirmed(entry),))


def decline_partner(contest: Contest, user_id: int, *, username: str | None = None) -> Step:
    """The invited partner says no; the inviter stays signed up as a single."""
    _require(contest, ContestPhase.SIGN_UP, Refusal.SIGNUP_CLOSED)
    invitation = find_invitation(contest.entries, user_id, username)
    entry = as_single(invitation)
    return Step(_swap_entry(contest, invitation, entry), (PartnerDeclined(entry),))


def withdraw(
    contest: Contest, user_id: int, *, now: datetime, reason: WithdrawReason = WithdrawReason.WITHDREW
) -> Step:
    """/withdraw: before the draw a sign-up is removed; after it the pair forfeits (弃权),
    its pending match a walkover. A leave request (请假) and a partner who cannot play
    (V32) are the same step with their ``reason``."""
    if contest.phase is ContestPhase.SIGN_UP:
        return _withdraw_entry(contest, user_id)
    return _withdraw_pair(contest, user_id, aware(now), reason)


def _withdraw_entry(contest: Contest, user_id: int) -> Step:
    entry = entry_of(contest.entries, user_id)
    if entry is None:
        raise SignupRefused(Refusal.NOT_SIGNED_UP, str(user_id))
    remaining = remaining_after_withdrawal(entry, user_id)
    entries = tuple(e for e in (remaining if e is entry else e for e in contest.entries) if e is not None)
    return Step(replace(contest, entries=entries), (Withdrew(user_id, entry, remaining),))


def _withdraw_pair(contest: Contest, user_id: int, now: datetime, reason: WithdrawReason) -> Step:
    _refuse_when_closed(contest)
    pair = contest.pair_of_user(user_id)
    if pair is None or pair.number not in contest.alive:
        raise SignupRefused(Refusal.NOT_SIGNED_UP, str(user_id))
    current = contest.current_round
    match = current.match_of(pair.number) if current is not None else None
    if reason is WithdrawReason.LEAVE and match is not None and contest.phase is ContestPhase.ROUND_IN_PLAY:
        _check_leave(contest, match)
    withdrawal = Withdrawal(pair.number, user_id, now, reason)
    contest = replace(contest, withdrawals=(*contest.withdrawals, withdrawal))
    events: list[Event] = [PairWithdrew(withdrawal)]
    if match is not None and match.status is MatchStatus.PENDING:
        result = walkover_result(contest, match, match.opponent(pair.number))
        fact = MatchFact(FactKind.DECISION, now, user_id, result, reason="withdrawal")
        contest, more = _append(contest, match, fact, MatchNote.WALKOVER)
        events.extend(more)
    return Step(contest, tuple(events))


def _check_leave(contest: Contest, match: ContestMatch) -> None:
    """请假 is asked before the match (000-D "须在25号前请假"): not once it has a result or its
    table's clock runs."""
    current = contest.current_round
    started = current is not None and current.clock_of(match.table) is not None
    if match.status is not MatchStatus.PENDING or started:
        raise SignupRefused(Refusal.LEAVE_TOO_LATE, match.code)


def walkover_result(contest: Contest, match: ContestMatch, winner: int) -> MatchResult:
    """弃权: "如遇对手弃权，直接晋级" (000-A); in scored formats worth 局分 2 and 级差 12
    (A18, or ½ under ``forfeit_difference=half``), from :func:`engine.figures.forfeit_figures`."""
    figures = forfeit_figures(contest.round_rules(match.round), winner=match.pairs.index(winner))
    return MatchResult(winner, PlayMethod.WALKOVER, figures=figures)


def change_partner(contest: Contest, user_id: int, new_partner: Player) -> Step:
    """After the draw a partner change is a forfeit (V32) unless the preset allows it."""
    if contest.phase is ContestPhase.SIGN_UP:
        raise SignupRefused(Refusal.NOT_DRAWN, "withdraw and sign up again instead")
    if not contest.rules().partner_change:
        raise SignupRefused(Refusal.PARTNER_CHANGE)
    pair = contest.pair_of_user(user_id)
    if pair is None:
        raise SignupRefused(Refusal.NOT_SIGNED_UP, str(user_id))
    if contest.pair_of_user(new_partner.user_id) is not None:
        raise SignupRefused(Refusal.PARTNER_TAKEN, str(new_partner.user_id))
    keep = pair.players[0] if pair.players[0].user_id == user_id else pair.players[1]
    changed = replace(pair, players=(keep, new_partner))
    pairs = tuple(changed if p.number == pair.number else p for p in contest.pairs)
    return Step(replace(contest, pairs=pairs), (PartnerChanged(changed),))


def _swap_entry(contest: Contest, old: Entry, new: Entry) -> Contest:
    return replace(contest, entries=tuple(new if e is old else e for e in contest.entries))


# ---------------------------------------------------------------- draws


def draw(contest: Contest, *, now: datetime, schedule: Schedule | None = None) -> Step:
    """/draw: close sign-up, pair singles by lot, number the pairs, draw round 1.

    Round 1's schedule defaults to the format's: self-scheduled before the settings'
    deadline (which must then be set), else played through the bot.
    """
    _require(contest, ContestPhase.SIGN_UP, Refusal.SIGNUP_CLOSED)
    aware(now)
    pairs = draw_pairs(contest.entries, contest.seed)
    contest.format.check_field(len(pairs))
    contest = replace(contest, pairs=pairs)
    first = _new_round(contest, 1, schedule or _default_schedule(contest, 1))
    contest = replace(contest, rounds=(first,))
    return Step(contest, (Drawn(contest.seed.hex, pairs), RoundDrawn(first)))


def draw_next_round(contest: Contest, *, now: datetime, schedule: Schedule | None = None) -> Step:
    """/round next: redraw the survivors (the format's pairing) once the round is complete."""
    _require(contest, ContestPhase.ROUND_COMPLETE, _phase_refusal(contest))
    aware(now)
    number = len(contest.rounds) + 1
    played = _new_round(contest, number, schedule or _default_schedule(contest, number))
    contest = replace(contest, rounds=(*contest.rounds, played))
    return Step(contest, (RoundDrawn(played),))


def _default_schedule(contest: Contest, number: int) -> Schedule:
    if number not in contest.format.self_scheduled_rounds:
        return Schedule(ScheduleKind.BOT)
    if contest.settings.deadline is None:
        raise ScheduleRefused(Refusal.BAD_DEADLINE, f"round {number} needs a deadline")
    return Schedule(ScheduleKind.SELF_SCHEDULED, deadline=contest.settings.deadline)


def _new_round(contest: Contest, number: int, schedule: Schedule) -> Round:
    view = RoundInput(
        number=number,
        contenders=contest.alive,
        previous=contest.rounds,
        lots=contest.seed.lots(f"round:{number}"),
        third_place=contest.settings.third_place,
        seed=contest.seed,
        pairs=tuple(p.number for p in contest.pairs),
        tags={p.number: p.tag for p in contest.pairs},
        points=contest.settings.match_points,
    )
    return _numbered(contest, number, schedule, contest.format.pair_round(view))


def _numbered(contest: Contest, number: int, schedule: Schedule, drawn: RoundDraw) -> Round:
    matches = tuple(
        ContestMatch(number, table, match_code(contest.seed.secret, number, table), p.pairs, p.kind)
        for table, p in enumerate(drawn.pairings, start=1)
    )
    return Round(number, schedule, matches, drawn.byes, drawn.stage)


# ---------------------------------------------------------------- table clocks


def start_clock(contest: Contest, *, now: datetime, table: int | None = None) -> Step:
    """/round start [TABLE]: a timed round's clock starts at once at every physical table
    whose match has no result yet (or at one late table). Its length is the round's rules'
    ``time_limit_minutes``; a table's clock starts once. A round played through the bot has
    the bot's own clocks, and untimed rules have none."""
    _require(contest, ContestPhase.ROUND_IN_PLAY, _phase_refusal(contest))
    current = contest.current_round
    assert current is not None
    if current.schedule.kind is ScheduleKind.BOT:
        raise ScheduleRefused(Refusal.NOT_PHYSICAL, f"round {current.number}")
    minutes = contest.round_rules(current.number).time_limit_minutes
    if minutes is None:
        raise ScheduleRefused(Refusal.NOT_TIMED, contest.settings.match_preset)
    if table is not None:
        match = next((m for m in current.matches if m.table == table), None)
        if match is None:
            raise ScheduleRefused(Refusal.UNKNOWN_TABLE, str(table))
        if current.clock_of(table) is not None:
            raise ScheduleRefused(Refusal.CLOCK_STARTED, str(table))
        if match.status is not MatchStatus.PENDING:
            raise ResultRefused(Refusal.ALREADY_DECIDED, match.code)
        tables: tuple[int, ...] = (table,)
    else:
        tables = tuple(
            m.table
            for m in current.matches
            if m.status is MatchStatus.PENDING and current.clock_of(m.table) is None
        )
        if not tables:
            raise ScheduleRefused(Refusal.CLOCK_STARTED, f"round {current.number}")
    clocks = tuple(TableClock(t, aware(now), minutes) for t in tables)
    started = replace(current, clocks=(*current.clocks, *clocks))
    contest = replace(contest, rounds=(*contest.rounds[:-1], started))
    return Step(contest, (ClockStarted(current.number, clocks),))


def running_clocks(contest: Contest) -> tuple[tuple[TableClock, ContestMatch], ...]:
    """The current round's started clocks whose match has no result yet (what is announced at
    10 minutes left and at the end)."""
    current = contest.current_round
    if current is None or contest.phase is not ContestPhase.ROUND_IN_PLAY:
        return ()
    found = ((clock, next(m for m in current.matches if m.table == clock.table)) for clock in current.clocks)
    return tuple((clock, match) for clock, match in found if match.status is MatchStatus.PENDING)


# ---------------------------------------------------------------- reports and results


def report_text(contest: Contest, *, reporter: int, text: str, now: datetime) -> Step:
    """``掼蛋3组`` typed in the group, or ``/report 掼蛋三组``: pair 3 won its match."""
    number = parse_report(text, contest.settings.event_word)
    return report(contest, reporter=reporter, winner=number, now=now, text=text)


def report(
    contest: Contest,
    *,
    reporter: int,
    winner: int | None,
    now: datetime,
    text: str = "",
    points: tuple[int, int] | None = None,
    extra_deal: bool = False,
    figures: MatchFigures | None = None,
    code: str | None = None,
) -> Step:
    """A player's report of a physical match: counts at once; the opponents may dispute.
    ``figures`` (indexed like the match's pairs, e.g. from the table's score sheet) carry
    the 级差 and round score that scored formats rank by. A match nobody won (``winner``
    None, figures naming nobody) is found by its ``code``."""
    match = _reportable_match(contest, winner, now, code)
    if reporter not in _players(contest, match):
        raise ReportRefused(Refusal.NOT_A_PLAYER, str(reporter))
    result = MatchResult(winner, PlayMethod.PHYSICAL, points, extra_deal, figures)
    _check_result(contest, match, result)
    check_figures(contest, match, result)
    fact = MatchFact(FactKind.REPORT, now, reporter, result, text=text)
    return Step(*_append(contest, match, fact, _report_note(match, winner)))


def record_bot_result(contest: Contest, *, code: str, result: MatchResult, now: datetime) -> Step:
    """A bot table's end (see :func:`~engine.contest.results.result_from_match`)."""
    match = _open_match(contest, code)
    _check_on_time(contest, match, now)
    _check_result(contest, match, result)
    fact = MatchFact(FactKind.REPORT, aware(now), None, result)
    return Step(*_append(contest, match, fact, _report_note(match, result.winner, MatchNote.BOT_RESULT)))


def confirm(contest: Contest, *, code: str, by: int, now: datetime) -> Step:
    """确认: a player of the pair that did not report agrees."""
    match = _answerable(contest, code, by)
    fact = MatchFact(FactKind.CONFIRM, aware(now), by)
    return Step(*_append(contest, match, fact, MatchNote.CONFIRMED))


def dispute(contest: Contest, *, code: str, by: int, now: datetime, reason: str = "") -> Step:
    """有异议: the organisers must decide (``decide``)."""
    match = _answerable(contest, code, by)
    fact = MatchFact(FactKind.DISPUTE, aware(now), by, reason=reason)
    return Step(*_append(contest, match, fact, MatchNote.DISPUTED))


def decide(contest: Contest, *, code: str, result: MatchResult, by: int, reason: str, now: datetime) -> Step:
    """/result: the organiser's decision, over any report; the reason is kept."""
    match = _open_match(contest, code)
    if not reason.strip():
        raise ResultRefused(Refusal.REASON_REQUIRED)
    _check_result(contest, match, result)
    check_figures(contest, match, result)
    fact = MatchFact(FactKind.DECISION, aware(now), by, result, reason=reason.strip())
    return Step(*_append(contest, match, fact, MatchNote.DECIDED))


LATE_REASON = "late:"  # a lateness forfeit's decision reason: "late:12" (minutes)


def record_lateness(
    contest: Contest, *, code: str, late_pair: int, minutes: int, by: int, now: datetime
) -> Step:
    """docs/rules.md §4.7 (V33): pair ``late_pair`` came ``minutes`` late to match ``code``.

    At or past the rules' ``late_forfeit_minutes`` (0: any lateness, 000-A) the match is
    a walkover for the opponents; below it nothing happens (no events). The settings'
    ``late_disqualify_after``-th such forfeit in a row also disqualifies the pair (001-B:
    "連續遲到2次以上" → 3; 002-E: 1), like a withdrawal.
    """
    match = _open_match(contest, code)
    if not match.has(late_pair):
        raise ResultRefused(Refusal.BAD_RESULT, f"{late_pair} is not in {match.pairs}")
    threshold = contest.round_rules(match.round).late_forfeit_minutes
    if threshold is None:
        raise ResultRefused(Refusal.NO_LATE_FORFEIT)
    if minutes < max(threshold, 1):
        return Step(contest, ())
    result = walkover_result(contest, match, match.opponent(late_pair))
    fact = MatchFact(FactKind.DECISION, aware(now), by, result, reason=f"{LATE_REASON}{minutes}")
    contest, events = _append(contest, match, fact, MatchNote.WALKOVER)
    limit = contest.settings.late_disqualify_after
    if limit is None or late_forfeits_in_a_row(contest, late_pair) < limit:
        return Step(contest, events)
    withdrawal = Withdrawal(late_pair, by, aware(now), WithdrawReason.LATE)
    return Step(
        replace(contest, withdrawals=(*contest.withdrawals, withdrawal)), (*events, PairWithdrew(withdrawal))
    )


def late_forfeits_in_a_row(contest: Contest, number: int) -> int:
    """How many of the pair's last matches in a row it lost by lateness."""
    count = 0
    for played in reversed(contest.rounds):
        match = played.match_of(number)
        if match is None:
            continue
        decision = match.decision
        if decision is None or not decision.reason.startswith(LATE_REASON) or match.winner == number:
            break
        count += 1
    return count


# A complete round's reports can still be repeated or contradicted until the next draw.
_AFTER_ROUND = (ContestPhase.ROUND_COMPLETE, ContestPhase.DECIDED)


def _reportable_match(contest: Contest, winner: int | None, now: datetime, code: str | None) -> ContestMatch:
    _require(contest, ContestPhase.ROUND_IN_PLAY, _phase_refusal(contest), *_AFTER_ROUND)
    current = contest.current_round
    if code is not None:
        match: ContestMatch | None = contest.match_by_code(code)
        if current is None or match is None or match.round != current.number:
            raise ResultRefused(Refusal.ROUND_CLOSED, code)
        if winner is not None and not match.has(winner):
            raise ResultRefused(Refusal.BAD_RESULT, f"{winner} is not in {match.pairs}")
    elif winner is None:
        raise ReportRefused(Refusal.NOT_IN_ROUND, "no winner and no match code")
    else:
        contest.pair(winner)
        match = current.match_of(winner) if current is not None else None
    if match is None:
        raise ReportRefused(Refusal.NOT_IN_ROUND, str(winner))
    if match.status is MatchStatus.DECIDED:
        raise ResultRefused(Refusal.ALREADY_DECIDED, match.code)
    _check_on_time(contest, match, now)
    return match


def _open_match(contest: Contest, code: str) -> ContestMatch:
    """A match of the current round, which results may still change."""
    _refuse_when_closed(contest)
    match = contest.match_by_code(code)
    current = contest.current_round
    if current is None or match.round != current.number:
        raise ResultRefused(Refusal.ROUND_CLOSED, code)
    return match


def _answerable(contest: Contest, code: str, by: int) -> ContestMatch:
    match = _open_match(contest, code)
    first = match.first_report
    if match.status is MatchStatus.DECIDED or (first is not None and first.by is None):
        raise ResultRefused(Refusal.ALREADY_DECIDED, code)
    if first is None:
        raise ResultRefused(Refusal.NOTHING_REPORTED, code)
    own = contest.pair_of_user(by)
    reporting = contest.pair_of_user(first.by) if first.by is not None else None
    if own is None or not match.has(own.number):
        raise ResultRefused(Refusal.NOT_A_PLAYER, str(by))
    if reporting is not None and own.number == reporting.number:
        raise ResultRefused(Refusal.NOT_OPPONENT, str(by))
    return match


def _check_on_time(contest: Contest, match: ContestMatch, now: datetime) -> None:
    deadline = _round(contest, match.round).schedule.deadline
    if deadline is not None and not deadline.is_on_time(now):
        raise ResultRefused(Refusal.LATE, str(deadline))


def _check_result(contest: Contest, match: ContestMatch, result: MatchResult) -> None:
    if result.winner is not None and not match.has(result.winner):
        raise ResultRefused(Refusal.BAD_RESULT, f"{result.winner} is not in {match.pairs}")
    if result.no_winner and contest.format.needs_winner:
        raise ResultRefused(Refusal.BAD_RESULT, "a knockout match needs a winner")


_ON_TIME_REASONS: frozenset[FiguresReason] = frozenset({EndReason.TIME, ContestEnd.REPORTED})
"""Figures of a winner the clock named (a bot table's ``time``; a recorder's levels with ``time``)."""


def check_figures(contest: Contest, match: ContestMatch, result: MatchResult) -> None:
    """A result's figures must name its winner (who, under 001-B's ``time_winner=none``, can
    only have passed A), and in a points match (001-A, 000-E) the engine's verdict on the
    points must agree: equal points go to the pair with more
    3-point deals (001-A "以積3分次數多的一方獲勝"), a full tie needs the extra deal."""
    figures = result.figures
    rules = contest.round_rules(match.round)
    if result.no_winner and rules.time_winner is not TimeWinner.NONE:
        raise ResultRefused(Refusal.BAD_RESULT, "under these rules a timed match always has a winner")
    if figures is None or result.winner is None:
        return
    index = match.pairs.index(result.winner)
    if figures.winner != index:
        raise ResultRefused(Refusal.BAD_RESULT, "the figures name the other pair")
    if rules.time_winner is TimeWinner.NONE and figures.reason in _ON_TIME_REASONS:
        raise ResultRefused(Refusal.BAD_RESULT, "only passing A wins here: the clock leaves no winner")
    if rules.match_format is not MatchFormat.POINTS or figures.points == (0, 0):
        return  # no points on the sheet (every deal of a points match scores at least 1)
    standing = Standing(points=figures.points, threes=figures.three_point_deals)
    verdict = points_verdict(standing, rules.points_deals, None, rules, time_up=True)
    if verdict is not None and verdict.winner is not None and verdict.winner != index:
        raise ResultRefused(Refusal.BAD_RESULT, f"{figures.points} and 3s {figures.three_point_deals}")
    if verdict is not None and verdict.sudden_death and not result.extra_deal:
        raise ResultRefused(Refusal.BAD_RESULT, "a tie is decided by the extra deal")


def _report_note(match: ContestMatch, winner: int | None, first: MatchNote = MatchNote.REPORTED) -> MatchNote:
    current = match.result
    if match.first_report is None or current is None:
        return first
    return MatchNote.DUPLICATE if current.winner == winner else MatchNote.CONTRADICTION


def _players(contest: Contest, match: ContestMatch) -> set[int]:
    return {uid for number in match.pairs for uid in contest.pair(number).user_ids}


def _append(contest: Contest, match: ContestMatch, fact: MatchFact, note: MatchNote) -> Step:
    """Add a fact to a match of the current round; note a completed round or contest."""
    updated = match.with_fact(fact)
    rounds = tuple(r.with_match(updated) if r.number == match.round else r for r in contest.rounds)
    after = replace(contest, rounds=rounds)
    events: list[Event] = [MatchUpdated(updated, fact, note)]
    if not _round(contest, match.round).is_complete and _round(after, match.round).is_complete:
        events.append(RoundCompleted(match.round, after.alive))
        if after.phase is ContestPhase.DECIDED:
            events.append(ContestDecided(after.alive))
    return Step(after, tuple(events))


# ---------------------------------------------------------------- deadlines and closing


def move_deadline(contest: Contest, deadline: Deadline) -> Step:
    """/contest deadline: the settings' before the draw, the current round's after it."""
    _refuse_when_closed(contest)
    current = contest.current_round
    if current is None:
        settings = replace(contest.settings, deadline=deadline)
        return Step(replace(contest, settings=settings), (DeadlineMoved(None, deadline),))
    if current.schedule.deadline is None:
        raise ScheduleRefused(Refusal.NOT_SELF_SCHEDULED, f"round {current.number}")
    moved = replace(current, schedule=replace(current.schedule, deadline=deadline))
    contest = replace(contest, rounds=(*contest.rounds[:-1], moved))
    return Step(contest, (DeadlineMoved(current.number, deadline),))


def close_round(contest: Contest, *, now: datetime) -> Step:
    """The deadline's consequence (000-E), at the deadline or earlier by /round close:
    every match of the self-scheduled round with nothing reported → both pairs out.
    Disputed matches stay open for the organiser's decision."""
    _refuse_when_closed(contest)
    current = contest.current_round
    if current is None:
        raise WrongPhase(Refusal.NOT_DRAWN)
    if current.schedule.kind is not ScheduleKind.SELF_SCHEDULED:
        raise ScheduleRefused(Refusal.NOT_SELF_SCHEDULED, f"round {current.number}")
    events: list[Event] = []
    for match in current.matches:
        if match.status is MatchStatus.PENDING:
            result = MatchResult(None, PlayMethod.BOTH_OUT)
            fact = MatchFact(FactKind.DECISION, aware(now), None, result, reason="deadline")
            contest, more = _append(contest, match, fact, MatchNote.BOTH_OUT)
            events.extend(more)
    return Step(contest, tuple(events))


def close_contest(contest: Contest, *, now: datetime) -> Step:
    """/contest close: final places and prizes are fixed (see :mod:`engine.contest.standings`)."""
    _require(contest, ContestPhase.DECIDED, _phase_refusal(contest))
    return Step(replace(contest, closed_at=aware(now)), (ContestClosed(now),))


def unreported(contest: Contest) -> tuple[ContestMatch, ...]:
    """Matches of the current round with nothing reported: whom to remind (48 h, 24 h)."""
    current = contest.current_round
    if current is None or contest.closed_at is not None:
        return ()
    return tuple(m for m in current.matches if m.status is MatchStatus.PENDING)


# ---------------------------------------------------------------- guards


def _round(contest: Contest, number: int) -> Round:
    return contest.rounds[number - 1]


def _require(contest: Contest, phase: ContestPhase, refusal: Refusal, *also: ContestPhase) -> None:
    if contest.phase is not phase and contest.phase not in also:
        raise WrongPhase(refusal, contest.phase.value)


def _refuse_when_closed(contest: Contest) -> None:
    if contest.closed_at is not None:
        raise WrongPhase(Refusal.CLOSED)


_PHASE_REFUSALS = {
    ContestPhase.SIGN_UP: Refusal.NOT_DRAWN,
    ContestPhase.ROUND_IN_PLAY: Refusal.ROUND_IN_PLAY,
    ContestPhase.ROUND_COMPLETE: Refusal.ROUND_COMPLETE,
    ContestPhase.DECIDED: Refusal.CONTEST_DECIDED,
    ContestPhase.CLOSED: Refusal.CLOSED,
}


def _phase_refusal(contest: Contest) -> Refusal:
    """Why a command that needs another phase is refused, named after the current one."""
    return _PHASE_REFUSALS[contest.phase]


def players_of(contest: Contest, numbers: Sequence[int]) -> tuple[Player, ...]:
    """The players of these pairs, for mentions and reminders."""
    return tuple(player for number in numbers for player in contest.pair(number).players)
