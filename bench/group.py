"""Group channel benchmark: a real-size contest in one group, with the emulator enforcing
Telegram's limits (20 messages a minute into a group, edits included; about one a second into
a chat; 30 requests a second per token; a button's answer refused after 15 s).

    python bench/group.py [--rush 50] [--signups 200] [--pairs 16] [--spacing 3]
        [--only rush,draw,reports,same,bracket,e000,restart]

What runs where: the Bot API emulator (node, limits on for this token) on 127.0.0.1; in this
process the real bot ``Application`` from ``bot.build_application`` with its scheduler
(``handlers/platform/scheduler.py``) at Telegram's budget, long-polling the emulator, on a
temporary SQLite file; the people are HTTP clients of the emulator in the same event loop.

Scenarios (each on a fresh group and contest):

* ``rush``: ``--rush`` people press 报名 on the card within half a second, each press its own
  callback; meanwhile one asks ``/contest``. Figures: press → answer p50/p99/max, answers
  refused as too old, entries stored, last press → the card showing them all, ``/contest`` →
  its answer.
* ``draw``: ``--signups`` people sign up (presses, a few at a time), then the organiser sends
  ``/draw``. Figure: ``/draw`` → the draw announcement in the group.
* ``reports``: ``--pairs`` pairs drawn, then the winner of each first-round match types
  ``掼蛋N组`` within 2 s. Figures: each report → its official line, the last details message.
* ``same``: ``--pairs`` pairs drawn, every winner reports within 1 s, and the first match's
  three other players type its winner's line in that second too. Figures: the first copy → its
  official line, the "已经上报过" replies (none while the line is still on its way: it answers
  them all), and how many went before the line.
* ``bracket``: ``--pairs`` pairs drawn, every winner reports within 1 s, and as the first
  official line shows someone asks ``/bracket``. Figures: ``/bracket`` → its picture, the last
  official line (all of them, in the order reported).

For every scenario: the most group messages (new and edited) in any 60 s, and the 429s the
emulator gave. The last line is JSON. ``tests/e2e/test_group_channel_e2e.py`` runs the same
scenarios smaller and checks what must hold whatever the machine's speed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: the project's packages live one level up

from emulator.client import (  # noqa: E402
    BotMessage,
    CallbackAnswer,
    Chat,
    Emulator,
    Telegram,
    User,
    most_in_window,
    wait_for,
)
from engine.contest import Contest  # noqa: E402
from storage import Database  # noqa: E402
from storage.lease import bot_id_of  # noqa: E402

BOT = User(666, "GuandanTestBot")
ORGANISER = User(9000, "Olga", username="olga9")
CARD = "抽签种子 SHA-256"
SHANGHAI = ZoneInfo("Asia/Shanghai")
PROFILE: list[str] = []  # e.g. ["-m", "cProfile", "-o", "bot.prof"] to profile the bot
WAIT = 180.0  # seconds any one state may take before the scenario gives up


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@dataclass
class Figures:
    """What one scenario measured (seconds unless named otherwise)."""

    name: str
    values: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        shown = ", ".join(
            f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in self.values.items()
        )
        return f"{self.name}: {shown}"


@contextlib.asynccontextmanager
async def limited_bot(
    emulator: Emulator, token: str, db_path: Path, *, keep: bool = False, crash: bool = False
) -> AsyncIterator[Telegram]:
    """``python bot.py`` in its own process, as deployed, against the emulator enforcing
    Telegram's limits; the people poll the emulator from this process, so their load is never
    the bot's. Sends and edits share a group's 20 a minute (tdlib/td#2592). ``keep``: the
    database of an earlier run (a restart), and Telegram's count of its messages goes on (the
    limits are turned on afresh only for a new database). ``crash``: the bot is ended by
    ``kill -9``, in the middle of whatever it was doing."""
    for old in [] if keep else db_path.parent.glob(f"{db_path.name}*"):  # a kept --workdir starts afresh
        old.unlink()
    async with Telegram(emulator, token) as telegram:
        if not keep:
            await telegram.enforce_limits(group_edit_weight=1)
        env = {
            **os.environ,
            "TELEGRAM_BOT_TOKEN": token,
            "GUANDAN_DB": str(db_path),
            "TELEGRAM_API_BASE": emulator.base_url,
        }
        log = (db_path.parent / f"{db_path.stem}.log").open("wb")
        bot = await asyncio.create_subprocess_exec(
            sys.executable, *PROFILE, str(ROOT / "bot.py"), env=env, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            yield telegram
        finally:
            if crash:
                bot.kill()
            else:
                bot.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(bot.wait(), 20)
            if bot.returncode is None:
                bot.kill()
                await bot.wait()
            log.close()


async def open_contest(telegram: Telegram, group: Chat, name: str) -> BotMessage:
    """A 000-E contest opened by an administrator; its card."""
    await telegram.set_admins(group, [ORGANISER, BOT])
    deadline = (datetime.now(SHANGHAI) + timedelta(days=10)).date().isoformat()  # the draw needs one
    await telegram.send(ORGANISER, group, f"/contest new {name} deadline={deadline}")
    return await telegram.wait_message(group, lambda m: CARD in m.content and bool(m.buttons), timeout=WAIT)


async def card_of(telegram: Telegram, group: Chat) -> BotMessage | None:
    cards = [m for m in await telegram.messages(group) if CARD in m.content]
    return cards[0] if cards else None


def signed_up_count(card: BotMessage) -> int:
    found = re.search(r"已报名：(\d+)", card.content)
    return int(found.group(1)) if found else -1


async def group_figures(telegram: Telegram, group: Chat, figures: Figures) -> None:
    """The most group messages (new or edited) in any 60 s, and the 429s given."""
    shown = await telegram.messages(group, include_deleted=True)
    times = [m.sent_at_ms for m in shown if m.sent_at_ms is not None]
    times += [at for m in shown for at in m.edited_at_ms]
    stats = await telegram.limit_stats()
    figures.values["most_in_60s"] = most_in_window(times, 60_000)
    figures.values["429s"] = stats.too_many_requests
    figures.values["too_old_answers"] = stats.too_old_callbacks


async def entries_stored(db_path: Path, token: str) -> int:
    """Sign-ups stored in the contests of the bot with ``token`` (contests belong to a bot)."""
    db = await Database.open(db_path, bot_id=bot_id_of(token))
    try:
        contests = await db.contests.unfinished()
        return sum(len(stored.contest.entries) for stored in contests)
    finally:
        await db.close()


async def answers_of(telegram: Telegram, queries: Sequence[str]) -> list[CallbackAnswer]:
    """The bot's answers to these presses, read a few times a second: the timing is the
    emulator's (press and answer stamps), so reading slowly keeps the emulator free for the bot."""
    found: dict[str, CallbackAnswer] = {}
    deadline = time.monotonic() + WAIT
    while len(found) < len(queries):
        for query in queries:
            if query not in found and (answer := await telegram.answer(query)) is not None:
                found[query] = answer
        if time.monotonic() > deadline:
            raise TimeoutError(f"{len(queries) - len(found)} presses not answered")
        await asyncio.sleep(0.2)
    return [found[query] for query in queries]


def answer_seconds(answers: Sequence[CallbackAnswer]) -> list[float]:
    return [a.seconds for a in answers if a.seconds is not None]


# ---------------------------------------------------------------- scenarios


async def rush(emulator: Emulator, db_path: Path, people: int, *, token: str = "515151:RUSH") -> Figures:
    """``people`` press 报名 within half a second; one asks /contest meanwhile."""
    group = Chat.group(-9101, "报名群")
    figures = Figures(f"rush of {people}")
    async with limited_bot(emulator, token, db_path) as telegram:
        card = await open_contest(telegram, group, "抢报杯")
        users = [User(91000 + i, f"R{i}") for i in range(people)]
        before = len(await telegram.messages(group))

        async def one(i: int, user: User) -> str:
            await asyncio.sleep(0.5 * i / people)
            return await telegram.press_text(user, card, "报名")

        asker = User(99999, "Quinn")
        presses = asyncio.gather(*(one(i, u) for i, u in enumerate(users)))
        await asyncio.sleep(0.25)
        asked = time.perf_counter()
        await telegram.send(asker, group, "/contest")

        async def status_reply() -> BotMessage | None:
            shown = await telegram.messages(group)
            return next(
                (m for m in shown[before:] if "抢报杯" in m.content and m.message_id != card.message_id), None
            )

        queries = await presses
        last_press = time.perf_counter()
        answers = await answers_of(telegram, queries)
        await wait_for(status_reply, timeout=WAIT, what="the /contest answer")
        figures.values["contest_reply_s"] = time.perf_counter() - asked

        async def complete() -> bool:
            shown = await card_of(telegram, group)
            return shown is not None and signed_up_count(shown) == people

        await wait_for(complete, timeout=WAIT, what="the card with everyone")
        times = answer_seconds(answers)
        figures.values.update(
            answer_p50_s=percentile(times, 0.5),
            answer_p99_s=percentile(times, 0.99),
            answer_max_s=max(times),
            alerts=sum(a.show_alert for a in answers),
            stored=await entries_stored(db_path, telegram.token),
            card_complete_s=time.perf_counter() - last_press,
        )
        await group_figures(telegram, group, figures)
    return figures


async def sign_up_many(telegram: Telegram, group: Chat, card: BotMessage, users: Sequence[User]) -> None:
    """Everyone presses 报名, ten at a time."""
    for start in range(0, len(users), 10):
        batch = users[start : start + 10]
        queries = await asyncio.gather(*(telegram.press_text(user, card, "报名") for user in batch))
        answers = await answers_of(telegram, queries)
        assert not any(a.show_alert for a in answers), answers


async def draw_after(
    emulator: Emulator, db_path: Path, people: int, *, token: str = "525252:DRAW"
) -> Figures:
    """``people`` sign up, then /draw: how long the group waits for the draw."""
    group = Chat.group(-9102, "抽签群")
    figures = Figures(f"{people} sign-ups, then /draw")
    async with limited_bot(emulator, token, db_path) as telegram:
        card = await open_contest(telegram, group, "抽签杯")
        await sign_up_many(telegram, group, card, [User(92000 + i, f"D{i}") for i in range(people)])
        asked = time.perf_counter()
        await telegram.send(ORGANISER, group, "/draw")
        await telegram.wait_message(group, lambda m: "第 1 轮对阵" in m.content, timeout=WAIT)
        figures.values["draw_announced_s"] = time.perf_counter() - asked
        await group_figures(telegram, group, figures)
    return figures


async def drawn_contest(
    telegram: Telegram, db_path: Path, group: Chat, name: str, pairs: int, first_user: int
) -> tuple[Contest, dict[int, User]]:
    """A contest of ``pairs`` pairs signed up and drawn in ``group``; its people by id."""
    card = await open_contest(telegram, group, name)
    users = [User(first_user + i, f"W{i}") for i in range(2 * pairs)]
    await sign_up_many(telegram, group, card, users)
    await telegram.send(ORGANISER, group, "/draw")
    await telegram.wait_message(group, lambda m: "第 1 轮对阵" in m.content, timeout=WAIT)
    db = await Database.open(db_path, bot_id=bot_id_of(telegram.token))
    try:
        (stored,) = await db.contests.unfinished()
    finally:
        await db.close()
    return stored.contest, {u.id: u for u in users}


async def report_all(
    telegram: Telegram, group: Chat, contest: Contest, by_id: dict[int, User], within: float
) -> dict[str, float]:
    """Every round-1 winner types 掼蛋N组 within ``within`` seconds: each line → when (epoch s)."""
    matches = [m for m in contest.rounds[0].matches if len(m.pairs) == 2]
    rng = random.Random(7)
    sent_at: dict[str, float] = {}

    async def report(delay: float, number: int) -> None:
        await asyncio.sleep(delay)
        winner = by_id[contest.pair(number).user_ids[0]]
        sent_at[f"掼蛋{number}组"] = time.time()  # the emulator stamps messages in epoch ms
        await telegram.send(winner, group, f"掼蛋{number}组")

    await asyncio.gather(*(report(rng.uniform(0, within), m.pairs[0]) for m in matches))
    return sent_at


async def reports(emulator: Emulator, db_path: Path, pairs: int, *, token: str = "535353:REPORT") -> Figures:
    """``pairs`` pairs drawn by lot, then every round-1 winner types 掼蛋N组 within 2 s."""
    group = Chat.group(-9103, "上报群")
    figures = Figures(f"{pairs} pairs, every winner reports")
    async with limited_bot(emulator, token, db_path) as telegram:
        contest, by_id = await drawn_contest(telegram, db_path, group, "上报杯", pairs, 93000)
        matches = [m for m in contest.rounds[0].matches if len(m.pairs) == 2]
        await asyncio.sleep(1.0)
        sent_at = await report_all(telegram, group, contest, by_id, 2.0)
        delays: list[float] = []
        for line, sent in sorted(sent_at.items(), key=lambda item: item[1]):
            await telegram.wait_message(group, lambda m, line=line: m.content == line, timeout=WAIT)
            shown = next(m for m in await telegram.messages(group) if m.content == line)
            delays.append((shown.sent_at_ms or 0) / 1000 - sent)

        async def all_details() -> bool:
            shown = await telegram.messages(group)

            def details(message: BotMessage) -> bool:
                return any(b.text == "有异议" for row in message.buttons for b in row)

            return all(any(m.code in s.content and details(s) for s in shown) for m in matches)

        await wait_for(all_details, timeout=WAIT, what="every report's details")
        figures.values.update(
            official_p50_s=percentile(delays, 0.5),
            official_max_s=max(delays),
            details_done_s=time.time() - max(sent_at.values()),
        )
        await group_figures(telegram, group, figures)
    return figures


async def identical_reports(
    emulator: Emulator, db_path: Path, pairs: int, *, token: str = "565656:SAME"
) -> Figures:
    """``pairs`` pairs drawn, every round-1 winner reports within 1 s, and in that second the
    other three players of the first match type its winner's line too: what the four who typed
    the same line see, and when, while the reports fill the group's minute."""
    group = Chat.group(-9105, "同报群")
    figures = Figures(f"{pairs} pairs report, four type the same line")
    async with limited_bot(emulator, token, db_path) as telegram:
        contest, by_id = await drawn_contest(telegram, db_path, group, "同报杯", pairs, 95000)
        first = next(m for m in contest.rounds[0].matches if len(m.pairs) == 2)
        line = f"掼蛋{first.pairs[0]}组"
        others = [by_id[uid] for number in first.pairs for uid in contest.pair(number).user_ids][1:]
        await asyncio.sleep(1.0)
        copies = [telegram.send(user, group, line) for user in others]
        sent_at, *_ = await asyncio.gather(report_all(telegram, group, contest, by_id, 1.0), *copies)
        shown = await telegram.wait_message(group, lambda m: m.content == line, timeout=WAIT)
        await telegram.wait_idle()
        await asyncio.sleep(3.0)  # a reply to a copy would be queued by now
        said = [m for m in await telegram.messages(group) if "已经上报过" in m.content]
        figures.values.update(
            same_line_s=(shown.sent_at_ms or 0) / 1000 - sent_at[line],
            already_reported_replies=len(said),
            replies_before_line=sum((m.sent_at_ms or 0) < (shown.sent_at_ms or 0) for m in said),
        )
        await group_figures(telegram, group, figures)
    return figures


async def bracket_behind_reports(
    emulator: Emulator, db_path: Path, pairs: int, *, token: str = "545454:BRACKET"
) -> Figures:
    """``pairs`` pairs drawn, every round-1 winner reports within 1 s, and as the first official
    line reaches the group someone asks ``/bracket``: how long they wait for it, while the
    group's minute is spent on the announcements."""
    group = Chat.group(-9104, "对阵群")
    figures = Figures(f"{pairs} pairs report, then /bracket")
    asker = User(99998, "Quinn")
    async with limited_bot(emulator, token, db_path) as telegram:
        contest, by_id = await drawn_contest(telegram, db_path, group, "对阵杯", pairs, 94000)
        await asyncio.sleep(1.0)
        sent_at = await report_all(telegram, group, contest, by_id, 1.0)
        await telegram.wait_message(group, lambda m: m.content in sent_at, timeout=WAIT)
        asked = time.time()
        await telegram.send(asker, group, "/bracket")
        bracket = await telegram.wait_message(
            group, lambda m: bool(m.photo_id) and m.caption == "对阵杯", timeout=WAIT
        )
        figures.values["bracket_reply_s"] = (bracket.sent_at_ms or 0) / 1000 - asked
        lines = sorted(sent_at, key=sent_at.__getitem__)

        async def all_lines() -> list[BotMessage] | None:
            shown = [m for m in await telegram.messages(group) if m.content in sent_at]
            return shown if len(shown) == len(lines) else None

        shown = await wait_for(all_lines, timeout=WAIT, what="every official line")
        figures.values["lines_in_order"] = [m.content for m in shown] == lines
        figures.values["lines_done_s"] = max((m.sent_at_ms or 0) / 1000 for m in shown) - asked
        await group_figures(telegram, group, figures)
    return figures


async def signup_rush(
    telegram: Telegram,
    db_path: Path,
    group: Chat,
    card: BotMessage,
    pairs: int,
    singles: int,
    first_user: int,
    *,
    spacing: float = 0.0,
) -> list[User]:
    """000-E's sign-up as a group lives it, all at once: ``pairs`` players type ``/signup
    @partner`` (``spacing`` seconds apart) and each partner presses 接受 on the invitation as
    soon as it shows; once they are answered ``singles`` type ``/signup``. Returns when every
    sign-up is stored."""
    inviters = [User(first_user + i, f"Y{i}") for i in range(pairs)]
    partners = [User(first_user + 100 + i, f"Z{i}", username=f"z{first_user + i}") for i in range(pairs)]
    alone = [User(first_user + 200 + i, f"S{i}") for i in range(singles)]

    async def pair(inviter: User, partner: User) -> str:
        await asyncio.sleep(spacing * inviters.index(inviter))
        await telegram.send(inviter, group, f"/signup @{partner.username}")
        invitation = await telegram.wait_message(
            group,
            lambda m: (
                inviter.first_name in m.content and any(b.text == "接受" for row in m.buttons for b in row)
            ),
            timeout=WAIT,
        )
        return await telegram.press_text(partner, invitation, "接受")

    async def single(user: User) -> None:
        await telegram.send(user, group, "/signup")

    queries = await asyncio.gather(*(pair(i, p) for i, p in zip(inviters, partners, strict=True)))
    answers = await answers_of(telegram, queries)
    assert not any(a.show_alert for a in answers), answers
    await asyncio.gather(*(single(user) for user in alone))

    async def everyone() -> bool:
        return await entries_stored(db_path, telegram.token) == pairs + singles  # an entry: a pair or one

    await wait_for(everyone, timeout=WAIT, what="every sign-up stored")
    return [*inviters, *partners, *alone]


async def draw_after_signup_rush(
    emulator: Emulator,
    db_path: Path,
    pairs: int = 6,
    singles: int = 4,
    *,
    spacing: float = 0.0,
    token: str = "555555:E000",
) -> Figures:
    """000-E as a group lives it: a sign-up rush (``pairs`` by the partner's 接受, ``singles``
    by 报名), then the organiser types ``/draw`` at once: how long the group waits for the
    draw's group numbers, measured from the command as the emulator stamps both."""
    group = Chat.group(-9105, "中心群")
    figures = Figures(f"000-E: {pairs} pairs and {singles} singles sign up, then /draw")
    async with limited_bot(emulator, token, db_path) as telegram:
        card = await open_contest(telegram, group, "中心杯")
        await signup_rush(telegram, db_path, group, card, pairs, singles, 97000, spacing=spacing)
        asked = time.time()
        await telegram.send(ORGANISER, group, "/draw")
        drawn = await telegram.wait_message(group, lambda m: "第 1 轮对阵" in m.content, timeout=WAIT)
        figures.values["draw_announced_s"] = (drawn.sent_at_ms or 0) / 1000 - asked
        await group_figures(telegram, group, figures)
    return figures


async def restart_mid_rush(
    emulator: Emulator, db_path: Path, invitations: int = 28, *, token: str = "565656:RESTART"
) -> Figures:
    """Half of ``invitations`` typed a second apart (``/signup @partner``), the bot killed
    (``kill -9``) right after, and the other half typed to the restarted bot: the 429s Telegram
    gave and the most bot messages in the group in any 60 s, across the restart."""
    group = Chat.group(-9106, "重启群")
    figures = Figures(f"{invitations} invitations, kill -9 halfway")
    inviters = [User(98000 + i, f"V{i}") for i in range(invitations)]
    half = invitations // 2

    async def invite(telegram: Telegram, people: Sequence[User]) -> None:
        for inviter in people:
            await telegram.send(inviter, group, f"/signup @w{inviter.id}")
            await asyncio.sleep(1.1)  # people typing, one a second: no reply is dropped as one too many

    async def count(telegram: Telegram) -> int:
        return sum("邀请 @w" in m.content for m in await telegram.messages(group))

    async def shown(telegram: Telegram, wanted: int) -> bool:
        return await count(telegram) >= wanted

    async with limited_bot(emulator, token, db_path, crash=True) as telegram:
        await open_contest(telegram, group, "续杯")
        await invite(telegram, inviters[:half])
        await wait_for(lambda: shown(telegram, half), timeout=WAIT, what="the first invitations")
    async with limited_bot(emulator, token, db_path, keep=True) as telegram:
        started = time.perf_counter()
        await invite(telegram, inviters[half:])
        with contextlib.suppress(TimeoutError):  # a reply refused 429 four times is lost
            await wait_for(lambda: shown(telegram, invitations), timeout=WAIT, what="every invitation")
        figures.values["after_restart_s"] = time.perf_counter() - started
        figures.values["invitations_shown"] = await count(telegram)
        await group_figures(telegram, group, figures)
    return figures


SCENARIOS = ("rush", "draw", "reports", "same", "bracket", "e000", "restart")


async def main(args: argparse.Namespace) -> list[Figures]:
    emulator = Emulator.start()
    results: list[Figures] = []
    try:
        with tempfile.TemporaryDirectory() as scratch:
            tmp = args.workdir or scratch  # --workdir keeps the databases and the bot's logs
            if "rush" in args.only:
                results.append(await rush(emulator, Path(tmp) / "rush.db", args.rush))
                print(results[-1].line(), flush=True)
            if "draw" in args.only:
                results.append(await draw_after(emulator, Path(tmp) / "draw.db", args.signups))
                print(results[-1].line(), flush=True)
            if "reports" in args.only:
                results.append(await reports(emulator, Path(tmp) / "reports.db", args.pairs))
                print(results[-1].line(), flush=True)
            if "same" in args.only:
                results.append(await identical_reports(emulator, Path(tmp) / "same.db", args.pairs))
                print(results[-1].line(), flush=True)
            if "e000" in args.only:
                results.append(
                    await draw_after_signup_rush(emulator, Path(tmp) / "e000.db", spacing=args.spacing)
                )
                print(results[-1].line(), flush=True)
            if "restart" in args.only:
                results.append(await restart_mid_rush(emulator, Path(tmp) / "restart.db"))
                print(results[-1].line(), flush=True)
            if "bracket" in args.only:
                results.append(await bracket_behind_reports(emulator, Path(tmp) / "bracket.db", args.pairs))
                print(results[-1].line(), flush=True)
    finally:
        emulator.stop()
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rush", type=int, default=50)
    parser.add_argument("--signups", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=16)
    parser.add_argument("--spacing", type=float, default=0.0, help="seconds between e000's /signup")
    parser.add_argument("--workdir", help="keep the databases and bot logs here")
    parser.add_argument("--only", type=lambda text: tuple(text.split(",")), default=SCENARIOS)
    figures = asyncio.run(main(parser.parse_args()))
    print(json.dumps({f.name: f.values for f in figures}, ensure_ascii=False))
