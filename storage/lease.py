"""The lease: which one of a bot's processes serves its token (issue 34, docs/postgresql.md).

Several processes run with the same token against one PostgreSQL; one leads (polls Telegram
or takes its webhook, sends, writes), the others stand by. The lease is PostgreSQL's own
session advisory lock, held by a connection used for nothing else: PostgreSQL frees it when
that session ends, at once for a killed process, after the server's TCP keepalives for a
machine that vanished. No home-made protocol, no clocks compared between machines.

Three rules keep two processes from ever acting for the token at once:

* **the leader checks its lease** every :data:`HEARTBEAT` seconds (a statement on the lease
  connection, :data:`HEARTBEAT_TIMEOUT` at most); a failed check is the lease lost. Between
  checks it may act only until :data:`VALIDITY` seconds after the last check that succeeded
  was *sent* (:meth:`Lease.admit`, asked before every Bot API request): a process whose
  checks hang stops by itself;
* **the taker waits** :data:`VALIDITY` seconds after the lock was granted before its first
  Bot API request: by then any earlier leader has stopped by the rule above (the lock was
  freed after its last successful check was sent, and granted before the taker heard so);
* **the taker fences the store**: it terminates the bot's other data sessions (named
  ``guandan-bot:<bot id>:<instance>``) and waits until they are gone, and every data session,
  new or reconnected, first checks that its process's lease session still holds the lock
  (:attr:`Lease.session`'s guard). An old leader that has not noticed yet cannot write again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import socket
import time
from collections.abc import Callable
from typing import Final

import asyncpg

from storage.backend import Session, postgresql_errors
from storage.errors import StorageUnavailable

log = logging.getLogger(__name__)

LEASE_POLL: Final = 1.0
"""Seconds between a standby's requests for the lock."""
HEARTBEAT: Final = 1.0
"""Seconds between the leader's checks of its lease connection."""
HEARTBEAT_TIMEOUT: Final = 2.0
"""Seconds a check may take before the lease counts as lost."""
VALIDITY: Final = HEARTBEAT + HEARTBEAT_TIMEOUT
"""Seconds after a successful check was sent during which the leader may still act; the
taker waits as long after the lock was granted."""
FENCE_TIMEOUT: Final = 5.0
"""Seconds the taker waits for the terminated sessions to end."""
KEEPALIVES: Final = {"tcp_keepalives_idle": "5", "tcp_keepalives_interval": "2", "tcp_keepalives_count": "3"}
"""The server's probes of the lease connection: a leader whose machine vanished loses the lock
after about 5 + 2 x 3 = 11 s (ignored over a Unix socket, where the kernel tells at once)."""
DATA_PREFIX: Final = "guandan-bot"
LEASE_PREFIX: Final = "guandan-lease"


class LeaseLost(Exception):
    """This process does not hold the lease (any more): it must not act for the token."""


def bot_id_of(token: str) -> int:
    """The bot's Telegram id: the digits before the token's colon (``123456:ABC…``); 0 when the
    token has none (a store then holds one bot's rows)."""
    head = token.partition(":")[0]
    return int(head) if head.isdigit() else 0


def lease_key(bot_id: int) -> int:
    """The advisory lock's 64-bit key for ``bot_id``: a hash, so it stays clear of the
    migration lock's constant and of other bots' keys (a clash is a 1 in 2⁶⁴ chance)."""
    digest = hashlib.blake2b(f"guandan-lease:{bot_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def instance_name() -> str:
    """This process among the bot's: host and pid (``pg_stat_activity`` shows it)."""
    return f"{socket.gethostname()[:30]}-{os.getpid()}"


class Lease:
    """One process's claim to serve bot ``bot_id`` (module docstring)."""

    def __init__(
        self,
        dsn: str,
        bot_id: int,
        *,
        instance: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.dsn = dsn
        self.bot_id = bot_id
        self.instance = instance or instance_name()
        self._clock = clock
        self._conn: asyncpg.Connection | None = None
        self._pid: int | None = None  # the lease session's backend, once it holds the lock
        self._granted_at: float | None = None
        self._confirmed_at = 0.0
        self.lost = asyncio.Event()
        self.session = Session(name=f"{DATA_PREFIX}:{bot_id}:{self.instance}"[:63], guard=self._guard)

    @property
    def held(self) -> bool:
        return self._pid is not None and not self.lost.is_set()

    @property
    def connected(self) -> bool:
        """The lease connection is open (a standby that could take over)."""
        return self._conn is not None and not self._conn.is_closed()

    # ------------------------------------------------------------ standing by

    async def acquire(self) -> None:
        """Wait until this process holds the lock: connect (again after a failure), then ask
        every :data:`LEASE_POLL` seconds."""
        waiting_logged = False
        while True:
            try:
                if await self._try():
                    log.info("bot %s: lease taken by %s", self.bot_id, self.instance)
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
        with postgresql_errors():
            got = await self._conn.fetchval("SELECT pg_try_advisory_lock($1)", lease_key(self.bot_id))
        if got:
            self._granted_at = self._confirmed_at = self._clock()
            self._pid = self._conn.get_server_pid()
        return bool(got)

    async def _connect(self) -> None:
        name = f"{LEASE_PREFIX}:{self.bot_id}:{self.instance}"[:63]
        with postgresql_errors():
            self._conn = await asyncpg.connect(
                self.dsn, timeout=10, server_settings={"application_name": name, **KEEPALIVES}
            )

    async def fence(self) -> int:
        """End the bot's data sessions that are not this process's, and wait until they are
        gone: an old leader can then neither finish nor start a write. Returns how many."""
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
        """Check the lease every :data:`HEARTBEAT` seconds; return once it is lost (the lease
        connection failed, or a check took over :data:`HEARTBEAT_TIMEOUT`)."""
        while self.held:
            await asyncio.sleep(HEARTBEAT)
            sent = self._clock()
            try:
                assert self._conn is not None
                with postgresql_errors():
                    await asyncio.wait_for(self._conn.fetchval("SELECT 1"), HEARTBEAT_TIMEOUT)
            except (StorageUnavailable, asyncpg.InterfaceError, AssertionError) as error:
                self.give_up(f"the lease connection failed: {error}")
                return
            self.confirm(sent)

    def confirm(self, sent: float) -> None:
        """A check sent at ``sent`` (this process's clock) found the lease session alive."""
        self._confirmed_at = max(self._confirmed_at, sent)

    def give_up(self, why: str) -> None:
        """The lease is lost: from now on :meth:`admit` refuses."""
        if not self.lost.is_set():
            log.error("bot %s: lease lost (%s): stepping down", self.bot_id, why)
            self.lost.set()

    def check(self) -> float:
        """Seconds this process must still wait before acting (0: act now); :class:`LeaseLost`
        when it may not act at all."""
        if not self.held or self._granted_at is None:
            raise LeaseLost(f"bot {self.bot_id}: this process does not hold the lease")
        now = self._clock()
        if now >= self._confirmed_at + VALIDITY:
            raise LeaseLost(f"bot {self.bot_id}: the lease was not confirmed for {VALIDITY:g} s")
        return max(0.0, self._granted_at + VALIDITY - now)

    async def admit(self) -> None:
        """Before every Bot API request: wait out the taker's :data:`VALIDITY`, refuse once
        the lease is lost or unconfirmed (:class:`LeaseLost`)."""
        while wait := self.check():
            await asyncio.sleep(wait)

    async def _guard(self, raw: asyncpg.Connection) -> None:
        """A data session may be used only while this process's lease session holds the lock."""
        if not self.held:
            raise StorageUnavailable(f"bot {self.bot_id}: this process does not hold the lease")
        holds = await raw.fetchval(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = $1)",
            self._pid,
        )
        if not holds:
            self.give_up("the lease session no longer holds the lock")
            raise StorageUnavailable(f"bot {self.bot_id}: the lease has passed to another process")

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.terminate()

    async def close(self) -> None:
        """Leave: the lock is freed with the session, and a standby takes it at once."""
        self._pid = None
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            try:
                await asyncio.wait_for(conn.close(), HEARTBEAT_TIMEOUT)
            except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                conn.terminate()
