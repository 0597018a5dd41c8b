"""The lease (storage/lease.py) on a real PostgreSQL: one holder per bot; it expires after its
time to live unless renewed, and a blocked event loop does not renew it; a taker waits out the
previous expiry; a stale epoch's writes fail in the database itself (the fence trigger of
migration 0018); the taker ends the old holder's sessions and they cannot come back."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import asyncpg
import pytest

from emulator.postgresql import Cluster
from storage import Database, StorageUnavailable
from storage.lease import LEASE_TABLE, Lease, LeaseLost, bot_id_of
from storage.schema import MIGRATIONS_DIR, POSTGRESQL_MIGRATIONS, statements

TTL = 1.0
"""The tests' time to live: the lease's proportions (validity 80 %, renewal every 20 %)."""


class Clock:
    """Seconds that move only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_bot_id_is_the_tokens_first_part() -> None:
    assert bot_id_of("123456:ABC-def") == 123456
    assert bot_id_of("not-a-token") == 0


def test_the_lease_table_is_migration_0018s() -> None:
    migration = MIGRATIONS_DIR / POSTGRESQL_MIGRATIONS / "0018_fencing.sql"
    assert statements(LEASE_TABLE)[0] in statements(migration.read_text(encoding="utf-8"))


async def test_one_holder_per_bot_until_its_ttl_runs_out(postgresql_cluster: Cluster) -> None:
    url = postgresql_cluster.new_database()
    first, second, other_bot = Lease(url, 7, ttl=TTL), Lease(url, 7, ttl=TTL), Lease(url, 8, ttl=TTL)
    try:
        assert await first._try()
        assert not await second._try()  # the same bot, unexpired: standing by
        assert await other_bot._try()  # another bot's lease is its own
        assert first.check() == 0  # a first lease: nobody to wait for
        await asyncio.wait_for(second.acquire(), 10 * TTL)  # first never renews: it expires
        assert second.epoch == (first.epoch or 0) + 1
        assert second.check() < 0.1  # taken because it expired: nothing left to wait
        with pytest.raises(LeaseLost):
            first.check()  # its own clock says so too: not renewed for VALIDITY
        assert not await first._renew()  # and the row is no longer its epoch's
    finally:
        for lease in (first, second, other_bot):
            await lease.close()


async def test_the_validity_runs_from_the_renewals_sending(postgresql_cluster: Cluster) -> None:
    url = postgresql_cluster.new_database()
    clock = Clock()
    lease = Lease(url, 7, clock=clock, ttl=TTL)
    try:
        assert await lease._try()
        clock.now += lease.validity - 0.01
        assert lease.check() == 0
        lease.confirm(clock.now - 0.5)  # a renewal sent half a second ago succeeded
        clock.now += lease.validity - 0.5
        with pytest.raises(LeaseLost):
            lease.check()
        with pytest.raises(LeaseLost):
            lease.fenced()  # the transport's check, just before a request is written
    finally:
        await lease.close()


async def test_a_taker_waits_out_the_expiry_of_a_holder_whose_session_ended(
    postgresql_cluster: Cluster,
) -> None:
    url = postgresql_cluster.new_database()
    ttl = 3.0
    old, new = Lease(url, 9, ttl=ttl), Lease(url, 9, ttl=ttl)
    try:
        assert await old._try()
        assert old._conn is not None
        old._conn.terminate()  # a killed process, or one the server cut off: it may still act
        await asyncio.wait_for(new.acquire(), 10)  # taken at once: the session is gone
        wait = new.check()
        assert 0.5 < wait <= ttl  # the rest of the old expiry, by the server's clock
        with pytest.raises(LeaseLost):
            new.fenced()  # a request holding its connection now would go too early
        keeping = asyncio.create_task(new.keep())  # the taker renews while it waits
        await asyncio.wait_for(new.admit(), ttl + 1)
        assert new.check() == 0
        keeping.cancel()
    finally:
        await old.close()
        await new.close()


async def test_a_blocked_event_loop_does_not_renew_and_loses_the_lease(postgresql_cluster: Cluster) -> None:
    url = postgresql_cluster.new_database()
    holder, standby = Lease(url, 11, ttl=TTL), Lease(url, 11, ttl=TTL)
    try:
        assert await holder._try()
        keeping = asyncio.create_task(holder.keep())
        renewed_at = await _renewed(holder)
        assert holder.check() == 0
        time.sleep(TTL * 1.5)  # a long computation on the loop: no renewal meanwhile
        with pytest.raises(LeaseLost):
            holder.check()  # the first thing that runs afterwards is refused
        await asyncio.wait_for(keeping, 5 * TTL)  # the next renewal finds the row expired
        assert holder.lost.is_set() and renewed_at
        assert await standby._try()
    finally:
        await holder.close()
        await standby.close()


async def _renewed(lease: Lease) -> float:
    """Wait (bounded) until a renewal has succeeded; its validity's end."""
    first = lease._valid_until
    deadline = time.monotonic() + 10 * TTL
    while lease._valid_until == first:
        assert time.monotonic() < deadline, "no renewal"
        await asyncio.sleep(0.01)
    return lease._valid_until


async def test_a_stale_epochs_write_fails_in_the_database(postgresql_cluster: Cluster) -> None:
    url = postgresql_cluster.new_database()
    clock = Clock()  # the old holder's clock never moves: it believes it still leads
    old, new = Lease(url, 12, instance="old", clock=clock, ttl=TTL), Lease(url, 12, instance="new", ttl=TTL)
    try:
        assert await old._try()
        stale = await Database.open(url, bot_id=12, session=old.session)
        await stale.users.set_locale(user_id=1, locale="en")
        pending = await stale.conn.open_another(busy_timeout=1)  # a transaction left open
        await pending.begin()
        await pending.execute("INSERT INTO users (user_id, locale) VALUES (3, 'en')")

        await asyncio.wait_for(new.acquire(), 10 * TTL)  # old never renewed: expired, taken
        old_epoch = old.epoch
        assert old_epoch is not None and new.epoch == old_epoch + 1
        with pytest.raises(StorageUnavailable, match="fenced"):  # refused by the server
            await stale.users.set_locale(user_id=2, locale="en")
        assert old.check() == 0  # not by the old process's own check: it did not know

        assert await new.fence() == 2  # both of old's data sessions, the open transaction's too
        with pytest.raises(StorageUnavailable):
            await pending.commit()
        fresh = await Database.open(url, bot_id=12, session=new.session)
        await fresh.users.set_locale(user_id=4, locale="zh")  # the current epoch writes
        assert await fresh.conn.fetchall("SELECT user_id FROM users ORDER BY user_id") == [(1,), (4,)]
        await fresh.close()
        await stale.close()
        await pending.close()

        tool = await asyncpg.connect(url)  # a session without an epoch (python -m storage copy)
        try:
            assert await tool.execute("UPDATE users SET locale = 'en' WHERE user_id = 4") == "UPDATE 1"
            await tool.execute(f"SET guandan.lease = '12:{old_epoch}'")
            with pytest.raises(asyncpg.PostgresError, match="not current"):
                await tool.execute("UPDATE users SET locale = 'zh' WHERE user_id = 4")
        finally:
            await tool.close()
    finally:
        await old.close()
        await new.close()


async def test_the_fence_ends_the_old_holders_sessions_and_they_cannot_come_back(
    postgresql_cluster: Cluster,
) -> None:
    url = postgresql_cluster.new_database()
    old, new = Lease(url, 13, instance="old", ttl=TTL), Lease(url, 13, instance="new", ttl=TTL)
    try:
        assert await old._try()
        stale = await Database.open(url, bot_id=13, session=old.session)
        await stale.users.set_locale(user_id=1, locale="en")
        assert old._conn is not None
        old._conn.terminate()  # the old holder's lease connection is lost; it has not noticed
        await asyncio.wait_for(new.acquire(), 10)
        assert await new.fence() == 1  # its data session, ended
        for _ in range(2):  # the write under way fails; reconnecting is refused by the guard
            with pytest.raises(StorageUnavailable):
                await stale.users.set_locale(user_id=2, locale="en")
        assert old.lost.is_set()
        fresh = await Database.open(url, bot_id=13, session=new.session)
        assert (await fresh.users.get(user_id=1)).locale == "en"
        assert await fresh.conn.fetchone("SELECT COUNT(*) FROM users") == (1,)  # nothing after the fence
        await fresh.close()
        await stale.close()
    finally:
        await old.close()
        await new.close()


async def test_every_table_is_fenced(postgresql_cluster: Cluster) -> None:
    """A table a later migration adds must get the fence trigger too."""
    db = await Database.open(postgresql_cluster.new_database())
    try:
        unfenced = await db.conn.fetchall(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            " AND tablename NOT IN ('schema_migrations', 'bot_lease') AND NOT EXISTS ("
            " SELECT 1 FROM pg_trigger WHERE tgrelid = format('%I', tablename)::regclass"
            " AND tgname = 'fence')"
        )
    finally:
        await db.close()
    assert unfenced == []


def test_the_fence_is_postgresqls_alone() -> None:
    assert statements((MIGRATIONS_DIR / "0018_fencing.sql").read_text(encoding="utf-8")) == []
    assert Path(MIGRATIONS_DIR / POSTGRESQL_MIGRATIONS / "0018_fencing.sql").exists()
