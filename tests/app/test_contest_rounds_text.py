"""Later rounds' schedule as the organiser types it (/round next at=… place=…), and what the
pairing message and a contest table's lobby say (Telegram-free)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.contest import texts
from app.contest.args import ArgProblem, parse_schedule
from app.contest.views import plain
from engine.contest import FORMATS, Schedule, ScheduleKind, draw, draw_next_round
from engine.contest.errors import ScheduleRefused
from engine.contest.movement import drawn_groups
from tests.engine.contest.support import ON_TIME, report_win, signed_up

ZONE = "Asia/Shanghai"


def test_at_and_place_are_a_fixed_time_in_the_contests_zone() -> None:
    schedule = parse_schedule(["at=2026-12-26T14:00", "place=6楼会议室"], ZONE)
    assert schedule == Schedule(
        ScheduleKind.FIXED, starts_at=datetime(2026, 12, 26, 6, 0, tzinfo=UTC), venue="6楼会议室"
    )
    assert parse_schedule(["place=6楼", "会议室"], ZONE) == Schedule(ScheduleKind.FIXED, venue="6楼 会议室")


@pytest.mark.parametrize(
    ("args", "kind"),
    [([], None), (["bot"], ScheduleKind.BOT), (["deadline=2026-12-30"], ScheduleKind.SELF_SCHEDULED)],
)
def test_other_schedules(args: list[str], kind: ScheduleKind | None) -> None:
    schedule = parse_schedule(args, ZONE)
    assert (schedule.kind if schedule else None) is kind


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["at=2026-12-26"], "bad_time"),
        (["at=2026-13-26T14:00"], "bad_time"),
        (["at=tomorrow"], "bad_time"),
        (["when=2026-12-26T14:00"], "usage_round"),
        (["soon"], "usage_round"),
        (["at=2026-12-26T14:00", "bot"], "usage_round"),
        (["place=会议室", "deadline=2026-12-30"], "usage_round"),
    ],
)
def test_bad_schedules_are_refused_with_a_reason(args: list[str], code: str) -> None:
    with pytest.raises(ArgProblem) as refused:
        parse_schedule(args, ZONE)
    assert refused.value.code == code
    assert texts.problem_text(refused.value.code, refused.value.detail, "zh") != texts._(
        "That is not possible right now.", "zh"
    )


def test_a_bad_deadline_is_the_contests_refusal() -> None:
    with pytest.raises(ScheduleRefused):
        parse_schedule(["deadline=2026-02-30"], ZONE)


def semi_finals_done():
    contest = draw(signed_up(4), now=ON_TIME).contest
    for match in contest.rounds[0].matches:
        contest = report_win(contest, match.pairs[0])
    return contest


def test_the_pairing_message_gives_the_local_time_and_place_and_marks_results() -> None:
    contest = semi_finals_done()
    fixed = Schedule(
        ScheduleKind.FIXED, starts_at=datetime(2026, 12, 26, 6, 0, tzinfo=UTC), venue="6楼会议室"
    )
    contest = draw_next_round(contest, now=ON_TIME, schedule=fixed).contest
    text = texts.round_text(contest, 2, "zh")
    assert "2026-12-26 14:00 6楼会议室" in text  # Shanghai time, not UTC
    assert "三四名" in text
    first = texts.round_text(contest, 1, "zh")
    for match in contest.rounds[0].matches:
        assert f"{match.code}</code> → {match.winner}组" in first
    assert "→" not in text


def test_a_contest_tables_lobby_names_the_contest_the_pairs_and_the_code() -> None:
    contest = semi_finals_done()
    match = contest.rounds[0].matches[0]
    a, b = (contest.pair(n) for n in match.pairs)
    for locale in ("zh", "en"):
        heading = texts.table_heading(contest, match, locale)
        assert contest.name in heading and match.code in heading
        assert a.players[0].name in heading and b.players[1].name in heading
    assert f"{a.number}组" in texts.table_heading(contest, match, "zh")
    assert f"Pair {b.number}" in texts.table_heading(contest, match, "en")


def test_a_movement_round_lists_each_group_above_its_tables_in_table_position_order() -> None:
    """001-B with 10 pairs: groups of 4 + 3 + 3, each named above its tables with its pairs in
    movement-table order (the first listed sits NS); a group of three's third pair sits out."""
    contest = draw(signed_up(10, format_name="movement", preset="three-round-movement"), now=ON_TIME).contest
    text = texts.round_text(contest, 1, "zh")
    drawn = drawn_groups(contest.seed, [p.number for p in contest.pairs])
    assert [len(g) for g in drawn] == [4, 3, 3]
    lines = text.splitlines()
    for index, group in enumerate(drawn, start=1):
        header = f"<b>第{index}小组</b>：" + "、".join(f"{n}组" for n in group)
        assert header in lines
        first_table = next(m for m in contest.rounds[0].matches if m.pairs[0] in group)
        assert first_table.pairs == (group[0], group[1])  # round 1: position 1 v 2
    (bye,) = (n for n in contest.rounds[0].byes if n in drawn[1])
    assert f"{bye}组" in text and "本轮轮空" in text and "下一轮抽签" not in text


def test_a_swiss_bye_scores_a_win_and_says_so() -> None:
    contest = draw(signed_up(5, format_name="swiss"), now=ON_TIME).contest
    (bye,) = contest.rounds[0].byes
    text = texts.round_text(contest, 1, "zh")
    assert f"{bye}组" in text and "轮空（记胜）" in text


def test_contest_help_describes_every_format_in_the_players_language() -> None:
    """Chinese by default: every format's description is shown in Chinese (it was English),
    one format at a time (/contest help FORMAT)."""
    for fmt in FORMATS.values():
        zh, en = texts.format_help(fmt.name, "zh"), texts.format_help(fmt.name.upper(), "en")
        assert fmt.description_zh and fmt.description_zh in zh and fmt.description not in zh
        assert fmt.description in en and fmt.title_zh in zh


def test_contest_help_is_a_short_list_naming_every_format() -> None:
    """It was ~2,000 characters of every format's rules in one message (issue 18.14)."""
    for locale in ("zh", "en"):
        short = texts.formats_help(locale)
        assert len(plain(short)) <= 1500, len(plain(short))
        assert all(f"<code>{fmt.name}</code>" in short for fmt in FORMATS.values())
        assert not any(fmt.description_zh in short or fmt.description in short for fmt in FORMATS.values())
        assert "/contest help" in short and "6 9:5" in short
    unknown = texts.format_help("nope", "zh")
    assert "nope" in unknown and all(fmt.name in unknown for fmt in FORMATS.values())
