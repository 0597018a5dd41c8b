"""SQLite persistence behind a small interface: tables, seats, the action log, users.

Open with :meth:`Database.open`; the repositories hang off it. A match is never
stored as state, only as rules + seed + its ordered action log (replayed on start).
"""

from storage.database import Database
from storage.errors import NotFound, StorageConflict
from storage.models import ActionRecord, ChatRecord, SeatRecord, TableRecord, TableStatus, UserRecord

__all__ = [
    "ActionRecord",
    "ChatRecord",
    "Database",
    "NotFound",
    "SeatRecord",
    "StorageConflict",
    "TableRecord",
    "TableStatus",
    "UserRecord",
]
