"""Reading the organiser's typed words: ``/contest new …``, ``/contest deadline …``, ``/result …``.

A refusal is an :class:`ArgProblem` whose ``code`` picks the localized answer and whose
``detail`` is the word at fault (shown back, escaped). Contest rules themselves (a known
format, a known preset, a valid deadline) are checked by :mod:`engine.contest`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Final

from engine.contest import (
    DEFAULT_PRIZES,
    ContestError,
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

MAX_NAME: Final = 60  # characters of a contest name
MAX_REASON: Final = 300
OPTIONS: Final = ("format", "preset", "deadline", "tz", "event", "prizes")
BOTH_OUT_WORDS: Final = frozenset({"none", "both-out", "bothout", "双出", "两组出局", "均出局"})
_POINTS: Final = re.compile(r"^(\d{1,3})[:：](\d{1,3})$")
_AT: Final = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})$")
MAX_VENUE: Final = 40


class ArgProblem(ValueError):
    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclass(frozen=True, slots=True)
class NewContest:
    name: str
    settings: ContestSettings
    deadline_text: str | None  # parsed once the zone is known


def parse_new(args: Sequence[str]) -> NewContest:
    """``NAME [format=…] [preset=…] [deadline=YYYY-MM-DD[THH:MM]] [tz=…] [event=…] [prizes=…]``."""
    words, options = _split(args)
    name = " ".join(words).strip()
    if not name:
        raise ArgProblem("name_missing")
    if len(name) > MAX_NAME:
        raise ArgProblem("name_too_long", name[:MAX_NAME])
    settings = ContestSettings()
    if "format" in options:
        settings = replace(settings, format_name=options["format"])
    if "preset" in options:
        settings = replace(settings, preset=options["preset"])
    if "event" in options:
        event = options["event"]
        if not event or any(ch.isdigit() or ch.isspace() for ch in event) or "组" in event or len(event) > 8:
            raise ArgProblem("bad_event", event)
        settings = replace(settings, event_word=event)
    if "tz" in options:
        zone(options["tz"])  # ScheduleRefused (bad_deadline) names an unknown zone
        settings = replace(settings, zone_name=options["tz"])
    if "prizes" in options:
        settings = replace(settings, prize_tiers=parse_prizes(options["prizes"]))
    deadline = options.get("deadline")
    if deadline is not None:
        settings = replace(settings, deadline=Deadline.parse(deadline, settings.zone_name))
    return NewContest(name, settings, deadline)


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
            raise ArgProblem("unknown_option", key[:20])
        if key in options:
            raise ArgProblem("repeated_option", key)
        options[key] = value.strip()
    return words, options


def parse_prizes(text: str) -> tuple[PrizeTier, ...]:
    """``冠军:1,亚军:1,季军:1,优胜奖:4`` (a name alone counts one pair)."""
    tiers = []
    for part in re.split(r"[,，、]", text):
        name, _, count = part.strip().partition(":")
        if not name.strip():
            raise ArgProblem("bad_prizes", text[:40])
        if count and not (count.isdigit() and 1 <= int(count) <= 64):
            raise ArgProblem("bad_prizes", part[:40])
        tiers.append(PrizeTier(name.strip()[:12], int(count) if count else 1))
    return tuple(tiers) or DEFAULT_PRIZES


@dataclass(frozen=True, slots=True)
class Decision:
    """``/result CODE WINNER [9:5] [extra] REASON…``"""

    code: str
    result: MatchResult
    reason: str


def parse_decision(args: Sequence[str], event_word: str) -> Decision:
    if len(args) < 2:
        raise ArgProblem("result_usage")
    code, winner_word, rest = args[0], args[1], list(args[2:])
    winner = _winner(winner_word, event_word)
    points = None
    if rest and (found := _POINTS.match(rest[0])):
        points = (int(found.group(1)), int(found.group(2)))
        rest = rest[1:]
    extra = bool(rest) and rest[0].lower() in ("extra", "加赛")
    if extra:
        rest = rest[1:]
    reason = " ".join(rest).strip()[:MAX_REASON]
    if not reason:
        raise ArgProblem("reason_missing")
    if winner is None:
        result = MatchResult(None, PlayMethod.BOTH_OUT)
    else:
        result = MatchResult(winner, PlayMethod.ORGANISER, points, extra)
    return Decision(code, result, reason)


def _winner(word: str, event_word: str) -> int | None:
    if word.lower() in BOTH_OUT_WORDS:
        return None
    if word.isdigit():
        return int(word)
    try:
        return parse_report(word, event_word)
    except ContestError as error:
        raise ArgProblem("bad_winner", word[:20]) from error


def parse_schedule(args: Sequence[str], zone_name: str) -> Schedule | None:
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
                raise ArgProblem("usage_round", arg[:20])
            continue
        in_place = key == "place"
        if key == "at":
            at = _local_time(value.strip(), zone_name)
        elif key == "place":
            venue.append(value.strip())
        elif key == "deadline":
            deadline = Deadline.parse(value, zone_name)
        else:
            raise ArgProblem("usage_round", key[:20])
    place = " ".join(v for v in venue if v)[:MAX_VENUE]
    if sum((at is not None or bool(place), deadline is not None, bot)) > 1:
        raise ArgProblem("usage_round")  # one schedule per round
    if at is not None or place:
        return Schedule(ScheduleKind.FIXED, starts_at=at, venue=place)
    if deadline is not None:
        return Schedule(ScheduleKind.SELF_SCHEDULED, deadline=deadline)
    return Schedule(ScheduleKind.BOT) if bot else None


def _local_time(text: str, zone_name: str) -> datetime:
    found = _AT.match(text)
    if found is None:
        raise ArgProblem("bad_time", text[:20])
    year, month, day, hour, minute = (int(part) for part in found.groups())
    try:
        return datetime(year, month, day, hour, minute, tzinfo=zone(zone_name))
    except ValueError as error:
        raise ArgProblem("bad_time", text[:20]) from error
