"""The lease: which one of a bot's processes serves its token (issues 34 and 40, docs/postgresql.md).

Several processes run with the same token against one PostgreSQL; one leads (polls Telegram
or takes its webhook, sends, writes), the others stand by. The lease is a row of
``bot_lease`` (bot, holder, epoch, expiry) with a time to live, in the style of etcd's and
Patroni's leases, and PostgreSQL as the only coordinator: every time is the database
server's clock (``clock_timestamp()``), never a comparison of two machines' clocks.

* **take**: a standby asks every :data:`LEASE_POLL` seconds; it gets the row when its expiry
  has passed, or when the holder's lease session is gone (a killed process: PostgreSQL ends
  the session at once), and the epoch goes up by one;
* **renew**: the leader's own event loop sets the expiry to now + :data:`TTL` every
  :data:`RENEW_EVERY` seconds, only while the row is still its epoch's and unexpired. A
  blocked loop (a long computation, SIGSTOP, a paused VM) stops renewing, and the row
  expires although the process's connection stays open;
* **act only while valid**: :meth:`Lease.check` (before every Bot API request, and again
  once the request holds its connection, ``handlers/platform/transport.py``; and before
  every statement) refuses once :data:`VALIDITY` seconds have passed since the *sending* of
  the last renewal that succeeded. That renewal set the expiry to at least its sending + TTL,
  so the process stops :data:`MARGIN` seconds before anyone can take the row;
* **the taker waits** until the previous expiry has passed before its first Bot API
  request (0 when the row had expired; the rest of the TTL when the holder's session ended
  early): by then the old holder has stopped by the rule above;
* **the store is fenced in the database**: each data session carries its epoch
  (``guandan.lease``), and a trigger on every table (migration 0018) refuses a write unless
  that epoch is the row's and the row is unexpired, by the server's clock. The taker also
  ends the bot's other data sessions and waits until they are gone, which aborts any
  transaction an old holder left open. A process waking after any pause cannot write.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Callable
from typing import Final

import asyncpg

from storage.errors import StorageUnavailable
from storage.postgresql import MIGRATION_LOCK, Session, postgresql_errors

log = logging.getLogger(__name__)

LEASE_POLL: Final = 1.0
"""Seconds between a standby's attempts to take the lease."""
RENEW_EVERY: Final = 1.0
"""Seconds between the leader's renewals."""
RENEW_TIMEOUT: Final = 2.0
"""Seconds a renewal may take before the lease counts as lost."""
TTL: Final = 5.0
"""Seconds a renewal keeps the lease. Long enough that a renewal may be late by its whole
timeout after a second's pause (1 + 2 s) and still land inside the TTL minus the margin;
short enough that a frozen leader's tables are back within about 10 s (the expiry, a
standby's poll, the resume: bench/failover.py). A leader whose loop stalls longer than
about VALIDITY - RENEW_EVERY = 3 s stops acting (it did at 3 s before this lease too)."""
MARGIN: Final = 1.0
"""Seconds the leader stops before its lease can expire: covers a request that passed the
check being written, and clock rates (NTP slews clocks by 0.05 % at most: 2.5 ms in 5 s)."""
VALIDITY: Final = TTL - MARGIN
"""Seconds after a successful renewal was sent during which the leader may act."""
FENCE_TIMEOUT: Final = 5.0
"""Seconds the taker waits for the terminated sessions to end."""
KEEPALIVES: Final = {"tcp_keepalives_idle": "5", "tcp_keepalives_interval": "2", "tcp_keepalives_count": "3"}
"""The server's probes of the lease connection: the session of a leader whose machine vanished
ends after about 5 + 2 x 3 = 11 s; its lease row has expired long before (ignored over a Unix
socket, where the kernel tells at once)."""
DATA_PREFIX: Final = "guandan-bot"
LEASE_PREFIX: Final = "guandan-lease"
CLAIM_SETTING: Final = "guandan.lease"
"""The data session's setting read by the fence trigger: ``<bot id>:<epoch>``."""

LEASE_TABLE: Final = """CREATE TABLE IF NOT EXISTS bot_lease (
    bot_id BIGINT PRIMARY KEY,
    holder TEXT NOT NULL,
    holder_pid INTEGER NOT NULL,
    epoch BIGINT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
)"""
"""The lease's table; migration 0018 (PostgreSQL) creates the same one (a test compares them).
A standby creates it too, since it asks for the lease before it opens (and migrates) the store."""

_ROW: Final = (
    "INSERT INTO bot_lease (bot_id, holder, holder_pid, epoch, expires_at)"
    " VALUES ($1, '', 0, 0, 'epoch') ON CONFLICT (bot_id) DO NOTHING"
)
_TAKE: Final = """
WITH old AS (SELECT bot_id, holder_pid, expires_at FROM bot_lease WHERE bot_id = $1 FOR UPDATE)
UPDATE bot_lease AS lease
   SET holder = $2, holder_pid = pg_backend_pid(), epoch = lease.epoch + 1,
       expires_at = clock_timestamp() + make_interval(secs => $3)
  FROM old
 WHERE lease.bot_id = old.bot_id
   AND (old.expires_at <= clock_timestamp()
        OR NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = old.holder_pid))
RETURNING lease.epoch, GREATEST(0, EXTRACT(EPOCH FROM old.expires_at - clock_timestamp()))::float8"""
"""Take the row when it expired or its holder's lease session is gone; return the new epoch and
the seconds left of the old expiry (what the taker waits before its first request)."""
_RENEW: Final = (
    "UPDATE bot_lease SET expires_at = clock_timestamp() + make_interval(secs => $3)"
    " WHERE bot_id = $1 AND epoch = $2 AND holder_pid = pg_backend_pid() AND expires_at > clock_timestamp()"
)
_RELEASE: Final = (
    "UPDATE bot_lease SET expires_at = clock_timestamp()"
    " WHERE bot_id = $1 AND epoch = $2 AND holder_pid = pg_backend_pid()"
)
_CLAIM: Final = (
    "SELECT set_config($1, $2, false), EXISTS (SELECT 1 FROM bot_lease"
    " WHERE bot_id = $3 AND epoch = $4 AND expires_at > clock_timestamp())"
)


class LeaseLost(Exception):
    """This process does not hold the lease (any more): it must not act for the token."""


def bot_id_of(token: str) -> int:
    """The bot's Telegram id: the digits before the token's colon (``123456:ABC…``); 0 when the
    token has none (a store then holds one bot's rows)."""
    head = token.partition(":")[0]
    return int(head) if head.isdigit() else 0


def instance_name() -> str:
    """This process among the bot's: host and pid (``bot_lease.holder``, ``pg_stat_activity``)."""
    return f"{socket.gethostname()[:30]}-{os.getpid()}"


class Lease:
    """One process's claim to serve bot ``bot_id`` (module docstring). ``ttl`` is :data:`TTL`
    except in tests; the validity and the renewal period keep their proportions to it."""

    def __init__(
        self,
        dsn: str,
        bot_id: int,
        *,
        instance: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        ttl: float = TTL,
    ) -> None:
        self.dsn = dsn
        self.bot_id = bot_id
        self.instance = instance or instance_name()
        self.ttl = ttl
        self.validity = ttl * VALIDITY / TTL
        self.renew_every = ttl * RENEW_EVERY / TTL
        self._clock = clock
        self._conn: asyncpg.Connection | None = None
        self.epoch: int | None = None  # while this process holds the lease
        self._ready_at = 0.0  # the previous holder's expiry, on this process's clock
        self._valid_until = 0.0
        self.lost = asyncio.Event()
        self.session = Session(
            name=f"{DATA_PREFIX}:{bot_id}:{self.instance}"[:63], guard=self._guard, check=self._check_store
        )

    @property
    def held(self) -> bool:
        return self.epoch is not None and not self.lost.is_set()

    @property
    def connected(self) -> bool:
        """The lease connection is open (a standby that could take over)."""
        return self._conn is not None and not self._conn.is_closed()

    # ------------------------------------------------------------ standing by

    async def acquire(self) -> None:
        """Wait until this process holds the lease: connect (again after a failure), then try
        every :data:`LEASE_POLL` seconds."""
        waiting_logged = False
        while True:
            try:
                if await self._try():
                    log.info("bot %s: lease taken by %s (epoch %s)", self.bot_id, self.instance, self.epoch)
                    return
                if not waiting_logged:
                    log.info("bot %s: standing by (%s); another process leads", self.bot_id, self.instance)
                    waiting_logged = True
            except (StorageUnavailable, asyncpg.InterfaceError) as error:  # InterfaceError: closed
                log.warning("bot %s: the lease connection failed (%s); trying again", self.bot_id, error)
                await self._drop()
            await asyncio.sleep(LEASE_POLL)

    async def _try(self) -> bool:
        if not self.connected:
            await self._connect()
        assert self._conn is not None
        sent = self._clock()
        with postgresql_errors():
            await self._conn.execute(_ROW, self.bot_id)
            row = await self._conn.fetchrow(_TAKE, self.bot_id, self.instance, self.ttl)
        if row is None:
            return False
        self.epoch = int(row[0])
        self._valid_until = sent + self.validity
        self._ready_at = self._clock() + float(row[1])  # measured on the server, waited here
        return True

    async def _connect(self) -> None:
        name = f"{LEASE_PREFIX}:{self.bot_id}:{self.instance}"[:63]
        with postgresql_errors():
            self._conn = await asyncpg.connect(
                self.dsn, timeout=10, server_settings={"application_name": name, **KEEPALIVES}
            )
            async with self._conn.transaction():  # two processes creating it at once would clash
                await self._conn.execute(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK:d})")
                await self._conn.execute(LEASE_TABLE)

    async def fence(self) -> int:
        """End the bot's data sessions that are not this process's, and wait until they are
        gone: an old leader's open transaction is undone, and it cannot start another (its
        epoch is stale). Returns how many."""
        assert self._conn is not None and self.held
        others = await self._other_sessions()
        if others:
            with postgresql_errors():
                await self._conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", others
                )
            log.warning("bot %s: ended %d session(s) of the previous leader", self.bot_id, len(others))
        deadline = self._clock() + FENCE_TIMEOUT
        while await self._other_sessions():
            if self._clock() > deadline:
                raise StorageUnavailable("the previous leader's sessions did not end")
            await asyncio.sleep(0.05)
        return len(others)

    async def _other_sessions(self) -> list[int]:
        assert self._conn is not None
        with postgresql_errors():
            rows = await self._conn.fetch(
                "SELECT pid FROM pg_stat_activity WHERE application_name LIKE $1"
                " AND application_name <> $2 AND pid <> pg_backend_pid()",
                f"{DATA_PREFIX}:{self.bot_id}:%",
                self.session.name,
            )
        return [int(row["pid"]) for row in rows]

    # ------------------------------------------------------------ leading

    async def keep(self) -> None:
        """Renew the lease every :data:`RENEW_EVERY` seconds on this event loop; return once it
        is lost (a renewal found the row expired or taken, failed, or took over
        :data:`RENEW_TIMEOUT`)."""
        while self.held:
            await asyncio.sleep(self.renew_every)
            if not self.held:
                return
            sent = self._clock()
            try:
                renewed = await asyncio.wait_for(self._renew(), RENEW_TIMEOUT)
            except (StorageUnavailable, asyncpg.InterfaceError, TimeoutError) as error:
                self.give_up(f"the renewal failed: {error or type(error).__name__}")
                return
            if not renewed:
                self.give_up("the lease expired or passed to another process before it was renewed")
                return
            self.confirm(sent)

    async def _renew(self) -> bool:
        if self._conn is None or self.epoch is None:
            return False
        with postgresql_errors():
            status = await self._conn.execute(_RENEW, self.bot_id, self.epoch, self.ttl)
        return bool(status == "UPDATE 1")

    def confirm(self, sent: float) -> None:
        """A renewal sent at ``sent`` (this process's clock) succeeded."""
        self._valid_until = max(self._valid_until, sent + self.validity)

    def give_up(self, why: str) -> None:
        """The lease is lost: from now on :meth:`admit` and :meth:`check` refuse."""
        if not self.lost.is_set():
            log.error("bot %s: lease lost (%s): stepping down", self.bot_id, why)
            self.lost.set()

    def check(self) -> float:
        """Seconds this process must still wait before acting (0: act now); :class:`LeaseLost`
        when it may not act at all."""
        if not self.held:
            raise LeaseLost(f"bot {self.bot_id}: this process does not hold the lease")
        now = self._clock()
        if now >= self._valid_until:
            raise LeaseLost(f"bot {self.bot_id}: the lease was not renewed for {self.validity:g} s")
        return max(0.0, self._ready_at - now)

    async def admit(self) -> None:
        """Before every Bot API request: wait out the previous holder's expiry, refuse once
        the lease is lost or not renewed in time (:class:`LeaseLost`)."""
        while wait := self.check():
            await asyncio.sleep(wait)

    def fenced(self) -> None:
        """Once a Bot API request holds its connection, just before it is written: refuse
        unless the lease is valid now (no waiting: the taker's wait was :meth:`admit`'s)."""
        if self.check():
            raise LeaseLost(f"bot {self.bot_id}: the previous holder's lease has not expired yet")

    def _check_store(self) -> None:
        """Before every statement: a process whose lease is lost or stale uses the store no more
        (the database's fence refuses its writes anyway: this saves the trip)."""
        try:
            self.check()
        except LeaseLost as error:
            raise StorageUnavailable(str(error)) from error

    async def _guard(self, raw: asyncpg.Connection) -> None:
        """Every data session, new or reconnected, carries this process's epoch (the fence
        trigger reads it) and is refused unless that epoch holds the unexpired lease."""
        if not self.held or self.epoch is None:
            raise StorageUnavailable(f"bot {self.bot_id}: this process does not hold the lease")
        claim = f"{self.bot_id}:{self.epoch}"
        row = await raw.fetchrow(_CLAIM, CLAIM_SETTING, claim, self.bot_id, self.epoch)
        if not row[1]:
            self.give_up("the lease expired or passed to another process")
            raise StorageUnavailable(f"bot {self.bot_id}: the lease has passed to another process")

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.terminate()

    async def close(self) -> None:
        """Leave: refuse from now on, then mark the row expired, so a standby takes it at once
        (and need not wait: this process has stopped acting)."""
        epoch, self.epoch = self.epoch, None
        conn, self._conn = self._conn, None
        if conn is None or conn.is_closed():
            return
        try:
            if epoch is not None:
                await asyncio.wait_for(conn.execute(_RELEASE, self.bot_id, epoch), RENEW_TIMEOUT)
            await asyncio.wait_for(conn.close(), RENEW_TIMEOUT)
        except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            conn.terminate()
