"""A fault every layer speaks of: the store could not take a write (or read) right now.

Storage raises it, the application lets it through (nothing was changed, so the same request
may succeed later) and a handler answers "not saved, try again". It lives at the bottom so a
handler names it without importing storage (``tests/test_layers.py``: handlers → storage 0);
``storage.StorageUnavailable`` is this class.
"""

from __future__ import annotations


class StorageUnavailable(RuntimeError):
    """The database could not take a write (or read) right now: read-only, locked by another
    process beyond the busy timeout, disk full or an I/O error. Nothing was changed; the same
    request may succeed once storage is back (a caller answers "not saved, try again").

    ``written``: rows of a multi-statement write stored before the fault (a prefix)."""

    def __init__(self, message: str, *, written: int = 0) -> None:
        super().__init__(message)
        self.written = written
