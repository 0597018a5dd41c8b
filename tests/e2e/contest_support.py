"""What the contest e2e tests share: the bot with a movable clock, the contest as stored, and
the people's side of a contest (waiting for texts, pressing buttons, playing a match's table).

The bot runs in the test's process (:func:`running_bot`) against the emulator; the contest
desk's clock is a :class:`Clock` the test moves, and ``match`` (``desk.match_rules``)
shortens the matches played through the bot. A contest match's table is played by its four
people pressing 提示 then 出牌 (:func:`play_table`, with :class:`tests.e2e.test_match_e2e.Table`).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from datetime import time as dt_time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from aiohttp import web
from telegram.ext import Job

from bot import build_application, close_services, open_services
from emulator.client import BotMessage, Chat, Emulator, Telegram, User, polling, wait_for
from engine.contest import Contest, ContestMatch
from engine.rules import Rules
from storage import Database
from tests.e2e.test_match_e2e import Table

BOT = User(666, "GuandanTestBot")
CARD = "抽签种子 SHA-256"  # in every contest card
MATCH_TIMEOUT = 240.0

FUNCTIONAL_GROUP_BUDGET = 60
"""Group messages a minute the scheduler spends in these tests: a whole contest's sign-up, draw
and reports in a minute of test time would wait for Telegram's 20 for minutes; what the 20
a minute do is tested apart (tests/e2e/test_group_channel_e2e.py, bench/group.py)."""

MatchRules = Callable[[Contest, int], Rules]  # (contest, round number) → a bot table's rules


def one_deal(contest: Contest, number: int) -> Rules:
    """The 000-E tests' bot tables: the round's points match cut to one deal."""
    return replace(contest.round_rules(number), points_deals=1)


SHANGHAI = ZoneInfo("Asia/Shanghai")  # a contest's default time zone


SLACK = timedelta(minutes=1)
"""How far :meth:`Clock.due` may be off: the wall time the test took since the job was armed."""


def near(moment: datetime, wanted: datetime) -> bool:
    return abs(moment - wanted) < SLACK


class Clock:
    """The contest's time, moved by the test.

    It starts at the real now, so the dates a test types are always ahead of it, and every
    date the test needs is counted in days from that start (:meth:`day`): no test holds a
    calendar date that the real calendar could overtake."""

    def __init__(self) -> None:
        self.start = datetime.now(UTC).replace(microsecond=0)
        self.now = self.start

    def __call__(self) -> datetime:
        return self.now

    def day(self, days: int) -> date:
        """The day in Shanghai ``days`` after the start's."""
        return self.start.astimezone(SHANGHAI).date() + timedelta(days=days)

    def typed(self, days: int, time: str = "") -> str:
        """That day as an organiser types it: ``2027-03-09``, or ``2027-03-09T14:00`` with a time."""
        return f"{self.day(days).isoformat()}T{time}" if time else self.day(days).isoformat()

    def shown(self, days: int, time: str) -> str:
        """That day and time as the bot shows them: ``2027-03-09 14:00``."""
        return f"{self.day(days).isoformat()} {time}"

    def local(self, days: int, time: str) -> datetime:
        """That day's ``HH:MM`` in Shanghai, as a UTC moment."""
        hours, minutes = map(int, time.split(":"))
        moment = datetime.combine(self.day(days), dt_time(hours, minutes), tzinfo=SHANGHAI)
        return moment.astimezone(UTC)

    def due(self, job: Job[Any]) -> datetime:
        """When ``job`` runs, on this clock: the scheduler's wall-clock time moved by the distance
        between the two clocks (the desk schedules intervals from its own now)."""
        assert job.next_t is not None
        return self.now + (job.next_t - datetime.now(UTC))

    def after(self, days: int) -> datetime:
        """The first second after that day ends in Shanghai (past a ``deadline=`` of that day)."""
        return self.local(days + 1, "00:00") + timedelta(seconds=1)


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


@contextlib.asynccontextmanager
async def running_bot(
    emulator: Emulator,
    token: str,
    db_path: Path,
    clock: Clock,
    *,
    match: MatchRules = one_deal,
    group_limit: int | None = None,
) -> AsyncIterator[Any]:
    """The bot polling the emulator; ``group_limit`` replaces the group message budget (and
    drops the Bot API rate limiter) for tests that do not measure the budget."""
    app = build_application(
        token,
        db_path=str(db_path),
        base_url=emulator.base_url,
        base_file_url=emulator.base_file_url,
        rate_limiter=group_limit is None,
        group_per_minute=FUNCTIONAL_GROUP_BUDGET,
    )
    await open_services(app, db_path=str(db_path), clock=clock)
    services = app.bot_data.services
    services.tables.new_seed = lambda: 9
    if group_limit is not None:
        services.board.budget.limit = group_limit
    desk = services.contests
    assert desk is not None
    desk.match_rules = match
    desk.webhook_allowed = lambda url: url.startswith("http://127.0.0.1:")
    try:
        async with polling(app):
            yield app
    finally:
        await close_services(app)


async def contest_in(db_path: Path, chat: Chat) -> Contest:
    """The contest open in ``chat``, as stored now, read as the bot that runs it (contests
    belong to a bot: migration 0015; the tests' bot id comes from their fresh token)."""
    with contextlib.closing(sqlite3.connect(db_path)) as raw:
        found = raw.execute(
            "SELECT bot_id FROM contests WHERE chat_id = ? AND closed_at IS NULL", (chat.id,)
        ).fetchone()
    db = await Database.open(db_path, bot_id=found[0] if found else 0)
    try:
        return (await db.contests.open_in_chat(chat_id=chat.id)).contest
    finally:
        await db.close()


def sides_of(people: Iterable[User], contest: Contest, match: ContestMatch) -> list[list[User]]:
    """The match's two pairs as people, in the pairing's order."""
    by_id = {u.id: u for u in people}
    return [[by_id[uid] for uid in contest.pair(n).user_ids] for n in match.pairs]


async def wait_text(telegram: Telegram, chat: Chat, text: str, timeout: float = 70) -> BotMessage:
    return await telegram.wait_message(chat, lambda m: text in m.content, timeout=timeout)


async def press(telegram: Telegram, who: User, message: BotMessage, label: str) -> tuple[str, bool]:
    """Press the button labelled ``label``: the answer's text and whether it was an alert."""
    answer = await telegram.wait_answer(await telegram.press_text(who, message, label))
    return answer.text, answer.show_alert


async def details_of(telegram: Telegram, chat: Chat, match: ContestMatch, button: str = "确认") -> BotMessage:
    """The details message of a report: the match's code and the 确认 / 有异议 buttons."""

    def fits(message: BotMessage) -> bool:
        return match.code in message.content and any(b.text == button for row in message.buttons for b in row)

    return await telegram.wait_message(chat, fits, timeout=70)


async def card_shows(telegram: Telegram, chat: Chat, text: str, present: bool = True) -> BotMessage:
    """The first contest card, once its (edited) text does or does not show ``text``."""

    async def check() -> BotMessage | None:
        cards = [m for m in await telegram.messages(chat) if CARD in m.content and m.buttons]
        return cards[0] if cards and (text in cards[0].content) == present else None

    return await wait_for(check, timeout=20, what=f"the card {'with' if present else 'without'} {text}")


async def sign_up_pairs(telegram: Telegram, chat: Chat, pairs: Sequence[tuple[User, User]]) -> None:
    """Each pair signs up together: ``/signup @partner``, the partner accepts with the button."""
    for _a, b in pairs:
        await telegram.send(b, chat, "我报名")  # the bot learns @b from any message it sees
    await telegram.wait_idle()
    for a, b in pairs:
        await telegram.send(a, chat, f"/signup @{b.username}")
        invitation = await wait_text(telegram, chat, f"{a.first_name} 邀请 {b.first_name}")
        text, alert = await press(telegram, b, invitation, "接受")
        assert not alert, text
        await wait_text(telegram, chat, f"{b.first_name} 接受了")


async def play_table(telegram: Telegram, table: Table, sides: Sequence[Sequence[User]]) -> None:
    """The match's four people sit (first pair North–South), start and play it out."""
    (a1, a2), (b1, b2) = sides
    for seat, who in ((0, a1), (1, b1), (2, a2), (3, b2)):
        await table.join(who, seat)
    await table.start(a1)
    runners = [asyncio.create_task(table.play(who)) for who in (a1, a2, b1, b2)]
    watcher = asyncio.create_task(table.watch())
    try:
        await asyncio.wait_for(table.over.wait(), MATCH_TIMEOUT)
    finally:
        table.over.set()
        await asyncio.gather(*runners, watcher, return_exceptions=True)
    assert not table.leaks, table.leaks
