"""Presses answered too late for Telegram (issue 32.5).

Telegram refuses an answer that comes more than about 15 s after the press with 400 "query is
too old and response timeout expired or query ID is invalid"; on a busy day that is routine. It
used to stop the press's handler at its first answer (a seat taken, the lobby never redrawn)
and put a traceback in the error log. Here the emulator refuses every answer as too old (its
limits with a 0 s answer window, and a round trip so no answer lands in the press's own
millisecond): the presses still do their work, and nothing is logged as an error.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bench.group import open_contest
from emulator.client import Chat, Emulator, Telegram, User
from tests.e2e.contest_support import Clock, card_shows, running_bot
from tests.e2e.test_match_e2e import SHORT_MATCH, Table

ORGANISER = User(3000, "Olga", username="olga")  # bench.group's organiser
SINGLE = User(3301, "Sam")
PLAYER = User(3302, "Pia")
LOOSE = 1_000  # every other limit out of the way: only the answer window is tested


async def test_presses_answered_too_late_still_act_and_log_no_error(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with running_bot(emulator, token, tmp_path / "late.db", Clock()):
        await telegram.enforce_limits(
            group_per_minute=LOOSE,
            chat_per_second=LOOSE,
            chat_burst=LOOSE,
            global_per_second=LOOSE,
            callback_ttl_seconds=0,
        )
        await telegram.set_latency(20)
        card = await open_contest(telegram, Chat.group(-5301, "迟到杯群"), "迟到杯")
        await telegram.press_text(SINGLE, card, "报名")
        await card_shows(telegram, Chat.group(-5301, "迟到杯群"), SINGLE.first_name)

        table = Table(telegram, Chat.group(-5302, "迟到桌"), tmp_path / "late.db")
        await telegram.send(PLAYER, Chat.private(PLAYER), "/start")
        await telegram.send(PLAYER, table.group, SHORT_MATCH)
        lobby = await table.lobby()
        await telegram.press(PLAYER, lobby, lobby.buttons[0][0].data or "")
        await telegram.wait_message(table.group, lambda m: PLAYER.first_name in m.content and bool(m.buttons))
        assert (await telegram.limit_stats()).too_old_callbacks >= 2
        await telegram.enforce_limits(False)
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == []
    late = [r for r in caplog.records if "not answered" in r.getMessage()]
    assert len(late) >= 2 and all(r.levelno == logging.INFO and r.exc_info is None for r in late)
