"""A whole 000-E contest through the Bot API emulator, from sign-up to round 2 and the export.

Sixteen people in the centre group: twelve sign up as six pairs (each partner accepts with
the button), four sign up alone and are paired by lot. The draw gives eight pairs and four
round-1 matches, which end four ways: one is played through the bot in another group (a
real table with the contest's rules shortened to one deal), one is typed as ``掼蛋N组`` and
confirmed, one is reported with ``/report`` and a Chinese numeral and disputed, then decided
by the organiser, and one is never reported, so at the deadline (the test moves the clock and
runs the armed job) both its pairs are out. The bot is restarted in the middle: nothing is
lost and the deadline job is armed again. Round 2 is drawn, the standings picture posted,
the CSV exported, and the Enterprise WeChat mirror (a local fake server that fails its first
request) received every official line.
"""

from __future__ import annotations

import csv
import io
import logging
import re
from pathlib import Path

import pytest

from app.contest.texts import pair_label
from bench.group import open_contest
from emulator.client import Chat, Emulator, Telegram, User, wait_for
from engine.contest import Contest, ContestMatch, official_line
from tests.e2e.contest_support import (
    BOT,
    CARD,
    Clock,
    FakeWeChat,
    contest_in,
    details_of,
    play_table,
    press,
    running_bot,
    sides_of,
    sign_up_pairs,
    wait_text,
)
from tests.e2e.test_match_e2e import Table

ORGANISER = User(3000, "Olga", username="olga")
PAIRED = [
    (User(3001 + 2 * i, f"A{i}", username=f"a{i}"), User(3002 + 2 * i, f"B{i}", username=f"b{i}"))
    for i in range(6)
]
SINGLES = [User(3101 + i, f"S{i}", username=f"s{i}") for i in range(4)]
EVERYONE = [u for pair in PAIRED for u in pair] + SINGLES
CENTRE = Chat.group(-5001, "中心微信群")
CLUB = Chat.group(-5002, "球友小群")


def user(user_id: int) -> User:
    return next(u for u in [ORGANISER, *EVERYONE] if u.id == user_id)


def players(contest: Contest, match: ContestMatch) -> list[list[User]]:
    return sides_of([ORGANISER, *EVERYONE], contest, match)


async def sign_up_everyone(telegram: Telegram) -> None:
    await sign_up_pairs(telegram, CENTRE, PAIRED)
    for single in SINGLES[:2]:
        await telegram.send(single, CENTRE, "/signup")
        await wait_text(telegram, CENTRE, f"{single.first_name} 单独报名")
    for single in SINGLES[2:]:
        card = await wait_text(telegram, CENTRE, CARD)
        text, alert = await press(telegram, single, card, "报名")
        assert not alert, text
        await wait_text(telegram, CENTRE, single.first_name + " （单独报名")


async def play_through_bot(telegram: Telegram, contest: Contest, match: ContestMatch, db_path: Path) -> None:
    """The match's four players open its table in their own group and play it out."""
    (a1, a2), (b1, b2) = players(contest, match)
    for person in (a1, a2, b1, b2):
        await telegram.send(person, Chat.private(person), "/start")
    # someone signed up but not in this match (the draw is random: two singles may be its pair)
    outsider = next(u for u in EVERYONE if u not in (a1, a2, b1, b2))
    await telegram.send(outsider, CLUB, f"/newgame match={match.code}")
    await wait_text(telegram, CLUB, "只有这场比赛的四位选手")
    await telegram.send(a1, CLUB, f"/newgame match={match.code}")
    table = Table(telegram, CLUB, db_path)
    lobby = await table.lobby()
    text, alert = await press(telegram, outsider, lobby, "北")
    assert alert and "四位选手" in text
    ai = await telegram.wait_answer(await telegram.press(a1, lobby, lobby.buttons[2][0].data or ""))
    assert ai.show_alert
    await play_table(telegram, table, [[a1, a2], [b1, b2]])


async def test_a_whole_000e_contest(emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path):
    db_path = tmp_path / "contest.db"
    clock = Clock()
    wechat = FakeWeChat()
    await wechat.start()
    try:
        async with running_bot(emulator, token, db_path, clock) as app:
            await telegram.set_admins(CENTRE, [ORGANISER, BOT])
            await telegram.send(SINGLES[0], CENTRE, "/contest new 中心杯")
            await wait_text(telegram, CENTRE, "只有群管理员")
            await telegram.send(ORGANISER, CENTRE, f"/contest new 中心杯 deadline={clock.typed(18)}")
            await wait_text(telegram, CENTRE, "抽签种子 SHA-256")
            await wait_text(telegram, CENTRE, "我能读到本群的消息")
            await telegram.send(ORGANISER, CENTRE, f"/contest wechat {wechat.url}")
            refused = await wait_text(telegram, CENTRE, "私聊")
            assert "SECRETKEY123" not in refused.content
            await telegram.send(ORGANISER, Chat.private(ORGANISER), "/start")
            await telegram.send(ORGANISER, Chat.private(ORGANISER), f"/contest wechat {wechat.url}")
            confirmation = await wait_text(telegram, Chat.private(ORGANISER), "企业微信")
            assert "SECRETKEY123" not in confirmation.content

            await sign_up_everyone(telegram)
            await telegram.send(PAIRED[0][0], CENTRE, "/draw")
            await wait_text(telegram, CENTRE, "只有比赛的组织者")
            await telegram.send(ORGANISER, CENTRE, "/draw")
            pairings = await wait_text(telegram, CENTRE, "第 1 轮对阵")
            contest = await contest_in(db_path, CENTRE)
            assert len(contest.pairs) == 8 and sum(p.by_lot for p in contest.pairs) == 2
            assert contest.seed.hex in pairings.content
            bot_match, typed, disputed, silent = contest.rounds[0].matches
            assert all(m.code in pairings.content for m in contest.rounds[0].matches)

            # played through the bot in another group: the result reports itself
            await play_through_bot(telegram, contest, bot_match, db_path)
            bot_result = (await contest_in(db_path, CENTRE)).match_by_code(bot_match.code)
            assert bot_result.winner is not None
            line = official_line(bot_result.winner)
            await telegram.wait_message(CENTRE, lambda m: m.content == line, timeout=20)

            # typed in the group, confirmed by the opponents
            (winner, _), (opponent, _) = players(contest, typed)
            await telegram.send(winner, CENTRE, f"掼蛋{typed.pairs[0]}组")
            await telegram.wait_message(CENTRE, lambda m: m.content == f"掼蛋{typed.pairs[0]}组")
            details = await details_of(telegram, CENTRE, typed, "有异议")
            assert details.button(f"复制 掼蛋{typed.pairs[0]}组").copy_text == f"掼蛋{typed.pairs[0]}组"
            text, alert = await press(telegram, winner, details, "确认")
            assert alert and "对方" in text
            await press(telegram, opponent, details, "确认")
            await wait_text(telegram, CENTRE, f"{opponent.first_name} 已确认")
            partner = user(contest.pair(typed.pairs[0]).user_ids[1])
            pairing_message = await wait_text(telegram, CENTRE, "第 1 轮对阵")
            await telegram.send(partner, CENTRE, f"{typed.pairs[0]}组", reply_to=pairing_message)
            await wait_text(telegram, CENTRE, "已经上报过")
            await telegram.send(winner, CENTRE, "掼蛋3组和5组")
            await wait_text(telegram, CENTRE, "不止一个数字")

        async with running_bot(emulator, token, db_path, clock) as app:  # restarted: nothing lost
            jobs = app.job_queue.get_jobs_by_name(f"contest:{1}:deadline")
            assert len(jobs) == 1
            assert len(app.job_queue.get_jobs_by_name("contest:1:remind")) == 2

            # /report with a Chinese numeral, disputed, decided by the organiser
            (reporter, _), (objector, _) = players(contest, disputed)
            numeral = "一二三四五六七八"[disputed.pairs[0] - 1]
            await telegram.send(reporter, CENTRE, f"/report 掼蛋{numeral}组")
            details = await details_of(telegram, CENTRE, disputed, "有异议")
            await press(telegram, objector, details, "有异议")
            await wait_text(telegram, CENTRE, f"/result {disputed.code}")
            await telegram.send(ORGANISER, CENTRE, f"/result {disputed.code} {disputed.pairs[1]} 9:5")
            await wait_text(telegram, CENTRE, "需要理由")
            await telegram.send(
                ORGANISER, CENTRE, f"/result {disputed.code} {disputed.pairs[1]} 9:5 对方少打一局"
            )
            await wait_text(telegram, CENTRE, "组织者裁定")
            await telegram.wait_message(CENTRE, lambda m: m.content == f"掼蛋{disputed.pairs[1]}组")

            # the deadline: the clock moves past it, the armed job runs
            clock.now = clock.after(18)  # 00:00:01 on the next day in Shanghai
            await telegram.send(
                user(contest.pair(silent.pairs[0]).user_ids[0]), CENTRE, f"掼蛋{silent.pairs[0]}组"
            )
            await wait_text(telegram, CENTRE, "截止时间已过")
            await app.job_queue.get_jobs_by_name("contest:1:deadline")[0].run(app)
            both_out = await wait_text(telegram, CENTRE, "两组均出局")
            assert pair_label(silent.pairs[0], "zh") in both_out.content
            await wait_text(telegram, CENTRE, "第 1 轮结束")

            await telegram.send(ORGANISER, CENTRE, "/round next")
            await wait_text(telegram, CENTRE, "第 2 轮对阵")
            after = await contest_in(db_path, CENTRE)
            assert len(after.rounds) == 2 and len(after.rounds[1].byes) == 1

            await telegram.send(ORGANISER, CENTRE, "/standings")
            standings = await telegram.wait_message(
                CENTRE, lambda m: m.photo_id is not None and "积分榜" in m.content
            )
            assert (await telegram.photo(standings)).startswith(b"\x89PNG")
            await telegram.send(ORGANISER, CENTRE, "/contest export")
            exported = await telegram.wait_message(CENTRE, lambda m: m.document is not None)
            table = (await telegram.document(exported)).decode("utf-8-sig")
            rows = list(csv.reader(io.StringIO(table)))
            assert ["# matches"] in rows and ["# standings"] in rows
            assert sum(1 for row in rows if row[:1] == ["1"] and len(row) > 6 and row[3] == "main") == 4

            await app.bot_data.services.outbox.join()
            centre_lines = {
                m.content for m in await telegram.messages(CENTRE) if m.content.startswith("掼蛋")
            }
            official = {m for m in centre_lines if re.fullmatch(r"掼蛋[1-8]组", m)}
            assert len(official) == 4  # the bot table, the typed one, the disputed report, the decision
            await wait_for(lambda: _has_all(wechat, official), timeout=30, what="the mirror")
            assert wechat.requests > len(wechat.texts)  # the failed first POST was retried
            assert any("第 2 轮对阵" in text for text in wechat.texts)
    finally:
        await wechat.stop()


async def _has_all(wechat: FakeWeChat, lines: set[str]) -> bool:
    return lines <= set(wechat.texts)


async def test_stopping_with_card_refreshes_queued_fails_nothing(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The bot stops while sign-ups' card refreshes wait (one under way, one queued): they are
    dropped, as hand edits are, and a restarted bot derives the card afresh. They used to run
    after the database had closed, each failing with a traceback (found by
    ``test_random_walk_e2e``)."""
    caplog.set_level(logging.ERROR)
    async with running_bot(emulator, token, tmp_path / "c.db", Clock()):
        card = await open_contest(telegram, CENTRE, "停机杯")
        await telegram.delay_edits(3_000, 3_000)
        pressed = [await telegram.press_text(u, card, "报名") for u in SINGLES[:3]]
        for query in pressed:
            await telegram.wait_answer(query)
    await telegram.delay_edits(0, 0)
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
