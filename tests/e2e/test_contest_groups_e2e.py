"""Contests as real groups live them (issue 18): what a hostile member and a hurried organiser
do to the bot, through the emulator.

Deadlines are computed from the real clock (``datetime.now(UTC)``), never written as dates,
and every wait is for a state with a bounded timeout.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from emulator.client import Chat, Emulator, Telegram, User
from tests.e2e.contest_support import BOT, Clock, running_bot, wait_text

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
