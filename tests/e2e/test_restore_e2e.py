"""A restore that plays on (issue 40.3): every table moves on from the newest message in its chat.

Several tables (one person and three computer players each) play in one ``python bot.py``;
the store is backed up mid-deal as docs/operations.md says (SQLite: ``python -m storage backup``;
PostgreSQL: ``pg_dump --format=custom``, as compose's backup service does); play goes on until
half the tables have sent their player a message the copy never knew (the next deal's hand, or
its tribute prompt); the bot stops and the copy is restored (SQLite: the file where
``GUANDAN_DB`` points; PostgreSQL: ``pg_restore`` into an empty database, the bot leading it by
its lease as in production).
Started again on it, the bot sends each player a fresh hand message at the bottom of the chat,
and says on the message the copy knew that it was replaced. A press on any older message — the
one the copy knew (pressed while the bot was down, as a player would during a restart) and one
it never knew — is answered with the restored text and changes nothing; a press on the newest
message plays on, at every table.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import aiosqlite
import asyncpg
import pytest

from app.table.texts import restored_text
from demo import take_turn
from emulator.client import BotMessage, Chat, Emulator, Telegram, User, callback_ops, wait_for
from emulator.postgresql import Cluster
from tests.e2e.test_match_e2e import PINNED_MATCH, ROOT, Table, bot_process, set_up

TABLES = 6
"""Tables playing at the backup; the even ones move on to a message the copy never knows."""
HUMAN_SEAT = 0  # set_up seats the person first; computer players fill the other three
PRESS_ORDER = ("g", "b", "p", "x", "h", "t", "o")
"""The hand buttons an old message's press is tried with, the ones that would act first."""
DEAL_TIMEOUT = 180.0
"""Long enough for a person playing 提示's choices and three computer players to end a deal on a
busy 2-core machine (one to two dozen presses)."""


def player(index: int) -> User:
    return User(3301 + index, f"玩家{index}")


def table_at(telegram: Telegram, index: int, db_path: Path) -> Table:
    return Table(telegram, Chat.group(-5301 - index, f"恢复桌{index}"), db_path)


def hand_buttons(message: BotMessage | None) -> dict[str, list[str]]:
    """A message's hand buttons (area ``h``) by operation; empty if it has none."""
    if message is None:
        return {}
    found = {op: [d for d in data if d.startswith("h:")] for op, data in callback_ops(message).items()}
    return {op: data for op, data in found.items() if data}


def an_acting_button(message: BotMessage) -> str:
    found = hand_buttons(message)
    return next(found[op][0] for op in PRESS_ORDER if op in found)


async def newest(telegram: Telegram, user: User) -> BotMessage | None:
    return await telegram.last_message(Chat.private(user))


async def newest_of(telegram: Telegram, user: User) -> BotMessage:
    latest = await newest(telegram, user)
    assert latest is not None, user
    return latest


async def next_deal(telegram: Telegram, user: User, since: int) -> BotMessage:
    """Take turns until the chat's newest message is a hand message newer than ``since``."""

    async def moved_on() -> BotMessage | None:
        latest = await newest(telegram, user)
        if latest is not None and latest.message_id > since and hand_buttons(latest):
            return latest
        await take_turn(telegram, user)
        return None

    return await wait_for(moved_on, DEAL_TIMEOUT, f"{user.first_name}'s next deal")


async def rows(store: str, sql: str, *args: object) -> list[tuple[int, ...]]:
    """What ``sql`` (``?`` for its arguments) reads from an SQLite file or a PostgreSQL URL."""
    if store.startswith("postgresql://"):
        numbered = sql.split("?")
        sql = numbered[0] + "".join(f"${n}{part}" for n, part in enumerate(numbered[1:], start=1))
        connection = await asyncpg.connect(store)
        try:
            return [tuple(int(value or 0) for value in row) for row in await connection.fetch(sql, *args)]
        finally:
            await connection.close()
    async with aiosqlite.connect(store) as db, db.execute(sql, args) as cursor:
        return [tuple(int(value or 0) for value in row) for row in await cursor.fetchall()]


async def scalar(store: str, sql: str, *args: object) -> int:
    (row,) = await rows(store, sql, *args)
    return row[0]


async def table_ids(store: str) -> dict[int, int]:
    """Each group's table id."""
    return {chat: table for chat, table in await rows(store, "SELECT chat_id, id FROM game_tables")}


async def human_actions(db_path: str, table_id: int) -> int:
    return await scalar(
        db_path, "SELECT COUNT(*) FROM actions WHERE table_id = ? AND seat = ?", table_id, HUMAN_SEAT
    )


async def stored_message(db_path: str, table_id: int) -> int:
    return await scalar(
        db_path, "SELECT dm_message_id FROM seats WHERE table_id = ? AND seat = ?", table_id, HUMAN_SEAT
    )


async def autoplay(db_path: str, table_id: int) -> int:
    return await scalar(
        db_path, "SELECT autoplay FROM seats WHERE table_id = ? AND seat = ?", table_id, HUMAN_SEAT
    )


class Backups:
    """Where the bot's store lives, its backup taken mid-play, and the copy restored from it, for
    either kind of store, each as an operator makes them (docs/operations.md)."""

    def __init__(self, kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
        self.cluster: Cluster | None = None
        if kind == "postgresql":
            self.cluster = request.getfixturevalue("postgresql_cluster")
            self.live = self.cluster.new_database()
        else:
            self.live = str(tmp_path / "live.db")
        self.folder = tmp_path
        self.file = tmp_path / "backup"

    async def back_up(self) -> str:
        """Back the running bot's store up; where the backup can be read (a copy for PostgreSQL,
        whose dump is not a database)."""
        if self.cluster is None:
            await back_up(Path(self.live), self.file)
            return str(self.file)
        await asyncio.to_thread(self.cluster.dump, self.live, self.file)
        return await asyncio.to_thread(self.cluster.restore, self.file)

    def restore(self) -> str:
        """The backup restored where a starting bot will read it."""
        if self.cluster is None:
            restored = self.folder / "restored.db"
            shutil.copyfile(self.file, restored)  # the copy where GUANDAN_DB points
            return str(restored)
        return self.cluster.restore(self.file)


async def back_up(live: Path, copy: Path) -> None:
    """``python -m storage backup`` against the running bot's store, as an operator runs it."""
    backup = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "storage", "backup", str(copy),
        cwd=ROOT, env=os.environ | {"GUANDAN_DB": str(live)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, complaint = await backup.communicate()
    assert backup.returncode == 0, complaint.decode()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
async def test_after_a_restore_every_table_plays_on_from_the_newest_message(
    emulator: Emulator,
    telegram: Telegram,
    token: str,
    tmp_path: Path,
    kind: str,
    request: pytest.FixtureRequest,
) -> None:
    backups = Backups(kind, tmp_path, request)
    live = backups.live
    users = [player(i) for i in range(TABLES)]
    tables = [table_at(telegram, i, Path(live)) for i in range(TABLES)]
    moving = range(0, TABLES, 2)
    with bot_process(emulator, token, live):
        await asyncio.gather(*(set_up(telegram, tables[i], [users[i]], PINNED_MATCH) for i in range(TABLES)))
        for user in users:  # every player holds the first deal's hand
            await wait_for(lambda u=user: _has_hand(telegram, u), what=f"{user.first_name}'s hand")
        copy = await backups.back_up()
        ids = await table_ids(copy)
        known = {i: await stored_message(copy, ids[t.group.id]) for i, t in enumerate(tables)}
        # Play on: half the tables end their deal, so their newest message is one the copy never knew
        moved = await asyncio.gather(*(next_deal(telegram, users[i], known[i]) for i in moving))
        never_known = dict(zip(moving, moved, strict=True))
        await telegram.wait_idle()
    before_restart = {i: await newest_of(telegram, users[i]) for i in range(TABLES)}
    for i, message in never_known.items():
        assert message.message_id > known[i]

    restored = backups.restore()
    quiet = 1  # a table that did not move on: its newest message is the one the copy knew
    assert quiet not in never_known and before_restart[quiet].message_id == known[quiet]
    with bot_process(emulator, token, restored):
        # Pressed while the bot starts, as a player would: the message the copy knew, and one it never knew
        old_presses = {
            i: await telegram.press(users[i], message, an_acting_button(message))
            for i, message in ((quiet, before_restart[quiet]), (0, never_known[0]))
        }
        for i, user in enumerate(users):  # every player's hand comes afresh at the bottom of the chat
            await wait_for(
                lambda u=user, i=i: _fresh_hand(telegram, u, before_restart[i]),
                timeout=30,
                what=f"{user.first_name}'s fresh hand",
            )
        for i, query in old_presses.items():
            answer = await telegram.wait_answer(query, timeout=20)
            assert (answer.text, answer.show_alert) == (restored_text("zh"), True), i
        # After the start: the older messages the copy never knew still show their buttons
        for i in moving:
            latest_old = next(
                m for m in reversed(await telegram.messages(Chat.private(users[i])))
                if m.message_id <= before_restart[i].message_id and hand_buttons(m)
            )  # fmt: skip
            assert latest_old.message_id > known[i]
            query = await telegram.press(users[i], latest_old, an_acting_button(latest_old))
            answer = await telegram.wait_answer(query)
            assert (answer.text, answer.show_alert) == (restored_text("zh"), True), i
        for i, table in enumerate(tables):  # those presses changed nothing
            table_id = ids[table.group.id]
            assert await human_actions(restored, table_id) == await human_actions(copy, table_id), i
            assert await autoplay(restored, table_id) == 0, i
        # The message the copy knew says it was replaced, without buttons
        shown = {m.message_id: m for m in await telegram.messages(Chat.private(users[quiet]))}
        assert shown[known[quiet]].buttons == []
        assert restored_text("zh") in shown[known[quiet]].content

        # Every table moves on when its player presses the newest message in their chat
        over = asyncio.Event()
        players = [asyncio.create_task(_play(telegram, user, over)) for user in users]
        try:
            for i, table in enumerate(tables):
                table_id = ids[table.group.id]
                backed_up = await human_actions(copy, table_id)
                await wait_for(
                    lambda t=table_id, n=backed_up: _acted(restored, t, n),
                    timeout=DEAL_TIMEOUT,
                    what=f"table {i} to move on from its newest message",
                )
        finally:
            over.set()
            await asyncio.gather(*players, return_exceptions=True)


async def _has_hand(telegram: Telegram, user: User) -> bool:
    return bool(hand_buttons(await newest(telegram, user)))


async def _fresh_hand(telegram: Telegram, user: User, before: BotMessage) -> bool:
    latest = await newest(telegram, user)
    return latest is not None and latest.message_id > before.message_id and bool(hand_buttons(latest))


async def _acted(db_path: str, table_id: int, backed_up: int) -> bool:
    return await human_actions(db_path, table_id) > backed_up


async def _play(telegram: Telegram, user: User, over: asyncio.Event) -> None:
    while not over.is_set():
        if not await take_turn(telegram, user):
            await asyncio.sleep(0.05)
