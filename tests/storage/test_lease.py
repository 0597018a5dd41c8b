"""The lease (storage/lease.py) on a real PostgreSQL: one holder per bot, a taker that waits out
the validity, a holder that stops acting once its checks are stale, and the fence: the old
holder's data sessions are ended and cannot connect again."""

from __future__ import annotations

import asyncio

import pytest

from storage import Database, StorageUnavailable
from storage.lease import VALIDITY, Lease, LeaseLost, bot_id_of, lease_key
from tests.postgresql import Cluster


class Clock:
    """Seconds that move only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_bot_id_is_the_tokens_first_part_and_keys_differ() -> None:
    assert bot_id_of("123456:ABC-def") == 123456
    assert bot_id_of("not-a-token") == 0
    assert lease_key(1) != lease_key(2)


async def test_one_holder_per_bot_and_the_taker_waits_out_the_validity(postgresql_cluster: Cluster) -> None:
    url = postgresql_cluster.new_database()
    clock = Clock()
    first, second, other_bot = (
        Lease(url, 7, instance="a", clock=clock),
        Lease(url, 7, instance="b", clock=clock),
        Lease(url, 8, instance="c", clock=clock),
    )
    try:
        assert await first._try()
        assert not await second._try()  # the same bot: standing by
        assert await other_bot._try()  # another bot's lease is its own
        assert first.check() == VALIDITY  # just granted: wait before the first request
        clock.now += 1
        first.confirm(clock.now)  # the checks, once a second
        clock.now += 1
        first.confirm(clock.now)
        assert first.check() == VALIDITY - 2
        clock.now += 1
        assert first.check() == 0  # VALIDITY after the grant: act
        clock.now += VALIDITY - 1.5
        assert first.check() == 0  # the last check was sent 2.5 s ago: still fresh
        clock.now += 0.5
        with pytest.raises(LeaseLost):  # no check confirmed it for VALIDITY seconds: stop
            first.check()
        with pytest.raises(LeaseLost):
            second.check()  # never held

        await first.close()  # a leader leaving frees the lock at once
        assert await second._try()
    finally:
        for lease in (first, second, other_bot):
            await lease.close()


async def test_the_fence_ends_the_old_holders_sessions_and_they_cannot_come_back(
    postgresql_cluster: Cluster,
) -> None:
    url = postgresql_cluster.new_database()
    old, new = Lease(url, 9, instance="old"), Lease(url, 9, instance="new")
    try:
        assert await old._try()
        stale = await Database.open(url, bot_id=9, session=old.session)
        await stale.users.set_locale(user_id=1, locale="en")
        assert old._conn is not None
        old._conn.terminate()  # the old holder's lease connection is lost; it has not noticed
        await asyncio.wait_for(new.acquire(), 10)
        assert await new.fence() == 1  # its data session, ended
        for _ in range(2):  # the write under way fails; reconnecting is refused by the guard
            with pytest.raises(StorageUnavailable):
                await stale.users.set_locale(user_id=2, locale="en")
        assert old.lost.is_set()
        fresh = await Database.open(url, bot_id=9, session=new.session)
        assert (await fresh.users.get(user_id=1)).locale == "en"
        assert await fresh.conn.fetchone("SELECT COUNT(*) FROM users") == (1,)  # nothing after the fence
        await fresh.close()
        await stale.close()
    finally:
        await old.close()
        await new.close()
