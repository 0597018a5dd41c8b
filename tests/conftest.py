"""The suite's markers, and the two stores storage tests run against.

``store``: a database target, once an SQLite file and once a PostgreSQL database on the
session's own throw-away cluster (tests/postgresql.py). Without PostgreSQL's binaries the
PostgreSQL half is skipped on a developer's machine but fails in CI (``CI=true``), where
`make test` has installed them (scripts/system-deps.sh).

``calendar``: tests that read dates, deadlines or clocks. CI runs them a second time under
libfaketime 400 days ahead (``scripts/calendar-check.sh``), so a test that holds a calendar
date the real calendar will overtake fails the day it is written, not months later.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import postgresql
from tests.postgresql import Cluster

CALENDAR_TESTS = (
    "tests/engine/contest/",
    "tests/storage/test_contest",
    "tests/storage/test_table_health_migration.py",
    "tests/handlers/test_contest_",
    "tests/handlers/test_timers.py",
    "tests/handlers/test_chats.py",
    "tests/handlers/test_storage_faults.py",
    "tests/handlers/test_table_service.py",
    "tests/e2e/test_contest_",
    "tests/e2e/test_departures_e2e.py",
    "tests/e2e/test_storage_faults_e2e.py",
)
"""Where the tests that depend on dates and clocks live (by path prefix, from the repository)."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "calendar: reads dates or clocks; run again 400 days ahead in CI")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    for item in items:
        where = item.path.relative_to(root).as_posix()
        if where.startswith(CALENDAR_TESTS):
            item.add_marker(pytest.mark.calendar)


@pytest.fixture(scope="session")
def postgresql_cluster() -> Iterator[Cluster]:
    bin_dir = postgresql.binaries()
    if bin_dir is None:
        why = "PostgreSQL is not installed (apt-get install postgresql, or `make system-deps`)"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    cluster = Cluster.start(bin_dir)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's database lives: an SQLite file, or a fresh PostgreSQL database's URL."""
    if request.param == "sqlite":
        return str(tmp_path / "guandan.db")
    cluster: Cluster = request.getfixturevalue("postgresql_cluster")
    return cluster.new_database()
