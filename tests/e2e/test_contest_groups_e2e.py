"""Contests as real groups live them (issue 18): what a hostile member and a hurried organiser
do to the bot, through the emulator.

Deadlines are computed from the real clock (``datetime.now(UTC)``), never written as dates,
and every wait is for a state with a bounded timeout.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from emulator.client import Chat, Emulator, Telegram, User
from engine.contest import Contest
from tests.e2e.contest_support import (
    BOT,
    CARD,
    Clock,
    contest_in,
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
