"""Whatever a person chose reaches a contest's HTML messages as typed (issue 32.4).

``/contest new 杯 event=<b>`` was accepted and its event word went unescaped into the card and
the privacy note ("直接打出 <b>3组 即算上报"): Telegram refused both (the emulator parses HTML
as strictly), the replies were lost and the log had a traceback. Here one contest carries a
hostile value in every place a person chooses one — its name (in the card, the bracket's
caption, the final places), event word and prize, a player's name and unit, a typed report,
the organiser's /result reason — and each message that shows it must arrive with the value
as plain text: no markup from it, nothing refused, no entity shown as ``&amp;``. A value a
command cannot take (an event word of 15 characters, a unit with ``<``) is refused with the
value shown back.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from emulator.client import BotMessage, Chat, Emulator, Telegram, User
from tests.e2e.contest_support import BOT, CARD, Clock, contest_in, running_bot, wait_text

HOSTILE = ("<b>", "A & B", '<a href="x">y</a>')
ORGANISER = User(8000, "Olga", username="olga8")


def word(value: str) -> str:
    """The value as one word of a command (options are ``key=value`` words)."""
    return value.replace(" ", "").replace("=", "")


async def shows(telegram: Telegram, chat: Chat, text: str, anchor: str | None = None) -> BotMessage:
    """The newest message with ``anchor`` (else ``text``), which shows ``text`` as plain text:
    no link or formatting made of it."""
    message = await wait_text(telegram, chat, anchor or text, timeout=20)
    assert text in message.content, (text, message.content)
    start = message.content.index(text)
    inside = [
        entity
        for entity in message.raw.get("entities", [])
        if entity["offset"] < start + len(text) and start < entity["offset"] + entity["length"]
    ]
    assert all(entity["type"] in ("bold", "code") for entity in inside), (text, inside)
    return message


@pytest.mark.parametrize("value", HOSTILE)
async def test_hostile_values_reach_contest_messages_as_typed(
    emulator: Emulator,
    telegram: Telegram,
    token: str,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    value: str,
) -> None:
    caplog.set_level(logging.ERROR)
    group, trial, units = (
        Chat.group(-8001, "杯赛群"),
        Chat.group(-8002, "试赛群"),
        Chat.group(-8003, "单位群"),
    )
    db_path = tmp_path / "hostile.db"
    players = [
        User(8001, value, username="h1"),
        *(User(8002 + i, f"P{i}", username=f"p{i}x") for i in range(3)),
    ]
    clock = Clock()
    async with running_bot(emulator, token, db_path, clock):
        for chat in (group, trial, units):
            await telegram.set_admins(chat, [ORGANISER, BOT])
        name, event, prize = f"{word(value)}杯", word(value), word(value)
        await telegram.send(ORGANISER, trial, f"/contest new {name} event={event}")
        if len(event) > 8:
            await shows(telegram, trial, f"“{event}”")  # no such event word, and it says which
            event = "掼蛋"
        else:
            await shows(telegram, trial, f"{event}3组", anchor=CARD)
        await telegram.send(ORGANISER, units, "/contest new 单位杯 format=fixed-bracket")
        await wait_text(telegram, units, CARD)
        tag = word(value)
        await telegram.send(players[1], units, f"/signup tag={tag}")
        if len(tag) > 12 or any(ch in tag for ch in "<>=@"):
            await shows(telegram, units, f"“{tag}”")  # no such unit, and it says which
        else:
            await shows(telegram, units, f"单位：{tag}")
        await telegram.send(
            ORGANISER, group, f"/contest new {name} event={event} prizes={prize} deadline={clock.typed(10)}"
        )
        card = await shows(telegram, group, f"🏆 {name}")
        assert f"{event}3组" in card.content
        await shows(telegram, group, f"直接打出 {event}3组 即算上报")
        await telegram.press_text(players[0], card, "报名")
        await shows(telegram, group, f"1. {value} ")
        for player in players[1:]:
            await telegram.send(player, group, "/signup")
        await shows(telegram, group, f"{players[3].first_name} （单独报名")  # on the card
        await telegram.send(ORGANISER, group, "/draw")
        await shows(telegram, group, value, anchor="第 1 轮对阵")
        await telegram.send(ORGANISER, group, "/bracket")
        bracket = await telegram.wait_message(group, lambda m: bool(m.photo_id) and name in m.content)
        assert bracket.content == name

        contest = await contest_in(db_path, group)
        match = contest.rounds[0].matches[0]
        winner = contest.pair_of_user(players[0].id)
        assert winner is not None
        line = f"{event}{winner.number}组"
        await telegram.send(players[0], group, line)
        await telegram.wait_message(group, lambda m: m.content == line)  # the official line, then a copy:
        await telegram.send(players[0], group, line)  # (a copy while the line waits gets no reply)
        await shows(telegram, group, f"已经上报过：{line}")
        await telegram.send(ORGANISER, group, f"/result {match.code} {winner.number} {value}")
        await shows(telegram, group, f"理由：{value}")
        await telegram.send(ORGANISER, group, "/contest close")
        await shows(telegram, group, f"— {prize[:12]}", anchor=f"🏆 {name} 比赛结束")
        await shows(telegram, group, value, anchor=f"🏆 {name} 比赛结束")
        await telegram.wait_idle()
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
