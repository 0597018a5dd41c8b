"""Deadlines in Asia/Shanghai while the machine (and every datetime here) is UTC."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from engine.contest import Deadline, Refusal, ScheduleRefused, next_day_of_month

SHANGHAI_MIDNIGHT_20TH = datetime(2026, 12, 19, 16, 0, tzinfo=UTC)  # 2026-12-20 00:00 +08:00


def test_a_date_means_that_whole_local_day() -> None:
    deadline = Deadline.parse("2026-12-19")
    assert deadline.closes_at == SHANGHAI_MIDNIGHT_20TH
    assert deadline.last_day == date(2026, 12, 19)
    assert str(deadline) == "2026-12-19 23:59 Asia/Shanghai"


def test_before_the_20th_is_the_same_instant_as_through_the_19th() -> None:
    """000-E "在20号之前", A19: strict, the last day is the 19th."""
    assert Deadline.before_day(date(2026, 12, 20)) == Deadline.parse("2026-12-19")
    assert Deadline.through_day(date(2026, 12, 20)).last_day == date(2026, 12, 20)  # the looser reading


@pytest.mark.parametrize(
    ("moment", "on_time"),
    [
        (datetime(2026, 12, 19, 15, 59, 0, tzinfo=UTC), True),  # 23:59:00 Shanghai
        (datetime(2026, 12, 19, 15, 59, 59, 999999, tzinfo=UTC), True),  # 23:59:59.999999
        (SHANGHAI_MIDNIGHT_20TH, False),  # 00:00 on the 20th
        (datetime(2026, 12, 19, 16, 0, 1, tzinfo=UTC), False),
        # The UTC date is still the 19th long after the Shanghai deadline: local time decides.
        (datetime(2026, 12, 19, 20, 0, tzinfo=UTC), False),
        (datetime(2026, 12, 19, 0, 30, tzinfo=UTC), True),  # 08:30 on the 19th local
    ],
)
def test_the_edge_is_local_midnight(moment: datetime, on_time: bool) -> None:
    assert Deadline.parse("2026-12-19").is_on_time(moment) is on_time


def test_a_time_is_the_last_minute_allowed() -> None:
    deadline = Deadline.parse("2026-12-19T23:59")
    assert deadline == Deadline.parse("2026-12-19")
    evening = Deadline.parse("2026-12-19T18:00")
    assert evening.is_on_time(datetime(2026, 12, 19, 10, 0, 59, tzinfo=UTC))  # 18:00:59 local
    assert not evening.is_on_time(datetime(2026, 12, 19, 10, 1, tzinfo=UTC))  # 18:01 local


def test_another_zone() -> None:
    deadline = Deadline.parse("2026-12-19", "Europe/London")
    assert deadline.closes_at == datetime(2026, 12, 20, 0, 0, tzinfo=UTC)


def test_naive_datetimes_are_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        Deadline.parse("2026-12-19").is_on_time(datetime(2026, 12, 19, 12, 0))


@pytest.mark.parametrize("text", ["2026-12-32", "19.12.2026", "2026-12-19T24:00", "2026-13-01", "tomorrow"])
def test_bad_deadlines_are_refused(text: str) -> None:
    with pytest.raises(ScheduleRefused) as refused:
        Deadline.parse(text)
    assert refused.value.code is Refusal.BAD_DEADLINE


def test_unknown_zone_is_refused() -> None:
    with pytest.raises(ScheduleRefused):
        Deadline.parse("2026-12-19", "Mars/Olympus")


def test_reminders_48_and_24_hours_before_still_ahead() -> None:
    deadline = Deadline.parse("2026-12-19")
    early = datetime(2026, 12, 1, tzinfo=UTC)
    assert deadline.reminders(early) == (
        SHANGHAI_MIDNIGHT_20TH - timedelta(hours=48),
        SHANGHAI_MIDNIGHT_20TH - timedelta(hours=24),
    )
    late = SHANGHAI_MIDNIGHT_20TH - timedelta(hours=30)
    assert deadline.reminders(late) == (SHANGHAI_MIDNIGHT_20TH - timedelta(hours=24),)
    assert deadline.reminders(SHANGHAI_MIDNIGHT_20TH) == ()


def test_the_20th_without_a_month_is_the_next_one_in_local_time() -> None:
    # 2026-12-19 17:00 UTC is already the 20th in Shanghai: "the 20th" is today, not January.
    assert next_day_of_month(20, datetime(2026, 12, 19, 17, 0, tzinfo=UTC)) == date(2026, 12, 20)
    assert next_day_of_month(20, datetime(2026, 12, 20, 16, 0, tzinfo=UTC)) == date(2027, 1, 20)
    assert next_day_of_month(31, datetime(2027, 2, 1, tzinfo=UTC)) == date(2027, 3, 31)


NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # the tests' own "now"


@pytest.mark.parametrize(
    ("text", "zone_name"),
    [
        ("9999-12-31", "Asia/Shanghai"),
        ("9999-12-31T23:59", "Etc/GMT+12"),
        ("0001-01-01T00:00", "Asia/Tokyo"),
        ("2026-12-19", "A" * 300),
        ("2026-12-19", "Asia/" + "x" * 295),
        ("2026-12-19", "../../etc/passwd"),
    ],
)
def test_dates_and_zones_out_of_range_are_a_refusal_not_an_overflow(text: str, zone_name: str) -> None:
    with pytest.raises(ScheduleRefused) as refused:
        Deadline.parse(text, zone_name)
    assert refused.value.code is Refusal.BAD_DEADLINE


@pytest.mark.parametrize("text", ["2020-01-01", "0001-01-01", "2026-11-30", "2026-12-01T19:59"])
def test_a_deadline_that_has_passed_is_refused(text: str) -> None:
    with pytest.raises(ScheduleRefused) as refused:
        Deadline.parse(text).check_ahead(NOW)  # 20:00 in Shanghai
    assert refused.value.code is Refusal.DEADLINE_PASSED


def test_a_deadline_years_ahead_is_refused_and_one_ahead_kept() -> None:
    with pytest.raises(ScheduleRefused) as refused:
        Deadline.parse("9999-12-30").check_ahead(NOW)
    assert refused.value.code is Refusal.DEADLINE_TOO_FAR
    assert Deadline.parse("2026-12-01T20:00").check_ahead(NOW) == Deadline.parse("2026-12-01T20:00")
    assert Deadline.parse("2027-06-01").check_ahead(NOW).last_day == date(2027, 6, 1)
