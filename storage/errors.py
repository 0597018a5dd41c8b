"""Storage errors: a missing row and a violated uniqueness rule are different causes."""

from __future__ import annotations


class NotFound(LookupError):
    """The requested row does not exist (repositories never return ``None`` silently)."""


class StorageConflict(ValueError):
    """A write broke a uniqueness rule (e.g. a second active table in one group)."""
