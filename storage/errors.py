"""Storage errors: a missing row and a violated uniqueness rule are different causes."""

from __future__ import annotations


class NotFound(LookupError):
    """The requested row does not exist (repositories never return ``None`` silently)."""


class StorageConflict(ValueError):
    """A write broke a uniqueness rule (e.g. a second active table in one group)."""


class StorageUnavailable(RuntimeError):
    """The database could not take a write (or read) right now: read-only, locked by another
    process beyond the busy timeout, disk full or an I/O error. Nothing was changed; the same
    request may succeed once storage is back (a caller answers "not saved, try again").

    ``written``: rows of a multi-statement write stored before the fault (a prefix)."""

    def __init__(self, message: str, *, written: int = 0) -> None:
        super().__init__(message)
        self.written = written
