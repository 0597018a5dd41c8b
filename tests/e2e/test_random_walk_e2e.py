"""A seeded random walk of hostile and careless users through the emulator: every command with
valid, odd and garbage arguments, in the group and in private chats, and presses of every
button the bot shows (some with the callback data cut, altered or from another chat), by
players and by strangers, all at once, with a contest open. Whatever they do, no update may
fail (the error handler's log), every press is answered within 15 s, and a restarted bot
resumes every active table."""

from __future__ import annotations

import asyncio
import logging
import random
from pathlib import Path

import aiosqlite
import pytest

from bench.group import open_contest
from emulator.client import BotMessage, Chat, Emulator, EmulatorError, Telegram, User
from tests.e2e.test_match_e2e import running_bot

USERS = [User(7101 + i, name) for i, name in enumerate(["甲", "乙", "丙", "丁", "戊", "Mallory"])]
GROUP = Chat.group(-7100, "乱按群")
STEPS = 60  # rounds in which every user acts at once
ANSWER_WAIT = 30.0  # seconds a press may wait for its answer before the walk fails

COMMANDS = (
    "/newgame", "/newgame wechat-6-deals", "/newgame default turn_seconds=5", "/newgame x=y",
    "/start", "/stop", "/lang en", "/lang zh", "/lang xx", "/help", "/rules", "/rules default",
    "/fourcolor", "/autopass", "/arrange", "/stats", "/top", "/history", "/forgetme",
    "/contest", "/contest new knockout", "/contest new swiss rounds=3", "/contest close",
    "/signup", "/signup 甲 乙", "/withdraw", "/draw", "/report", "/report 3-1", "/result",
    "/result 1 2:0", "/round", "/round next", "/late", "/late 1", "/leave", "/standings",
    "/bracket", "掼蛋3组", "掼蛋3组 1号 胜 2号", "/newgame match=1", "/newgame match=abc",
)  # fmt: skip
GARBAGE = ("", "\u202e", "<b>", "9" * 80, "-1", "%s", "@" * 30, "null", "🀄" * 20, "0:0:0:0:0:0")


def _mutated(data: str, rng: random.Random) -> str:
    """A button's callback data as a stale, cut or forged press might carry it."""
    choice = rng.randrange(5)
    if choice == 0:
        return data[: rng.randrange(len(data) + 1)]
    if choice == 1:
        parts = data.split(":")
        parts[rng.randrange(len(parts))] = rng.choice(GARBAGE)
        return ":".join(parts)
    if choice == 2:
        return data + ":" + rng.choice(GARBAGE)
    if choice == 3:
        return rng.choice(GARBAGE)
    return data.replace(data[:1], rng.choice("hlskr"), 1)


class Walker:
    """One user's random walk: a command, a press or a forged press at a time. Like a phone,
    a press waits for its answer (the button's spinner) before the user's next action."""

    def __init__(self, telegram: Telegram, user: User, rng: random.Random) -> None:
        self.telegram, self.user, self.rng = telegram, user, rng
        self.presses: list[tuple[str, float | None]] = []  # (callback data, seconds to its answer)

    async def step(self) -> None:
        roll = self.rng.random()
        chat = GROUP if self.rng.random() < 0.6 else Chat.private(self.user)
        if roll < 0.3:
            text = self.rng.choice(COMMANDS)
            if self.rng.random() < 0.3:
                text += " " + self.rng.choice(GARBAGE)
            await self.telegram.send(self.user, chat, text)
            return
        message = await self._message_with_buttons()
        if message is None:
            return
        data = self.rng.choice([b.data for row in message.buttons for b in row if b.data])
        if roll > 0.85:  # Telegram refuses data its message never showed, as the emulator does
            data = _mutated(data, self.rng)
        try:
            query = await self.telegram.press(self.user, message, data)
        except EmulatorError:
            return
        answer = await self.telegram.wait_answer(query, timeout=ANSWER_WAIT)
        self.presses.append((data, answer.seconds))

    async def _message_with_buttons(self) -> BotMessage | None:
        """A message with buttons, usually the newest: a phone scrolled up now and then."""
        chats = [GROUP, Chat.private(self.user)]
        shown = [m for chat in chats for m in await self.telegram.messages(chat) if m.buttons]
        shown = [m for m in shown if any(b.data for row in m.buttons for b in row)]
        if not shown:
            return None
        if self.rng.random() < 0.8:
            return max(shown, key=lambda m: m.message_id)
        return self.rng.choice(shown)


@pytest.mark.parametrize(("seed", "slow"), [(1, False), (2, False), (3, False), (31, True)])
async def test_random_walk_fails_no_update_and_answers_every_press(
    emulator: Emulator,
    telegram: Telegram,
    token: str,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    seed: int,
    slow: bool,
) -> None:
    """``slow``: with Telegram's limits (429s included) and edits taking 0.2–1.5 s."""
    caplog.set_level(logging.ERROR)
    rng = random.Random(seed)
    walkers = [Walker(telegram, user, random.Random(rng.random())) for user in USERS]
    db_path = tmp_path / "g.db"
    async with running_bot(emulator, token, db_path, seed=9):
        if slow:
            await telegram.enforce_limits(group_edit_weight=1)
            await telegram.delay_edits(200, 1500)
        await telegram.set_admins(GROUP, USERS[:2])
        for user in USERS:
            await telegram.send(user, Chat.private(user), "/start")
        await open_contest(telegram, GROUP, "乱按杯")
        await telegram.send(USERS[0], GROUP, "/newgame")
        for _ in range(STEPS):
            await asyncio.gather(*(walker.step() for walker in walkers))
        await telegram.wait_idle()
        late = [press for walker in walkers for press in walker.presses if (press[1] or 0) >= 15]
        assert not late, late  # a phone gives up on a button after about 15 s
        await telegram.delay_edits(0, 0)
    async with running_bot(emulator, token, db_path, seed=9) as app:  # and a restart resumes them all
        live = {table.id for table in app.bot_data.services.tables.tables.values()}
        assert live == await active_tables(db_path)
    failures = [record.getMessage()[:300] for record in caplog.records if record.levelno >= logging.ERROR]
    assert not failures, failures


async def active_tables(db_path: Path) -> set[int]:
    query = "SELECT id FROM game_tables WHERE status IN ('lobby', 'playing')"
    async with aiosqlite.connect(db_path) as db, db.execute(query) as cursor:
        return {int(row[0]) for row in await cursor.fetchall()}
