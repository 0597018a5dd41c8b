"""Refusals: the answer to a refused contest command (:class:`Refusal`) and to words refused before
the contest saw them (:class:`Problem`), each chosen by an exhaustive ``match`` (mypy finds a
member without its text).
"""

from __future__ import annotations

from typing import assert_never

from app.contest.problems import Problem
from app.table.texts import _, escape
from engine.contest import (
    Refusal,
)


def refusal_text(code: Refusal, locale: str) -> str:
    """The answer to a refused contest command; every :class:`Refusal` has its text (mypy checks)."""
    match code:
        case Refusal.SIGNUP_CLOSED:
            return _("Sign-up is closed: the draw has been made.", locale)
        case Refusal.NOT_DRAWN:
            return _("The draw has not been made yet.", locale)
        case Refusal.ROUND_IN_PLAY:
            return _("The current round is still being played.", locale)
        case Refusal.ROUND_COMPLETE:
            return _("The round is complete: the organiser draws the next one with /round next.", locale)
        case Refusal.CONTEST_DECIDED:
            return _("The contest is decided: the organiser closes it with /contest close.", locale)
        case Refusal.NOT_DECIDED:
            return _("The contest is not decided yet.", locale)
        case Refusal.CLOSED:
            return _("This contest is closed.", locale)
        case Refusal.ALREADY_SIGNED_UP:
            return _("You are already signed up.", locale)
        case Refusal.SELF_PARTNER:
            return _("You cannot be your own partner.", locale)
        case Refusal.PARTNER_TAKEN:
            return _("That partner is already signed up with someone else.", locale)
        case Refusal.NO_INVITATION:
            return _("Nobody has invited you as a partner.", locale)
        case Refusal.NOT_SIGNED_UP:
            return _("You are not signed up for this contest.", locale)
        case Refusal.PARTNER_CHANGE:
            return _("Changing partners after the draw is a forfeit (rule V32).", locale)
        case Refusal.TOO_FEW_PAIRS:
            return _("At least two pairs are needed for the draw.", locale)
        case Refusal.TOO_MANY_PAIRS:
            return _("Too many pairs for this format (004-A: at most 32 pairs).", locale)
        case Refusal.FIELD_SIZE:
            return _(
                "This format cannot draw that field (groups of 3 and 4 pairs; at most two teams per unit).",
                locale,
            )
        case Refusal.ODD_SINGLES:
            return _(
                "An odd number of players signed up alone: one more single is needed for the draw.", locale
            )
        case Refusal.NOT_A_REPORT:
            return _(
                "That is not a result report. Write it like 掼蛋3组 (the winning pair's group number).",
                locale,
            )
        case Refusal.WRONG_EVENT:
            return _("That report names another event. Write it like 掼蛋3组.", locale)
        case Refusal.NO_NUMBER:
            return _("The report has no group number. Write it like 掼蛋3组.", locale)
        case Refusal.SEVERAL_NUMBERS:
            return _("The report holds more than one number; write only the winning pair's: 掼蛋3组.", locale)
        case Refusal.ZERO:
            return _("There is no group 0.", locale)
        case Refusal.BAD_NUMERAL:
            return _("The group number cannot be read. Write it like 掼蛋3组 or 掼蛋三组.", locale)
        case Refusal.TRAILING_TEXT:
            return _("Nothing may follow 组 in a report: write exactly 掼蛋3组.", locale)
        case Refusal.UNKNOWN_GROUP:
            return _("There is no pair with that group number.", locale)
        case Refusal.NOT_IN_ROUND:
            return _("That pair has no match in the current round.", locale)
        case Refusal.NOT_A_PLAYER:
            return _("Only the players of that match can do this.", locale)
        case Refusal.NOT_OPPONENT:
            return _("Only the opposing pair can confirm or dispute a report.", locale)
        case Refusal.LATE:
            return _("The deadline has passed: results are no longer accepted.", locale)
        case Refusal.ALREADY_DECIDED:
            return _("This match has already been decided.", locale)
        case Refusal.NOTHING_REPORTED:
            return _("Nothing has been reported for this match yet.", locale)
        case Refusal.ROUND_CLOSED:
            return _("That match belongs to an earlier round.", locale)
        case Refusal.REASON_REQUIRED:
            return _("A decision needs a reason.", locale)
        case Refusal.BAD_RESULT:
            return _("That result does not fit the match (the winner must be one of its pairs).", locale)
        case Refusal.UNKNOWN_MATCH:
            return _("No match has that code.", locale)
        case Refusal.MATCH_NOT_OVER:
            return _("The match is not over yet.", locale)
        case Refusal.NO_LATE_FORFEIT:
            return _("These rules set no lateness forfeit.", locale)
        case Refusal.LEAVE_TOO_LATE:
            return _(
                "Too late for leave (请假): your match has begun or has a result. /withdraw forfeits.", locale
            )
        case Refusal.NOT_PHYSICAL:
            return _("This round is played through the bot: its tables keep their own clocks.", locale)
        case Refusal.NOT_TIMED:
            return _("These rules set no time limit, so there is no table clock.", locale)
        case Refusal.UNKNOWN_TABLE:
            return _("This round has no table with that number.", locale)
        case Refusal.CLOCK_STARTED:
            return _("That clock is already running.", locale)
        case Refusal.NOT_SELF_SCHEDULED:
            return _("This round has no deadline (it is not self-scheduled).", locale)
        case Refusal.BAD_DEADLINE:
            return _(
                "The deadline cannot be read: use YYYY-MM-DD or YYYY-MM-DDTHH:MM (and a known tz=).", locale
            )
        case Refusal.DEADLINE_PASSED:
            return _("That deadline has already passed: give one still ahead.", locale)
        case Refusal.DEADLINE_TOO_FAR:
            return _("That deadline is too far ahead: at most two years from now.", locale)
        case Refusal.UNKNOWN_FORMAT:
            return _("Unknown contest format. /contest help lists them.", locale)
        case _:
            assert_never(code)


def problem_text(code: Problem, detail: str, locale: str) -> str:
    """Typed words refused before the contest saw them (:mod:`app.contest.args`), and other
    refusals of the Telegram side; every :class:`Problem` has its text (mypy checks)."""
    shown = escape(detail)
    match code:
        case Problem.NAME_MISSING:
            return _(
                "Usage: /contest new NAME [format=…] [preset=…] "
                "[deadline=YYYY-MM-DD[THH:MM]] [tz=Asia/Shanghai] [event=掼蛋]",
                locale,
            )
        case Problem.NAME_TOO_LONG:
            return _("The contest name is too long.", locale)
        case Problem.UNKNOWN_OPTION:
            return _(
                "Unknown option “{name}”: use format=, preset=, deadline=, tz=, event=, "
                "prizes= or late_out=.",
                locale,
                name=shown,
            )
        case Problem.REPEATED_OPTION:
            return _("The option “{name}” is given twice.", locale, name=shown)
        case Problem.BAD_LATE_OUT:
            return _(
                "“{name}”: late_out= takes 1 to 9, the lateness forfeits in a row that disqualify a pair "
                "(001-B: 3, 002-E: 1).",
                locale,
                name=shown,
            )
        case Problem.BAD_EVENT:
            return _("The event word “{name}” cannot be used (no digits, spaces or 组).", locale, name=shown)
        case Problem.BAD_PRIZES:
            return _("Prize tiers read like 冠军:1,亚军:1,季军:1,优胜奖:4.", locale)
        case Problem.UNKNOWN_PRESET:
            return _("Unknown rule preset “{name}”. /rules lists them.", locale, name=shown)
        case Problem.RESULT_USAGE:
            return _(
                "Usage: /result CODE WINNER [9:5] [levels=A:10] [3s=2:1] [time] [extra] REASON "
                "(WINNER: a group number, 掼蛋3组, none for both out, or draw with levels= for a "
                "match the clock ended with nobody past A). Without the code, the winner's group "
                "names its match: /result 3 REASON.",
                locale,
            )
        case Problem.NOT_A_MATCH:
            return _(
                "“{name}” is neither a match code nor a group number. Type /result CODE WINNER REASON "
                "(the code is on the pairing message), or /result WINNER REASON: the winner's group "
                "names its match, e.g. /result 3 有异议成立.",
                locale,
                name=shown,
            )
        case Problem.REASON_MISSING:
            return _("A decision needs a reason: /result CODE WINNER REASON.", locale)
        case Problem.BAD_WINNER:
            return _(
                "“{name}” is not a group number: write the group as 3, 3组 or 掼蛋3组.", locale, name=shown
            )
        case Problem.BAD_LEVELS:
            return _(
                "“{name}”: write the final levels as levels=A:10, the winner's first "
                "(the winner at A unless the clock ended the match: add time).",
                locale,
                name=shown,
            )
        case Problem.BAD_THREES:
            return _("“{name}”: write the 3-point deals as 3s=2:1, the winner's first.", locale, name=shown)
        case Problem.FIGURES_CONTRADICT:
            return _(
                "Understood: {name}. The figures come the winner's first (/result CODE 6 9:5: 6组 has 9), "
                "and these give the winner less: nothing was recorded. Check the winner and the figures.",
                locale,
                name=shown,
            )
        case Problem.TAG_NOT_USED:
            return _("This contest's format uses no tag=; sign up without it.", locale)
        case Problem.BAD_SLOT:
            return _("“{name}” is not a time slot: write tag=A or tag=B.", locale, name=shown)
        case Problem.BAD_TAG:
            return _("“{name}” cannot be a unit: write tag= and up to 12 characters.", locale, name=shown)
        case Problem.TAG_AFTER_DRAW:
            return _("Units and time slots are given at sign-up, before the draw.", locale)
        case Problem.NO_CONTEST:
            return _("There is no contest in this group. An admin starts one with /contest new NAME.", locale)
        case Problem.CONTEST_EXISTS:
            return _("This group already has a contest in progress.", locale)
        case Problem.ADMINS_ONLY:
            return _("Only a group admin can start a contest.", locale)
        case Problem.ORGANISER_ONLY:
            return _("Only the contest's organiser (or a group admin) can do that.", locale)
        case Problem.GROUP_ONLY:
            return _("Use this in the contest's group.", locale)
        case Problem.PRIVATE_ONLY:
            return _("For your safety, send the webhook address only in a private chat with the bot.", locale)
        case Problem.FORWARDED_REPORT:
            return _("A forwarded message is not a report: a player of the match types it here.", locale)
        case Problem.NO_PARTNER:
            return _(
                "I do not know {name} yet: ask them to press a contest button or send a "
                "command here first, or reply to one of their messages with /signup.",
                locale,
                name=shown,
            )
        case Problem.BAD_WEBHOOK:
            return _(
                "That is not an Enterprise WeChat group-robot webhook address "
                "(https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…).",
                locale,
            )
        case Problem.UNKNOWN_MATCH_CODE:
            return _("No match has that code. The codes are on the pairing message.", locale)
        case Problem.NO_MATCH_CODE:
            return _("Usage: /newgame match=CODE (the code is on the pairing message).", locale)
        case Problem.MATCH_NOT_PENDING:
            return _("This match already has a result.", locale)
        case Problem.MATCH_TABLE_OPEN:
            return _("A table for this match is already open.", locale)
        case Problem.NOT_IN_MATCH:
            return _("Only the four players of this match can open its table.", locale)
        case Problem.USAGE_ROUND:
            return _(
                "Usage: /round next [at=YYYY-MM-DDTHH:MM] [place=…] (a fixed time and place; "
                "without them the round is played through the bot), or /round close.",
                locale,
            )
        case Problem.USAGE_START:
            return _(
                "Usage: /round start [TABLE]: starts the clock at every table of the round, "
                "or at one late table.",
                locale,
            )
        case Problem.USAGE_LATE:
            return _(
                "Usage: /late CODE GROUP MINUTES, e.g. /late K7QX 3 12: pair 3 came 12 minutes "
                "late to match K7QX.",
                locale,
            )
        case Problem.LATE_NOT_IN_MATCH:
            return _("Pair {name} does not play that match.", locale, name=shown)
        case Problem.BAD_TIME:
            return _("“{name}” is not a time: write it like at=2026-12-26T14:00.", locale, name=shown)
        case Problem.USAGE_DEADLINE:
            return _("Usage: /contest deadline YYYY-MM-DD[THH:MM]", locale)
        case Problem.USAGE_WECHAT:
            return _(
                "Usage (in a private chat): /contest wechat [NAME] URL, or /contest wechat [NAME] off "
                "(NAME: the contest's, if you organise several).",
                locale,
            )
        case Problem.NOT_ORGANISER_ANYWHERE:
            return _("You do not organise an open contest.", locale)
        case Problem.NO_SUCH_CONTEST:
            return _("You organise no open contest named “{name}”.", locale, name=shown)
        case _:
            assert_never(code)
