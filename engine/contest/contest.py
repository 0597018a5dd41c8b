"""The contest state machine: sign-up → draw → rounds in play → decided → closed.

A :class:`Contest` is an immutable value. Every command is a function that takes
the contest, the actor and ``now`` (an aware datetime: time is passed in, never
read) and returns a :class:`Step` — the new contest and the events that say what
happened — or raises a :class:`~engine.contest.errors.ContestError` whose ``code``
the handler turns into a localized message. Storage persists the events
(:mod:`storage.contests`), so a handler's shape is: load, call, record, announce.

The commands on results (reports, confirmations, decisions, lateness) are in
:mod:`engine.contest.reporting`, the contest value, its events and the guards in
:mod:`engine.contest.state`; the package (:mod:`engine.contest`) re-exports all three, the one
import callers use.

The phase is derived from the data rather than stored, so it can never disagree
with the rounds: no pairs yet → sign-up; an unsettled match in the last round →
round in play; the format says no more rounds → decided; ``closed_at`` → closed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from engine.contest.codes import match_code
from engine.contest.deadlines import Deadline, aware
from engine.contest.entrants import (
    Entry,
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
from engine.contest.errors import Refusal, ResultRefused, ScheduleRefused, SignupRefused, WrongPhase
from engine.contest.formats import find_format
from engine.contest.lots import DrawSeed
from engine.contest.pairing import RoundDraw, RoundInput
from engine.contest.reporting import (
    append_fact,
    walkover_result,
)
from engine.contest.results import ContestMatch, FactKind, MatchFact, MatchResult, MatchStatus, PlayMethod
from engine.contest.rounds import Round, Schedule, ScheduleKind, TableClock
from engine.contest.state import (
    ClockStarted,
    Contest,
    ContestClosed,
    ContestPhase,
    ContestSettings,
    DeadlineMoved,
    Drawn,
    Event,
    MatchNote,
    PairWithdrew,
    PartnerChanged,
    PartnerConfirmed,
    PartnerDeclined,
    RoundDrawn,
    SignedUp,
    Step,
    Withdrawal,
    WithdrawReason,
    Withdrew,
    phase_refusal,
    refuse_when_closed,
    require_phase,
)
from engine.rules import Rules

__all__ = [
    "change_partner",
    "close_contest",
    "close_round",
    "confirm_partner",
    "decline_partner",
    "draw",
    "draw_next_round",
    "move_deadline",
    "open_contest",
    "players_of",
    "running_clocks",
    "sign_up",
    "start_clock",
    "unreported",
    "withdraw",
]


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
    require_phase(contest, ContestPhase.SIGN_UP, Refusal.SIGNUP_CLOSED)
    entry = add_entry(contest.entries, player, partner, tag)
    return Step(replace(contest, entries=(*contest.entries, entry)), (SignedUp(entry),))


def confirm_partner(
    contest: Contest, user_id: int, *, player: Player | None = None, username: str | None = None
) -> Step:
    """The invited partner accepts. An invitation by ``@username`` to someone the bot had not
    seen names a stand-in (:func:`~engine.contest.entrants.username_placeholder`): the
    ``player`` pressing 接受 with that ``username`` takes its place."""
    require_phase(contest, ContestPhase.SIGN_UP, Refusal.SIGNUP_CLOSED)
    invitation = find_invitation(contest.entries, user_id, username)
    entry = confirmed(invitation)
    if player is not None:
        entry = confirmed(taking_place(contest.entries, invitation, player))
    elif invitation.partner is not None and is_placeholder(invitation.partner):
        raise SignupRefused(Refusal.NO_INVITATION, str(user_id))
    return Step(_swap_entry(contest, invitation, entry), (PartnerConfirmed(entry),))


def decline_partner(contest: Contest, user_id: int, *, username: str | None = None) -> Step:
    """The invited partner says no; the inviter stays signed up as a single."""
    require_phase(contest, ContestPhase.SIGN_UP, Refusal.SIGNUP_CLOSED)
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
    refuse_when_closed(contest)
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
        contest, more = append_fact(contest, match, fact, MatchNote.WALKOVER)
        events.extend(more)
    return Step(contest, tuple(events))


def _check_leave(contest: Contest, match: ContestMatch) -> None:
    """请假 is asked before the match (000-D "须在25号前请假"): not once it has a result or its
    table's clock runs."""
    current = contest.current_round
    started = current is not None and current.clock_of(match.table) is not None
    if match.status is not MatchStatus.PENDING or started:
        raise SignupRefused(Refusal.LEAVE_TOO_LATE, match.code)


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
    require_phase(contest, ContestPhase.SIGN_UP, Refusal.SIGNUP_CLOSED)
    aware(now)
    pairs = draw_pairs(contest.entries, contest.seed)
    contest.format.check_field(len(pairs))
    contest = replace(contest, pairs=pairs)
    first = _new_round(contest, 1, schedule or _default_schedule(contest, 1))
    contest = replace(contest, rounds=(first,))
    return Step(contest, (Drawn(contest.seed.hex, pairs), RoundDrawn(first)))


def draw_next_round(contest: Contest, *, now: datetime, schedule: Schedule | None = None) -> Step:
    """/round next: redraw the survivors (the format's pairing) once the round is complete."""
    require_phase(contest, ContestPhase.ROUND_COMPLETE, phase_refusal(contest))
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
    require_phase(contest, ContestPhase.ROUND_IN_PLAY, phase_refusal(contest))
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


# ---------------------------------------------------------------- deadlines and closing


def move_deadline(contest: Contest, deadline: Deadline) -> Step:
    """/contest deadline: the settings' before the draw, the current round's after it."""
    refuse_when_closed(contest)
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
    refuse_when_closed(contest)
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
            contest, more = append_fact(contest, match, fact, MatchNote.BOTH_OUT)
            events.extend(more)
    return Step(contest, tuple(events))


def close_contest(contest: Contest, *, now: datetime) -> Step:
    """/contest close: final places and prizes are fixed (see :mod:`engine.contest.standings`)."""
    require_phase(contest, ContestPhase.DECIDED, phase_refusal(contest))
    return Step(replace(contest, closed_at=aware(now)), (ContestClosed(now),))


def unreported(contest: Contest) -> tuple[ContestMatch, ...]:
    """Matches of the current round with nothing reported: whom to remind (48 h, 24 h)."""
    current = contest.current_round
    if current is None or contest.closed_at is not None:
        return ()
    return tuple(m for m in current.matches if m.status is MatchStatus.PENDING)


def players_of(contest: Contest, numbers: Sequence[int]) -> tuple[Player, ...]:
    """The players of these pairs, for mentions and reminders."""
    return tuple(player for number in numbers for player in contest.pair(number).players)
