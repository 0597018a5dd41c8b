"""Standings per format family as pictures, text and CSV; final places announced once.

Real contests (tests/engine/contest builders), real PNGs decoded with Pillow, a real
SQLite outbox for the announcement (the Telegram sender replaced by a recorder).
"""

from __future__ import annotations

import csv
import dataclasses
import io
from datetime import timedelta
from typing import Any, cast

import pytest
from PIL import ImageChops

from app.contest import texts
from app.contest.columns import signed
from app.contest.store import ContestStore
from app.contest.views import bracket_view, export_csv, plain, standings_view
from engine.cards import Rank
from engine.contest import (
    Contest,
    ContestPhase,
    MatchResult,
    Player,
    PlayMethod,
    close_contest,
    confirm_partner,
    decide,
    draw,
    draw_next_round,
    sign_up,
)
from engine.figures import forfeit_figures, reported_figures
from engine.rules import ForfeitDifference
from handlers.contest.channels import GROUP, PRIVATE
from handlers.contest.desk import ContestDesk
from handlers.platform.chats import ChatBudget
from handlers.platform.outbox import Outbox
from render.board import MARGIN, TEXT, WIDTH
from render.contest import render_bracket, render_standings, standings_image, standings_layout
from render.text import fit, font, text_width
from storage import Database
from tests.engine.contest.support import ON_TIME, ORGANISER, new_contest, signed_up
from tests.engine.contest.test_formats import drawn, play_out, swiss_result
from tests.engine.contest.test_standings import SWISS_RESULTS, movement_by_number, with_rounds
from tests.render.helpers import decode

LONG_NAME = "欧阳" + "长" * 38  # 40 characters


def swiss() -> Contest:
    return with_rounds(drawn(6, "swiss"), SWISS_RESULTS)


def movement() -> Contest:
    return play_out(drawn(4, "movement"), movement_by_number)


def half_walkover() -> Contest:
    """002-D with forfeit_difference=half: round 1's first match a walkover worth 级差 ½."""
    contest = drawn(4, "score-knockout")
    match = contest.rounds[0].matches[0]
    rules = contest.round_rules(1).replace(forfeit_difference=ForfeitDifference.HALF)
    result = MatchResult(match.pairs[0], PlayMethod.WALKOVER, figures=forfeit_figures(rules, winner=0))
    return decide(contest, code=match.code, result=result, by=ORGANISER, reason="弃权", now=ON_TIME).contest


def named(format_name: str, names: list[str]) -> Contest:
    """Pairs (names[2k], names[2k+1]) signed up and drawn."""
    contest = new_contest(format_name=format_name)
    for k in range(0, len(names), 2):
        contest = sign_up(contest, Player(100 + k, names[k]), Player(101 + k, names[k + 1])).contest
        contest = confirm_partner(contest, 101 + k).contest
    return draw(contest, now=ON_TIME).contest


FAMILIES = {
    "knockout": lambda: play_out(drawn(8, "redraw-knockout")),
    "wechat": lambda: play_out(drawn(6, "wechat-knockout")),
    "jingfang": lambda: play_out(drawn(12, "jingfang")),
    "points": lambda: play_out(drawn(4, "points-knockout")),
    "score": half_walkover,
    "swiss": swiss,
    "movement": movement,
}


# ---------------------------------------------------------------- signed 级差


def test_level_differences_are_signed_with_halves() -> None:
    from fractions import Fraction

    assert [signed(v) for v in (12, -3, 0, Fraction(1, 2), Fraction(-5, 2))] == [
        "+12",
        "−3",
        "0",
        "+½",
        "−2½",
    ]
    assert signed(-3, "-") == "-3"


# ---------------------------------------------------------------- pictures


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("locale", ["zh", "en"])
def test_each_familys_standings_picture_is_drawn_at_phone_width(family: str, locale: str) -> None:
    contest = FAMILIES[family]()
    view = standings_view(contest, locale)
    image = decode(render_standings(view, locale=locale))
    assert image.width == WIDTH and image.height > 200
    assert len(view.rows) == len(contest.pairs)
    assert all(len(line.cells) == len(view.columns) for line in view.rows)
    columns = standings_layout(view)
    assert sum(c.width for c in columns) <= WIDTH - 2 * MARGIN
    assert decode(render_bracket(bracket_view(contest, locale), locale=locale)).width >= WIDTH


def test_the_views_columns_follow_the_family() -> None:
    headers = {
        name: [c.header for c in standings_view(make(), "zh").columns] for name, make in FAMILIES.items()
    }
    assert headers["swiss"] == ["队伍", "队员", "积分", "级差", "对手分", "胜", "负", "奖项"]
    assert headers["movement"] == ["队伍", "队员", "总分", "1轮", "2轮", "3轮", "级差", "胜", "奖项"]
    assert headers["points"] == ["队伍", "队员", "轮次", "各轮", "得分", "失分", "3分局", "奖项"]
    assert headers["score"] == ["队伍", "队员", "轮次", "各轮", "局分", "级差"]  # still running: no prizes
    assert headers["wechat"] == ["队伍", "队员", "轮次", "各轮", "得分", "失分", "奖项"]
    assert headers["knockout"] == ["队伍", "队员", "轮次", "各轮", "奖项"]


def test_swiss_picture_rows_are_in_rank_order_with_signed_differences() -> None:
    view = standings_view(swiss(), "zh")
    assert [line.cells[0] for line in view.rows] == ["1组", "3组", "4组", "5组", "2组", "6组"]
    assert [line.place for line in view.rows] == [1, 2, 3, 4, 5, 6]
    assert [line.cells[3] for line in view.rows] == ["+4", "+1", "+1", "-2", "-1", "-3"]  # the font's minus
    assert view.medals and view.subtitle == "第 3 轮后（最终）"


def test_a_running_contest_is_provisional_and_has_no_medals() -> None:
    contest = half_walkover()
    assert standings_view(contest, "en").subtitle == ""  # round 1 still being played
    other = contest.rounds[0].matches[1]
    finished = decide(
        contest,
        code=other.code,
        result=MatchResult(other.pairs[0], PlayMethod.ORGANISER),
        by=ORGANISER,
        reason="played",
        now=ON_TIME,
    ).contest
    assert standings_view(finished, "en").subtitle == "Provisional standings after round 1"
    view = standings_view(contest, "en")
    assert not view.medals
    differences = [line.cells[5] for line in view.rows]
    assert sorted(differences) == ["+½", "-½", "0", "0"]
    assert view.rows[0].cells[5] == "+½"  # the walkover's winner leads on 级差


def test_a_forty_character_name_is_fitted_into_its_cell() -> None:
    """Measured with the font: the fitted text is narrower than its column, and the pixels of
    the columns to its right are the same as with a short name (nothing ran over)."""
    long = named("swiss", [LONG_NAME, "李四", "王五", "赵六", "孙七", "周八"])
    short = named("swiss", ["欧阳", "李四", "王五", "赵六", "孙七", "周八"])
    view, plain_view = standings_view(long, "zh"), standings_view(short, "zh")
    columns = standings_layout(view)
    players = next(i for i, c in enumerate(columns) if c.header == "队员")
    row = next(i for i, line in enumerate(view.rows) if LONG_NAME in line.cells[1])
    shown = fit(view.rows[row].cells[1], font(TEXT), columns[players].width - 20)
    assert shown.endswith("…") and text_width(shown, font(TEXT)) <= columns[players].width - 20
    assert text_width(LONG_NAME, font(TEXT)) > columns[players].width  # it would overflow unfitted
    assert [c.width for c in columns] == [c.width for c in standings_layout(plain_view)]
    right = MARGIN + sum(c.width for c in columns[: players + 1])
    top = 96 + 24 + 58 * (row + 1)
    box = (right, top, WIDTH - MARGIN, top + 58)
    same = standings_image(plain_view).crop(box)
    assert ImageChops.difference(standings_image(view).crop(box), same).getbbox() is None


def test_many_columns_still_leave_the_names_room() -> None:
    """A knockout of 32 pairs over five rounds: place, pair, players, reached, marks, prize."""
    contest = play_out(drawn(32, "five-round-knockout"))
    columns = standings_layout(standings_view(contest, "zh"))
    players = next(c for c in columns if c.header == "队员")
    assert players.width >= 180 and sum(c.width for c in columns) == WIDTH - 2 * MARGIN


def test_jingfang_bracket_names_its_stages() -> None:
    view = bracket_view(play_out(drawn(12, "jingfang")), "zh")
    names = [r.name for r in view.rounds]
    assert names[0] == "初赛末轮" and names[-3:] == ["复赛", "半决赛", "决赛"]
    assert any(name.startswith("附加赛") for name in names)
    final = view.rounds[-1].matches
    assert [m.label for m in final] == ["", "三四名决赛"]
    assert any(m.bye for r in view.rounds for m in r.matches)
    contest = play_out(drawn(12, "jingfang"))
    qualifying = next(r for r in contest.rounds if r.stage == "qualifying")
    through = {m.winner for m in qualifying.matches}
    for played, shown in zip(contest.rounds, view.rounds, strict=True):
        if played.stage == "repechage":  # the qualified wait, already through; a repechage bye is a bye
            waiting = {m.pairs[0]: m.waiting for m in shown.matches if m.bye}
            assert waiting and all(
                waiting[next(k for k in waiting if k.startswith(f"{n}组 "))] == (n in through)
                for n in played.byes
            )


# ---------------------------------------------------------------- text


def test_standings_text_writes_the_familys_columns() -> None:
    contest = swiss()
    text = texts.standings_text(contest, "zh")
    names = contest.pair(1).names
    assert f"1. <b>1组</b> {names} — 积分 4 · 级差 +4 · 对手分 10 · 胜 2 · 负 1 🏅冠军" in text
    assert "级差 −2" in text and "✓" not in text  # a Swiss table has no marks legend
    moved = texts.standings_text(movement(), "en")
    assert "Total 330 · " in moved and "Diff +30 · W 3" in moved
    half = plain(texts.standings_text(half_walkover(), "zh"))
    assert "级差 +½" in half and "级差 −½" in half and "✓ 胜" in half
    assert len(half) <= 1024  # fits a photo caption


def test_a_large_fields_text_fits_one_message() -> None:
    """000-R's 64 pairs in a Swiss: the first pairs, then how many more (the picture has all)."""
    contest = play_out(drawn(64, "swiss"), swiss_result)
    text = texts.standings_text(contest, "zh")
    assert len(plain(text)) <= 4096 and len(text) <= texts.STANDINGS_TEXT_LIMIT
    lines = plain(text).splitlines()
    assert lines[3].startswith("1. ") and lines[-1].startswith("……另有 ")
    listed = sum(1 for line in lines if " — 积分 " in line)
    assert lines[-1] == f"……另有 {64 - listed} 组：见图片或 /contest export。" and listed > 40
    assert len(standings_view(contest, "zh").rows) == 64
    small = plain(texts.standings_text(swiss(), "zh"))
    assert "另有" not in small and sum(1 for line in small.splitlines() if " — 积分 " in line) == 6


def test_a_best_of_three_bracket_shows_games_won() -> None:
    contest = drawn(4, "fixed-bracket")
    match = contest.rounds[0].matches[0]
    sheet = reported_figures(contest.round_rules(1), winner=1, levels=(Rank.TEN, Rank.ACE))
    figures = dataclasses.replace(sheet, games_won=(1, 2))
    result = MatchResult(match.pairs[1], PlayMethod.ORGANISER, figures=figures)
    contest = decide(contest, code=match.code, result=result, by=ORGANISER, reason="r", now=ON_TIME).contest
    shown = bracket_view(contest, "zh").rounds[0].matches[0]
    assert shown.scores == ("1", "2") and shown.winner == 1


def test_standings_text_escapes_names() -> None:
    contest = named("swiss", ["<b>A&B</b>", "李四", "王五", "赵六"])
    text = texts.standings_text(contest, "zh")
    assert "&lt;b&gt;A&amp;B&lt;/b&gt;" in text and "<b>A&B" not in text
    assert "<b>A&B</b> / 李四" in plain(text)


# ---------------------------------------------------------------- CSV export


@pytest.mark.parametrize(
    ("family", "columns"),
    [
        ("swiss", ["match_points", "level_difference", "opponents_score", "won", "lost"]),
        ("movement", ["total_score", "round_1_score", "round_2_score", "round_3_score", "level_difference"]),
        ("points", ["reached", "round_1", "points_for", "points_against", "three_point_deals"]),
        ("score", ["reached", "round_1", "match_points", "level_difference"]),
        ("jingfang", ["reached_round", "reached", "round_1", "round_6"]),
    ],
)
def test_export_carries_the_familys_columns(family: str, columns: list[str]) -> None:
    rows = list(csv.reader(io.StringIO(export_csv(FAMILIES[family]()).decode("utf-8-sig"))))
    header = rows[rows.index(["# standings"]) + 1]
    assert set(columns) <= set(header) and header[:5] == ["group", "names", "by_lot", "status", "rank"]
    assert header[-3:] == ["provisional", "place", "prize"]


def test_export_writes_a_half_as_a_number() -> None:
    rows = list(csv.reader(io.StringIO(export_csv(half_walkover()).decode("utf-8-sig"))))
    start = rows.index(["# standings"]) + 1
    table = [dict(zip(rows[start], row, strict=True)) for row in rows[start + 1 :] if row]
    assert sorted(r["level_difference"] for r in table) == ["-0.5", "0", "0", "0.5"]


# ---------------------------------------------------------------- final places, announced once


def test_final_text_names_the_prize_tiers() -> None:
    five = close_contest(play_out(drawn(32, "five-round-knockout")), now=ON_TIME).contest
    text = texts.final_text(five, "zh")
    for prize in ("一等奖", "二等奖", "三等奖", "优胜奖"):
        assert f"— {prize}" in text
    assert text.count("— 优胜奖") == 8 and text.count("— 一等奖") == 1
    jingfang = close_contest(play_out(drawn(12, "jingfang")), now=ON_TIME).contest
    lines = texts.final_text(jingfang, "zh").splitlines()
    assert [line.rsplit("— ", 1)[1] for line in lines[1:5]] == ["冠军", "亚军", "季军", "第四名"]
    assert [line.split(".")[0] for line in lines[1:5]] == ["1", "2", "3", "4"]


async def test_final_places_are_announced_exactly_once(store: str) -> None:
    """Deciding and closing go through the desk; announcing the same events again, even from a
    new outbox after a restart, posts nothing more (the outbox keys are kept)."""
    db = await Database.open(store)
    sent: list[tuple[str, str]] = []

    def desk_on(outbox: Outbox) -> ContestDesk:
        desk = ContestDesk(cast(Any, None), ContestStore(db), outbox, ChatBudget(), cast(Any, None))

        async def record(chat_id: int, payload: dict[str, Any]) -> None:
            what = str(payload.get("what", "dm"))
            if what in ("decided", "final"):
                stored = await db.contests.get(contest_id=int(payload["contest_id"]))
                sent.append((what, desk.compose(stored, payload, "zh")[0]))

        outbox.register(GROUP, record)
        outbox.register(PRIVATE, record)
        return desk

    outbox = Outbox(db.outbox)
    desk = desk_on(outbox)
    try:
        stored = await db.contests.create(chat_id=-9, contest=new_contest(format_name="jingfang"))
        cid = stored.id
        for k in range(4):
            await desk.run(
                cid, lambda c, k=k: sign_up(c, Player(100 + 2 * k, f"P{k}"), Player(101 + 2 * k, f"Q{k}"))
            )
            await desk.run(cid, lambda c, k=k: confirm_partner(c, 101 + 2 * k))
        await desk.run(cid, lambda c: draw(c, now=ON_TIME))
        while True:
            stored = await db.contests.get(contest_id=cid)
            contest = stored.contest
            if contest.phase is ContestPhase.DECIDED:
                break
            if contest.phase is ContestPhase.ROUND_COMPLETE:
                await desk.run(cid, lambda c: draw_next_round(c, now=ON_TIME))
                continue
            for match in contest.rounds[-1].matches:
                result = MatchResult(min(match.pairs), PlayMethod.ORGANISER)
                await desk.run(
                    cid,
                    lambda c, m=match, r=result: decide(
                        c, code=m.code, result=r, by=ORGANISER, reason="r", now=ON_TIME
                    ),
                )
        closed, step = await desk.run(cid, lambda c: close_contest(c, now=ON_TIME + timedelta(hours=1)))
        await desk.announce(closed, step.events)  # the same events once more
        await outbox.join()
    finally:
        await outbox.close()
    again = Outbox(db.outbox)  # a restart: a new outbox on the same database
    try:
        await desk_on(again).announce(closed, step.events)
        await again.join()
    finally:
        await again.close()
        await db.close()
    assert [what for what, _text in sent] == ["decided", "final"]
    final = plain(sent[1][1])
    assert final.splitlines()[1].startswith("1. 1组 ") and final.splitlines()[1].endswith("— 冠军")
    assert final.splitlines()[4].startswith("4. 4组 ") and final.splitlines()[4].endswith("— 第四名")


def test_while_the_first_round_is_played_no_order_is_claimed_after_it() -> None:
    """Nothing is settled yet: the subtitle does not say "after round 1" (the phase line says the
    round is being played); once round 1 is complete it does."""
    drawn = draw(signed_up(8, format_name="movement", preset="three-round-movement"), now=ON_TIME).contest
    assert standings_view(drawn, "zh").subtitle == ""
    assert "第 1 轮后" not in texts.standings_text(drawn, "zh")
