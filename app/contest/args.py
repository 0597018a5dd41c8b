"""Reading the typed words: ``/contest new …``, ``/contest deadline …``, ``/result …``, ``/signup …``.

A refusal is an :class:`ArgProblem` whose ``code`` picks the localized answer and whose
``detail`` is the word at fault (shown back, escaped). Contest rules themselves (a known
format, a known preset, a valid deadline) are checked by :mod:`engine.contest`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import Enum
from typing import Final, TypeVar

from app.contest.problems import Problem
from engine.cards import Rank, parse_rank
from engine.contest import (
    DEFAULT_PRIZES,
    Contest,
    ContestError,
    ContestMatch,
    ContestSettings,
    Deadline,
    MatchResult,
    PlayMethod,
    PrizeTier,
    Schedule,
    ScheduleKind,
    parse_report,
)
from engine.contest.deadlines import zone
from engine.contest.errors import Refusal, ResultRefused
from engine.contest.report import MAX_GROUP
from engine.errors import InvalidCards
from engine.figures import reported_figures
from engine.names import clean_name

MAX_NAME: Final = 60  # characters of a contest name
MAX_REASON: Final = 300
OPTIONS: Final = ("format", "preset", "deadline", "tz", "event", "prizes", "late_out")
MAX_LATE_OUT: Final = 9  # lateness forfeits in a row that disqualify (001-B: 3, 002-E: 1)
BOTH_OUT_WORDS: Final = frozenset({"none", "both-out", "bothout", "双出", "两组出局", "均出局"})
NO_WINNER_WORDS: Final = frozenset({"draw", "nowinner", "no-winner", "无胜方", "平局"})
"""001-B's time-out with nobody past A (A17): played, scored by levels, nobody won."""
_POINTS: Final = re.compile(r"^(\d{1,3})[:：](\d{1,3})$")
_AT: Final = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})$")
MAX_VENUE: Final = 40
MAX_TAG: Final = 12  # characters of a unit's name (000-S)
EXTRA_WORDS: Final = frozenset({"extra", "加赛"})
ON_TIME_WORDS: Final = frozenset({"time", "时间到", "超时"})
THREES_KEYS: Final = frozenset({"3s", "threes", "3分局"})


class ArgProblem(ValueError):
    def __init__(self, code: Problem, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclass(frozen=True, slots=True)
class NewContest:
    name: str
    settings: ContestSettings
    deadline_text: str | None  # parsed once the zone is known


def parse_new(args: Sequence[str], now: datetime | None = None) -> NewContest:
    """``NAME [format=…] [preset=…] [deadline=YYYY-MM-DD[THH:MM]] [tz=…] [event=…] [prizes=…]
    [late_out=N]`` (N lateness forfeits in a row disqualify, docs/rules.md §4.7). With ``now``, a deadline
    that has passed (or is years ahead) is refused."""
    words, options = _split(args)
    name = " ".join(words).strip()
    if not name:
        raise ArgProblem(Problem.NAME_MISSING)
    if len(name) > MAX_NAME:
        raise ArgProblem(Problem.NAME_TOO_LONG, name[:MAX_NAME])
    settings = ContestSettings()
    if "format" in options:
        settings = replace(settings, format_name=options["format"])
    if "preset" in options:
        settings = replace(settings, preset=options["preset"])
    if "event" in options:
        event = options["event"]
        if not event or any(ch.isdigit() or ch.isspace() for ch in event) or "组" in event or len(event) > 8:
            raise ArgProblem(Problem.BAD_EVENT, event)
        settings = replace(settings, event_word=event)
    if "tz" in options:
        zone(options["tz"])  # ScheduleRefused (bad_deadline) names an unknown zone
        settings = replace(settings, zone_name=options["tz"])
    if "prizes" in options:
        settings = replace(settings, prize_tiers=parse_prizes(options["prizes"]))
    if "late_out" in options:
        settings = replace(settings, late_disqualify_after=_late_out(options["late_out"]))
    deadline = options.get("deadline")
    if deadline is not None:
        parsed = Deadline.parse(deadline, settings.zone_name)
        settings = replace(settings, deadline=parsed if now is None else parsed.check_ahead(now))
    return NewContest(name, settings, deadline)


def _late_out(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_LATE_OUT:
        raise ArgProblem(Problem.BAD_LATE_OUT, text[:20])
    return int(text)


def _split(args: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    words: list[str] = []
    options: dict[str, str] = {}
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep:
            words.append(arg)
            continue
        key = key.strip().lower()
        if key not in OPTIONS:
            raise ArgProblem(Problem.UNKNOWN_OPTION, key[:20])
        if key in options:
            raise ArgProblem(Problem.REPEATED_OPTION, key)
        options[key] = value.strip()
    return words, options


def parse_prizes(text: str) -> tuple[PrizeTier, ...]:
    """``冠军:1,亚军:1,季军:1,优胜奖:4`` (a name alone counts one pair)."""
    tiers = []
    for part in re.split(r"[,，、]", text):
        name, _, count = part.strip().partition(":")
        if not name.strip():
            raise ArgProblem(Problem.BAD_PRIZES, text[:40])
        if count and not (count.isdigit() and 1 <= int(count) <= 64):
            raise ArgProblem(Problem.BAD_PRIZES, part[:40])
        tiers.append(PrizeTier(name.strip()[:12], int(count) if count else 1))
    return tuple(tiers) or DEFAULT_PRIZES


@dataclass(frozen=True, slots=True)
class Decision:
    """``/result CODE WINNER [9:5] [levels=A:10] [3s=2:1] [time] [extra] REASON…``; every pair
    of figures is written **the winner's first**, as people write a score (``6 9:5``: 6组 has
    9, whichever pair the pairing message lists first); :meth:`with_figures` puts them in the
    match's order. ``/result CODE draw levels=K:10 REASON`` records a match nobody won (001-B's
    time-out; its levels in the pairing message's order): its ``result`` is a placeholder until
    :meth:`with_figures` scores the levels under the round's rules."""

    code: str
    result: MatchResult
    reason: str
    levels: tuple[Rank, Rank] | None = None  # final levels at a physical table
    threes: tuple[int, int] | None = None  # 3-point deals (001-A's tie-break)
    on_time: bool = False  # the winner did not pass A: the clock ended the match
    no_winner: bool = False  # the clock ended it and nobody won (001-B): levels required
    named_by: int | None = None  # the group typed in the code's place (/result 掼蛋8组 理由)

    def with_figures(self, contest: Contest) -> MatchResult:
        """The result with its figures in the match's order and the engine's figures (级差,
        round score, 3-point deals) read from the typed ones under the match's rules, so
        scored formats (Swiss, movement, 积分淘汰) rank it like a bot table; with ``3s=`` a
        points match's points are checked against its tie-break. Figures that contradict the
        named winner (fewer points, or a lower level) are refused (``figures_contradict``,
        with what was understood)."""
        result = self.result
        winner = result.winner
        if self.no_winner and self.levels is not None:
            match = contest.match_by_code(self.code)
            rules = contest.round_rules(match.round)
            figures = reported_figures(rules, winner=None, levels=self.levels, passed_a=False)
            return MatchResult(None, PlayMethod.ORGANISER, figures=figures)
        if winner is None:
            return result
        match = contest.match_by_code(self.code)
        if winner not in match.pairs:
            if self.levels is None and self.threes is None:
                return result  # the desk refuses it, with the match's own refusal
            raise ResultRefused(Refusal.BAD_RESULT, f"{winner} is not in {match.pairs}")
        index = match.pairs.index(winner)
        loser = match.pairs[1 - index]
        self._check(winner, loser)

        def ordered(pair: tuple[_T, _T]) -> tuple[_T, _T]:
            return pair if index == 0 else (pair[1], pair[0])

        points = ordered(result.points) if result.points is not None else None
        result = replace(result, points=points)
        if self.levels is None and self.threes is None:
            return result  # points alone are kept as before (scores read them from the result)
        rules = contest.round_rules(match.round)
        figures = reported_figures(
            rules,
            winner=index,
            levels=ordered(self.levels) if self.levels is not None else (Rank.TWO, Rank.TWO),
            passed_a=self.levels is not None and not self.on_time,
            points=points or (0, 0),
            three_point_deals=ordered(self.threes) if self.threes is not None else (0, 0),
        )
        return replace(result, figures=figures)

    def _check(self, winner: int, loser: int) -> None:
        """The figures, the winner's first, must not say the other pair won."""
        points, levels = self.result.points, self.levels
        if levels is not None and not self.on_time and levels[0] is not Rank.ACE:
            raise ArgProblem(Problem.BAD_LEVELS, f"{levels[0].char}:{levels[1].char}")
        if points is not None and points[0] < points[1]:
            raise ArgProblem(Problem.FIGURES_CONTRADICT, f"{winner}组 {points[0]}:{points[1]} {loser}组")
        if levels is not None and self.on_time and levels[0] < levels[1]:
            raise ArgProblem(
                Problem.FIGURES_CONTRADICT, f"{winner}组 levels={levels[0].char}:{levels[1].char} {loser}组"
            )


_T = TypeVar("_T")


def parse_decision(args: Sequence[str], event_word: str) -> Decision:
    if len(args) < 2:
        raise ArgProblem(Problem.RESULT_USAGE)
    code, winner_word, rest = args[0], args[1], list(args[2:])
    no_winner = winner_word.lower() in NO_WINNER_WORDS
    winner = None if no_winner else _winner(winner_word, event_word)
    points = None
    if rest and (found := _POINTS.match(rest[0])):
        points = (int(found.group(1)), int(found.group(2)))
        rest = rest[1:]
    extra = on_time = False
    levels: tuple[Rank, Rank] | None = None
    threes: tuple[int, int] | None = None
    while rest:  # the figures and switches, in any order, before the reason
        word = rest[0]
        key, sep, value = word.partition("=")
        key = key.strip().lower()
        if word.lower() in EXTRA_WORDS:
            extra = True
        elif word.lower() in ON_TIME_WORDS:
            on_time = True
        elif sep and key == "levels" and levels is None:
            levels = _levels(value)
        elif sep and key in THREES_KEYS and threes is None:
            found = _POINTS.match(value.strip())
            if found is None:
                raise ArgProblem(Problem.BAD_THREES, value[:20])
            threes = (int(found.group(1)), int(found.group(2)))
        elif sep and (key == "levels" or key in THREES_KEYS):
            raise ArgProblem(Problem.REPEATED_OPTION, key)
        else:
            break
        rest = rest[1:]
    reason = " ".join(rest).strip()[:MAX_REASON]
    if not reason:
        raise ArgProblem(Problem.REASON_MISSING)
    if no_winner:  # the organiser gives the final levels; the clock ended the match
        if levels is None or points is not None or threes is not None or extra:
            raise ArgProblem(Problem.BAD_LEVELS, winner_word[:20])
        return Decision(code, MatchResult(None, PlayMethod.BOTH_OUT), reason, levels, no_winner=True)
    if winner is None:
        if points is not None or levels is not None or threes is not None or extra or on_time:
            raise ArgProblem(Problem.RESULT_USAGE)  # both out: nothing was played to report
        return Decision(code, MatchResult(None, PlayMethod.BOTH_OUT), reason)
    if on_time and levels is None:
        raise ArgProblem(Problem.BAD_LEVELS, "time")
    result = MatchResult(winner, PlayMethod.ORGANISER, points, extra)
    return Decision(code, result, reason, levels, threes, on_time)


def _levels(text: str) -> tuple[Rank, Rank]:
    """``A:10`` (also ``A：T``): the final levels of the match's first and second pair."""
    first, sep, second = text.replace("：", ":").partition(":")
    try:
        if not sep:
            raise InvalidCards(text)
        return (parse_rank(first), parse_rank(second))
    except InvalidCards as error:
        raise ArgProblem(Problem.BAD_LEVELS, text[:20]) from error


@dataclass(frozen=True, slots=True)
class SignupWords:
    """``/signup [@partner] [tag=UNIT]``: the words naming the partner, and the tag."""

    partner_words: tuple[str, ...]
    tag: str = ""


def parse_signup(args: Sequence[str], uses_tags: str) -> SignupWords:
    """Split off ``tag=``: a unit's name (000-S: the A and B teams of one unit are drawn into
    different halves) or the time slot ``A``/``B`` (002-E); refused where the format uses
    none (``uses_tags`` is the format's :attr:`~engine.contest.formats.ContestFormat.uses_tags`)."""
    words: list[str] = []
    tag: str | None = None
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep or key.strip().lower() != "tag":
            words.append(arg)
            continue
        if tag is not None:
            raise ArgProblem(Problem.REPEATED_OPTION, "tag")
        if not uses_tags:
            raise ArgProblem(Problem.TAG_NOT_USED)
        tag = clean_name(value).strip()
        if uses_tags == "slot":
            tag = tag.upper()
            if tag not in ("A", "B"):
                raise ArgProblem(Problem.BAD_SLOT, value[:20])
        elif not tag or len(tag) > MAX_TAG or any(ch in tag for ch in "=<>@"):
            raise ArgProblem(Problem.BAD_TAG, value[:20])
    return SignupWords(tuple(words), tag or "")


def _winner(word: str, event_word: str) -> int | None:
    if word.lower() in BOTH_OUT_WORDS:
        return None
    number = group_number(word, event_word)
    if number is None:
        raise ArgProblem(Problem.BAD_WINNER, word[:20])
    return number


def group_number(word: str, event_word: str) -> int | None:
    """A group as organisers type it: ``8``, ``8组``, ``第8组``, ``掼蛋8组``, ``掼蛋八组`` (full-width
    digits too); None when the word reads as none of these (a reason, a code, figures)."""
    folded = unicodedata.normalize("NFKC", word).strip()
    if folded.isdigit():
        return int(folded) if int(folded) <= MAX_GROUP else None
    try:
        return parse_report(folded if folded.startswith(event_word) else event_word + folded, event_word)
    except ContestError:
        return None


class Unclear(Enum):
    """Why a group typed in a match code's place (``/result 8 理由``) named no single match."""

    NO_PAIR = "no_pair"  # the contest has no such group
    NO_MATCH = "no_match"  # the group has no match in the round in play (a bye, or out)
    WHICH_WON = "which_won"  # two groups typed (/result 8 3 理由): which one won?


class MatchUnclear(ValueError):
    """``/result GROUP …`` whose group names no single match: ``matches`` are what to type
    instead (the group's match, or the round's matches still waiting for a result)."""

    def __init__(self, why: Unclear, group: int, matches: tuple[ContestMatch, ...]) -> None:
        super().__init__(f"{why.value}: {group}")
        self.why = why
        self.group = group
        self.matches = matches


def read_decision(args: Sequence[str], contest: Contest) -> Decision:
    """``/result CODE WINNER …`` (:func:`parse_decision`), or as organisers type it after 有异议,
    the winner's group in the code's place: ``/result 掼蛋8组 有异议成立`` decides 8组's match of the
    round in play for 8组 (``/result 8 none 理由``: that match, both out). ``named_by`` then
    keeps the group, so the answer says which match was understood."""
    if not args:
        raise ArgProblem(Problem.RESULT_USAGE)
    event = contest.settings.event_word
    first, rest = args[0], list(args[1:])
    if _is_code(contest, first):
        return parse_decision(args, event)
    group = group_number(first, event)
    if group is None:
        raise ArgProblem(Problem.NOT_A_MATCH if rest else Problem.RESULT_USAGE, first[:20])
    match = match_of_group(contest, group)
    if rest and rest[0].lower() in BOTH_OUT_WORDS | NO_WINNER_WORDS:
        words = [match.code, *rest]
    elif rest and group_number(rest[0], event) is not None:
        raise MatchUnclear(Unclear.WHICH_WON, group, (match,))
    else:
        words = [match.code, first, *rest]
    return replace(parse_decision(words, event), named_by=group)


def _is_code(contest: Contest, word: str) -> bool:
    try:
        contest.match_by_code(word)
    except ContestError:
        return False
    return True


def match_of_group(contest: Contest, group: int) -> ContestMatch:
    """The group's match in the round in play, or :class:`MatchUnclear` with the round's
    matches still waiting for a result (what the organiser may have meant)."""
    current = contest.current_round
    if current is None:
        raise ResultRefused(Refusal.NOT_DRAWN)
    found = current.match_of(group)
    if found is not None:
        return found
    waiting = tuple(m for m in current.matches if not m.status.is_settled)
    known = any(p.number == group for p in contest.pairs)
    raise MatchUnclear(Unclear.NO_MATCH if known else Unclear.NO_PAIR, group, waiting)


def parse_schedule(args: Sequence[str], zone_name: str, now: datetime | None = None) -> Schedule | None:
    """``/round next [at=YYYY-MM-DDTHH:MM] [place=6楼会议室]`` (a fixed time and place, in the
    contest's zone), ``[deadline=YYYY-MM-DD[THH:MM]]`` (self-scheduled) or ``[bot]``; None: the
    format's default. Words after ``place=`` without ``=`` belong to the place."""
    at: datetime | None = None
    venue: list[str] = []
    deadline: Deadline | None = None
    bot = False
    in_place = False
    for arg in args:
        key, sep, value = arg.partition("=")
        key = key.strip().lower()
        if not sep:
            if in_place:
                venue.append(arg)
            elif key == "bot":
                bot = True
            else:
                raise ArgProblem(Problem.USAGE_ROUND, arg[:20])
            continue
        in_place = key == "place"
        if key == "at":
            at = _local_time(value.strip(), zone_name)
        elif key == "place":
            venue.append(value.strip())
        elif key == "deadline":
            deadline = Deadline.parse(value, zone_name)
            if now is not None:
                deadline.check_ahead(now)
        else:
            raise ArgProblem(Problem.USAGE_ROUND, key[:20])
    place = " ".join(v for v in venue if v)[:MAX_VENUE]
    if sum((at is not None or bool(place), deadline is not None, bot)) > 1:
        raise ArgProblem(Problem.USAGE_ROUND)  # one schedule per round
    if at is not None or place:
        return Schedule(ScheduleKind.FIXED, starts_at=at, venue=place)
    if deadline is not None:
        return Schedule(ScheduleKind.SELF_SCHEDULED, deadline=deadline)
    return Schedule(ScheduleKind.BOT) if bot else None


def _local_time(text: str, zone_name: str) -> datetime:
    found = _AT.match(text)
    if found is None:
        raise ArgProblem(Problem.BAD_TIME, text[:20])
    year, month, day, hour, minute = (int(part) for part in found.groups())
    where = zone(zone_name)
    try:
        moment = datetime(year, month, day, hour, minute, tzinfo=where)
        moment.astimezone(UTC)  # 0001-01-01T00:00 east of UTC is before datetime.min
        return moment
    except (ValueError, OverflowError) as error:
        raise ArgProblem(Problem.BAD_TIME, text[:20]) from error


_TABLE: Final = re.compile(r"^(\d{1,3})(?:号桌|号|桌)?$")
_GROUP: Final = re.compile(r"^(\d{1,3})组?$")
_MINUTES: Final = re.compile(r"^(\d{1,3})(?:分钟|分|min|m)?$", re.IGNORECASE)


def parse_table(args: Sequence[str]) -> int | None:
    """``/round start [TABLE]``: no word → every table; ``3`` or ``3号桌`` → table 3."""
    if not args:
        return None
    found = _TABLE.match(args[0]) if len(args) == 1 else None
    if found is None or int(found.group(1)) == 0:
        raise ArgProblem(Problem.USAGE_START, " ".join(args))
    return int(found.group(1))


@dataclass(frozen=True, slots=True)
class LateWords:
    code: str
    pair: int
    minutes: int


def parse_late(args: Sequence[str], event_word: str) -> LateWords:
    """``/late CODE GROUP MINUTES``: GROUP as ``3``, ``3组`` or ``掼蛋3组``; MINUTES as ``12``
    or ``12分钟``."""
    if len(args) != 3:
        raise ArgProblem(Problem.USAGE_LATE)
    code, group, minutes = args
    number = _GROUP.match(group.removeprefix(event_word))
    found = _MINUTES.match(minutes)
    if number is None or int(number.group(1)) == 0:
        raise ArgProblem(Problem.BAD_WINNER, group[:20])
    if found is None:
        raise ArgProblem(Problem.USAGE_LATE, minutes[:20])
    return LateWords(code, int(number.group(1)), int(found.group(1)))
