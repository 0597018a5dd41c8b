"""The numbered migrations both backends share: where they are, their order, and how a script
splits into statements. Each backend runs them its own way (:meth:`Connection.migrate
<storage.backend.Connection.migrate>`: :mod:`storage.sqlite`, :mod:`storage.postgresql`).

Migrations are ``storage/migrations/NNNN_name.sql`` for SQLite and
``storage/migrations/postgresql/NNNN_name.sql`` for PostgreSQL: one history, the same numbers,
each file the same change in its dialect (:func:`twins` checks the names, tests/storage/
test_schemas.py the schemas they end in). Each file runs in one transaction together with the
version bump, so a crash leaves either the old or the new schema.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

MIGRATIONS_DIR: Final = Path(__file__).with_name("migrations")
POSTGRESQL_MIGRATIONS: Final = "postgresql"
"""The folder, inside a migrations folder, of the same migrations in PostgreSQL's dialect."""
_MIGRATION_NAME: Final = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
_DOLLAR_QUOTE: Final = re.compile(r"(\$\$.*?\$\$)", re.DOTALL)


@dataclass(frozen=True, slots=True, order=True)
class Migration:
    number: int
    path: Path


def migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """The migration files in order; numbers must run 1, 2, 3… without gaps."""
    found = sorted(
        Migration(int(match.group(1)), path)
        for path in directory.iterdir()
        if (match := _MIGRATION_NAME.match(path.name))
    )
    for expected, migration in enumerate(found, start=1):
        if migration.number != expected:
            raise RuntimeError(f"migration {expected:04d} is missing (found {migration.path.name})")
    return found


def twins(directory: Path = MIGRATIONS_DIR) -> list[str]:
    """The migrations' names, the same in both dialects: one history, so a file added to one
    folder only (or named differently in the other) is refused here."""
    sqlite = [migration.path.name for migration in migrations(directory)]
    postgresql = [migration.path.name for migration in migrations(directory / POSTGRESQL_MIGRATIONS)]
    if sqlite != postgresql:
        only = sorted(set(sqlite) ^ set(postgresql))
        raise RuntimeError(f"the two dialects' migrations differ: {only}")
    return sqlite


def statements(script: str) -> list[str]:
    """Split a migration into statements (``executescript`` would commit on its own). A
    ``;`` inside a dollar-quoted body (``$$ … $$``: a PostgreSQL function) does not end one."""
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    found, current = [], ""
    for index, part in enumerate(_DOLLAR_QUOTE.split("\n".join(lines))):
        if index % 2:  # a quoted body, with its $$ kept
            current += part
            continue
        first, *rest = part.split(";")
        current += first
        for piece in rest:
            found.append(current)
            current = piece
    found.append(current)
    return [statement.strip() for statement in found if statement.strip()]
