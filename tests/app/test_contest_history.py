"""A group's past contests (``/contest list``) and a person's contests in /stats (issue 21):
the places, prizes and matches come from the closed contest itself, on a real SQLite file."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest

from app.contest import texts
from app.records.texts import CAPTION_LIMIT, contest_record_line, stats_caption
from engine.contest import Contest, DrawSeed, PairRecord, close_contest, draw, final_places, pair_record
from storage import Database
from storage.records import Figures, PartnerLine, PlayerTotals
from tests.app.test_hostile_texts import telegram_html
from tests.engine.contest.support import ON_TIME, signed_up
from tests.engine.contest.test_formats import drawn, play_out

CHAT, OTHER_CHAT = -3001, -3002


def closed_knockout(pairs: int = 4, name: str = "中心掼蛋赛", days: int = 0, seed: int = 1) -> Contest:
    """A knockout played out with the lower group number winning every match, then closed
    ``days`` after the usual moment (each seed its own match codes, unique in a database)."""
    drawn_seed = DrawSeed(bytes([seed]) * 32)
    contest = draw(signed_up(pairs, seed=drawn_seed, format_name="wechat-knockout"), now=ON_TIME).contest
    closed = close_contest(play_out(contest), now=ON_TIME + timedelta(days=days)).contest
    return dataclasses.replace(closed, name=name)


def user_in(contest: Contest, number: int) -> int:
    return contest.pair(number).players[0].user_id


def test_a_pairs_record_is_its_place_prize_and_matches() -> None:
    contest = closed_knockout(8)
    champion = pair_record(contest, user_in(contest, 1))  # the lower number wins every match
    assert champion is not None
    assert (champion.place, champion.played, champion.won, champion.pairs) == (1, 3, 3, 8)
    assert champion.prize == final_places(contest)[0].prize and champion.prize
    first, partner = contest.pair(1).players
    assert champion.partner == partner.name
    assert pair_record(contest, partner.user_id) == dataclasses.replace(champion, partner=first.name)
    first_out = pair_record(contest, user_in(contest, 8))  # 8 meets a smaller number at once
    assert first_out is not None and (first_out.played, first_out.won) == (1, 0)
    assert pair_record(contest, 999_999) is None  # not in the contest


def test_a_contest_closed_before_it_was_decided_says_so() -> None:
    contest = closed_knockout(4)
    record = PairRecord(number=2, partner="乙", place=None, prize=None, played=1, won=1, pairs=4)
    assert "未定名次" in contest_record_line(contest, record, "zh")


async def test_past_contests_are_listed_latest_first_and_only_closed_ones(store: str) -> None:
    db = await Database.open(store)
    try:
        await db.contests.create(chat_id=CHAT, contest=closed_knockout(name="春季杯", days=1, seed=1))
        await db.contests.create(chat_id=CHAT, contest=closed_knockout(name="秋季杯", days=100, seed=2))
        await db.contests.create(chat_id=OTHER_CHAT, contest=closed_knockout(name="别的群", seed=3))
        await db.contests.create(chat_id=CHAT, contest=drawn(4, "wechat-knockout"))  # still open
        past = await db.contests.closed_in_chat(chat_id=CHAT)
        assert [p.contest.name for p in past] == ["秋季杯", "春季杯"]
        player = user_in(past[0].contest, 1)
        mine = await db.contests.closed_with_player(user_id=player)
        assert [p.contest.name for p in mine] == ["秋季杯", "春季杯", "别的群"]  # everywhere
        assert await db.contests.closed_with_player(user_id=999_999) == []
    finally:
        await db.close()


def test_the_list_names_each_contests_podium_in_chinese() -> None:
    contest = closed_knockout(8, name="<b>春季杯</b>")
    text = texts.contest_list_text([contest], "zh")
    assert text.splitlines()[0] == "<b>往届比赛</b>"
    assert "&lt;b&gt;春季杯&lt;/b&gt;" in text and "8 组" in text  # a name is never markup
    podium = [line.strip() for line in text.splitlines()[2:]]
    assert len(podium) >= 3
    first = final_places(contest)[0]
    assert podium[0].startswith(f"{first.prize}：<b>1组</b>")
    assert ":" not in "".join(podium).replace("：", "")  # full-width in Chinese
    assert texts.contest_list_text([], "zh") == "本群还没有结束的比赛。"
    assert texts.contest_list_text([], "en") == "No contest has been closed in this group yet."


def test_many_past_contests_stay_within_one_message() -> None:
    long_name = "杯" * 60
    contests = [closed_knockout(8, name=f"{long_name}{n}") for n in range(40)]
    text = texts.contest_list_text(contests, "zh")
    assert len(text) <= texts.TEXT_LIMIT and text.endswith("…")


@pytest.mark.parametrize("locale", ["zh", "en"])
def test_stats_gives_a_line_per_contest(locale: str) -> None:
    contest = closed_knockout(8, name="中心掼蛋赛")
    record = pair_record(contest, user_in(contest, 1))
    assert record is not None
    line = contest_record_line(contest, record, locale)
    assert "中心掼蛋赛" in line
    if locale == "zh":
        assert "第 1 名（共 8 组）" in line and "3 场胜 3 场" in line
    else:
        assert "place 1 of 8" in line and "3 won of 3" in line


def test_stats_of_a_long_career_is_a_caption_telegram_takes() -> None:
    """Twelve contests named ``&&&…`` (each ``&amp;`` in the HTML): the /stats caption was cut at
    1,024 characters wherever that fell, inside a ``&amp;`` or a ``</b>``, and Telegram refused
    the whole reply. Now whole lines fit, then "…"."""
    name = "&" * 60
    contests = [closed_knockout(8, name=name, seed=n) for n in range(1, 13)]
    lines = []
    for contest in contests:
        record = pair_record(contest, user_in(contest, 1))
        assert record is not None
        lines.append(contest_record_line(contest, record, "zh"))
    partners = tuple(PartnerLine(f"u:{n}", "&<b>", 3, 2) for n in range(5))
    totals = PlayerTotals(12, 7, 0, Figures(48, 15, 10, 12, 11, 5, 3, 30, 6, 9, 1), partners)
    caption = stats_caption("<b>&</b>", None, totals, None, lines, "zh")
    shown, tags = telegram_html(caption)
    assert len(caption) <= CAPTION_LIMIT and caption.endswith("\n…")
    assert shown.startswith("<b>&</b>") and name in shown
    assert tags.count("<b>") == tags.count("</b>")
