"""The referee's helper through the emulator: a round at physical tables with a 40-minute clock
(004-A's rules, ``preset=spring-festival``: finish the deal in hand, 15 minutes late forfeits).

Four pairs are drawn; the pairing message gives each table's North–South and East–West pairs.
A player may not start the clock; the organiser starts table 1's (``/round start 1``, a second
start is refused), a player at that table asks for leave too late, and ``/late`` under 15
minutes is only noted. The bot restarts: the clock's reminder and end are armed again, and with
the clock moved the group hears "10 minutes left" and then "time is up" with the rule; after a
second restart past the end, the time-up is not announced again. A player at table 2 (no clock)
asks for leave: their pair is out in the leave's words and the opponents go on; the opponents'
own /leave is then too late. ``/late`` at 16 minutes makes table 1 a walkover.
"""

from __future__ import annotations

import functools
from datetime import timedelta
from pathlib import Path

from emulator.client import Chat, Emulator, Telegram, User, wait_for
from engine.contest import seating
from engine.rules import SeatAssignment
from tests.e2e.contest_support import (
    BOT,
    CARD,
    Clock,
    contest_in,
    details_of,
    near,
    press,
    running_bot,
    sign_up_pairs,
    wait_text,
)

ORGANISER = User(7000, "Rita", username="rita7")
PLAYERS = [User(7001 + i, f"R{i}", username=f"r{i}x") for i in range(8)]
HALL = Chat.group(-7001, "裁判群")


def person(user_id: int) -> User:
    return next(u for u in PLAYERS if u.id == user_id)


async def count(telegram: Telegram, text: str) -> int:
    return sum(text in m.content for m in await telegram.messages(HALL))


async def test_table_clocks_lateness_and_leave_at_physical_tables(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    db_path = tmp_path / "referee.db"
    clock = Clock()
    clock.now = clock.local(17, "14:00")  # the round's day, far ahead of the wall clock
    async with running_bot(emulator, token, db_path, clock):
        await telegram.set_admins(HALL, [ORGANISER, BOT])
        await telegram.send(
            ORGANISER, HALL, f"/contest new 裁判杯 preset=spring-festival deadline={clock.typed(18)}"
        )
        await wait_text(telegram, HALL, CARD)
        await sign_up_pairs(telegram, HALL, [(PLAYERS[i], PLAYERS[i + 1]) for i in range(0, 8, 2)])
        await telegram.send(ORGANISER, HALL, "/draw")
        pairings = await wait_text(telegram, HALL, "第 1 轮对阵")
        contest = await contest_in(db_path, HALL)
        first, second = contest.rounds[0].matches
        for match in (first, second):
            seats = seating(contest.seed, match, SeatAssignment.LOT)
            assert f"{match.table}号桌 {match.code}\n南北 {seats.ns}组" in pairings.content
            assert f"东西 {seats.ew}组" in pairings.content
        assert "座位由公布的种子抓阄决定" in pairings.content

        at_first = person(contest.pair(first.pairs[0]).user_ids[0])
        await telegram.send(at_first, HALL, "/round start")
        await wait_text(telegram, HALL, "只有比赛的组织者")
        await telegram.send(ORGANISER, HALL, "/round start 1")
        await wait_text(telegram, HALL, "1号桌开始计时，40 分钟，到 14:40 为止。时间到：打完手中这副牌后停止")
        await telegram.send(ORGANISER, HALL, "/round start 1")
        await wait_text(telegram, HALL, "计时已经开始了")
        await telegram.send(at_first, HALL, "/leave")
        await wait_text(telegram, HALL, "请假须在比赛开始前提出")
        late = first.pairs[1]
        await telegram.send(ORGANISER, HALL, f"/late {first.code} {late} 5")
        await wait_text(
            telegram, HALL, f"已记录：{late}组在对局 {first.code} 迟到 5 分钟，未满 15 分钟，不判负。"
        )

    started = clock.now
    async with running_bot(emulator, token, db_path, clock) as app:  # restarted: the clock is armed again
        jobs = sorted(app.job_queue.get_jobs_by_name("contest:1:clock"), key=lambda job: job.next_t)
        end_at = (started + timedelta(minutes=40)).isoformat()
        assert [job.data[2:] for job in jobs] == [(end_at, "clock_warning"), (end_at, "time_up")]
        assert near(clock.due(jobs[0]), started + timedelta(minutes=30))
        assert near(clock.due(jobs[1]), started + timedelta(minutes=40))
        warning, end = jobs
        clock.now = started + timedelta(minutes=30, seconds=1)
        await warning.run(app)
        await wait_text(telegram, HALL, "⏳ 第 1 轮 1号桌：还剩 10 分钟（到 14:40）。")
        clock.now = started + timedelta(minutes=40, seconds=1)
        await end.run(app)
        await wait_text(telegram, HALL, "⏱ 时间到：第 1 轮 1号桌。打完手中这副牌后停止，领先的一方获胜。")

    async with running_bot(emulator, token, db_path, clock) as app:  # started past the end: said once only
        desk = app.bot_data.services.contests

        async def ended() -> bool:
            return not app.job_queue.get_jobs_by_name("contest:1:clock")

        await wait_for(ended, timeout=10, what="the past end's job run on start")
        await desk.outbox.join()  # whatever it posted is delivered
        await telegram.wait_idle()
        assert await count(telegram, "时间到：第 1 轮") == 1

        leaver = person(contest.pair(second.pairs[0]).user_ids[1])
        await telegram.send(leaver, HALL, "/leave")
        await wait_text(telegram, HALL, f"{second.pairs[0]}组请假，退出本次比赛")
        await telegram.wait_message(HALL, lambda m: m.content == f"掼蛋{second.pairs[1]}组")
        opponent = person(contest.pair(second.pairs[1]).user_ids[0])
        await telegram.send(opponent, HALL, "/leave")
        await wait_text(telegram, HALL, "你们的比赛已开始或已有结果")

        await telegram.send(ORGANISER, HALL, f"/late {first.code} 掼蛋{late}组 16分钟")
        decision = await wait_text(telegram, HALL, f"组织者裁定比赛 {first.code}")
        assert "迟到 16 分钟" in decision.content
        await telegram.wait_message(HALL, lambda m: m.content == f"掼蛋{first.pairs[0]}组")
        await wait_text(telegram, HALL, "第 1 轮结束")
        assert not app.job_queue.get_jobs_by_name("contest:1:clock")


DISPUTES = Chat.group(-7002, "异议群")


async def test_disputes_are_settled_the_way_organisers_type_them(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """After 有异议 the organiser types the winner's group where the code goes: ``/result 掼蛋4组
    有异议成立`` was told "“有异议成立”不是组号", and ``/result 4 有异议成立`` heard nothing (the same
    answer, coalesced). The group now names its match, and the answer says which; a group with no
    match or two groups are answered with what to type; and every /result is answered, from
    anyone, in any chat, even twice in the same words."""
    db_path = tmp_path / "disputes.db"
    clock = Clock()
    async with running_bot(emulator, token, db_path, clock):
        await telegram.set_admins(DISPUTES, [ORGANISER, BOT])
        await telegram.send(ORGANISER, DISPUTES, f"/contest new 异议杯 deadline={clock.typed(18)}")
        await wait_text(telegram, DISPUTES, CARD)
        await sign_up_pairs(telegram, DISPUTES, [(PLAYERS[i], PLAYERS[i + 1]) for i in range(0, 8, 2)])
        await telegram.send(ORGANISER, DISPUTES, "/draw")
        await wait_text(telegram, DISPUTES, "第 1 轮对阵")
        contest = await contest_in(db_path, DISPUTES)
        match = contest.rounds[0].matches[0]
        reported, objecting = match.pairs
        await telegram.send(person(contest.pair(reported).user_ids[0]), DISPUTES, f"掼蛋{reported}组")
        details = await details_of(telegram, DISPUTES, match, "有异议")
        await press(telegram, person(contest.pair(objecting).user_ids[0]), details, "有异议")
        await wait_text(telegram, DISPUTES, f"/result {match.code} 获胜组 理由")

        understood = f"{match.code}（{reported}组 对 {objecting}组）"
        await telegram.send(ORGANISER, DISPUTES, f"/result 掼蛋{objecting}组 有异议成立")
        await wait_text(telegram, DISPUTES, f"📌 {objecting}组指的是比赛 {understood}：{objecting}组 晋级。")
        decision = f"组织者裁定比赛 {match.code}：{objecting}组 晋级。理由：有异议成立"
        await wait_text(telegram, DISPUTES, decision)
        await telegram.send(ORGANISER, DISPUTES, f"/result {reported} 复核后改判")
        await wait_text(telegram, DISPUTES, f"📌 {reported}组指的是比赛 {understood}：{reported}组 晋级。")
        decision = f"组织者裁定比赛 {match.code}：{reported}组 晋级。理由：复核后改判"
        await wait_text(telegram, DISPUTES, decision)
        decided = (await contest_in(db_path, DISPUTES)).match_by_code(match.code)
        assert decided.winner == reported and decided.decision is not None

        await telegram.send(ORGANISER, DISPUTES, f"/result {reported} {objecting} 有异议成立")
        await wait_text(telegram, DISPUTES, f"写了两个组号：比赛 {understood} 是哪一组获胜？")
        player = person(contest.pair(reported).user_ids[1])
        for who, words, answer in (
            (ORGANISER, "/result 掼蛋9组 有异议成立", "本次比赛没有9组。请输入 /result 对局码 胜方 理由。"),
            (ORGANISER, "/result 有异议成立", "用法：/result 对局码 胜方"),
            (ORGANISER, "/result", "用法：/result 对局码 胜方"),
            (player, f"/result {reported} 有异议成立", "只有比赛的组织者"),
        ):
            for times in (1, 2):  # the same answer again within seconds: still answered
                await telegram.send(who, DISPUTES, words)
                answered = functools.partial(_answered, telegram, DISPUTES, answer, times)
                await wait_for(answered, timeout=30, what=f"answer {times} to {words}")
        await telegram.send(ORGANISER, Chat.private(ORGANISER), "/start")
        await telegram.send(ORGANISER, Chat.private(ORGANISER), f"/result {reported} 有异议成立")
        await wait_text(telegram, Chat.private(ORGANISER), "请在比赛群里使用")


async def _answered(telegram: Telegram, chat: Chat, text: str, times: int) -> bool:
    return sum(text in m.content for m in await telegram.messages(chat)) >= times
