"""Every sentence of a contest, built for one locale (Chinese first) from the pure contest value.

HTML messages escape whatever a person chose (contest and player names, reasons). The
official report line is never built here: it is :func:`engine.contest.official_line`,
``掼蛋{N}组`` and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import assert_never

from app.contest.columns import figures_text, signed, standings_subtitle
from app.contest.problems import Problem
from app.table.texts import _, escape, preset_title
from engine.contest import (
    FORMATS,
    Contest,
    ContestMatch,
    ContestPhase,
    FactKind,
    MatchFact,
    MatchKind,
    MatchResult,
    MatchStatus,
    Pair,
    PlayMethod,
    Refusal,
    Round,
    ScheduleKind,
    TableClock,
    WithdrawReason,
    final_places,
    late_forfeits_in_a_row,
    official_line,
)
from engine.contest.contest import LATE_REASON
from engine.contest.deadlines import zone
from engine.contest.movement import drawn_groups
from engine.contest.pairing import Family
from engine.contest.seating import RANKS, seating
from engine.contest.standings import (
    KNOCKOUT_FAMILIES,
    Column,
    Mark,
    PairStatus,
    StandingRow,
    Standings,
    contest_standings,
)
from engine.rules import MatchFormat, Rules, SeatAssignment, TimeUp
from render.words import is_english

# ---------------------------------------------------------------- refusals


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
                "match the clock ended with nobody past A).",
                locale,
            )
        case Problem.REASON_MISSING:
            return _("A decision needs a reason: /result CODE WINNER REASON.", locale)
        case Problem.BAD_WINNER:
            return _("“{name}” is not a group number.", locale, name=shown)
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


# ---------------------------------------------------------------- small words


def pair_label(number: int, locale: str) -> str:
    return f"Pair {number}" if is_english(locale) else f"{number}组"


def pair_line(pair: Pair, locale: str, names: bool = True) -> str:
    """``3组 Alice / Bob`` (escaped; ``🎲`` if paired by lot); ``3组`` alone without ``names``."""
    lot = " 🎲" if pair.by_lot else ""
    shown = f" {escape(pair.names)}" if names else ""
    return f"<b>{pair_label(pair.number, locale)}</b>{shown}{lot}"


TEXT_LIMIT = 4000
"""Characters of a message the contest sends: Telegram takes 4,096 after parsing the HTML, and
the HTML counted here is never shorter than what it shows. A large field (64 pairs, 200
sign-ups) is summarised to fit: the card lists the first sign-ups, the draw the first pairs,
a round's pairings drop the names (the standings and /contest export have them all)."""


def _fitted(head: list[str], items: list[str], tail: list[str], more: str, budget: int) -> str:
    """``head``, as many ``items`` as fit in ``budget`` characters (then the ``more`` line, which
    may name ``{n}``, the items left out), and ``tail``."""
    shown = len(items)

    def length(count: int) -> int:
        extra = [more] if count < len(items) else []
        return sum(len(line) + 1 for line in [*head, *items[:count], *extra, *tail])

    while shown and length(shown) > budget:
        shown -= 1
    extra = [more.format(n=len(items) - shown)] if shown < len(items) else []
    return "\n".join([*head, *items[:shown], *extra, *tail])


def format_title(contest: Contest, locale: str) -> str:
    fmt = contest.format
    return fmt.title_en if is_english(locale) else fmt.title_zh


def deadline_line(contest: Contest, locale: str) -> str:
    current = contest.current_round
    deadline = current.schedule.deadline if current is not None else contest.settings.deadline
    if deadline is None:
        return _("Round 1 deadline: not set yet (/contest deadline YYYY-MM-DD).", locale)
    return _(
        "Round 1 deadline: results by {when} (both pairs are out if a match is "
        "not played or not reported by then).",
        locale,
        when=str(deadline),
    )


def phase_text(contest: Contest, locale: str) -> str:
    phase = contest.phase
    current = contest.current_round
    number = current.number if current is not None else 0
    texts = {
        ContestPhase.SIGN_UP: _("Sign-up is open.", locale),
        ContestPhase.ROUND_IN_PLAY: _("Round {n} is being played.", locale, n=number),
        ContestPhase.ROUND_COMPLETE: _(
            "Round {n} is complete; the next draw is the organiser's.", locale, n=number
        ),
        ContestPhase.DECIDED: _("The contest is decided.", locale),
        ContestPhase.CLOSED: _("The contest is closed.", locale),
    }
    return texts[phase]


# ---------------------------------------------------------------- the card


def card_text(contest: Contest, locale: str, budget: int = TEXT_LIMIT) -> str:
    """The contest card: name, format, rules, deadline, sign-ups (the first ones, when they
    would not fit ``budget`` characters), the seed's commitment."""
    lines = [
        f"🏆 <b>{escape(contest.name)}</b>",
        _("Format: {title}", locale, title=escape(format_title(contest, locale))),
        _(
            "Match rules: {preset}",
            locale,
            preset=escape(preset_title(contest.settings.match_preset, locale)),
        ),
        deadline_line(contest, locale),
        _(
            "Report a result in this group as {example} (the winning pair's group number).",
            locale,
            example=official_line(3, contest.settings.event_word),
        ),
        phase_text(contest, locale),
    ]
    if contest.phase is ContestPhase.SIGN_UP:
        lines.append(
            _(
                "Signed up: {n} (sign up with the button, /signup @partner or /signup alone).",
                locale,
                n=len(contest.entries),
            )
        )
        entries = [_entry_line(contest, i, locale) for i in range(len(contest.entries))]
    else:
        entries = []
        lines.append(
            _("Pairs: {n}, still in: {alive}.", locale, n=len(contest.pairs), alive=len(contest.alive))
        )
    tail = [_("Draw seed SHA-256: <code>{commitment}</code>", locale, commitment=contest.seed.commitment)]
    if contest.published_seed is not None:
        tail.append(_("Draw seed: <code>{seed}</code>", locale, seed=contest.published_seed))
    more = _("… and {n} more sign-ups (/contest export lists them all).", locale, n="{n}")
    return _fitted(lines, entries, tail, more, budget)


def _entry_line(contest: Contest, index: int, locale: str) -> str:
    entry = contest.entries[index]
    if entry.partner is None:
        return f"{index + 1}. {escape(entry.player.name)} " + _("(alone: partner by lot)", locale)
    waiting = "" if entry.confirmed else " " + _("(waiting for the partner)", locale)
    return f"{index + 1}. {escape(entry.player.name)} / {escape(entry.partner.name)}{waiting}"


def formats_help(locale: str) -> str:
    """``/contest help``: the formats one line each, how to start one, the commands; short
    (one screen). ``/contest help FORMAT`` is :func:`format_help`."""
    lines = [_("Contest formats (/contest help FORMAT for one format's rules):", locale)]
    for fmt in FORMATS.values():
        title = fmt.title_en if is_english(locale) else fmt.title_zh
        lines.append(f"• <code>{fmt.name}</code> {escape(title)}")
    lines.append(
        _(
            "Start one: /contest new NAME [format=…] [preset=…] "
            "[deadline=YYYY-MM-DD[THH:MM]] "
            "[tz=Asia/Shanghai] [event=掼蛋] [prizes=冠军:1,亚军:1,季军:1] [late_out=3]",
            locale,
        )
    )
    lines.append(
        _(
            "Players: /signup @partner or /signup, /withdraw, /leave (请假, before your match). "
            "Organiser: /draw, /contest deadline, /round close, /round next, "
            "/round start [TABLE] (table clocks), /late CODE GROUP MINUTES, /result, "
            "/contest export, /contest close, /contest wechat (private). "
            "Everyone: /standings, /bracket, /report 掼蛋3组, /newgame match=CODE.",
            locale,
        )
    )
    lines.append(result_help(locale))
    return "\n".join(lines)


def result_help(locale: str) -> str:
    return _(
        "/result CODE WINNER 9:5: the figures come the winner's first, as a score is written "
        "(/result CODE 6 9:5: 6组 won 9 to 5).",
        locale,
    )


def format_help(name: str, locale: str) -> str:
    """``/contest help FORMAT``: one format's title, sources and rules; the short list for a
    name that is no format."""
    fmt = FORMATS.get(name.strip().lower())
    if fmt is None:
        unknown = _("“{name}” is not a contest format.", locale, name=escape(name[:40]))
        return unknown + "\n" + formats_help(locale)
    title = fmt.title_en if is_english(locale) else fmt.title_zh
    description = fmt.description if is_english(locale) else fmt.description_zh or fmt.description
    lines = [
        f"<b>{escape(title)}</b> · <code>{fmt.name}</code> ({', '.join(fmt.sources)})",
        escape(description),
        _("Start one: /contest new NAME format={name}", locale, name=fmt.name),
        result_help(locale),
    ]
    return "\n".join(lines)


def privacy_text(can_read_all: bool, is_admin: bool, event_word: str, locale: str) -> str:
    """Whether typed report lines will reach the bot in this group, and how to make it so."""
    example = official_line(3, event_word)
    if can_read_all or is_admin:
        return _(
            "✅ I can read this group's messages: a typed {example} line counts as a report.",
            locale,
            example=example,
        )
    return _(
        "⚠️ I cannot read ordinary messages in this group (privacy mode), so a "
        "typed {example} line would not "
        "reach me. Make me an administrator of the group (or turn privacy mode "
        "off with @BotFather: "
        "/setprivacy → Disable, then add me again). Until then, report with "
        "/report {example} or by "
        "replying to the pairing message.",
        locale,
        example=example,
    )


def signup_done_text(contest: Contest, name: str, partner: str | None, locale: str) -> str:
    if partner is None:
        return _(
            "{name} signed up alone: the partner is drawn by lot at the draw.", locale, name=escape(name)
        )
    return _(
        "{name} invites {partner} as a partner: {partner}, please confirm with the button.",
        locale,
        name=escape(name),
        partner=escape(partner),
    )


def tag_text(uses_tags: str, tag: str, locale: str) -> str:
    """The unit (000-S) or time slot (002-E) a sign-up gave."""
    if uses_tags == "slot":
        return _("Time slot: {tag}", locale, tag=escape(tag))
    return _("Unit: {tag} (its A and B teams are drawn into different halves)", locale, tag=escape(tag))


# ---------------------------------------------------------------- the draw and the rounds


def draw_text(contest: Contest, locale: str, budget: int = TEXT_LIMIT) -> str:
    """The draw's announcement: every pair with its group number (the first ones, when they
    would not fit ``budget`` characters), the seed."""
    head = [_("🎲 <b>{name}</b>: the draw is made. Group numbers:", locale, name=escape(contest.name))]
    seed = _(
        "Seed: <code>{seed}</code> (its SHA-256 was published at sign-up: "
        "<code>{commitment}</code>). Anyone can recompute the draw from it.",
        locale,
        seed=contest.seed.hex,
        commitment=contest.seed.commitment,
    )
    more = _("… and {n} more pairs: /standings and /contest export list them all.", locale, n="{n}")
    return _fitted(head, [pair_line(p, locale) for p in contest.pairs], [seed], more, budget)


def draw_message(contest: Contest, locale: str) -> str:
    """The draw and round 1's pairings in one message, within :data:`TEXT_LIMIT`: the pairings
    first in size, the list of pairs shortened to what is left."""
    pairings = round_text(contest, 1, locale)
    return draw_text(contest, locale, TEXT_LIMIT - len(pairings) - 2) + "\n\n" + pairings


def round_text(contest: Contest, number: int, locale: str) -> str:
    """One round's pairings with their match codes, byes and schedule (one message); a large
    field's pairings name the pairs by group number only, to fit :data:`TEXT_LIMIT`."""
    text = _round_text(contest, number, locale, names=True)
    if len(text) <= TEXT_LIMIT:
        return text
    text = _round_text(contest, number, locale, names=False)
    note = _("(Names: /standings.)", locale)
    return text + "\n" + note


def _round_text(contest: Contest, number: int, locale: str, *, names: bool) -> str:
    played = contest.rounds[number - 1]
    lines = [_("📋 <b>{name}</b> — round {n} pairings:", locale, name=escape(contest.name), n=number)]
    physical = played.schedule.kind is not ScheduleKind.BOT
    method = contest.round_rules(number).seat_assignment
    for group, numbers in _groups(contest, played):
        if group:
            pairs = (", " if is_english(locale) else "、").join(pair_label(n, locale) for n in numbers)
            lines.append(_("<b>Group {g}</b>: {pairs}", locale, g=group, pairs=pairs))
        for match in (m for m in played.matches if m.pairs[0] in numbers):
            if physical:
                lines.extend(_table_lines(contest, match, method, locale, names))
            else:
                lines.append(_match_line(contest, match, locale, names))
        for bye in (n for n in played.byes if n in numbers):
            lines.append(_bye_line(contest, bye, locale, names))
    if physical and played.matches:
        lines.append(seats_legend(method, locale))
    lines.append(_schedule_line(contest, played, locale))
    lines.append(
        _(
            "Report: {example} (the winner's group number) in this group, /report "
            "{example}, or reply to this message. To play through the bot in any "
            "group: /newgame match=CODE.",
            locale,
            example=official_line(3, contest.settings.event_word),
        )
    )
    return "\n".join(lines)


def _groups(contest: Contest, played: Round) -> list[tuple[int, tuple[int, ...]]]:
    """The movement's groups (001-B), numbered from 1, each with its pairs in movement-table
    position order; one unnamed group of every pair in other formats."""
    if contest.format.family is not Family.MOVEMENT:
        return [(0, tuple(p.number for p in contest.pairs))]
    drawn = drawn_groups(contest.seed, [p.number for p in contest.pairs])
    return list(enumerate(drawn, start=1))


def _bye_line(contest: Contest, number: int, locale: str, names: bool = True) -> str:
    """A bye (轮空): into the next draw in a knockout, a win's 积分 in Swiss, no match in the
    movement (a group of three)."""
    pair = pair_line(contest.pair(number), locale, names)
    family = contest.format.family
    if family is Family.SWISS:
        return _("{pair}: bye (scores a win)", locale, pair=pair)
    if family is Family.MOVEMENT:
        return _("{pair}: no match this round (bye)", locale, pair=pair)
    return _("{pair}: bye into the next draw", locale, pair=pair)


def _match_line(contest: Contest, match: ContestMatch, locale: str, names: bool = True) -> str:
    a, b = (contest.pair(n) for n in match.pairs)
    third = _(" (3rd place)", locale) if match.kind is MatchKind.THIRD_PLACE else ""
    return (
        f"{match.table}. {pair_line(a, locale, names)}  vs  {pair_line(b, locale, names)}{third}"
        f" · <code>{match.code}</code>{_outcome(match, locale)}"
    )


def _outcome(match: ContestMatch, locale: str) -> str:
    if match.status is MatchStatus.PENDING:
        return ""
    if match.winner is not None:
        return f" → {pair_label(match.winner, locale)}"
    return " → =" if match.result is not None and match.result.no_winner else " → ⊘"


def table_label(table: int, locale: str) -> str:
    return f"Table {table}" if is_english(locale) else f"{table}号桌"


def _table_lines(
    contest: Contest, match: ContestMatch, method: SeatAssignment, locale: str, names: bool = True
) -> list[str]:
    """A physical table: its number and code, then who sits North–South and East–West (V17), each
    pair on its own line so that a phone never wraps them; a card draw shows the cards drawn."""
    seats = seating(contest.seed, match, method)
    third = _(" (3rd place)", locale) if match.kind is MatchKind.THIRD_PLACE else ""
    cards = {n: "" for n in match.pairs}
    if seats.cards:
        for index, number in enumerate(match.pairs):
            cards[number] = " 🃏" + "→".join(RANKS[v - 1] for v in seats.cards[index::2])
    ns, ew = (contest.pair(n) for n in (seats.ns, seats.ew))
    heading = f"<b>{table_label(match.table, locale)}</b> <code>{match.code}</code>"
    return [
        heading + _outcome(match, locale) + third,
        _("NS {pair}", locale, pair=pair_line(ns, locale, names)) + cards[seats.ns],
        _("EW {pair}", locale, pair=pair_line(ew, locale, names)) + cards[seats.ew],
    ]


def seats_legend(method: SeatAssignment, locale: str) -> str:
    """How the seats above were given (one line under the tables)."""
    texts = {
        SeatAssignment.CARD_DRAW: _(
            "Seats: each pair drew a card 🃏, the smaller card sits North–South (小牌坐南北); "
            "equal cards drew again.",
            locale,
        ),
        SeatAssignment.MOVEMENT_TABLE: _(
            "Seats by the movement table: the pair listed first sits North–South (排前坐南北).", locale
        ),
        SeatAssignment.TABLE_NUMBER: _("Seats: the pair listed first sits North–South.", locale),
        SeatAssignment.LOT: _("Seats drawn by lot (抓阄) from the published seed.", locale),
    }
    return texts[method]


def _schedule_line(contest: Contest, played: Round, locale: str) -> str:
    schedule = played.schedule
    if schedule.kind is ScheduleKind.SELF_SCHEDULED and schedule.deadline is not None:
        return _(
            "Play at a time you choose; results by {when}. Not played or not "
            "reported by then: both pairs are out.",
            locale,
            when=str(schedule.deadline),
        )
    if schedule.kind is ScheduleKind.FIXED:
        starts = schedule.starts_at
        when = f"{starts.astimezone(zone(contest.settings.zone_name)):%Y-%m-%d %H:%M}" if starts else ""
        return _("Played together: {when} {venue}", locale, when=when, venue=escape(schedule.venue))
    return _(
        "Played through the bot: press a match's button below, or /newgame match=CODE in any group.", locale
    )


def table_heading(contest: Contest, match: ContestMatch, locale: str) -> str:
    """Above a contest table's lobby: the contest, the round, both pairs and the match code."""
    a, b = (contest.pair(n) for n in match.pairs)
    third = _(" (3rd place)", locale) if match.kind is MatchKind.THIRD_PLACE else ""
    return _(
        "🎯 {name}, round {n}{third}: {a}  vs  {b} · match <code>{code}</code>",
        locale,
        name=escape(contest.name),
        n=match.round,
        third=third,
        a=pair_line(a, locale),
        b=pair_line(b, locale),
        code=match.code,
    )


def play_button_label(contest: Contest, match: ContestMatch, locale: str) -> str:
    a, b = match.pairs
    return _("▶ Play {a} v {b} here", locale, a=pair_label(a, locale), b=pair_label(b, locale))


# ---------------------------------------------------------------- results


def method_text(result: MatchResult, reporter: str | None, locale: str) -> str:
    texts = {
        PlayMethod.BOT_TABLE: _("played through the bot", locale),
        PlayMethod.PHYSICAL: _("played at a table, reported by {who}", locale, who=escape(reporter or "?")),
        PlayMethod.ORGANISER: _("the organiser's decision", locale),
        PlayMethod.WALKOVER: _("walkover", locale),
        PlayMethod.BOTH_OUT: _("both pairs out", locale),
    }
    return texts[result.method]


def details_text(
    contest: Contest, match: ContestMatch, fact: MatchFact, reporter: str | None, locale: str
) -> str:
    """The message after an official line: opponent, points, extra deal, how it was played."""
    result = fact.result
    assert result is not None and (result.winner is not None or result.no_winner)
    first = result.winner if result.winner is not None else match.pairs[0]
    second = match.opponent(first)
    if result.winner is None:
        heading = _(
            "Round {n}: {a} and {b}: time is up and nobody passed A, so nobody won",
            locale,
            n=match.round,
            a=pair_line(contest.pair(first), locale),
            b=pair_line(contest.pair(second), locale),
        )
    else:
        heading = _(
            "Round {n}: {winner} beat {loser}",
            locale,
            n=match.round,
            winner=pair_line(contest.pair(first), locale),
            loser=pair_line(contest.pair(second), locale),
        )
    lines = [heading]
    mine = match.pairs.index(first)
    if result.points is not None:
        score = f"{result.points[mine]}:{result.points[1 - mine]}"
        extra = " " + _("(after an extra deal)", locale) if result.extra_deal else ""
        lines.append(_("Points: {score}{extra}", locale, score=score, extra=extra))
    elif result.extra_deal:
        lines.append(_("Decided by an extra deal.", locale))
    if (levels := _levels_line(contest, match, result, mine, locale)) is not None:
        lines.append(levels)
    lines.append(_("How: {how}", locale, how=method_text(result, reporter, locale)))
    if fact.reason:
        lines.append(_("Reason: {reason}", locale, reason=reason_text(fact.reason, locale)))
    if fact.kind is FactKind.REPORT and result.method is PlayMethod.PHYSICAL:
        answering = _answering(contest, match, fact, locale)
        lines.append(_("{loser}: confirm or dispute with the buttons.", locale, loser=answering))
    lines.append(f"<code>{match.code}</code>")
    return "\n".join(lines)


def _answering(contest: Contest, match: ContestMatch, fact: MatchFact, locale: str) -> str:
    """Who answers a player's report: the pair that did not report it."""
    reporting = contest.pair_of_user(fact.by) if fact.by is not None else None
    if reporting is not None and match.has(reporting.number):
        return pair_label(match.opponent(reporting.number), locale)
    assert fact.result is not None and fact.result.winner is not None
    return pair_label(match.opponent(fact.result.winner), locale)


def _levels_line(
    contest: Contest, match: ContestMatch, result: MatchResult, mine: int, locale: str
) -> str | None:
    """Final levels, 级差 and round score of a level race in a scored format (Swiss, movement,
    积分淘汰), first pair of the heading first; None where they do not rank anybody."""
    figures = result.figures
    unscored = (Family.KNOCKOUT, Family.POINTS_KNOCKOUT)
    if figures is None or figures.forfeit or contest.format.family in unscored:
        return None
    if contest.round_rules(match.round).match_format is MatchFormat.POINTS:
        return None
    order = (mine, 1 - mine)
    return _(
        "Levels {levels} · level difference {difference} · round score {score}",
        locale,
        levels=" : ".join(figures.levels[i].char.replace("T", "10") for i in order),
        difference=signed(figures.level_difference if result.winner is not None else 0),
        score=" : ".join(str(figures.round_score[i]) for i in order),
    )


def copy_label(line: str, locale: str) -> str:
    return _("Copy {line}", locale, line=line)


def duplicate_text(line: str, locale: str) -> str:
    return _("Already reported: {line}. Thank you.", locale, line=line)


def contradiction_text(contest: Contest, match: ContestMatch, locale: str) -> str:
    return _(
        "⚠️ This contradicts the first report of match {code}: the organisers will decide.",
        locale,
        code=match.code,
    )


def confirmed_text(contest: Contest, match: ContestMatch, who: str, locale: str) -> str:
    return _("✅ {who} confirmed the result of match {code}.", locale, who=escape(who), code=match.code)


def dispute_text(contest: Contest, match: ContestMatch, who: str, organiser: str, locale: str) -> str:
    a, b = match.pairs
    return _(
        "⚠️ {who} disputes the result of match {code} ({a} v {b}). {organiser}, "
        "please decide: "
        "/result {code} WINNER REASON",
        locale,
        who=escape(who),
        code=match.code,
        a=pair_label(a, locale),
        b=pair_label(b, locale),
        organiser=organiser,
    )


def decision_text(contest: Contest, match: ContestMatch, fact: MatchFact, locale: str) -> str:
    result = fact.result
    assert result is not None
    if result.no_winner:
        outcome = _("nobody won (time is up, nobody passed A)", locale)
    elif result.winner is None:
        outcome = _("both pairs are out", locale)
    else:
        outcome = _("{pair} goes on", locale, pair=pair_label(result.winner, locale))
    return _(
        "⚖️ The organiser decided match {code}: {outcome}. Reason: {reason}",
        locale,
        code=match.code,
        outcome=outcome,
        reason=reason_text(fact.reason, locale),
    )


def both_out_text(contest: Contest, matches: Sequence[ContestMatch], locale: str) -> str:
    lines = [
        _(
            "⏰ <b>{name}</b>: the round-1 deadline has passed. Not played or not "
            "reported, so both pairs are out:",
            locale,
            name=escape(contest.name),
        )
    ]
    for match in matches:
        a, b = (contest.pair(n) for n in match.pairs)
        lines.append(f"• {pair_line(a, locale)}  vs  {pair_line(b, locale)}")
    return "\n".join(lines)


def reminder_text(contest: Contest, matches: Sequence[ContestMatch], left: timedelta, locale: str) -> str:
    """The group's reminder, mentioning the players of matches with no result."""
    hours = round(left.total_seconds() / 3600)
    lines = [
        _(
            "⏳ <b>{name}</b>: {hours} h left to play and report round 1. No result yet:",
            locale,
            name=escape(contest.name),
            hours=hours,
        )
    ]
    for match in matches:
        players = [p for n in match.pairs for p in contest.pair(n).players]
        mentions = " ".join(f'<a href="tg://user?id={p.user_id}">{escape(p.name)}</a>' for p in players)
        lines.append(
            f"• {pair_label(match.pairs[0], locale)} v {pair_label(match.pairs[1], locale)}: {mentions}"
        )
    lines.append(_("Report as {example}.", locale, example=official_line(3, contest.settings.event_word)))
    return "\n".join(lines)


def reminder_dm_text(contest: Contest, match: ContestMatch, left: timedelta, locale: str) -> str:
    hours = round(left.total_seconds() / 3600)
    deadline = contest.rounds[match.round - 1].schedule.deadline
    return _(
        "⏳ {name}: your round-1 match ({a} v {b}) has no result yet, {hours} h "
        "before the deadline "
        "({when}). Play it and report it in the contest group, or both pairs are out. "
        "To play through the bot: /newgame match={code}",
        locale,
        name=escape(contest.name),
        a=pair_label(match.pairs[0], locale),
        b=pair_label(match.pairs[1], locale),
        hours=hours,
        when=str(deadline),
        code=match.code,
    )


def round_complete_text(contest: Contest, number: int, locale: str) -> str:
    alive = ", ".join(pair_label(n, locale) for n in contest.alive) or "—"
    return _(
        "🏁 Round {n} is complete. Still in: {alive}. The organiser draws the next round with /round next.",
        locale,
        n=number,
        alive=alive,
    )


def deadline_moved_text(contest: Contest, locale: str) -> str:
    return _("📅 {line}", locale, line=deadline_line(contest, locale))


def withdrew_text(contest: Contest, number: int, locale: str) -> str:
    """A drawn pair is out, in words that say why (§3.14): 弃权, 请假, or disqualified as late."""
    pair = pair_label(number, locale)
    withdrawal = next((w for w in contest.withdrawals if w.number == number), None)
    if withdrawal is not None and withdrawal.reason is WithdrawReason.LEAVE:
        return _(
            "{pair} asked for leave (请假) and leaves the contest; an unplayed match goes to the opponents.",
            locale,
            pair=pair,
        )
    if withdrawal is not None and withdrawal.reason is WithdrawReason.LATE:
        return _(
            "🚫 {pair} is disqualified: late {n} times in a row (§3.14).",
            locale,
            pair=pair,
            n=late_forfeits_in_a_row(contest, number),
        )
    return _("{pair} withdrew from the contest (弃权).", locale, pair=pair)


def reason_text(reason: str, locale: str) -> str:
    """A decision's reason: the bot's own reasons in words, an organiser's as typed (escaped)."""
    if reason.startswith(LATE_REASON) and reason[len(LATE_REASON) :].isdigit():
        return _("came {minutes} minutes late (§3.14)", locale, minutes=int(reason[len(LATE_REASON) :]))
    if reason == "withdrawal":
        return _("the opponents withdrew", locale)
    return escape(reason)


def late_noted_text(contest: Contest, match: ContestMatch, number: int, minutes: int, locale: str) -> str:
    """/late below the rules' threshold: noted, nothing forfeited."""
    limit = contest.round_rules(match.round).late_forfeit_minutes
    return _(
        "Noted: {pair} came {minutes} minutes late to match {code}. Under the {limit}-minute "
        "limit: no forfeit.",
        locale,
        pair=pair_label(number, locale),
        minutes=minutes,
        code=match.code,
        limit=limit,
    )


# ---------------------------------------------------------------- table clocks


def _tables(clocks: Sequence[TableClock], locale: str) -> str:
    numbers = (", " if is_english(locale) else "、").join(str(c.table) for c in clocks)
    if len(clocks) == 1:
        return _("table {tables}", locale, tables=numbers)
    return _("tables {tables}", locale, tables=numbers)


def _clock_time(contest: Contest, moment: datetime) -> str:
    return f"{moment.astimezone(zone(contest.settings.zone_name)):%H:%M}"


def time_up_rule(rules: Rules, locale: str) -> str:
    """What happens to the deal in hand when a timed game runs out (V34)."""
    if rules.time_up is TimeUp.STOP_AT_ONCE:
        return _("Stop at once: the deal in hand does not count.", locale)
    return _("Finish the deal in hand, then stop: the side ahead wins.", locale)


def clock_started_text(contest: Contest, number: int, clocks: Sequence[TableClock], locale: str) -> str:
    first = clocks[0]
    return _(
        "⏱ <b>{name}</b>, round {n}: the clock runs at {tables}: {minutes} minutes, until {end}. "
        "At the end: {rule}",
        locale,
        name=escape(contest.name),
        n=number,
        tables=_tables(clocks, locale),
        minutes=first.minutes,
        end=_clock_time(contest, first.ends_at),
        rule=time_up_rule(contest.round_rules(number), locale),
    )


def clock_warning_text(contest: Contest, number: int, clocks: Sequence[TableClock], locale: str) -> str:
    return _(
        "⏳ Round {n}, {tables}: 10 minutes left (until {end}).",
        locale,
        n=number,
        tables=_tables(clocks, locale),
        end=_clock_time(contest, clocks[0].ends_at),
    )


def time_up_text(contest: Contest, number: int, clocks: Sequence[TableClock], locale: str) -> str:
    return _(
        "⏱ Time is up: round {n}, {tables}. {rule}",
        locale,
        n=number,
        tables=_tables(clocks, locale),
        rule=time_up_rule(contest.round_rules(number), locale),
    )


# ---------------------------------------------------------------- standings and the end


STANDINGS_TEXT_LIMIT = 4000
"""Characters of a standings message: Telegram takes 4096 after parsing the HTML, and the HTML
counted here is never shorter than what it shows. A field of 64 Swiss pairs needs ~4500."""


def standings_text(contest: Contest, locale: str) -> str:
    """The standings picture's columns as text: one line per pair in the format's order (the
    first pairs only when a large field would not fit one message; the picture has them all)."""
    table = contest_standings(contest)
    head = [
        _("📊 <b>{name}</b> — standings", locale, name=escape(contest.name)),
        phase_text(contest, locale),
    ]
    if table.rounds:
        head.append(standings_subtitle(table, locale))
    rows = [_standing_line(table, row, locale) for row in table.rows]
    legend = [_("✓ won ✗ lost ○ bye ⊘ both out … pending", locale)] if Column.MARKS in table.columns else []
    if legend and any(Mark.NO_WINNER in row.marks for row in table.rows):
        legend[0] += _(" = nobody won", locale)
    shown = len(rows)
    while shown and _length([*head, *rows[:shown], "", *legend]) > STANDINGS_TEXT_LIMIT - 80:
        shown -= 1
    more = [_("… and {n} more pairs: see the picture or /contest export.", locale, n=len(rows) - shown)]
    return "\n".join([*head, *rows[:shown], *(more if shown < len(rows) else []), *legend])


def _length(lines: Sequence[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _standing_line(table: Standings, row: StandingRow, locale: str) -> str:
    lot = " 🎲" if row.by_lot else ""
    figures = figures_text(table, row, locale)
    champion = row.status is PairStatus.CHAMPION and row.prize is not None  # the prize says it
    shown = (table.family in KNOCKOUT_FAMILIES and not champion) or row.status is PairStatus.WITHDRAWN
    status = f" {_status_word(row.status, locale)}" if shown else ""
    prize = f" 🏅{escape(row.prize)}" if row.prize else ""
    label = pair_label(row.number, locale)
    rank = f"{row.rank}." if table.ranked else "·"  # no rank before any result
    return f"{rank} <b>{label}</b> {escape(row.names)}{lot} — {figures}{status}{prize}"


def _status_word(status: PairStatus, locale: str) -> str:
    texts = {
        PairStatus.ALIVE: _("in", locale),
        PairStatus.OUT: _("out", locale),
        PairStatus.WITHDRAWN: _("withdrew", locale),
        PairStatus.CHAMPION: _("champion", locale),
    }
    return texts[status]


def final_text(contest: Contest, locale: str) -> str:
    lines = [_("🏆 <b>{name}</b> is over. Final places:", locale, name=escape(contest.name))]
    for placing in final_places(contest):
        if placing.prize is None and placing.place > 3:
            continue
        prize = f" — {escape(placing.prize)}" if placing.prize else ""
        lines.append(f"{placing.place}. {pair_line(contest.pair(placing.number), locale)}{prize}")
    return "\n".join(lines)


def contest_list_text(contests: Sequence[Contest], locale: str) -> str:
    """``/contest list``: the group's closed contests, the latest first, with their podium."""
    if not contests:
        return _("No contest has been closed in this group yet.", locale)
    text = _("<b>Past contests</b>", locale)
    for contest in contests:
        closed = contest.closed_at.date().isoformat() if contest.closed_at is not None else ""
        lines = [
            _(
                "🏆 <b>{name}</b> · {date} · {format} · {pairs} pairs",
                locale,
                name=escape(contest.name),
                date=closed,
                format=escape(format_title(contest, locale)),
                pairs=len(contest.pairs),
            )
        ]
        podium = [p for p in final_places(contest) if p.place <= 3]
        if not podium:
            lines.append("    " + _("closed before it was decided", locale))
        for placing in podium:
            prize = escape(placing.prize) if placing.prize else _("No. {place}", locale, place=placing.place)
            colon = ": " if is_english(locale) else "："
            lines.append(f"    {prize}{colon}{pair_line(contest.pair(placing.number), locale)}")
        block = "\n".join(lines)
        if len(text) + len(block) + 3 > TEXT_LIMIT:  # ten contests of long names: the latest ones
            return text + "\n…"
        text += "\n" + block
    return text


def decided_text(contest: Contest, locale: str) -> str:
    return _(
        "🏆 The contest is decided. The organiser closes it with /contest close to fix the final places.",
        locale,
    )


def match_status_word(status: MatchStatus, locale: str) -> str:
    texts = {
        MatchStatus.PENDING: _("no result", locale),
        MatchStatus.REPORTED: _("reported", locale),
        MatchStatus.CONFIRMED: _("confirmed", locale),
        MatchStatus.DISPUTED: _("disputed", locale),
        MatchStatus.DECIDED: _("decided", locale),
    }
    return texts[status]


def status_text(contest: Contest, locale: str) -> str:
    """``/contest``: the card and the current round's matches with their status."""
    lines = [card_text(contest, locale)]
    current = contest.current_round
    if current is not None and contest.phase is not ContestPhase.CLOSED:
        lines.append(_("Round {n}:", locale, n=current.number))
        for match in current.matches:
            a, b = match.pairs
            winner = f" → {pair_label(match.winner, locale)}" if match.winner is not None else ""
            word = match_status_word(match.status, locale)
            pairing = f"{pair_label(a, locale)} v {pair_label(b, locale)}"
            lines.append(f"• {pairing} <code>{match.code}</code> {word}{winner}")
    return "\n".join(lines)


def close_round_question(contest: Contest, locale: str) -> str:
    pending = sum(
        1
        for m in (contest.current_round.matches if contest.current_round else ())
        if m.status is MatchStatus.PENDING
    )
    return _(
        "Close the round now? The {n} matches without a result put both their pairs out.", locale, n=pending
    )


def mirror_set_for_text(name: str, group: str, masked: str, locale: str) -> str:
    return _(
        "Enterprise WeChat mirror of {name} (group {group}) set: {masked}. Every official "
        "announcement of this contest is also posted there.",
        locale,
        name=escape(name),
        group=escape(group),
        masked=escape(masked),
    )


def mirror_off_text(name: str, group: str, locale: str) -> str:
    return _(
        "Enterprise WeChat mirror of {name} (group {group}) turned off.",
        locale,
        name=escape(name),
        group=escape(group),
    )


def which_contest_text(locale: str) -> str:
    return _("You organise several contests: which one gets this webhook?", locale)


def partner_changed_text(name: str, partner: str, number: int, locale: str) -> str:
    return _(
        "{name} now plays with {partner} ({pair}).",
        locale,
        name=escape(name),
        partner=escape(partner),
        pair=pair_label(number, locale),
    )


def mask_url(url: str) -> str:
    """The webhook address without its secret key: ``…key=ab…yz``."""
    head, sep, key = url.partition("key=")
    if not sep:
        return head[:30] + "…"
    return f"{head}key={key[:2]}…{key[-2:]}" if len(key) > 6 else f"{head}key=…"
