"""Persistence behind a small interface: tables, seats, the action log, users, contests.

SQLite (a file, the default) or PostgreSQL (a ``postgresql://`` URL, docs/postgresql.md).
Open with :meth:`Database.open`; the repositories hang off it. A match is never
stored as state, only as rules + seed + its ordered action log (replayed on start).
"""

from storage.contests import ContestRepository, StoredContest
from storage.database import Database
from storage.errors import NotFound, StorageConflict, StorageUnavailable
from storage.models import ActionRecord, ChatRecord, SeatRecord, TableRecord, TableStatus, UserRecord

__all__ = [
    "ActionRecord",
    "ChatRecord",
    "ContestRepository",
    "Database",
    "NotFound",
    "SeatRecord",
    "StorageConflict",
    "StorageUnavailable",
    "StoredContest",
    "TableRecord",
    "TableStatus",
    "UserRecord",
]
