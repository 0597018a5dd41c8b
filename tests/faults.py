"""Storage faults for tests, on a real SQLite file: read-only, locked by another process, disk full.

Each is switched on and off around the press or clock under test, on the bot's own
connection (or, for the lock, a second connection as another process would hold it):

* ``read_only``: ``PRAGMA query_only`` makes every write fail with SQLITE_READONLY, the error
  a ``mode=ro`` connection or a read-only file gives (the tests may run as root, for whom
  ``chmod`` does not make a file read-only).
* ``locked``: a second connection holds ``BEGIN EXCLUSIVE``; the bot's busy timeout is
  shortened to 0.2 s so its write fails with SQLITE_BUSY ("database is locked") quickly.
* ``full``: ``PRAGMA max_page_count`` caps the file at its current size and probe rows fill
  the last page of the action log, so the next logged action needs a page there is no room
  for: SQLITE_FULL ("database or disk is full"), as on a full disk.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from storage import Database

FAULTS = ("read_only", "locked", "full")
BUSY_TIMEOUT_MS = 200
NO_LIMIT = 1_073_741_823  # SQLite's default max_page_count


class StorageFault:
    """One kind of fault on one database; :meth:`on` and :meth:`off` may alternate."""

    def __init__(self, kind: str, db: Database, path: Path) -> None:
        if kind not in FAULTS:
            raise ValueError(kind)
        self.kind = kind
        self.db = db
        self.path = path
        self._holder: sqlite3.Connection | None = None
        self._probe_table: int | None = None
        self._probe_version = 1_000_000

    async def on(self) -> None:
        if self.kind == "read_only":
            await self.db.sqlite.execute("PRAGMA query_only = ON")
        elif self.kind == "locked":
            await self.db.sqlite.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._holder = sqlite3.connect(self.path, isolation_level=None)
            self._holder.execute("BEGIN EXCLUSIVE")
        else:
            await self._fill()

    async def off(self) -> None:
        if self.kind == "read_only":
            await self.db.sqlite.execute("PRAGMA query_only = OFF")
        elif self.kind == "locked":
            assert self._holder is not None
            self._holder.execute("ROLLBACK")
            self._holder.close()
            self._holder = None
        else:
            await self.db.sqlite.execute(f"PRAGMA max_page_count = {NO_LIMIT}")

    async def _fill(self) -> None:
        """Cap the file, then log probe actions (for a table of their own) until nothing fits."""
        conn = self.db.sqlite
        if self._probe_table is None:
            cursor = await conn.execute(
                "INSERT INTO game_tables (chat_id, token, creator_id, status, preset, rules_json, seed,"
                " created_at) VALUES (-999999, 'probe', 0, 'stopped', 'default', '{}', 0, '')"
            )
            self._probe_table = cursor.lastrowid
            await cursor.close()
        async with conn.execute("PRAGMA page_count") as cursor:
            row = await cursor.fetchone()
        assert row is not None
        await conn.execute(f"PRAGMA max_page_count = {int(row[0])}")
        for size in (2000, 200, 1):
            while True:
                try:
                    await conn.execute(
                        "INSERT INTO actions (table_id, version, seat, action_json, created_at)"
                        " VALUES (?, ?, NULL, ?, '')",
                        (self._probe_table, self._probe_version, "x" * size),
                    )
                except sqlite3.OperationalError as error:
                    assert error.sqlite_errorcode == sqlite3.SQLITE_FULL, error
                    break
                self._probe_version += 1
