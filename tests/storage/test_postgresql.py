"""What only the PostgreSQL store has: a server that can drop the bot's connection, and a
URL's settings."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from storage import Database, StorageUnavailable
from storage.backend import numbered
from tests.postgresql import Cluster


@pytest.mark.parametrize("ended_before_the_write", [False, True], ids=["racing", "idle"])
async def test_a_dropped_connection_fails_one_write_and_the_next_reconnects(
    postgresql_cluster: Cluster, ended_before_the_write: bool
) -> None:
    """The server ends the bot's session (a restart, an administrator, the lease's fence): the
    write under way is "not saved, try again", never a dead bot; the next one connects again
    and is stored. ``idle``: the session was gone before the write (asyncpg then refused it
    as an internal error, which the handlers answered as a bug)."""
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
        while ended_before_the_write and await admin.fetchval(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = 'guandan-bot'"
        ):
            await asyncio.sleep(0.01)
        with pytest.raises(StorageUnavailable):
            await db.users.set_locale(user_id=2, locale="en")
        await db.users.set_locale(user_id=3, locale="zh")
        assert (await db.users.get(user_id=3)).locale == "zh"
        assert await admin.fetchval("SELECT COUNT(*) FROM users") == 2
    finally:
        await admin.close()
        await db.close()


async def test_settings_in_the_url_reach_the_session(postgresql_cluster: Cluster) -> None:
    db = await Database.open(postgresql_cluster.new_database() + "&synchronous_commit=off")
    try:
        assert await db.conn.fetchone("SHOW synchronous_commit") == ("off",)
        assert await db.conn.fetchone("SHOW lock_timeout") == ("5s",)
    finally:
        await db.close()


def test_placeholders_are_numbered_outside_quotes() -> None:
    assert numbered("SELECT ? WHERE a = '?' AND b = ?") == "SELECT $1 WHERE a = '?' AND b = $2"
