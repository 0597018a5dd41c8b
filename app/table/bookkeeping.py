"""Bookkeeping writes that may lag behind memory: which message shows what, 托管 flags, a status.

No Telegram here. Memory already holds such a value, so a storage fault only delays its write:
it waits here and is stored after the next successful save of the action log, or by
:meth:`Bookkeeping.catch_up`; a newer value of the same key replaces it. Actions are never
kept this way (the table service writes them before anything is shown).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Hashable

from storage import StorageUnavailable

log = logging.getLogger(__name__)

Write = Callable[[], Awaitable[None]]


class Bookkeeping:
    """The writes that failed (or wait for the next save), by key."""

    def __init__(self) -> None:
        self._behind: dict[Hashable, Write] = {}

    @property
    def behind(self) -> bool:
        """Whether a write still waits for storage."""
        return bool(self._behind)

    async def keep(self, key: Hashable, write: Write) -> None:
        """Store now; on a storage fault keep it for later (a later value of ``key`` wins)."""
        self._behind[key] = write
        try:
            await write()
        except StorageUnavailable as error:
            log.warning("storage unavailable, %s stored later: %s", key, error)
            return
        self._done(key, write)

    def later(self, key: Hashable, write: Write) -> None:
        """Store with the next save (the value changed with an action not yet written)."""
        self._behind[key] = write

    def forget(self, key: Hashable) -> None:
        """The value was stored another way."""
        self._behind.pop(key, None)

    async def catch_up(self) -> bool:
        """Store every write that waits; True if none is left."""
        for key, write in list(self._behind.items()):
            try:
                await write()
            except StorageUnavailable as error:
                log.warning("storage still unavailable (%s): %d writes wait", error, len(self._behind))
                return False
            self._done(key, write)
        return True

    def _done(self, key: Hashable, write: Write) -> None:
        if self._behind.get(key) is write:
            del self._behind[key]
