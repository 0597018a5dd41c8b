"""Contests as real groups live them (issue 18): what a hostile member and a hurried organiser
do to the bot, through the emulator.

Deadlines are computed from the real clock (``datetime.now(UTC)``), never written as dates,
and every wait is for a state with a bounded timeout.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from emulator.client import Chat, Emulator, Telegram, User, wait_for
from engine.contest import Contest
from tests.e2e.contest_support import (
    BOT,
    CARD,
    Clock,
    contest_in,
    details_of,
    press,
    running_bot,
    sign_up_pairs,
    wait_text,
)

ORGANISER = User(8800, "Olga", username="olga88")
PLAYERS = [User(8801 + i, f"G{i}", username=f"g{i}x") for i in range(12)]
GROUP = Chat.group(-8801, "真实群")


def clock_now() -> Clock:
    clock = Clock()
    clock.now = datetime.now(UTC)
    return clock


def days_ahead(days: int) -> str:
    """A deadline ``days`` from now, in the form /contest new takes."""
    return (datetime.now(UTC) + timedelta(days=days)).date().isoformat()


def person(user_id: int) -> User:
    return next(u for u in [ORGANISER, *PLAYERS] if u.id == user_id)


async def drawn_contest(telegram: Telegram, db_path: Path, pairs: int, options: str = "") -> Contest:
    """A contest in GROUP, ``pairs`` pairs signed up (the first 2×pairs players) and drawn."""
    await telegram.set_admins(GROUP, [ORGANISER, BOT])
    await telegram.send(ORGANISER, GROUP, f"/contest new 真实杯 deadline={days_ahead(10)} {options}".strip())
    await wait_text(telegram, GROUP, CARD)
    await sign_up_pairs(telegram, GROUP, [(PLAYERS[2 * i], PLAYERS[2 * i + 1]) for i in range(pairs)])
    await telegram.send(ORGANISER, GROUP, "/draw")
    await wait_text(telegram, GROUP, "第 1 轮对阵")
    return await contest_in(db_path, GROUP)


async def test_a_forwarded_report_is_refused(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    db_path = tmp_path / "c.db"
    async with running_bot(emulator, token, db_path, clock_now()):
        contest = await drawn_contest(telegram, db_path, 4)
        match = contest.rounds[0].matches[0]
        winner = match.pairs[0]
        player, partner = (person(uid) for uid in contest.pair(winner).user_ids)
        await telegram.send(player, GROUP, f"掼蛋{winner}组", forwarded_from=partner)
        await wait_text(telegram, GROUP, "转发的消息不算报告", timeout=20)
        await telegram.send(player, GROUP, f"/report 掼蛋{winner}组", forwarded_from=partner)
        await telegram.wait_idle()
        # (the second, identical refusal within seconds is coalesced by the reply queue)
        assert not (await contest_in(db_path, GROUP)).match_by_code(match.code).facts
        assert not [m for m in await telegram.messages(GROUP) if m.content == f"掼蛋{winner}组"]


async def test_wechat_in_a_group_is_deleted_and_refused_without_quoting_it(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """Telegram refuses a reply to a deleted message: the refusal must not quote the command."""
    async with running_bot(emulator, token, tmp_path / "c.db", clock_now()):
        await telegram.set_admins(GROUP, [ORGANISER, BOT])
        await telegram.send(
            ORGANISER, GROUP, "/contest wechat http://127.0.0.1:9/cgi-bin/webhook/send?key=K3Y"
        )
        refused = await wait_text(telegram, GROUP, "私聊", timeout=20)
        assert "K3Y" not in refused.content


async def test_signup_names_a_partner_the_bot_has_never_seen(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """Privacy mode: the partner has sent nothing the bot could see. The invitation names the
    @username, and the press of 接受 carries it: only that user takes the place."""
    db_path = tmp_path / "c.db"
    inviter, partner, stranger = PLAYERS[0], PLAYERS[1], PLAYERS[2]
    await telegram.set_privacy(True)
    try:
        async with running_bot(emulator, token, db_path, clock_now()):
            await telegram.set_admins(GROUP, [ORGANISER])  # not the bot: it sees no ordinary message
            await telegram.send(ORGANISER, GROUP, f"/contest new 隐私杯 deadline={days_ahead(10)}")
            await wait_text(telegram, GROUP, CARD, timeout=20)
            await telegram.send(inviter, GROUP, f"/signup @{partner.username}")
            invitation = await wait_text(telegram, GROUP, f"邀请 @{partner.username}", timeout=20)
            text, alert = await press(telegram, stranger, invitation, "接受")
            assert alert, text
            text, alert = await press(telegram, partner, invitation, "接受")
            assert not alert, text
            await wait_text(telegram, GROUP, f"{partner.first_name} 接受了", timeout=20)
            (entry,) = (await contest_in(db_path, GROUP)).entries
            assert entry.confirmed and entry.partner is not None and entry.partner.user_id == partner.id
            assert entry.partner.name == partner.first_name
    finally:
        await telegram.set_privacy(False)


GROUP_LIMIT = 1000
"""Messages a group may get per minute here: these tests do not measure Telegram's budget."""


async def test_reports_at_the_same_moment_post_one_official_line_per_match(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """Six identical reports sent at once, and two contradictory ones: exactly one 掼蛋N组 line
    per match, the contradiction goes to the organiser; the reporter's own pair cannot confirm,
    and a report from another group or a private chat does not count."""
    db_path = tmp_path / "c.db"
    async with running_bot(emulator, token, db_path, clock_now(), group_limit=GROUP_LIMIT):
        contest = await drawn_contest(telegram, db_path, 4)
        same, contradicted = contest.rounds[0].matches
        a, _b = same.pairs
        a_players = [person(uid) for uid in contest.pair(a).user_ids]
        await asyncio.gather(*(telegram.send(a_players[k % 2], GROUP, f"掼蛋{a}组") for k in range(6)))
        c, d = contradicted.pairs
        c1, _c2 = (person(uid) for uid in contest.pair(c).user_ids)
        d1 = person(contest.pair(d).user_ids[0])
        await asyncio.gather(
            telegram.send(c1, GROUP, f"掼蛋{c}组"), telegram.send(d1, GROUP, f"/report 掼蛋{d}组")
        )
        await wait_text(telegram, GROUP, "/result", timeout=30)  # the organiser is asked to decide
        await telegram.wait_idle()

        async def officials() -> dict[str, int]:
            lines = [m.content for m in await telegram.messages(GROUP)]
            return {line: lines.count(line) for line in (f"掼蛋{a}组", f"掼蛋{c}组", f"掼蛋{d}组")}

        await wait_for(lambda: _posted(officials, f"掼蛋{a}组"), timeout=30, what="the official line")
        shown = await officials()
        assert shown[f"掼蛋{a}组"] == 1
        assert shown[f"掼蛋{c}组"] + shown[f"掼蛋{d}组"] == 1  # the first report only
        stored = await contest_in(db_path, GROUP)
        assert len([f for f in stored.match_by_code(same.code).facts if f.kind.value == "report"]) == 6
        dispute = next(m for m in await telegram.messages(GROUP) if "/result" in m.content)
        assert f"tg://user?id={ORGANISER.id}" in str(dispute.raw) and contradicted.code in dispute.content

        # the reporter's partner cannot confirm their own pair's report
        details = await details_of(telegram, GROUP, same)
        text, alert = await press(telegram, a_players[1], details, "确认")
        assert alert and "对方" in text, text

        # another group and a private chat: no contest there, the report does not count
        club = Chat.group(-8802, "别的群")
        other = next(p for p in PLAYERS[:8] if p not in (*a_players, c1, d1))  # has reported nothing
        await telegram.send(other, club, f"/report 掼蛋{contest.pair_of_user(other.id).number}组")  # type: ignore[union-attr]
        await wait_text(telegram, club, "本群没有进行中的比赛", timeout=20)
        await telegram.send(other, Chat.private(other), "/start")
        await telegram.send(
            other, Chat.private(other), f"/report 掼蛋{contest.pair_of_user(other.id).number}组"
        )  # type: ignore[union-attr]
        await wait_text(telegram, Chat.private(other), "本群没有进行中的比赛", timeout=20)
        after = await contest_in(db_path, GROUP)
        number = contest.pair_of_user(other.id).number  # type: ignore[union-attr]
        match = next(m for m in after.rounds[0].matches if number in m.pairs)
        assert all(f.by != other.id for f in match.facts)


async def _posted(officials, line: str) -> bool:
    return (await officials())[line] >= 1
