"""Issue 34, part 2, from the phones: two ``bot.py`` processes with one token on one PostgreSQL,
the first leading and the second standing by.

* The leader is killed (SIGKILL) mid-deal: the standby takes the lease, resumes the table from
  the action log (each player's hand and turn, the score, as they were), answers the press
  made during the takeover, and the match is played to its end; no action is stored twice.
* The leader loses its lease connection (the server ends it): it steps down (exit 75) and the
  standby leads.

Throughout, the emulator counts ``getUpdates`` calls of the token made while another was still
open on a live connection: there is none, so two processes never polled at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Awaitable, Iterator
from pathlib import Path

import asyncpg

from demo import take_turn
from emulator.client import (
    BotMessage,
    Chat,
    Emulator,
    EmulatorError,
    Telegram,
    User,
    callback_ops,
    free_port,
    wait_for,
)
from emulator.postgresql import Cluster
from handlers.platform.leader import STEP_DOWN_EXIT
from storage.lease import LEASE_PREFIX, bot_id_of
from tests.e2e.test_match_e2e import ALICE, BOB, MATCH_TIMEOUT, ROOT, SHORT_MATCH, Table, set_up
from tests.test_compose import bot_environment


@contextlib.contextmanager
def bot_process(
    emulator: Emulator, token: str, url: str, extra: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """``bot.py`` with compose.yaml's environment (the token, the store and, as both run on one
    machine here, the health port set per process); SIGINT at the end, as compose's stop."""
    port = str(free_port())
    env = os.environ | bot_environment(token, url) | {"TELEGRAM_API_BASE": emulator.base_url}
    env["GUANDAN_METRICS_PORT"] = port
    env |= extra or {}
    process = subprocess.Popen([sys.executable, "bot.py"], cwd=ROOT, env=env)
    process.health_port = port  # type: ignore[attr-defined]
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def health(process: subprocess.Popen[bytes]) -> tuple[int, str]:
    """compose.yaml's health check (the image's scripts/healthcheck.py) against the process:
    its exit status and what it printed (/healthz's text)."""
    port = process.health_port  # type: ignore[attr-defined]
    check = subprocess.run(
        [sys.executable, "scripts/healthcheck.py"],
        cwd=ROOT,
        env=os.environ | {"GUANDAN_METRICS_PORT": port},
        capture_output=True,
        text=True,
        timeout=30,
    )
    return check.returncode, check.stdout


async def monitored_as_leader(process: subprocess.Popen[bytes]) -> bool:
    """The process answers the health check as a working leader (not "standby") and serves
    /metrics on the same port: the monitor took the port over from the standby's server."""
    status, text = await asyncio.to_thread(health, process)
    if status != 0 or "standby" in text:
        return False
    url = f"http://127.0.0.1:{process.health_port}/metrics"  # type: ignore[attr-defined]
    with urllib.request.urlopen(url, timeout=9) as answer:
        return "guandan_presses_total" in answer.read().decode()


async def lease_holder(url: str, token: str) -> int | None:
    """The OS pid of the process holding the token's unexpired lease (its holder's name ends
    with ``-<pid>``)."""
    db = await asyncpg.connect(url)
    try:
        name = await db.fetchval(
            "SELECT holder FROM bot_lease WHERE bot_id = $1 AND expires_at > clock_timestamp()",
            bot_id_of(token),
        )
    except asyncpg.UndefinedTableError:  # nobody asked for the lease yet
        name = None
    finally:
        await db.close()
    return int(name.rsplit("-", 1)[1]) if name else None


async def standing_by(url: str, token: str, pid: int) -> bool:
    """``pid`` has its lease connection open (and so asks for the lock every second)."""
    db = await asyncpg.connect(url)
    try:
        return bool(
            await db.fetchval(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name LIKE $1",
                f"{LEASE_PREFIX}:{bot_id_of(token)}:%-{pid}",
            )
        )
    finally:
        await db.close()


async def actions(url: str) -> tuple[int, int]:
    """(rows, highest version) of the action log."""
    db = await asyncpg.connect(url)
    try:
        row = await db.fetchrow("SELECT COUNT(*), COALESCE(MAX(version), 0) FROM actions")
    finally:
        await db.close()
    return int(row[0]), int(row[1])


async def leading(url: str, token: str, process: subprocess.Popen[bytes]) -> bool:
    return await lease_holder(url, token) == process.pid


class Players:
    """The humans pressing 提示/出牌 in their private chats, with a pause."""

    def __init__(self, telegram: Telegram, users: list[User]) -> None:
        self.telegram = telegram
        self.go = asyncio.Event()
        self.go.set()
        self.busy = 0
        self.tasks = [asyncio.create_task(self._play(user)) for user in users]

    async def _play(self, user: User) -> None:
        while True:
            await self.go.wait()
            self.busy += 1
            try:
                acted = await take_turn(self.telegram, user)
            finally:
                self.busy -= 1
            if not acted:
                await asyncio.sleep(0.05)

    async def pause(self) -> None:
        self.go.clear()
        await wait_for(lambda: _true(self.busy == 0), what="the players to put their phones down")

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def _true(value: bool) -> bool:
    return value


def hand_view(message: BotMessage) -> tuple[str, list[list[str]]]:
    """What a player sees of a hand message: its text and its buttons' labels."""
    return message.content, [[button.text for button in row] for row in message.buttons]


def keyboard_versions(message: BotMessage) -> set[int]:
    """The match versions a hand message's buttons were made for (``h:table:version:check:op``)."""
    parts = (button.data.split(":") for row in message.buttons for button in row if button.data)
    return {int(part[2]) for part in parts if len(part) >= 5 and part[0] == "h"}


async def settled_view(telegram: Telegram, url: str, user: User) -> tuple[str, list[list[str]]]:
    """The user's hand message once it shows the log's last action: the bot has fetched every
    update, the log does not move while the message is read, and the message's buttons were
    made for the log's highest version (a look still on its way carries an older one). A state,
    not a quiet moment: the bot is another process, and a look of a fixed length could end
    before a slow edit."""

    async def settled() -> tuple[str, list[list[str]]] | None:
        await telegram.wait_idle()
        before = await actions(url)
        shown = await telegram.last_message(Chat.private(user))
        if shown is None or await actions(url) != before:
            return None
        if keyboard_versions(shown) not in (set(), {before[1]}):
            return None
        return hand_view(shown)

    return await wait_for(settled, what=f"{user.first_name}'s hand to show the last action")


async def trophy(telegram: Telegram, group: Chat) -> None:
    while not any("🏆" in m.content for m in await telegram.messages(group)):
        await asyncio.sleep(0.3)


async def test_the_standby_takes_over_a_killed_leader_mid_deal(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, postgresql_cluster: Cluster
):
    url = postgresql_cluster.new_database()
    table = Table(telegram, Chat.group(-4036, "接班桌"), tmp_path / "unused.db")
    humans = [ALICE, BOB]
    with bot_process(emulator, token, url) as first:
        await wait_for(lambda: leading(url, token, first), timeout=60, what="the first process to lead")
        with bot_process(emulator, token, url) as second:
            await wait_for(lambda: standing_by(url, token, second.pid), timeout=60, what="a standby")
            status, text = await asyncio.to_thread(health, second)
            assert status == 0 and "standby" in text  # compose's health check passes a standby
            await wait_for(lambda: monitored_as_leader(first), timeout=30, what="the leader's monitor")
            await set_up(telegram, table, humans, SHORT_MATCH + " turn_seconds=null first_turn_seconds=null")
            players = Players(telegram, humans)
            try:
                await wait_for(lambda: _logged(url, 30), timeout=90, what="30 actions")
                await players.pause()
                before = {user.id: await settled_view(telegram, url, user) for user in humans}
                logged_before = await actions(url)

                first.send_signal(signal.SIGKILL)
                first.wait()
                waiting = next(user for user in humans if "轮到你" not in before[user.id][0])
                hand = await telegram.last_message(Chat.private(waiting))
                assert hand is not None
                query = await telegram.press(waiting, hand, callback_ops(hand)["h"][0])
                answer = await telegram.wait_answer(query, timeout=60)  # answered by the standby
                assert answer.text
                assert await lease_holder(url, token) == second.pid

                after = {user.id: await settled_view(telegram, url, user) for user in humans}
                assert after == before  # hands, whose turn, the levels, as they were
                assert await actions(url) == logged_before  # the press acted on nothing twice
                players.go.set()
                await asyncio.wait_for(trophy(telegram, table.group), MATCH_TIMEOUT)
            finally:
                await players.stop()
    count, highest = await actions(url)
    assert count == highest > logged_before[0]  # one row per version: none lost, none twice
    polls, overlaps = await telegram.poll_stats()
    assert polls > 0 and overlaps == 0


async def _logged(url: str, count: int) -> bool:
    return (await actions(url))[0] >= count


async def test_a_leader_that_loses_its_lease_connection_steps_down(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, postgresql_cluster: Cluster
):
    url = postgresql_cluster.new_database()
    table = Table(telegram, Chat.group(-4037, "断线桌"), tmp_path / "unused.db")
    with bot_process(emulator, token, url) as first:
        await wait_for(lambda: leading(url, token, first), timeout=60, what="the first process to lead")
        with bot_process(emulator, token, url) as second:
            await wait_for(lambda: standing_by(url, token, second.pid), timeout=60, what="a standby")
            await set_up(telegram, table, [ALICE, BOB])
            players = Players(telegram, [ALICE, BOB])
            try:
                await wait_for(lambda: _logged(url, 10), timeout=90, what="10 actions")
                admin = await asyncpg.connect(url)
                try:
                    ended = await admin.fetchval(
                        "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity"
                        " WHERE application_name LIKE $1",
                        f"{LEASE_PREFIX}:{bot_id_of(token)}:%-{first.pid}",
                    )
                finally:
                    await admin.close()
                assert ended == 1
                assert await asyncio.to_thread(first.wait, 30) == STEP_DOWN_EXIT
                await wait_for(lambda: leading(url, token, second), timeout=30, what="the standby to lead")
                await wait_for(lambda: monitored_as_leader(second), timeout=30, what="the leader's monitor")
                moved_on = (await actions(url))[0] + 6
                await wait_for(lambda: _logged(url, moved_on), timeout=90, what="play to go on")
            finally:
                await players.stop()
    polls, overlaps = await telegram.poll_stats()
    assert polls > 0 and overlaps == 0


async def test_in_webhook_mode_the_taker_registers_its_own_webhook(
    emulator: Emulator, telegram: Telegram, token: str, postgresql_cluster: Cluster
):
    """Each process with its own webhook address: the standby's answers 503 until it leads;
    the taker calls setWebhook with its own, so the users' next messages reach it. (The
    emulator, unlike Telegram, does not retry a delivery that failed while the leader was
    dead: the user writes again, as a person would after no answer.)"""
    url = postgresql_cluster.new_database()
    user = User(2035, "Wen")
    chat = Chat.private(user)
    ports = free_port(), free_port()

    def hook(port: int) -> dict[str, str]:
        return {
            "TELEGRAM_WEBHOOK_URL": f"http://127.0.0.1:{port}/hook",
            "TELEGRAM_WEBHOOK_SECRET": "failover-secret-0123456789",
            "TELEGRAM_WEBHOOK_PORT": str(port),
        }

    async def replies() -> int:
        return len(await telegram.messages(chat))

    async def answered_after(seen: int) -> bool:
        with contextlib.suppress(EmulatorError):  # the dead leader's address: refused
            await telegram.send(user, chat, "/help")
        with contextlib.suppress(TimeoutError):
            await wait_for(lambda: _true_async(replies(), seen), timeout=3, what="a reply")
            return True
        return False

    with bot_process(emulator, token, url, hook(ports[0])) as first:
        await wait_for(lambda: leading(url, token, first), timeout=60, what="the first process to lead")
        with bot_process(emulator, token, url, hook(ports[1])) as second:
            await wait_for(lambda: standing_by(url, token, second.pid), timeout=60, what="a standby")
            status, _ = await asyncio.to_thread(post, f"http://127.0.0.1:{ports[1]}/hook")
            assert status == 503  # the standby's webhook
            await wait_for(lambda: answered_after(0), timeout=60, what="the leader to answer /help")
            seen = await replies()
            first.send_signal(signal.SIGKILL)
            first.wait()
            await wait_for(lambda: answered_after(seen), timeout=60, what="the taker to answer /help")
            assert await lease_holder(url, token) == second.pid
            status, _ = await asyncio.to_thread(post, f"http://127.0.0.1:{ports[1]}/hook")
            assert status != 503  # the taker's own webhook server now (403: no secret)


async def _true_async(count: Awaitable[int], seen: int) -> bool:
    return await count > seen


def post(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=b"{}"), timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()
