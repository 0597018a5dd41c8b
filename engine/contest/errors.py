"""Refusals of the contest core, split by cause, each with a :class:`Refusal` code.

Handlers turn a refusal into a localized message by its ``code`` alone (one place,
one table), so the code is an enum and every code belongs to exactly one class,
like python-chess's Invalid/Illegal/Ambiguous move errors.
"""

from __future__ import annotations

from enum import Enum


class Refusal(Enum):
    """Why the contest refused a command; the value is the message key's suffix."""

    # phase
    SIGNUP_CLOSED = "signup_closed"
    NOT_DRAWN = "not_drawn"
    ROUND_IN_PLAY = "round_in_play"
    ROUND_COMPLETE = "round_complete"
    CONTEST_DECIDED = "contest_decided"
    NOT_DECIDED = "not_decided"
    CLOSED = "closed"
    # sign-up
    ALREADY_SIGNED_UP = "already_signed_up"
    SELF_PARTNER = "self_partner"
    PARTNER_TAKEN = "partner_taken"
    NO_INVITATION = "no_invitation"
    NOT_SIGNED_UP = "not_signed_up"
    PARTNER_CHANGE = "partner_change"  # V32: changing a partner after the draw is a forfeit
    # draw
    TOO_FEW_PAIRS = "too_few_pairs"
    ODD_SINGLES = "odd_singles"
    TOO_MANY_PAIRS = "too_many_pairs"  # 004-A "共五轮": 32 pairs at most
    FIELD_SIZE = "field_size"  # 001-B groups of 3 or 4 cannot hold 1, 2 or 5 pairs
    # report text
    NOT_A_REPORT = "not_a_report"
    WRONG_EVENT = "wrong_event"
    NO_NUMBER = "no_number"
    SEVERAL_NUMBERS = "several_numbers"
    ZERO = "zero"
    BAD_NUMERAL = "bad_numeral"
    TRAILING_TEXT = "trailing_text"
    # reports and results
    UNKNOWN_GROUP = "unknown_group"
    NOT_IN_ROUND = "not_in_round"
    NOT_A_PLAYER = "not_a_player"
    NOT_OPPONENT = "not_opponent"
    LATE = "late"
    ALREADY_DECIDED = "already_decided"
    NOTHING_REPORTED = "nothing_reported"
    ROUND_CLOSED = "round_closed"
    REASON_REQUIRED = "reason_required"
    BAD_RESULT = "bad_result"
    UNKNOWN_MATCH = "unknown_match"
    MATCH_NOT_OVER = "match_not_over"
    NO_LATE_FORFEIT = "no_late_forfeit"  # the rules set no lateness threshold (V33)
    LEAVE_TOO_LATE = "leave_too_late"  # 请假 is asked before the match, not after it began
    # schedule
    NOT_SELF_SCHEDULED = "not_self_scheduled"
    BAD_DEADLINE = "bad_deadline"
    DEADLINE_PASSED = "deadline_passed"
    DEADLINE_TOO_FAR = "deadline_too_far"
    NOT_PHYSICAL = "not_physical"  # a table clock for a round played through the bot
    NOT_TIMED = "not_timed"  # the rules set no time limit
    UNKNOWN_TABLE = "unknown_table"
    CLOCK_STARTED = "clock_started"
    UNKNOWN_FORMAT = "unknown_format"


class ContestError(ValueError):
    """A refused contest command; ``code`` picks the localized message."""

    def __init__(self, code: Refusal, detail: str = "") -> None:
        super().__init__(f"{code.value}: {detail}" if detail else code.value)
        self.code = code
        self.detail = detail


class WrongPhase(ContestError):
    """The command does not fit where the contest is (sign-up, round in play, closed…)."""


class SignupRefused(ContestError):
    """A sign-up, partner confirmation, withdrawal or partner change that breaks a rule."""


class DrawRefused(ContestError):
    """The entrants cannot be drawn (too few pairs, an odd number of singles)."""


class ReportRefused(ContestError):
    """A report line that is not exactly one valid group number of this round."""


class ResultRefused(ContestError):
    """A result, confirmation, dispute or decision that does not fit the match's history."""


class ScheduleRefused(ContestError):
    """A deadline or round schedule that cannot be applied."""


class UnknownFormat(ContestError, LookupError):
    """No contest format has that name."""
