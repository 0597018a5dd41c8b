"""What only the PostgreSQL store has: a server that can drop the bot's connection, and a
URL's settings."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from emulator.postgresql import Cluster
from storage import Database, StorageUnavailable
from storage.postgresql import numbered

ROOT = Path(__file__).resolve().parents[2]


async def test_a_session_ended_during_a_write_fails_that_write_and_the_next_reconnects(
    postgresql_cluster: Cluster,
) -> None:
    """The server ends the bot's session while a write waits (a restart, an administrator):
    that write is "not saved, try again", never a dead bot; the next one connects again."""
    url = postgresql_cluster.new_database()
    db = await Database.open(url)
    admin = await asyncpg.connect(url)
    try:
        await db.users.set_locale(user_id=1, locale="en")
        async with admin.transaction():
            await admin.execute("LOCK TABLE users IN EXCLUSIVE MODE")
            write = asyncio.create_task(db.users.set_locale(user_id=2, locale="en"))
            waiting = await _bot_session_waiting_for_a_lock(admin)
            assert await admin.fetchval("SELECT pg_terminate_backend($1)", waiting)
            with pytest.raises(StorageUnavailable):
                await write
        await db.users.set_locale(user_id=3, locale="zh")
        stored = await admin.fetch("SELECT user_id, locale FROM users ORDER BY user_id")
        assert [tuple(row) for row in stored] == [(1, "en"), (3, "zh")]
    finally:
        await admin.close()
        await db.close()


async def test_a_session_ended_while_idle_costs_at_most_one_write(postgresql_cluster: Cluster) -> None:
    """Ended between statements: the next write either finds the connection closed and
    connects again, or (the notice still on its way) fails as StorageUnavailable; the one
    after it is stored either way."""
    url = postgresql_cluster.new_database()
    db = await Database.open(url)
    admin = await asyncpg.connect(url)
    try:
        await db.users.set_locale(user_id=1, locale="en")
        ended = await admin.fetchval(
            "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE application_name = 'guandan-bot' AND pid <> pg_backend_pid()"
        )
        assert ended == 1
        with contextlib.suppress(StorageUnavailable):
            await db.users.set_locale(user_id=2, locale="en")
        await db.users.set_locale(user_id=3, locale="zh")
        assert (await db.users.get(user_id=3)).locale == "zh"
    finally:
        await admin.close()
        await db.close()


async def _bot_session_waiting_for_a_lock(admin: asyncpg.Connection) -> int:
    """The bot's session, once it waits for a lock (polled: a state, not a duration)."""
    while True:
        pid = await admin.fetchval(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'guandan-bot'"
            " AND wait_event_type = 'Lock'"
        )
        if pid is not None:
            return int(pid)
        await asyncio.sleep(0.01)


async def test_settings_in_the_url_reach_the_session(postgresql_cluster: Cluster) -> None:
    db = await Database.open(postgresql_cluster.new_database() + "&synchronous_commit=off")
    try:
        assert await db.conn.fetchone("SHOW synchronous_commit") == ("off",)
        assert await db.conn.fetchone("SHOW lock_timeout") == ("5s",)
    finally:
        await db.close()


def test_placeholders_are_numbered_outside_quotes() -> None:
    assert numbered("SELECT ? WHERE a = '?' AND b = ?") == "SELECT $1 WHERE a = '?' AND b = $2"


@pytest.mark.parametrize(("ci", "outcome"), [("true", "1 error"), ("", "1 skipped")])
def test_without_postgresql_the_tests_fail_in_ci_and_skip_elsewhere(
    tmp_path: Path, ci: str, outcome: str
) -> None:
    """A CI that skipped the PostgreSQL half of the storage tests would look green."""
    (tmp_path / "no_postgresql.py").write_text(
        "import emulator.postgresql\n\n\ndef pytest_configure(config):\n"
        "    emulator.postgresql.binaries = lambda: None\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no_postgresql",
            "-p",
            "no:cacheprovider",
            "-q",
            f"{__file__}::test_settings_in_the_url_reach_the_session",
        ],
        cwd=ROOT,
        env=os.environ | {"CI": ci, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"},
        capture_output=True,
        text=True,
    )
    assert outcome in done.stdout.splitlines()[-1], done.stdout
    assert (done.returncode != 0) == (ci == "true")
