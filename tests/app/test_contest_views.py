"""The contest's Telegram-free side: typed arguments, button data, texts, views and the CSV."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest

from app.contest import texts
from app.contest.args import ArgProblem, parse_decision, parse_new
from app.contest.callback_data import BadContestButton, ContestOp, ContestPress
from app.contest.views import bracket_view, export_csv, plain, standings_view
from engine.contest import PlayMethod, Refusal, draw, official_line, report_text
from engine.contest.errors import ScheduleRefused
from render.contest import render_bracket, render_standings
from tests.engine.contest.support import ON_TIME, signed_up


def drawn(pairs: int = 4, singles: int = 0):
    return draw(signed_up(pairs, singles), now=ON_TIME).contest


# ---------------------------------------------------------------- /contest new and /result


def test_new_reads_name_options_and_deadline_in_the_zone():
    new = parse_new(["中心", "掼蛋赛", "deadline=2026-12-19", "tz=Asia/Shanghai", "prizes=冠军:1,优胜奖:4"])
    assert new.name == "中心 掼蛋赛"
    assert new.settings.deadline is not None
    assert new.settings.deadline.closes_at == datetime(
        2026, 12, 19, 16, 0, tzinfo=UTC
    )  # 00:00 the 20th, Shanghai
    assert [(t.name, t.pairs) for t in new.settings.prize_tiers] == [("冠军", 1), ("优胜奖", 4)]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ([], "name_missing"),
        (["x", "colour=red"], "unknown_option"),
        (["x", "event=掼蛋", "event=升级"], "repeated_option"),
        (["x", "event=掼蛋3"], "bad_event"),
        (["x", "prizes=冠军:0"], "bad_prizes"),
        (["x" * 61], "name_too_long"),
    ],
)
def test_new_refuses_with_a_code(args, code):
    with pytest.raises(ArgProblem) as refused:
        parse_new(args)
    assert refused.value.code == code


def test_new_refuses_a_bad_deadline_or_zone():
    with pytest.raises(ScheduleRefused):
        parse_new(["x", "deadline=2026-13-40"])
    with pytest.raises(ScheduleRefused):
        parse_new(["x", "tz=Mars/Base"])


def test_decision_reads_winner_points_extra_and_reason():
    decision = parse_decision(["K7QXM3RT", "掼蛋三组", "9:5", "加赛", "对方", "迟到"], "掼蛋")
    assert decision.result.winner == 3 and decision.result.points == (9, 5) and decision.result.extra_deal
    assert decision.result.method is PlayMethod.ORGANISER
    assert decision.reason == "对方 迟到"
    both = parse_decision(["K7QXM3RT", "none", "都没来"], "掼蛋")
    assert both.result.winner is None and both.result.method is PlayMethod.BOTH_OUT


@pytest.mark.parametrize(
    ("args", "code"),
    [(["K7"], "result_usage"), (["K7", "3"], "reason_missing"), (["K7", "三队", "x"], "bad_winner")],
)
def test_decision_refusals(args, code):
    with pytest.raises(ArgProblem) as refused:
        parse_decision(args, "掼蛋")
    assert refused.value.code == code


# ---------------------------------------------------------------- buttons


def test_button_data_round_trips_and_fits():
    press = ContestPress(ContestOp.CONFIRM, 123456, "K7QXM3RT")
    assert ContestPress.decode(press.encode()) == press
    assert len(press.encode().encode()) <= 64
    for bad in ("k:zz:1", "h:ok:1:X", "k:ok:x:Y", "k:ok"):
        with pytest.raises(BadContestButton):
            ContestPress.decode(bad)


# ---------------------------------------------------------------- texts


def test_every_refusal_has_its_own_text_in_both_languages():
    fallback = {texts._("That is not possible right now.", loc) for loc in ("zh", "en")}
    for code in Refusal:
        for locale in ("zh", "en"):
            assert texts.refusal_text(code, locale) not in fallback, code
    assert texts.refusal_text(Refusal.LATE, "zh") != texts.refusal_text(Refusal.LATE, "en")


def test_names_are_escaped_in_html_texts():
    contest = signed_up(2)
    evil = contest.entries[0].player.__class__(999, "<b>&Bob")
    text = texts.signup_done_text(contest, evil.name, None, "en")
    assert "<b>&Bob" not in text and "&lt;b&gt;&amp;Bob" in text


def test_round_text_lists_every_match_code_and_the_deadline():
    contest = drawn(4)
    text = texts.round_text(contest, 1, "zh")
    assert all(m.code in text for m in contest.rounds[0].matches)
    assert "2026-12-19 23:59 Asia/Shanghai" in text
    assert "第 1 轮对阵" in text


def test_details_show_points_extra_deal_and_method():
    contest = drawn(4)
    match = contest.rounds[0].matches[0]
    winner = match.pairs[1]
    step = report_text(
        contest, reporter=contest.pair(winner).user_ids[0], text=f"掼蛋{winner}组", now=ON_TIME
    )
    match = step.contest.match_by_code(match.code)
    text = texts.details_text(step.contest, match, match.facts[0], "P100", "en")
    assert f"Pair {winner}" in text and "reported by P100" in text and match.code in text
    assert official_line(winner) not in text.splitlines()  # the official line is a message of its own


def test_privacy_text_says_whether_typed_lines_are_seen():
    assert "✅" in texts.privacy_text(False, True, "掼蛋", "zh")
    blind = texts.privacy_text(False, False, "掼蛋", "en")
    assert "/setprivacy" in blind and "/report 掼蛋3组" in blind


def test_the_webhook_key_is_never_shown_whole():
    masked = texts.mask_url(
        "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693axxx-7aoc-4bc4-97a0-0ec2sifa5aaa"
    )
    assert "693axxx" not in masked and masked.endswith("key=69…aa")


# ---------------------------------------------------------------- views, pictures, CSV


def test_plain_drops_tags_and_decodes_entities():
    assert plain("<b>1组</b> A &amp; B &lt;x&gt;") == "1组 A & B <x>"


def test_standings_and_bracket_pictures_are_drawn():
    contest = drawn(4, 2)
    for number in (m.pairs[0] for m in contest.rounds[0].matches):
        contest = report_text(
            contest, reporter=contest.pair(number).user_ids[0], text=f"掼蛋{number}组", now=ON_TIME
        ).contest
    view = standings_view(contest, "zh")
    marks = [c.header for c in view.columns].index("各轮")
    assert len(view.rows) == 5 and sum(line.cells[marks] == "✓" for line in view.rows) == 2
    assert render_standings(view, locale="zh").startswith(b"\x89PNG")
    assert render_bracket(bracket_view(contest, "zh"), locale="zh").startswith(b"\x89PNG")


def test_export_is_one_utf8_csv_with_the_four_tables():
    contest = drawn(4)
    data = export_csv(contest)
    assert data.startswith("\ufeff".encode())
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    titles = [row[0] for row in rows if row and row[0].startswith("# ")]
    assert titles == ["# entrants", "# matches", "# reports", "# standings"]
    assert sum(1 for row in rows if len(row) > 3 and row[3] == "main") == 2


@pytest.mark.parametrize(
    "name", ['=HYPERLINK("http://evil.example/","x")', "+cmd|' /C calc'!A0", "@SUM(1)", "-2+3", "\tX", "\rX"]
)
def test_export_neutralises_names_a_spreadsheet_would_run(name):
    from engine.contest import Player, sign_up

    contest, _ = sign_up(signed_up(2), Player(900, name))
    contest, _ = sign_up(contest, Player(901, name + "2"))
    contest = draw(contest, now=ON_TIME).contest
    rows = list(csv.reader(io.StringIO(export_csv(contest).decode("utf-8-sig"))))
    cells = [cell for row in rows for cell in row if name in cell]
    assert cells and all(cell.startswith("'") for cell in cells)
    # nothing in the file starts a formula any more, but the bot's own numbers stay numbers
    risky = [c for row in rows for c in row if c[:1] in ("=", "+", "@", "\t", "\r")]
    assert not risky
    assert all(c.lstrip("-").replace(".", "").isdigit() for row in rows for c in row if c.startswith("-"))


def test_export_keeps_negative_numbers_as_numbers():
    from app.contest.views import csv_cell

    assert csv_cell(-3) == -3 and csv_cell("-0.5") == "-0.5" and csv_cell("-2+3") == "'-2+3"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["x", "deadline=2020-01-01"], Refusal.DEADLINE_PASSED),
        (["x", "deadline=0001-01-01"], Refusal.DEADLINE_PASSED),
        (["x", "deadline=9999-12-31"], Refusal.BAD_DEADLINE),
        (["x", "deadline=9999-12-31T23:59", "tz=Etc/GMT+12"], Refusal.BAD_DEADLINE),
        (["x", "deadline=0001-01-01T00:00", "tz=Asia/Tokyo"], Refusal.BAD_DEADLINE),
        (["x", "tz=" + "Z" * 300], Refusal.BAD_DEADLINE),
    ],
)
def test_new_refuses_dates_past_or_out_of_range_with_a_clear_answer(args, code):
    with pytest.raises(ScheduleRefused) as refused:
        parse_new(args, now=datetime(2026, 12, 1, 12, 0, tzinfo=UTC))
    assert refused.value.code is code
    for locale in ("zh", "en"):
        assert texts.refusal_text(refused.value.code, locale)


def test_round_next_refuses_a_passed_deadline_and_an_impossible_time():
    from app.contest.args import parse_schedule

    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    with pytest.raises(ScheduleRefused):
        parse_schedule(["deadline=2020-01-01"], "Asia/Shanghai", now=now)
    with pytest.raises(ArgProblem):
        parse_schedule(["at=0001-01-01T00:00"], "Asia/Tokyo", now=now)


def test_the_bracket_of_a_redraw_knockout_names_pairs_and_shows_the_rounds_to_come():
    """Issue 18.13: it was one narrow column of group numbers in the left third of the picture."""
    from io import BytesIO

    from PIL import Image

    from render.contest import bracket_image

    contest = drawn(8)  # wechat-knockout: redrawn every round
    contest = report_text(
        contest, reporter=contest.pair(contest.rounds[0].matches[0].pairs[0]).user_ids[0],
        text=f"掼蛋{contest.rounds[0].matches[0].pairs[0]}组", now=ON_TIME,
    ).contest  # fmt: skip
    view = bracket_view(contest, "zh")
    assert [r.name for r in view.rounds] == ["1/4决赛", "半决赛", "决赛"]
    assert [len(r.matches) for r in view.rounds] == [4, 2, 1]
    assert view.rounds[1].to_come and view.rounds[2].matches[0].pairs == (None, None)
    names = [p for m in view.rounds[0].matches for p in m.pairs]
    assert all(p is not None and "组 " in p and "/" in p for p in names)  # number and names
    image = bracket_image(view, locale="zh")
    assert image.width == 1080
    right_third = image.crop((image.width * 2 // 3, 0, image.width, image.height)).convert("L")
    assert min(right_third.getdata()) < 128  # the rounds to come are drawn there
    assert Image.open(BytesIO(render_bracket(view, locale="zh"))).width == 1080


def test_a_decided_knockout_shows_no_rounds_to_come():
    contest = drawn(2)
    contest = report_text(contest, reporter=contest.pair(1).user_ids[0], text="掼蛋1组", now=ON_TIME).contest
    assert len(bracket_view(contest, "zh").rounds) == 1
