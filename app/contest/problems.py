"""Why typed contest words or a contest request were refused before the contest saw them, one
member per reason, with values equal to the codes used before (issue 19):
:func:`app.contest.texts.problem_text` words every member, and ``mypy --strict`` finds a member
without a text."""

from __future__ import annotations

from enum import StrEnum


class Problem(StrEnum):
    """An :class:`app.contest.args.ArgProblem`'s code, or a contest handler's own refusal."""

    NAME_MISSING = "name_missing"
    NAME_TOO_LONG = "name_too_long"
    UNKNOWN_OPTION = "unknown_option"
    REPEATED_OPTION = "repeated_option"
    BAD_LATE_OUT = "bad_late_out"
    BAD_EVENT = "bad_event"
    BAD_PRIZES = "bad_prizes"
    UNKNOWN_PRESET = "unknown_preset"
    RESULT_USAGE = "result_usage"
    NOT_A_MATCH = "not_a_match"  # /result's first word: neither a match code nor a group
    REASON_MISSING = "reason_missing"
    BAD_WINNER = "bad_winner"
    BAD_LEVELS = "bad_levels"
    BAD_THREES = "bad_threes"
    FIGURES_CONTRADICT = "figures_contradict"
    TAG_NOT_USED = "tag_not_used"
    BAD_SLOT = "bad_slot"
    BAD_TAG = "bad_tag"
    TAG_AFTER_DRAW = "tag_after_draw"
    NO_CONTEST = "no_contest"
    CONTEST_EXISTS = "contest_exists"
    ADMINS_ONLY = "admins_only"
    ORGANISER_ONLY = "organiser_only"
    GROUP_ONLY = "group_only"
    PRIVATE_ONLY = "private_only"
    FORWARDED_REPORT = "forwarded_report"
    NO_PARTNER = "no_partner"
    BAD_WEBHOOK = "bad_webhook"
    UNKNOWN_MATCH_CODE = "unknown_match_code"
    NO_MATCH_CODE = "no_match_code"
    MATCH_NOT_PENDING = "match_not_pending"
    MATCH_TABLE_OPEN = "match_table_open"
    NOT_IN_MATCH = "not_in_match"
    USAGE_ROUND = "usage_round"
    USAGE_START = "usage_start"
    USAGE_LATE = "usage_late"
    LATE_NOT_IN_MATCH = "late_not_in_match"
    BAD_TIME = "bad_time"
    USAGE_DEADLINE = "usage_deadline"
    USAGE_WECHAT = "usage_wechat"
    NOT_ORGANISER_ANYWHERE = "not_organiser_anywhere"
    NO_SUCH_CONTEST = "no_such_contest"
