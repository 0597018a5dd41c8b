"""The suite's markers, and the two stores storage tests run against.

``store``: a database target, once an SQLite file and once a PostgreSQL database on the
session's own throw-away cluster (emulator/postgresql.py). Without PostgreSQL's binaries the
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

from emulator import postgresql
from emulator.postgresql import Cluster

CALENDAR_TESTS = (
    "tests/engine/contest/",
    "tests/storage/test_contest",
    "tests/storage/test_table_health_migration.py",
    "tests/app/test_contest_",
    "tests/handlers/test_contest_",
    "tests/handlers/test_timers.py",
    "tests/handlers/test_chats.py",
    "tests/handlers/test_storage_faults.py",
    "tests/app/test_table_service.py",
    "tests/e2e/test_contest_",
    "tests/e2e/test_departures_e2e.py",
    "tests/e2e/test_storage_faults_e2e.py",
)
"""Where the tests that depend on dates and clocks live (by path prefix, from the repository)."""

SERIAL_TESTS = (
    "tests/e2e/test_capacity_e2e.py",  # fills the bot to its table limit: CPU-bound
    "tests/e2e/test_fencing_e2e.py",  # 30 tables against a slow API; a frozen leader replaced in 15 s
    "tests/e2e/test_failover_e2e.py",  # a killed leader's tables back within a bound
    "tests/e2e/test_miniapp_failover_browser_e2e.py",  # two bots, caddy, chromium: a page back in seconds
    "tests/e2e/test_flood_e2e.py",  # how long a flood holds the other chats and the shutdown
    "tests/e2e/test_phone_speed_e2e.py",  # taps 150 ms apart against edits 300-800 ms late
    "tests/e2e/test_random_walk_e2e.py",  # six users at once, every press answered within 15 s
)
"""Run alone, after the rest (`make test`): their bounds are seconds of a busy bot, which other
tests' bots on the same two cores would stretch. The rest may run on several workers
(`make test TEST_WORKERS=3`, pytest-xdist): most of the suite's time is spent waiting on the
emulator and Telegram's pacing, not on the CPU (docs/testing.md, "Parallel and serial")."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "calendar: reads dates or clocks; run again 400 days ahead in CI")
    config.addinivalue_line("markers", "serial: timed against a busy bot; run alone, after the others")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    for item in items:
        where = item.path.relative_to(root).as_posix()
        if where.startswith(CALENDAR_TESTS):
            item.add_marker(pytest.mark.calendar)
        if where.startswith(SERIAL_TESTS):
            item.add_marker(pytest.mark.serial)


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
