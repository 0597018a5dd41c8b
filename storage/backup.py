"""A consistent copy of the bot's SQLite store while the bot runs (``python -m storage backup``).

SQLite's online backup API (:meth:`sqlite3.Connection.backup`) copies the pages of one read
transaction: in WAL mode the bot's writes go on meanwhile into the write-ahead log, and the
copy is the store as it was at one moment, with no half-written match in it. A file copy
(``cp``) of a store in use can catch the main file and its log at different moments. The copy
is done in a single step: a copy in steps restarts whenever another connection writes between
two of them, which at a busy bot is always.

The copy is written to a temporary file beside DEST and renamed to DEST once complete and
checked, so an interrupted backup leaves no half DEST, and a refused one touches nothing. The
copy is left in rollback-journal mode: one self-contained file, which a restore puts where
``GUANDAN_DB`` points (the bot switches it back to WAL when it opens it).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from storage.schema import migrations

BOT_TABLES = ("game_tables", "seats", "actions")
"""Tables every version of this bot's store has: a database without them is another program's."""


class BackupRefused(Exception):
    """The backup cannot be made as asked; the message says why, and nothing was written."""


@dataclass(frozen=True)
class Copied:
    """What a backup copied."""

    source: str
    dest: Path
    tables: int
    rows: int
    bytes: int
    seconds: float
    schema: int

    def summary(self) -> str:
        return (
            f"backed up {self.source} to {self.dest}: {self.tables} tables, {self.rows:,} rows,"
            f" {self.bytes:,} bytes (schema {self.schema}) in {self.seconds:.2f} s"
        )


def is_postgres(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def backup(source: str, dest: Path, *, force: bool = False) -> Copied:
    """Copy the store at ``source`` to ``dest``; :class:`BackupRefused` says why not."""
    if is_postgres(source):
        raise BackupRefused(
            "GUANDAN_DB names a PostgreSQL database: back it up with PostgreSQL's own tool,"
            ' pg_dump (e.g. pg_dump --format=custom --file=DEST "$GUANDAN_DB")'
        )
    started = time.perf_counter()
    target = _checked_dest(dest, force)
    with contextlib.closing(_open_source(source)) as conn:
        schema = _check_is_bot_store(conn, source)
        copied = _copy(conn, target)
    tables, rows = copied
    return Copied(source, dest, tables, rows, dest.stat().st_size, time.perf_counter() - started, schema)


def _checked_dest(dest: Path, force: bool) -> Path:
    """DEST as an absolute path, once it may be written."""
    if dest.is_dir():
        raise BackupRefused(f"{dest} is a directory: name the backup file, e.g. {dest / 'guandan.db'}")
    if dest.exists() and not force:
        raise BackupRefused(f"{dest} exists: pass --force to replace it")
    folder = dest.absolute().parent
    if not folder.is_dir():
        raise BackupRefused(f"{folder} is not a directory")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise BackupRefused(f"cannot write in {folder}: {error.strerror or error}") from error
    return dest.absolute()


def _open_source(source: str) -> sqlite3.Connection:
    """The store, opened read-only: a backup writes nothing to it (and creates no file there)."""
    path = Path(source)
    if not path.is_file():
        raise BackupRefused(f"no database at {source} (GUANDAN_DB names the bot's store)")
    try:
        return sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise BackupRefused(f"cannot open {source}: {error}") from error


def _check_is_bot_store(conn: sqlite3.Connection, source: str) -> int:
    """The store's schema version; :class:`BackupRefused` if it is not this bot's store."""
    try:
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        (version,) = conn.execute("PRAGMA user_version").fetchone()
    except sqlite3.DatabaseError as error:  # "file is not a database"
        raise BackupRefused(f"{source} is not an SQLite database ({error})") from error
    missing = [name for name in BOT_TABLES if name not in names]
    if missing or version < 1:
        lacks = ", ".join(missing) or "schema"
        raise BackupRefused(f"{source} is not this bot's database (it has no {lacks})")
    if version > len(migrations()):
        raise BackupRefused(f"{source} has schema {version}, newer than this bot's ({len(migrations())})")
    return int(version)


def _copy(conn: sqlite3.Connection, dest: Path) -> tuple[int, int]:
    """Copy into a temporary file beside ``dest``, check it, then rename it to ``dest``."""
    handle, name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".partial", dir=dest.parent)
    os.close(handle)
    partial = Path(name)
    try:
        with contextlib.closing(sqlite3.connect(partial, isolation_level=None)) as copy:
            conn.backup(copy)  # one step: one read transaction, one moment of the store
            copy.execute("PRAGMA journal_mode = DELETE")
            counted = _counted(copy)
        os.replace(partial, dest)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return counted


def _counted(copy: sqlite3.Connection) -> tuple[int, int]:
    """The copy's tables and rows, counted by reading every row (a check that the copy reads)."""
    (check,) = copy.execute("PRAGMA quick_check").fetchone()
    if check != "ok":
        raise BackupRefused(f"the copy failed its check: {check}")
    names = [row[0] for row in copy.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    rows = sum(copy.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0] for name in names)
    return len(names), rows
