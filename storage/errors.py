"""Storage errors: a missing row and a violated uniqueness rule are different causes (and a store
that cannot take a write now, :class:`common.faults.StorageUnavailable`, which every layer names)."""

from __future__ import annotations

from common.faults import StorageUnavailable

__all__ = ["NotFound", "StorageConflict", "StorageUnavailable"]


class NotFound(LookupError):
    """The requested row does not exist (repositories never return ``None`` silently)."""


class StorageConflict(ValueError):
    """A write broke a uniqueness rule (e.g. a second active table in one group)."""
