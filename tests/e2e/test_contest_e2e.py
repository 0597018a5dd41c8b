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

import asyncio
import contextlib
import csv
import io
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp import web

from bot import build_application, close_services, open_services
from emulator.client import BotMessage, Chat, Emulator, Telegram, User, polling, wait_for
from engine.contest import Contest, ContestMatch, official_line
from handlers.contest.service.texts import pair_label
from storage import Database
from tests.e2e.test_match_e2e import Table

BOT = User(666, "GuandanTestBot")
ORGANISER = User(3000, "Olga", username="olga")
PAIRED = [
    (User(3001 + 2 * i, f"A{i}", username=f"a{i}"), User(3002 + 2 * i, f"B{i}", username=f"b{i}"))
    for i in range(6)
]
SINGLES = [User(3101 + i, f"S{i}", username=f"s{i}") for i in range(4)]
EVERYONE = [u for pair in PAIRED for u in pair] + SINGLES
CENTRE = Chat.group(-5001, "中心微信群")
CLUB = Chat.group(-5002, "球友小群")
MATCH_TIMEOUT = 240.0


class FakeWeChat:
    """An Enterprise WeChat group robot: records text messages; its first answer is an error."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.requests = 0
        self.runner: web.AppRunner | None = None
        self.url = ""

    async def handle(self, request: web.Request) -> web.Response:
        self.requests += 1
        body = await request.json()
        if self.requests == 1:
            return web.Response(status=500)
        assert body["msgtype"] == "text" and request.query.get("key") == "SECRETKEY123"
        self.texts.append(body["text"]["content"])
        return web.json_response({"errcode": 0, "errmsg": "ok"})

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/cgi-bin/webhook/send", self.handle)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}/cgi-bin/webhook/send?key=SECRETKEY123"

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()


class Clock:
    """The contest's time, moved by the test."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@contextlib.asynccontextmanager
async def running_bot(emulator: Emulator, token: str, db_path: Path, clock: Clock) -> AsyncIterator[Any]:
    app = build_application(
        token, db_path=str(db_path), base_url=emulator.base_url, base_file_url=emulator.base_file_url
    )
    await open_services(app, db_path=str(db_path))
    services = app.bot_data.services
    services.tables.new_seed = lambda: 9
    desk = services.contests
    desk.clock = clock
    desk.match_rules = lambda contest: replace(contest.rules(), points_deals=1)
    desk.webhook_allowed = lambda url: url.startswith("http://127.0.0.1:")
    try:
        async with polling(app):
            yield app
    finally:
        await close_services(app)


async def contest_of(db_path: Path) -> Contest:
    db = await Database.open(db_path)
    try:
        return (await db.contests.unfinished())[0].contest
    finally:
        await db.close()


def user(user_id: int) -> User:
    return next(u for u in [ORGANISER, *EVERYONE] if u.id == user_id)


def players(contest: Contest, match: ContestMatch) -> list[list[User]]:
    return [[user(uid) for uid in contest.pair(n).user_ids] for n in match.pairs]


async def wait_text(telegram: Telegram, chat: Chat, text: str, timeout: float = 70) -> BotMessage:
    return await telegram.wait_message(chat, lambda m: text in m.content, timeout=timeout)


async def details_of(telegram: Telegram, match: ContestMatch) -> BotMessage:
    """The details message of a report: the match's code and the 确认 / 有异议 buttons."""

    def matches(message: BotMessage) -> bool:
        return match.code in message.content and any(
            b.text == "有异议" for row in message.buttons for b in row
        )

    return await telegram.wait_message(CENTRE, matches, timeout=70)


async def press(telegram: Telegram, who: User, message: BotMessage, label: str) -> tuple[str, bool]:
    answer = await telegram.wait_answer(await telegram.press_text(who, message, label))
    return answer.text, answer.show_alert


async def sign_up_everyone(telegram: Telegram) -> None:
    for _a, b in PAIRED:
        await telegram.send(b, CENTRE, "我报名")  # the bot learns @b from any message it sees
    await telegram.wait_idle()
    for a, b in PAIRED:
        await telegram.send(a, CENTRE, f"/signup @{b.username}")
        invitation = await wait_text(telegram, CENTRE, f"{a.first_name} 邀请 {b.first_name}")
        text, alert = await press(telegram, b, invitation, "接受")
        assert not alert, text
        await wait_text(telegram, CENTRE, f"{b.first_name} 接受了")
    for single in SINGLES[:2]:
        await telegram.send(single, CENTRE, "/signup")
        await wait_text(telegram, CENTRE, f"{single.first_name} 单独报名")
    card = await wait_text(telegram, CENTRE, "抽签种子 SHA-256")
    for single in SINGLES[2:]:
        card = await wait_text(telegram, CENTRE, "抽签种子 SHA-256")
        text, alert = await press(telegram, single, card, "报名")
        assert not alert, text
        await wait_text(telegram, CENTRE, single.first_name + " （单独报名")


async def play_through_bot(telegram: Telegram, contest: Contest, match: ContestMatch, db_path: Path) -> None:
    """The match's four players open its table in their own group and play it out."""
    (a1, a2), (b1, b2) = players(contest, match)
    for person in (a1, a2, b1, b2):
        await telegram.send(person, Chat.private(person), "/start")
    outsider = SINGLES[0] if SINGLES[0] not in (a1, a2, b1, b2) else SINGLES[1]
    await telegram.send(outsider, CLUB, f"/newgame match={match.code}")
    await wait_text(telegram, CLUB, "只有这场比赛的四位选手")
    await telegram.send(a1, CLUB, f"/newgame match={match.code}")
    table = Table(telegram, CLUB, db_path)
    lobby = await table.lobby()
    text, alert = await press(telegram, outsider, lobby, "北")
    assert alert and "四位选手" in text
    ai = await telegram.wait_answer(await telegram.press(a1, lobby, lobby.buttons[2][0].data or ""))
    assert ai.show_alert
    for seat, person in ((0, a1), (1, b1), (2, a2), (3, b2)):
        await table.join(person, seat)
    await table.start(a1)
    humans = [a1, a2, b1, b2]
    runners = [asyncio.create_task(table.play(person)) for person in humans]
    watcher = asyncio.create_task(table.watch())
    try:
        await asyncio.wait_for(table.over.wait(), MATCH_TIMEOUT)
    finally:
        table.over.set()
        await asyncio.gather(*runners, watcher, return_exceptions=True)


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
            await telegram.send(ORGANISER, CENTRE, "/contest new 中心杯 deadline=2026-12-19")
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
            contest = await contest_of(db_path)
            assert len(contest.pairs) == 8 and sum(p.by_lot for p in contest.pairs) == 2
            assert contest.seed.hex in pairings.content
            bot_match, typed, disputed, silent = contest.rounds[0].matches
            assert all(m.code in pairings.content for m in contest.rounds[0].matches)

            # played through the bot in another group: the result reports itself
            await play_through_bot(telegram, contest, bot_match, db_path)
            bot_result = (await contest_of(db_path)).match_by_code(bot_match.code)
            assert bot_result.winner is not None
            line = official_line(bot_result.winner)
            await telegram.wait_message(CENTRE, lambda m: m.content == line, timeout=20)

            # typed in the group, confirmed by the opponents
            (winner, _), (opponent, _) = players(contest, typed)
            await telegram.send(winner, CENTRE, f"掼蛋{typed.pairs[0]}组")
            await telegram.wait_message(CENTRE, lambda m: m.content == f"掼蛋{typed.pairs[0]}组")
            details = await details_of(telegram, typed)
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
            details = await details_of(telegram, disputed)
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
            clock.now = datetime(2026, 12, 19, 16, 0, 1, tzinfo=UTC)  # 00:00:01 on the 20th in Shanghai
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
            after = await contest_of(db_path)
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
