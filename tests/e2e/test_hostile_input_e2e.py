"""Hostile input through the emulator, which parses HTML strictly and refuses malformed markup:
bad ``/newgame`` settings get a localized answer naming the setting (finding 1, 3), a
player named like markup and setting values that look like markup never break or inject
into the lobby and the board (finding 2), only a manager answers a /stop confirmation
(finding 5), and a press on another seat's hand message acts for nobody (issue 32.3)."""

from __future__ import annotations

import time
from pathlib import Path

import aiosqlite
from telegram import Update

from bot import build_application, close_services, open_services
from emulator.client import Chat, Emulator, Telegram, User, wait_for
from engine.names import clean_name
from engine.rules import Rules
from tests.e2e.test_match_e2e import (
    BOB,
    PINNED_MATCH,
    SHORT_MATCH,
    Table,
    answer_to,
    buttons_by_op,
    running_bot,
    set_up,
    settled_hand,
)

ALICE = User(3001, "Alice")
MALLORY = User(3002, '<b>x</i> &amp <a href="e.vil">\u202e🀄')
SHOWN = clean_name(MALLORY.first_name)  # as typed, but the right-to-left override (issue 18.4)


async def tables_in(db_path: Path) -> list[tuple[str, str]]:
    async with (
        aiosqlite.connect(db_path) as db,
        db.execute("SELECT status, rules_json FROM game_tables") as cursor,
    ):
        return [(status, rules) for status, rules in await cursor.fetchall()]


async def test_bad_settings_are_answered_and_nothing_is_stored(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    group = Chat.group(-4101, "设置群")
    db_path = tmp_path / "g.db"
    async with running_bot(emulator, token, db_path, seed=9):
        await telegram.set_admins(group, [ALICE])
        clock = "turn_seconds 的取值应为 2 到 600 之间的整数，或 none（不设）。"
        replies = {
            "/newgame turn_seconds=abc": clock,
            "/newgame turn_seconds=1e18": clock,
            "/newgame turn_seconds=NaN": clock,
            "/newgame turn_seconds=-1": clock,
            "/newgame turn_seconds=<b>x": clock,
            "/newgame turn_seconds=<u>x</u>": clock,
            "/newgame turn_seconds=" + "[" * 3000: "取值太长。" + clock,
            "/newgame turn_secnds=20": "未知的规则设置“turn_secnds”。你是不是想写：turn_seconds、"
            "first_turn_seconds、tribute_seconds？",
            "/newgame wechat6": "未知的规则预设“wechat6”。/rules 可查看所有预设。"
            "你是不是想写：wechat-6-deals？",
        }
        for command, reply in replies.items():
            await telegram.send(ALICE, group, command)
            answered = await telegram.wait_message(group, lambda m, r=reply: m.content == r)
            assert not answered.buttons
        await telegram.send(ALICE, group, "/lang en")
        await telegram.wait_message(group, lambda m: m.content == "Language set.")
        await telegram.send(ALICE, group, "/newgame best_of=4")
        await telegram.wait_message(
            group, lambda m: m.content == "best_of must be an odd number from 1 to 9."
        )
        await telegram.wait_idle()
    assert await tables_in(db_path) == []  # no table stored behind a refusal


async def test_hostile_name_reaches_lobby_and_board_as_typed(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    table = Table(telegram, Chat.group(-4102, "<i>群</i> & co"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=9):
        await telegram.set_admins(table.group, [ALICE])
        await telegram.send(
            ALICE, table.group, SHORT_MATCH + " turn_seconds=60 tribute=on match_format=points"
        )
        await table.lobby()
        await table.join(ALICE, 0)
        await table.join(MALLORY, 1)
        lobby = await table.lobby()
        assert SHOWN in lobby.content and "60" in lobby.content
        assert all(entity["type"] == "bold" for entity in lobby.raw.get("entities", []))
        for _ in range(2):
            await table.add_ai(ALICE)
        await table.start(ALICE)
        board = await telegram.wait_message(table.group, lambda m: "🃏" in m.content)
        assert SHOWN in board.content
        assert {entity["type"] for entity in board.raw.get("entities", [])} <= {"bold"}
        hand = await telegram.wait_message(Chat.private(MALLORY), lambda m: bool(m.photo_id and m.buttons))
        assert SHOWN in hand.content


async def test_only_a_manager_answers_a_stop_confirmation(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """Finding 5: anyone could press "No" and dismiss the creator's /stop."""
    table = Table(telegram, Chat.group(-4103, "停桌"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=9):
        await telegram.set_admins(table.group, [ALICE])
        await telegram.send(ALICE, table.group, SHORT_MATCH)
        await table.lobby()
        await telegram.send(ALICE, table.group, "/stop")
        confirm = await telegram.wait_message(table.group, lambda m: m.content == "确定结束本桌吗？")
        ops = buttons_by_op(confirm)
        for op in ("n", "y"):
            text, alert = await answer_to(telegram, MALLORY, confirm, ops[op][0])
            assert alert and text == "只有开桌人或群管理员可以这样做。", text
        still = await telegram.last_message(table.group)
        assert still is not None and still.message_id == confirm.message_id and still.buttons
        assert (await tables_in(table.db_path))[0][0] == "lobby"
        await answer_to(telegram, ALICE, confirm, ops["n"][0])
        await telegram.wait_message(  # the edit follows the answer (slower on a slow network)
            table.group, lambda m: m.message_id == confirm.message_id and m.content == "比赛继续。"
        )


async def test_a_press_on_another_seats_hand_is_not_yours(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """Issue 32.3: 提示 pressed on Bob's hand message by Alice, whose turn it was, gave Alice her
    own hint and changed her selection (the seat was found by the presser). Nobody sees another's
    private chat on Telegram, so such a press is forged: refused, and neither hand changes."""
    table = Table(telegram, Chat.group(-4104, "别人的牌"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=9):
        await set_up(telegram, table, [ALICE, BOB], PINNED_MATCH)

        async def turn() -> tuple[User, User] | None:
            for mover, other in ((ALICE, BOB), (BOB, ALICE)):
                if "轮到你" in (await settled_hand(telegram, mover)).content:
                    return mover, other
            return None

        mover, other = await wait_for(turn, what="a human's turn")
        mine, theirs = await settled_hand(telegram, mover), await settled_hand(telegram, other)
        ops = buttons_by_op(theirs)
        for data in (ops["h"][0], ops["t"][0]):
            text, alert = await answer_to(telegram, mover, theirs, data)
            assert alert and text == "这是别人的手牌，只有本人可以按这些按钮。", text
        assert (await settled_hand(telegram, mover)).raw == mine.raw
        assert (await settled_hand(telegram, other)).raw == theirs.raw


async def test_a_lobby_that_cannot_be_sent_leaves_no_table_behind(
    emulator: Emulator, token: str, tmp_path: Path
):
    """If Telegram refuses the lobby (here: a group the emulator does not know, as for a group
    the bot was removed from), the stored table is closed: nobody could see or stop it."""
    db_path = tmp_path / "g.db"
    app = build_application(
        token, db_path=str(db_path), base_url=emulator.base_url, base_file_url=emulator.base_file_url
    )
    await open_services(app, db_path=str(db_path))
    try:
        command = {
            "message_id": 1,
            "date": int(time.time()),
            "chat": {"id": -4199, "type": "group", "title": "无人知晓"},
            "from": ALICE.to_api(),
            "text": "/newgame",
            "entities": [{"type": "bot_command", "offset": 0, "length": 8}],
        }
        await app.process_update(Update.de_json({"update_id": 1, "message": command}, app.bot))

        async def closed() -> bool:  # the lobby goes out by the group's reply queue
            return await tables_in(db_path) == [("stopped", Rules.default().to_json())]

        await wait_for(closed, what="the table whose lobby failed to be closed")
        assert app.bot_data.services.tables.tables == {}
    finally:
        await close_services(app)
