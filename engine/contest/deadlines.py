"""Deadlines in the contest's time zone, stored as one UTC instant.

The rule, for every form: **the named day or minute is the last one allowed.**

* ``deadline=2026-12-19`` — reports are on time through 23:59:59 on the 19th, local
  time; the deadline *closes at* 2026-12-20 00:00 local.
* ``deadline=2026-12-19T18:00`` — on time through 18:00:59; closes at 18:01.
* "在20号之前" (000-E, docs/rules.md §4.8, A19) is :meth:`Deadline.before_day`: strictly before
  the 20th, so the last day is the 19th — the same instant as ``deadline=…-19``.
  The looser spoken reading "by the 20th" is :meth:`Deadline.through_day` of the 20th.

A report at time *t* is on time iff ``t < closes_at``; with one exclusive instant
there is no 23:59:59.5 gap and no double-counted midnight. Time is always passed in
as an aware datetime (the machine runs UTC; the contest may not), never read here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.contest.errors import Refusal, ScheduleRefused

DEFAULT_ZONE: Final = "Asia/Shanghai"
DEFAULT_REMINDERS: Final = (timedelta(hours=48), timedelta(hours=24))
_FORM: Final = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?$")


MAX_ZONE_NAME: Final = 64
"""The longest IANA zone name is 32 characters; a longer ``tz=`` is not a zone (a 300-character
name made the file system refuse the look-up with OSError)."""

MAX_AHEAD: Final = timedelta(days=366 * 2)
"""How far ahead a deadline may be: beyond it, it is a typing error (``9999-12-31``)."""


def zone(name: str) -> ZoneInfo:
    """The named IANA zone, or :class:`ScheduleRefused` for an unknown name."""
    if not name or len(name) > MAX_ZONE_NAME:
        raise ScheduleRefused(Refusal.BAD_DEADLINE, f"unknown time zone {name[:MAX_ZONE_NAME]!r}")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as error:
        raise ScheduleRefused(Refusal.BAD_DEADLINE, f"unknown time zone {name!r}") from error


def aware(moment: datetime) -> datetime:
    """Refuse naive datetimes: a contest's time must never depend on the machine's zone."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("contest times must be timezone-aware")
    return moment


@dataclass(frozen=True, slots=True)
class Deadline:
    """The first instant that is late (``closes_at``, aware) and the zone it is shown in."""

    closes_at: datetime
    zone_name: str = DEFAULT_ZONE

    def __post_init__(self) -> None:
        # Kept in UTC so arithmetic (reminders) is on instants, not local wall-clock time.
        object.__setattr__(self, "closes_at", aware(self.closes_at).astimezone(UTC))

    @classmethod
    def parse(cls, text: str, zone_name: str = DEFAULT_ZONE) -> Deadline:
        """``YYYY-MM-DD`` (that whole day) or ``YYYY-MM-DDTHH:MM`` (through that minute)."""
        found = _FORM.match(text.strip())
        if found is None:
            raise ScheduleRefused(Refusal.BAD_DEADLINE, text)
        year, month, day, hour, minute = found.groups()
        where = zone(zone_name)
        try:
            day_ = date(int(year), int(month), int(day))
            if hour is None:
                deadline = cls.through_day(day_, zone_name)
            else:
                local = datetime.combine(day_, time(int(hour), int(minute)), tzinfo=where)
                deadline = cls(local.astimezone(UTC) + timedelta(minutes=1), zone_name)
            str(deadline)  # it can be shown (the last minute, in its zone)
        except (ValueError, OverflowError) as error:  # 9999-12-31, 0001-01-01T00:00 in Tokyo
            raise ScheduleRefused(Refusal.BAD_DEADLINE, text) from error
        return deadline

    def check_ahead(self, now: datetime) -> Deadline:
        """This deadline, if it is still ahead of ``now`` and within :data:`MAX_AHEAD`: a
        deadline that has passed would open a contest whose card shows it in the past."""
        if self.closes_at <= aware(now):
            raise ScheduleRefused(Refusal.DEADLINE_PASSED, str(self))
        if self.closes_at - aware(now) > MAX_AHEAD:
            raise ScheduleRefused(Refusal.DEADLINE_TOO_FAR, str(self))
        return self

    @classmethod
    def through_day(cls, day: date, zone_name: str = DEFAULT_ZONE) -> Deadline:
        """On time through the whole of ``day``: closes at the next local midnight."""
        return cls(_midnight(day + timedelta(days=1), zone_name), zone_name)

    @classmethod
    def before_day(cls, day: date, zone_name: str = DEFAULT_ZONE) -> Deadline:
        """ "在20号之前": strictly before ``day``; the last day allowed is the day before (A19)."""
        return cls(_midnight(day, zone_name), zone_name)

    @property
    def local_closes_at(self) -> datetime:
        return self.closes_at.astimezone(zone(self.zone_name))

    @property
    def last_day(self) -> date:
        """The last local day on which a report is on time."""
        return (self.local_closes_at - timedelta(microseconds=1)).date()

    def is_on_time(self, moment: datetime) -> bool:
        return aware(moment) < self.closes_at

    def reminders(
        self, now: datetime, before: tuple[timedelta, ...] = DEFAULT_REMINDERS
    ) -> tuple[datetime, ...]:
        """The reminder instants (``closes_at`` minus each offset) still ahead of ``now``, earliest first."""
        aware(now)
        return tuple(sorted(at for at in (self.closes_at - offset for offset in before) if at > now))

    def moved_to(self, zone_name: str) -> Deadline:
        return Deadline(self.closes_at, zone_name)

    def __str__(self) -> str:
        """The last allowed minute in local time, e.g. ``2026-12-19 23:59 Asia/Shanghai``."""
        last = self.local_closes_at - timedelta(minutes=1)
        return f"{last:%Y-%m-%d %H:%M} {self.zone_name}"


def _midnight(day: date, zone_name: str) -> datetime:
    """Local 00:00 of ``day`` (zoneinfo resolves a DST gap forwards; fold=0 picks the first)."""
    return datetime.combine(day, time(0), tzinfo=zone(zone_name))


def next_day_of_month(day: int, now: datetime, zone_name: str = DEFAULT_ZONE) -> date:
    """The next local date numbered ``day`` on or after ``now`` ("20号" without a month, A19)."""
    today = aware(now).astimezone(zone(zone_name)).date()
    year, month = today.year, today.month
    for _ in range(13):
        try:
            candidate = date(year, month, day)
        except ValueError:
            candidate = None
        if candidate is not None and candidate >= today:
            return candidate
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    raise ScheduleRefused(Refusal.BAD_DEADLINE, f"day {day}")
