"""A broken table never stops the bot: on start, a table whose stored settings or action log
cannot be loaded is quarantined, its group is told once, and every other table resumes.

The tables are made by the table service on a real SQLite file, then rows are corrupted
the way an older version or a damaged disk could leave them; the bot then starts against
the emulator exactly as ``python bot.py`` does (``open_services`` → ``resume_tables``).
"""

from __future__ import annotations

from pathlib import Path

import aiosqlite

from app.table.settings import rules_from_args
from app.table.tables import TableService
from bot import build_application, close_services, open_services
from emulator.client import Chat, Emulator, Telegram, User
from handlers.table import timers
from storage import Database, TableStatus

HEALTHY, BAD_SETTINGS, BAD_ACTION, BAD_ROW, NO_SEAT, LOBBY = GROUPS = (
    Chat.group(-5001, "好桌"),
    Chat.group(-5002, "坏设置"),
    Chat.group(-5003, "坏记录"),
    Chat.group(-5005, "坏表行"),
    Chat.group(-5006, "缺座位"),
    Chat.group(-5004, "等人桌"),
)
BROKEN = (BAD_SETTINGS, BAD_ACTION, BAD_ROW, NO_SEAT)
PLAYERS = {chat.id: User(6000 - chat.id, f"P{-chat.id}") for chat in GROUPS}
NOTICE = "⚠️ 机器人重启后，本群的牌桌未能恢复，已被关闭。请用 /newgame 重新开一桌。"


async def make_tables(db_path: Path) -> dict[int, int]:
    """One human and three AI at each group's table, all dealt but LOBBY's. Chat id → table id."""
    db = await Database.open(db_path)
    service = TableService(db, new_seed=lambda: 9)
    found = {}
    try:
        for chat_id, user in PLAYERS.items():
            preset, rules = rules_from_args(["wechat-6-deals", "points_deals=2", "turn_seconds=30"])
            table = await service.create(chat_id=chat_id, creator_id=user.id, preset=preset, rules=rules)
            await service.take_seat(table, seat=0, user_id=user.id, name=user.first_name, locale=None)
            for seat in (1, 2, 3):
                await service.add_ai(table, seat=seat, name=f"AI{seat}")
            if chat_id != LOBBY.id:
                await service.start(table)
            found[chat_id] = table.id
    finally:
        await db.close()
    return found


async def corrupt(db_path: Path, tables: dict[int, int]) -> None:
    """Finding 1's row (a clock of "abc", stored before settings were checked), a torn action,
    a row that does not parse (its start time) and a match whose seat to act is gone (it loads
    and replays; the bots' catch-up fails on resume)."""
    async with aiosqlite.connect(db_path) as db:
        await db.execute(
            "UPDATE game_tables SET rules_json = json_set(rules_json, '$.rules.turn_seconds', 'abc')"
            " WHERE id = ?",
            (tables[BAD_SETTINGS.id],),
        )
        await db.execute(
            "UPDATE actions SET action_json = substr(action_json, 1, 9)"
            " WHERE table_id = ? AND version = (SELECT MAX(version) FROM actions WHERE table_id = ?)",
            (tables[BAD_ACTION.id], tables[BAD_ACTION.id]),
        )
        await db.execute(
            "UPDATE game_tables SET started_at = 'yesterday-ish' WHERE id = ?", (tables[BAD_ROW.id],)
        )
        await db.execute("DELETE FROM seats WHERE table_id = ? AND seat = 0", (tables[NO_SEAT.id],))
        await db.commit()


async def statuses(db_path: Path) -> dict[int, tuple[str, str | None]]:
    async with (
        aiosqlite.connect(db_path) as db,
        db.execute("SELECT chat_id, status, status_reason FROM game_tables") as cursor,
    ):
        return {chat_id: (status, reason) for chat_id, status, reason in await cursor.fetchall()}


async def start_bot(emulator: Emulator, token: str, db_path: Path):
    app = build_application(
        token, db_path=str(db_path), base_url=emulator.base_url, base_file_url=emulator.base_file_url
    )
    await open_services(app, db_path=str(db_path))  # raised (and `python bot.py` exited 1) before
    return app


async def test_broken_tables_are_quarantined_and_the_others_resume(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    db_path = tmp_path / "g.db"
    tables = await make_tables(db_path)
    await corrupt(db_path, tables)
    for group in GROUPS:  # the groups and private chats exist for the emulator
        user = PLAYERS[group.id]
        await telegram.send(user, group, "你好")
        await telegram.send(user, Chat.private(user), "/start")

    app = await start_bot(emulator, token, db_path)
    try:
        live = app.bot_data.services.tables.tables
        assert set(live) == {tables[HEALTHY.id], tables[LOBBY.id]}
        healthy = live[tables[HEALTHY.id]]
        assert healthy.record.status is TableStatus.PLAYING and healthy.match is not None
        assert app.job_queue is not None
        assert any(
            timers.armed(app.job_queue, timers.job_name(healthy.id, seat)) for seat in range(4)
        )  # its clock re-armed
    finally:
        await close_services(app)

    stored = await statuses(db_path)
    assert stored[HEALTHY.id] == ("playing", None) and stored[LOBBY.id] == ("lobby", None)
    assert stored[BAD_SETTINGS.id][0] == "quarantined"
    assert stored[BAD_SETTINGS.id][1].startswith("SettingError: turn_seconds must be a whole number")
    assert stored[BAD_ACTION.id][0] == "quarantined" and "JSONDecodeError" in stored[BAD_ACTION.id][1]
    assert stored[BAD_ROW.id] == ("quarantined", "ValueError: Invalid isoformat string: 'yesterday-ish'")
    assert stored[NO_SEAT.id] == ("quarantined", "KeyError: 0")
    hand = await telegram.wait_message(Chat.private(PLAYERS[HEALTHY.id]), lambda m: bool(m.photo_id))
    assert hand.buttons  # the resumed table's player got their hand back

    app = await start_bot(emulator, token, db_path)  # a second restart tells nobody again
    await close_services(app)
    for group in BROKEN:
        assert [m.content for m in await telegram.messages(group)] == [NOTICE]
    for group in (HEALTHY, LOBBY):
        assert NOTICE not in [m.content for m in await telegram.messages(group)]


async def test_a_new_table_can_be_opened_where_one_was_quarantined(tmp_path: Path) -> None:
    db_path = tmp_path / "g.db"
    tables = await make_tables(db_path)
    await corrupt(db_path, tables)
    db = await Database.open(db_path)
    try:
        service = TableService(db)
        restored = await service.restore_all()
        assert [(q.id, q.chat_id) for q in restored.quarantined] == [
            (tables[group.id], group.id) for group in (BAD_SETTINGS, BAD_ACTION, BAD_ROW)
        ]  # NO_SEAT loads and replays: its failure comes with the bots' catch-up (resume)
        assert (await db.tables.get(table_id=tables[BAD_SETTINGS.id])).status is TableStatus.QUARANTINED
        _, rules = rules_from_args([])
        again = await service.create(chat_id=BAD_SETTINGS.id, creator_id=1, preset="default", rules=rules)
        assert again.record.status is TableStatus.LOBBY
        assert len((await TableService(db).restore_all()).quarantined) == 0  # not loaded, not told again
    finally:
        await db.close()
